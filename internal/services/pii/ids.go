package pii

import (
	"context"
	"regexp"
	"strconv"
	"strings"
)

// contextWindow is how many bytes before a candidate are searched for a context keyword.
const contextWindow = 48

// nearKeyword reports whether one of keywords (lower case) occurs in the contextWindow bytes
// before start or the 16 bytes after end.
func nearKeyword(text string, start, end int, keywords []string) bool {
	lo, hi := max(start-contextWindow, 0), min(end+16, len(text))
	before, after := strings.ToLower(text[lo:start]), strings.ToLower(text[end:hi])
	for _, k := range keywords {
		if strings.Contains(before, k) || strings.Contains(after, k) {
			return true
		}
	}
	return false
}

// idRecognizer is one national identifier: a pattern, a validator over the submatches and, when
// the checksum alone would match too many ordinary numbers, the keywords one of which must be
// nearby.
type idRecognizer struct {
	re       *regexp.Regexp
	valid    func(sub []string) bool
	keywords []string
	// needKeyword decides from the submatches whether a keyword is required.
	needKeyword func(sub []string) bool
}

func always([]string) bool { return true }
func never([]string) bool  { return false }

var idRecognizers = []idRecognizer{
	{ // US Social Security number; the dashed form stands alone, others need a keyword.
		re:          regexp.MustCompile(`\b(\d{3})([- ]?)(\d{2})([- ]?)(\d{4})\b`),
		valid:       validSSN,
		keywords:    []string{"ssn", "social security", "soc sec", "ss#", "ss #", "ss no"},
		needKeyword: func(s []string) bool { return s[2] != "-" },
	},
	{ // UK National Insurance number.
		re:          regexp.MustCompile(`\b([A-CEGHJ-PR-TW-Z][A-CEGHJ-NPR-TW-Z]) ?(\d{2}) ?(\d{2}) ?(\d{2}) ?([A-D])\b`),
		valid:       validNINO,
		needKeyword: never,
	},
	{ // Spanish DNI.
		re:          regexp.MustCompile(`\b(\d{8})[- ]?([A-Z])\b`),
		valid:       func(s []string) bool { return dniLetter(s[1]) == s[2][0] },
		needKeyword: never,
	},
	{ // Spanish NIE.
		re:          regexp.MustCompile(`\b([XYZ])[- ]?(\d{7})[- ]?([A-Z])\b`),
		valid:       func(s []string) bool { return dniLetter(string(rune('0'+s[1][0]-'X'))+s[2]) == s[3][0] },
		needKeyword: never,
	},
	{ // Dutch BSN (11-proof), only next to a keyword.
		re:          regexp.MustCompile(`\b(\d{4})[. ]?(\d{2})[. ]?(\d{3})\b`),
		valid:       func(s []string) bool { return validBSN(s[1] + s[2] + s[3]) },
		keywords:    []string{"bsn", "burgerservicenummer", "sofinummer", "sofi-nummer"},
		needKeyword: always,
	},
	{ // French NIR (numéro de sécurité sociale), only next to a keyword.
		re:          regexp.MustCompile(`\b([12]) ?(\d{2}) ?(\d{2}) ?(\d{2}|2[AB]) ?(\d{3}) ?(\d{3}) ?(\d{2})\b`),
		valid:       validNIR,
		keywords:    []string{"nir", "sécurité sociale", "securite sociale", "sécu", "insee", "carte vitale", "social security"},
		needKeyword: always,
	},
	{ // Italian codice fiscale (omocodia substitutions allowed).
		re:          regexp.MustCompile(`\b[A-Z]{6}[0-9LMNPQRSTUV]{2}[ABCDEHLMPRST][0-9LMNPQRSTUV]{2}[A-Z][0-9LMNPQRSTUV]{3}[A-Z]\b`),
		valid:       func(s []string) bool { return codiceFiscaleCheck(s[0][:15]) == s[0][15] },
		needKeyword: never,
	},
	{ // Indian Aadhaar (Verhoeff), only next to a keyword.
		re:          regexp.MustCompile(`\b([2-9]\d{3})[ -]?(\d{4})[ -]?(\d{4})\b`),
		valid:       func(s []string) bool { return verhoeff(s[1] + s[2] + s[3]) },
		keywords:    []string{"aadhaar", "aadhar", "uidai", "आधार"},
		needKeyword: always,
	},
	{ // Swedish personnummer (Luhn over YYMMDDNNNN); the unseparated form needs a keyword.
		re:          regexp.MustCompile(`\b(\d{2})?(\d{2})(\d{2})(\d{2})([-+]?)(\d{4})\b`),
		valid:       validPersonnummer,
		keywords:    []string{"personnummer", "personnr", "person-nr", "samordningsnummer", "pnr"},
		needKeyword: func(s []string) bool { return s[5] == "" },
	},
}

func findNationalIDs(ctx context.Context, text string, _ []Span) []Span {
	var out []Span
	for _, r := range idRecognizers {
		if ctx.Err() != nil {
			return out
		}
		for _, m := range r.re.FindAllStringSubmatchIndex(text, -1) {
			start, end := m[0], m[1]
			if !standalone(text, start, end) {
				continue
			}
			sub := make([]string, len(m)/2)
			for i := range sub {
				if m[2*i] >= 0 {
					sub[i] = text[m[2*i]:m[2*i+1]]
				}
			}
			if !r.valid(sub) {
				continue
			}
			if r.needKeyword(sub) && !nearKeyword(text, start, end, r.keywords) {
				continue
			}
			out = append(out, Span{Type: TypeID, Start: start, End: end})
		}
	}
	return out
}

// validSSN applies the SSA's rules: area not 000, 666 or 9xx; group not 00; serial not 0000;
// consistent separators; and not one of the famous advertising numbers.
func validSSN(s []string) bool {
	area, group, serial := s[1], s[3], s[5]
	if s[2] != s[4] {
		return false
	}
	if area == "000" || area == "666" || area[0] == '9' || group == "00" || serial == "0000" {
		return false
	}
	switch area + group + serial {
	case "078051120", "219099999", "123456789":
		return false
	}
	return true
}

// ninoBadPrefixes are prefixes HMRC never issues.
var ninoBadPrefixes = map[string]bool{"BG": true, "GB": true, "KN": true, "NK": true, "NT": true, "TN": true, "ZZ": true}

func validNINO(s []string) bool { return !ninoBadPrefixes[s[1]] }

// dniLetter returns the control letter of a Spanish DNI number (NIE with X/Y/Z mapped to 0/1/2).
func dniLetter(digits string) byte {
	n, err := strconv.Atoi(digits)
	if err != nil {
		return 0
	}
	return "TRWAGMYFPDXBNJZSQVHLCKE"[n%23]
}

// validBSN is the Dutch "elfproef": 9*d1 + 8*d2 + ... + 2*d8 - d9 is a multiple of 11.
func validBSN(d string) bool {
	if len(d) != 9 || d == "000000000" {
		return false
	}
	sum := 0
	for i := 0; i < 8; i++ {
		sum += (9 - i) * int(d[i]-'0')
	}
	sum -= int(d[8] - '0')
	return sum%11 == 0
}

// validNIR checks the month field and the key: 97 - (first 13 digits mod 97), with Corsica's 2A
// and 2B counted as 19 and 18.
func validNIR(s []string) bool {
	month, _ := strconv.Atoi(s[3])
	if month == 0 || (month > 12 && month < 20) || (month > 42 && month < 50) {
		return false
	}
	dept := s[4]
	body := s[1] + s[2] + s[3]
	switch strings.ToUpper(dept) {
	case "2A":
		body += "19"
	case "2B":
		body += "18"
	default:
		body += dept
	}
	body += s[5] + s[6]
	n, err := strconv.ParseUint(body, 10, 64)
	if err != nil {
		return false
	}
	key, _ := strconv.Atoi(s[7])
	return int(97-n%97) == key
}

// cfOdd is the value of each character in an odd (1st, 3rd, ...) position of a codice fiscale,
// indexed by digit or letter (0-9 and A-J share values, then K-Z).
var cfOdd = [26]int{1, 0, 5, 7, 9, 13, 15, 17, 19, 21, 2, 4, 18, 20, 11, 3, 6, 8, 12, 14, 16, 10, 22, 25, 24, 23}

// codiceFiscaleCheck returns the control character for the first 15 characters.
func codiceFiscaleCheck(s string) byte {
	sum := 0
	for i := 0; i < 15; i++ {
		c := s[i]
		var v int
		if isDigit(c) {
			v = int(c - '0')
		} else {
			v = int(c - 'A')
		}
		if i%2 == 0 {
			sum += cfOdd[v]
		} else {
			sum += v
		}
	}
	return byte('A' + sum%26)
}

var (
	verhoeffD = [10][10]int{
		{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, {1, 2, 3, 4, 0, 6, 7, 8, 9, 5}, {2, 3, 4, 0, 1, 7, 8, 9, 5, 6},
		{3, 4, 0, 1, 2, 8, 9, 5, 6, 7}, {4, 0, 1, 2, 3, 9, 5, 6, 7, 8}, {5, 9, 8, 7, 6, 0, 4, 3, 2, 1},
		{6, 5, 9, 8, 7, 1, 0, 4, 3, 2}, {7, 6, 5, 9, 8, 2, 1, 0, 4, 3}, {8, 7, 6, 5, 9, 3, 2, 1, 0, 4},
		{9, 8, 7, 6, 5, 4, 3, 2, 1, 0},
	}
	verhoeffP = [8][10]int{
		{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, {1, 5, 7, 6, 2, 8, 3, 0, 9, 4}, {5, 8, 0, 3, 7, 9, 6, 1, 4, 2},
		{8, 9, 1, 6, 0, 4, 3, 5, 2, 7}, {9, 4, 5, 3, 1, 2, 6, 8, 7, 0}, {4, 2, 8, 6, 5, 7, 3, 9, 0, 1},
		{2, 7, 9, 3, 8, 0, 6, 4, 1, 5}, {7, 0, 4, 6, 9, 1, 3, 2, 5, 8},
	}
)

// verhoeff reports whether the digit string (check digit last) passes the Verhoeff check.
func verhoeff(d string) bool {
	c := 0
	for i := 0; i < len(d); i++ {
		c = verhoeffD[c][verhoeffP[i%8][int(d[len(d)-1-i]-'0')]]
	}
	return c == 0
}

// validPersonnummer checks the date fields (day+60 for a samordningsnummer) and the Luhn digit.
func validPersonnummer(s []string) bool {
	month, _ := strconv.Atoi(s[3])
	day, _ := strconv.Atoi(s[4])
	if day > 60 {
		day -= 60
	}
	if month < 1 || month > 12 || day < 1 || day > 31 {
		return false
	}
	if s[1] != "" && s[1] != "18" && s[1] != "19" && s[1] != "20" {
		return false
	}
	return luhn(s[2] + s[3] + s[4] + s[6])
}

// canonicalID removes separators and upper-cases the identifier.
func canonicalID(s string) string {
	return strings.ToUpper(strings.NewReplacer(" ", "", "-", "", ".", "", "+", "").Replace(s))
}
