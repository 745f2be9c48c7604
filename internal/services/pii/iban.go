package pii

import "strings"

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

// iban tries an IBAN at i: a country code, two check digits, then exactly as many more letters
// and digits as the country's IBAN has, optionally grouped by single spaces (the paper form
// "DE89 3704 0044 0532 0130 00"), in any case. It reads at most 34 characters plus the spaces
// between them. The value must end at a word boundary and satisfy mod 97 == 1. A value of the
// right shape whose checksum fails is a look-alike: it is claimed (ok is true, the scan goes on
// after it) without being reported, so no phone number or card is found inside it.
func (s *scanner) iban(i int) (end int, ok bool) {
	t := s.text
	if i+4 > len(t) || !isDigit(t[i+2]) || !isDigit(t[i+3]) {
		return 0, false
	}
	want, ok := ibanLengths[strings.ToUpper(t[i:i+2])]
	if !ok {
		return 0, false
	}
	end, n := i, 0
	for end < len(t) && n < want {
		c := t[end]
		switch {
		case isASCIIAlnum(c):
			n++
			end++
		case c == ' ' && n >= 4 && end+1 < len(t) && isASCIIAlnum(t[end+1]) && t[end-1] != ' ':
			end++
		default:
			return 0, false
		}
	}
	if n != want || isAlnum(runeAt(t, end)) {
		return 0, false
	}
	if ibanChecksum(t[i:end]) {
		s.add(i, end, kIBAN)
	}
	return end, true
}

// ibanChecksum reports whether the IBAN (spaces allowed, any case) satisfies mod 97 == 1.
func ibanChecksum(s string) bool {
	s = canonicalIBAN(s)
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
