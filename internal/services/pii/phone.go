package pii

import (
	"context"
	"regexp"
	"slices"
	"strings"

	"github.com/nyaruka/phonenumbers"
)

// phoneRegion is the default region for numbers written without a country code.
const phoneRegion = "US"

// phoneCandRe finds runs that could be phone numbers: an optional + or (, digits mixed with
// spaces, dots, dashes, slashes and parentheses (never a line break), and an optional extension.
// Each run is validated with libphonenumber.
var phoneCandRe = regexp.MustCompile(`(?i)(?:\+|\()?\d[\d \t().\-/]{5,24}\d(?:[ \t]*(?:x|ext\.?|extension|#)[ \t]*\d{1,6})?`)

// dateLike matches a leading ISO or day-first date, which libphonenumber may accept as digits.
var dateLike = regexp.MustCompile(`^(?:\d{4}[-./]\d{1,2}[-./]\d{1,2}|\d{1,2}[-./]\d{1,2}[-./]\d{4})`)

// maxPhoneTokens bounds the sub-run search inside one candidate.
const maxPhoneTokens = 8

func findPhones(ctx context.Context, text string, prior []Span) []Span {
	pv := &phoneValidator{text: text, seen: make(map[string]bool)}
	if len(prior) > 0 {
		pv.covered = make([]bool, len(text))
		for _, s := range prior {
			for i := s.Start; i < s.End; i++ {
				pv.covered[i] = true
			}
		}
	}
	var out []Span
	for n, m := range phoneCandRe.FindAllStringIndex(text, -1) {
		if n%64 == 63 && ctx.Err() != nil {
			return out
		}
		start, end := m[0], m[1]
		if text[start] == '(' && !strings.Contains(text[start:end], ")") {
			start++
		}
		if s, ok := pv.inRun(start, end); ok {
			out = append(out, s...)
		}
	}
	return out
}

// phoneValidator validates candidates of one text. It skips candidates lying wholly inside a
// span another recognizer already found (a shorter span can never win the overlap) and
// remembers libphonenumber's verdict per candidate string, as numbers often repeat in a text.
type phoneValidator struct {
	text    string
	covered []bool
	seen    map[string]bool
}

func (pv *phoneValidator) valid(start, end int) bool {
	if pv.covered != nil && !slices.Contains(pv.covered[start:end], false) {
		return false
	}
	v := pv.text[start:end]
	if ok, hit := pv.seen[v]; hit {
		return ok
	}
	ok := validPhoneAt(pv.text, start, end)
	pv.seen[v] = ok
	return ok
}

// inRun validates text[start:end] as a whole and, failing that, every contiguous sequence of
// its whitespace-separated pieces, longest first.
func (pv *phoneValidator) inRun(start, end int) ([]Span, bool) {
	text := pv.text
	if pv.valid(start, end) {
		return []Span{{Type: TypePhone, Start: start, End: end}}, true
	}
	type piece struct{ s, e int }
	var pieces []piece
	for i := start; i < end; {
		for i < end && (text[i] == ' ' || text[i] == '\t') {
			i++
		}
		j := i
		for j < end && text[j] != ' ' && text[j] != '\t' {
			j++
		}
		if j > i {
			pieces = append(pieces, piece{i, j})
		}
		i = j
	}
	if len(pieces) < 2 || len(pieces) > maxPhoneTokens {
		return nil, false
	}
	var out []Span
	for i := 0; i < len(pieces); {
		found := false
		for j := len(pieces) - 1; j >= i; j-- {
			if i == 0 && j == len(pieces)-1 {
				continue // the whole run, already tried
			}
			if pv.valid(pieces[i].s, pieces[j].e) {
				out = append(out, Span{Type: TypePhone, Start: pieces[i].s, End: pieces[j].e})
				i, found = j+1, true
				break
			}
		}
		if !found {
			i++
		}
	}
	return out, len(out) > 0
}

func validPhoneAt(text string, start, end int) bool {
	c0 := text[start]
	if !isDigit(c0) && c0 != '+' && c0 != '(' {
		return false
	}
	v := text[start:end]
	main := v
	if i := strings.IndexAny(v, "xX#eE"); i > 0 {
		main = v[:i]
	}
	if n := len(digitsOf(main)); n < 7 || n > 15 {
		return false
	}
	if !isDigit(text[end-1]) || !standalone(text, start, end) {
		return false
	}
	if c0 == '+' && isAlnum(runeBefore(text, start)) {
		return false
	}
	// A time follows: "2015-12-22 04:34".
	if end+1 < len(text) && text[end] == ':' && isDigit(text[end+1]) {
		return false
	}
	if dateLike.MatchString(v) {
		return false
	}
	num, err := phonenumbers.Parse(v, phoneRegion)
	if err != nil {
		return false
	}
	return phonenumbers.IsValidNumber(num)
}

// canonicalPhone is the E.164 form of the number (plus ";ext=" and the extension, if any).
func canonicalPhone(s string) string {
	num, err := phonenumbers.Parse(s, phoneRegion)
	if err != nil {
		return s
	}
	c := phonenumbers.Format(num, phonenumbers.E164)
	if ext := num.GetExtension(); ext != "" {
		c += ";ext=" + ext
	}
	return c
}
