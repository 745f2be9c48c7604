package pii

import (
	"context"
	"regexp"
	"strings"
)

// ibanLengths is the IBAN length of each country in the SWIFT IBAN registry.
var ibanLengths = map[string]int{
	"AD": 24, "AE": 23, "AL": 28, "AT": 20, "AZ": 28, "BA": 20, "BE": 16, "BG": 22, "BH": 22,
	"BI": 27, "BR": 29, "BY": 28, "CH": 21, "CR": 22, "CY": 28, "CZ": 24, "DE": 22, "DJ": 27,
	"DK": 18, "DO": 28, "EE": 20, "EG": 29, "ES": 24, "FI": 18, "FK": 18, "FO": 18, "FR": 27,
	"GB": 22, "GE": 22, "GI": 23, "GL": 18, "GR": 27, "GT": 28, "HN": 28, "HR": 21, "HU": 28,
	"IE": 22, "IL": 23, "IQ": 23, "IS": 26, "IT": 27, "JO": 30, "KW": 30, "KZ": 20, "LB": 28,
	"LC": 32, "LI": 21, "LT": 20, "LU": 20, "LV": 21, "LY": 25, "MC": 27, "MD": 24, "ME": 22,
	"MK": 19, "MN": 20, "MR": 27, "MT": 31, "MU": 30, "NI": 28, "NL": 18, "NO": 15, "OM": 23,
	"PK": 24, "PL": 28, "PS": 29, "PT": 25, "QA": 29, "RO": 24, "RS": 22, "RU": 33, "SA": 24,
	"SC": 31, "SD": 18, "SE": 24, "SI": 19, "SK": 24, "SM": 27, "SO": 23, "ST": 25, "SV": 28,
	"TL": 23, "TN": 24, "TR": 26, "UA": 29, "VA": 22, "VG": 24, "XK": 20, "YE": 30,
}

// ibanRe finds a country code, two check digits and a run of alphanumerics that may be grouped
// with single spaces. The run may swallow following words; findIBANs cuts it to the country's
// length.
var ibanRe = regexp.MustCompile(`(?i)\b[a-z]{2}[0-9]{2}(?: ?[a-z0-9]){11,31}`)

func findIBANs(_ context.Context, text string, _ []Span) []Span {
	var out []Span
	for _, m := range ibanRe.FindAllStringIndex(text, -1) {
		start := m[0]
		if isAlnum(runeBefore(text, start)) {
			continue
		}
		want, ok := ibanLengths[strings.ToUpper(text[start:start+2])]
		if !ok {
			continue
		}
		// Take exactly want alphanumerics from the candidate.
		end, n := start, 0
		for end < m[1] && n < want {
			if text[end] != ' ' {
				n++
			}
			end++
		}
		if n != want || isAlnum(runeAt(text, end)) {
			continue
		}
		if !ibanChecksum(text[start:end]) {
			continue
		}
		out = append(out, Span{Type: TypeIBAN, Start: start, End: end})
	}
	return out
}

// ibanChecksum reports whether the IBAN (spaces allowed, any case) satisfies mod 97 == 1.
func ibanChecksum(s string) bool {
	s = strings.ToUpper(strings.ReplaceAll(s, " ", ""))
	if len(s) < 5 {
		return false
	}
	rearranged := s[4:] + s[:4]
	rem := 0
	for i := 0; i < len(rearranged); i++ {
		c := rearranged[i]
		switch {
		case isDigit(c):
			rem = (rem*10 + int(c-'0')) % 97
		case c >= 'A' && c <= 'Z':
			rem = (rem*100 + int(c-'A'+10)) % 97
		default:
			return false
		}
	}
	return rem == 1
}

// canonicalIBAN is the electronic form: upper case, no spaces.
func canonicalIBAN(s string) string { return strings.ToUpper(strings.ReplaceAll(s, " ", "")) }
