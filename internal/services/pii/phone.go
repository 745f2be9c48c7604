package pii

import (
	"strconv"
	"strings"
	"sync"

	"github.com/nyaruka/phonenumbers"
)

// nationalRegions are the regions whose national formats (numbers written without a country
// code) are recognised, in the order they are tried. Numbers with a country code ("+44 ...",
// "0044 ...") are validated for whatever country the code names.
//
// Regions whose numbers have no trunk prefix and a short fixed length (Denmark, Norway,
// Luxembourg: any eight digits, say) are left out: too many house numbers, postal codes and
// amounts would pass. Their numbers are found with a country code or a phone keyword.
var nationalRegions = []string{"US", "GB", "DE", "FR", "ES", "IT", "NL", "PT", "PL", "AT", "CH", "BE", "IE", "SE", "FI"}

// phoneRegion is what validating a national number needs of one region's metadata.
type phoneRegion struct {
	id      string
	cc      int32
	prefix  string // national (trunk) prefix, "" if the region has none
	lengths uint32 // bit n set: a national significant number may have n digits
}

// phoneRegions reads the regions' metadata from libphonenumber once per process.
var phoneRegions = sync.OnceValues(func() ([]phoneRegion, error) {
	coll, err := phonenumbers.MetadataCollection()
	if err != nil {
		return nil, err
	}
	byID := make(map[string]*phonenumbers.PhoneMetadata, len(coll.GetMetadata()))
	for _, m := range coll.GetMetadata() {
		byID[m.GetId()] = m
	}
	out := make([]phoneRegion, 0, len(nationalRegions))
	for _, id := range nationalRegions {
		m, ok := byID[id]
		if !ok {
			continue
		}
		r := phoneRegion{id: id, cc: m.GetCountryCode()}
		if p := m.GetNationalPrefixForParsing(); p != "" && allDigits(p) {
			r.prefix = p
		} else if p := m.GetNationalPrefix(); allDigits(p) {
			r.prefix = p
		}
		for _, l := range m.GetGeneralDesc().GetPossibleLength() {
			if l > 0 && l < 32 {
				r.lengths |= 1 << l
			}
		}
		out = append(out, r)
	}
	return out, nil
})

// phoneCache remembers libphonenumber's verdict per digit string within one text, as numbers
// often repeat. It stops growing at maxCached entries.
type phoneCache map[string]bool

const maxCached = 512

// phonesIn looks for phone numbers in a numeric sequence of at most maxPhoneGroups groups: the
// whole sequence first, then, when it is not one, runs of its groups split at single spaces,
// longest first from the left ("Tel 030 1234567 0171 2345678" holds two). Longer sequences are
// tables of numbers, not phone numbers. The number of runs tried is bounded by the group limit.
func (s *scanner) phonesIn(start int, lead byte, gs []group) {
	// A card-shaped sequence that is not a card (its Luhn digit is wrong) is a look-alike,
	// not a phone number followed by digits.
	if len(gs) > maxPhoneGroups || (lead == 0 && cardShape(gs)) {
		return
	}
	if s.phone(start, lead, gs, true, false) || len(gs) < 2 {
		return
	}
	// Runs that libphonenumber validates first; a phone keyword admits other runs only when
	// no valid split exists.
	if !s.phoneRuns(start, lead, gs, true) {
		s.phoneRuns(start, lead, gs, false)
	}
}

// phoneRuns splits a sequence at single spaces into runs and reports the split whose phone
// numbers cover the most groups (then the fewest numbers): "030 1234567 0171 2345678" is two
// numbers, not "030 1234567 0171" and a stray "2345678". With at most maxPhoneGroups groups
// there are at most 36 runs to judge. With strict, a run must be valid for libphonenumber. It
// reports whether it found any number.
func (s *scanner) phoneRuns(start int, lead byte, gs []group, strict bool) bool {
	n := len(gs)
	var ok [maxPhoneGroups + 1][maxPhoneGroups + 1]int8 // 0 unknown, 1 valid, -1 not
	valid := func(i, j int) bool {
		if ok[i][j] == 0 {
			ok[i][j] = -1
			if (i == 0 || gs[i].sepIs(" ")) && (j == n || gs[j].sepIs(" ")) && !(i == 0 && j == n) {
				st, l := int(gs[i].start), byte(0)
				if i == 0 {
					st, l = start, lead
				}
				if s.phoneOK(st, l, gs[i:j], j == n, strict) {
					ok[i][j] = 1
				}
			}
		}
		return ok[i][j] == 1
	}
	// best[i]: the most groups covered from group i on, and the numbers that takes.
	var best [maxPhoneGroups + 1]struct{ covered, count, next int }
	for i := n - 1; i >= 0; i-- {
		best[i] = best[i+1]
		best[i].next = -1
		for j := i + 1; j <= n; j++ {
			if !valid(i, j) {
				continue
			}
			c, k := best[j].covered+j-i, best[j].count+1
			if c > best[i].covered || (c == best[i].covered && k < best[i].count) {
				best[i] = struct{ covered, count, next int }{c, k, j}
			}
		}
	}
	for i := 0; i < n; {
		j := best[i].next
		if j < 0 {
			i++
			continue
		}
		st, l := int(gs[i].start), byte(0)
		if i == 0 {
			st, l = start, lead
		}
		s.phone(st, l, gs[i:j], j == n, strict)
		i = j
	}
	return best[0].count > 0
}

// phone judges the groups gs, written from start (the '+' or '(' lead, or the first digit), as
// one phone number, and reports it when it is one. last says whether gs ends the sequence (an
// extension may follow only then); strict says that a keyword does not replace validation.
//
// A number passes when its shape is a phone number's (7 to 15 digits; no more than one
// single-digit group after the country code; not a date; parentheses only around a group) and
// either libphonenumber finds it valid (for the country of its + or 00 code, or in the national
// format of one of nationalRegions), or a phone keyword stands right before it ("Tel.", "call me
// at", "Handy") or a phone label right after it ("office", "fax"). The nearest keyword before
// it decides: after "order", "invoice", "tracking" and their kin it is not a phone number. A
// bare run of digits without a + or 00 needs a phone keyword.
func (s *scanner) phone(start int, lead byte, gs []group, last, strict bool) bool {
	end, ok := s.judgePhone(start, lead, gs, last, strict)
	if ok {
		s.add(start, end, kPhone)
	}
	return ok
}

// phoneOK judges a run like phone without reporting it.
func (s *scanner) phoneOK(start int, lead byte, gs []group, last, strict bool) bool {
	_, ok := s.judgePhone(start, lead, gs, last, strict)
	return ok
}

// judgePhone returns the end of the phone number written from start with groups gs (its
// extension included), and whether it is one.
func (s *scanner) judgePhone(start int, lead byte, gs []group, last, strict bool) (int, bool) {
	t := s.text
	intl := lead == '+'
	var b strings.Builder
	singles := 0
	for k, g := range gs {
		// "+46 (0)8 ...": a trunk zero in parentheses is written but not dialled.
		if intl && k > 0 && g.n() == 1 && t[g.start] == '0' && g.sepEnds('(') && k+1 < len(gs) && gs[k+1].sepStarts(')') {
			continue
		}
		if g.n() == 1 && k > 1 {
			singles++
		}
		b.WriteString(t[g.start:g.end])
	}
	digits := b.String()
	if !intl && len(gs) > 1 && strings.HasPrefix(digits, "00") {
		intl, digits = true, digits[2:]
	}
	if singles > 1 || len(digits) < minPhoneDigits || len(digits) > maxPhoneDigits || (intl && len(digits) < 8) {
		return 0, false
	}
	end := int(gs[len(gs)-1].end)
	if !balancedParens(t[start:end]) || dateShaped(gs) || idShaped(gs) {
		return 0, false
	}
	if last {
		end = extension(t, end)
	}
	if isAlnum(runeAt(t, end)) {
		return 0, false
	}
	// A label after the number ("... office", "... fax") is the strongest sign; a street word
	// after it makes it a house number. Otherwise the nearest keyword before it decides.
	verdict := 0
	switch after := cuesAfter(t, end, s.lower); {
	case after&cueStreet != 0:
		return 0, false
	case after&cuePhoneAfter != 0:
		verdict = 1
	default:
		verdict = s.cues.phoneVerdict(start)
	}
	if verdict < 0 {
		return 0, false
	}
	if len(gs) == 1 && !intl && verdict == 0 {
		return 0, false
	}
	if (verdict == 0 || strict) && !s.validPhone(digits, intl) {
		return 0, false
	}
	return end, true
}

// validPhone asks libphonenumber (through the cache) whether digits is a valid number: with
// intl, digits start with a country code; otherwise digits are in the national format of one of
// nationalRegions.
func (s *scanner) validPhone(digits string, intl bool) bool {
	key := digits
	if intl {
		key = "+" + digits
	}
	if ok, hit := s.phones[key]; hit {
		return ok
	}
	_, ok := parsePhone(digits, intl)
	if s.phones == nil {
		s.phones = make(phoneCache)
	}
	if len(s.phones) < maxCached {
		s.phones[key] = ok
	}
	return ok
}

// parsePhone returns the number digits stands for and whether libphonenumber finds it valid.
func parsePhone(digits string, intl bool) (*phonenumbers.PhoneNumber, bool) {
	if intl {
		// Country codes are prefix-free: at most one split of the first three digits names a
		// country.
		for n := 1; n <= 3 && n < len(digits); n++ {
			cc, _ := strconv.Atoi(digits[:n])
			if phonenumbers.GetRegionCodeForCountryCode(cc) == "ZZ" {
				continue
			}
			nsn := digits[n:]
			if num := number(int32(cc), nsn); phonenumbers.IsValidNumber(num) {
				return num, true
			}
			// "+44 (0)20 ..." written without the parentheses.
			if strings.HasPrefix(nsn, "0") && cc != 39 {
				if num := number(int32(cc), nsn[1:]); phonenumbers.IsValidNumber(num) {
					return num, true
				}
			}
			return nil, false
		}
		return nil, false
	}
	regions, err := phoneRegions()
	if err != nil {
		return nil, false
	}
	for _, r := range regions {
		nsn := digits
		switch {
		case r.prefix != "" && strings.HasPrefix(digits, r.prefix):
			nsn = digits[len(r.prefix):]
		case r.prefix == "0" || (r.prefix == "" && r.id != "IT" && digits[0] == '0'):
			continue // a national number in this region starts with its trunk prefix
		}
		if len(nsn) >= 32 || r.lengths&(1<<len(nsn)) == 0 {
			continue
		}
		num := number(r.cc, nsn)
		if r.cc == 1 {
			if phonenumbers.IsValidNumber(num) { // any NANP region (US, CA, ...)
				return num, true
			}
			continue
		}
		if phonenumbers.IsValidNumberForRegion(num, r.id) {
			return num, true
		}
	}
	return nil, false
}

// number builds a libphonenumber number from a country code and a national significant number,
// keeping its leading zeros as Parse does (Italian numbers keep their 0).
func number(cc int32, nsn string) *phonenumbers.PhoneNumber {
	n, _ := strconv.ParseUint(nsn, 10, 64)
	num := &phonenumbers.PhoneNumber{CountryCode: &cc, NationalNumber: &n}
	if len(nsn) > 1 && nsn[0] == '0' {
		zeros := int32(1)
		for int(zeros) < len(nsn)-1 && nsn[zeros] == '0' {
			zeros++
		}
		t := true
		num.ItalianLeadingZero = &t
		num.NumberOfLeadingZeros = &zeros
	}
	return num
}

// balancedParens reports whether every '(' in s is closed by a later ')' and no ')' comes first.
func balancedParens(s string) bool {
	depth := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(':
			depth++
		case ')':
			depth--
			if depth < 0 {
				return false
			}
		}
	}
	return depth == 0
}

// dateShaped reports whether the groups are written like a date: d.m.yyyy, yyyy-mm-dd and
// their kin with one separator.
func dateShaped(gs []group) bool {
	if len(gs) != 3 || !gs[1].sepEq(gs[2]) || gs[1].sepN != 1 || strings.IndexByte(".-/", gs[1].sepB[0]) < 0 {
		return false
	}
	a, b, c := gs[0].n(), gs[1].n(), gs[2].n()
	return (a <= 2 && b <= 2 && (c == 4 || c == 2)) || (a == 4 && b <= 2 && c <= 2)
}

// idShaped reports whether the groups are written like an identifier that has its own
// recognizer: a US SSN (123-45-6789) or a Swedish personnummer (YYMMDD-NNNN, YYYYMMDD-NNNN). A
// phone number is not written that way; one with a bad checksum is a look-alike.
func idShaped(gs []group) bool {
	if len(gs) == 3 && lens(gs, 3, 2, 4) && gs[1].sepIs("-") && gs[2].sepIs("-") {
		return true
	}
	return len(gs) == 2 && (lens(gs, 6, 4) || lens(gs, 8, 4)) && gs[1].sepIs("-")
}

// extension returns the end of a phone extension written after the number ending at end
// ("x123", " ext. 123", " extension 12", " #12"), or end when there is none.
func extension(t string, end int) int {
	i := end
	for i < len(t) && i-end < 2 && t[i] == ' ' {
		i++
	}
	rest := t[i:min(i+12, len(t))]
	lower := strings.ToLower(rest)
	var n int
	switch {
	case strings.HasPrefix(lower, "extension"):
		n = 9
	case strings.HasPrefix(lower, "ext."):
		n = 4
	case strings.HasPrefix(lower, "ext"):
		n = 3
	case strings.HasPrefix(lower, "x"), strings.HasPrefix(lower, "#"):
		n = 1
	default:
		return end
	}
	i += n
	for i < len(t) && (t[i] == ' ' || t[i] == '.') && i-end < 14 {
		i++
	}
	j := i
	for j < len(t) && j-i < 6 && isDigit(t[j]) {
		j++
	}
	if j == i || isAlnum(runeAt(t, j)) {
		return end
	}
	return j
}

// canonicalPhone is the E.164 form of the number (plus ";ext=" and the extension, if any),
// read as the detector reads it: with its country code, or in the national format of the first
// of nationalRegions where it is valid. A number it cannot read keeps its digits.
func canonicalPhone(s string) string {
	main, ext := s, ""
	if i := strings.IndexAny(strings.ToLower(s), "x#e"); i > 0 {
		main, ext = s[:i], digitsOf(s[i:])
	}
	main = strings.ReplaceAll(main, "(0)", "")
	digits := digitsOf(main)
	intl := strings.HasPrefix(strings.TrimSpace(main), "+")
	if !intl && strings.HasPrefix(digits, "00") {
		intl, digits = true, digits[2:]
	}
	c := digits
	if num, ok := parsePhone(digits, intl); ok {
		c = phonenumbers.Format(num, phonenumbers.E164)
	} else if intl {
		c = "+" + digits
	}
	if ext != "" {
		c += ";ext=" + ext
	}
	return c
}
