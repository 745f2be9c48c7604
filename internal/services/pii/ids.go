package pii

import (
	"strconv"
	"strings"
)

// National identifiers. Each is recognised by its written shape and validated by its checksum
// (and date fields where it has them). Where the checksum would accept about one ordinary
// number in ten or eleven, the identifier is reported only next to its keyword (see cues.go):
// Dutch BSN, French NIR, German tax id, Polish PESEL, Portuguese NIF, Indian Aadhaar, and US
// SSN or Swedish personnummer written without their usual separators.

// numericIDs tries the identifiers written only with digits on a whole numeric sequence.
func (s *scanner) numericIDs(gs []group, end int) {
	start := int(gs[0].start)
	n := digitCount(gs)
	if n < 9 || n > 15 || len(gs) > 7 {
		return
	}
	d := s.joined(gs)
	sep := ""
	if len(gs) > 1 {
		if gs[1].sepN != 1 || !sameSeps(gs) {
			return
		}
		sep = string(gs[1].sepB[:1])
	}
	var after cue
	haveAfter := false
	keyword := func(k cue) bool {
		if s.cues.near(k, start, idCueWindow) {
			return true
		}
		if !haveAfter {
			after, haveAfter = cuesAfter(s.text, end, s.lower), true
		}
		return after&k != 0
	}
	found := false
	report := func() {
		if !found {
			s.add(start, end, kID)
			found = true
		}
	}
	switch {
	case lens(gs, 3, 2, 4) && sep == "-" && validSSN(d): // 536-22-1234
		report()
	case (lens(gs, 9) || (lens(gs, 3, 2, 4) && sep == " ")) && validSSN(d) && keyword(cueSSN):
		report()
	}
	if (lens(gs, 9) || lens(gs, 4, 2, 3) || lens(gs, 3, 3, 3)) && (sep == "" || sep == "." || sep == " ") &&
		validBSN(d) && keyword(cueBSN) {
		report()
	}
	if (lens(gs, 9) || lens(gs, 3, 3, 3)) && (sep == "" || sep == " ") && validNIFPT(d) && keyword(cueNIFPT) {
		report()
	}
	if lens(gs, 11) && validPESEL(d) && keyword(cuePESEL) {
		report()
	}
	if (lens(gs, 11) || lens(gs, 2, 3, 3, 3)) && (sep == "" || sep == " " || sep == "/") &&
		validTaxIDDE(d) && keyword(cueTaxIDDE) {
		report()
	}
	if n == 15 && (sep == "" || sep == " " || sep == ".") && (len(gs) == 1 || lens(gs, 13, 2) ||
		lens(gs, 1, 2, 2, 2, 3, 3, 2)) && validNIR(d) && keyword(cueNIR) {
		report()
	}
	if (lens(gs, 6, 4) || lens(gs, 8, 4)) && sep == "-" && validPersonnummer(d) {
		report()
	}
	if (lens(gs, 10) || lens(gs, 12)) && validPersonnummer(d) && keyword(cuePersonnummer) {
		report()
	}
	if (lens(gs, 12) || lens(gs, 4, 4, 4)) && (sep == "" || sep == " " || sep == "-") && d[0] >= '2' &&
		verhoeff(d) && keyword(cueAadhaar) {
		report()
	}
}

// dni tries a Spanish DNI: eight digits and the control letter, glued ("12345678Z") or after a
// dash or space ("12345678-Z"). g is the only group of a sequence ending at end.
func (s *scanner) dni(g group, end int) {
	t := s.text
	if g.n() != 8 {
		return
	}
	var letter byte
	stop := end + 1
	switch {
	case end < len(t) && isASCIILetter(t[end]):
		letter = t[end] &^ 0x20
	case end+1 < len(t) && (t[end] == '-' || t[end] == ' ') && isUpper(t[end+1]):
		letter, stop = t[end+1], end+2
	default:
		return
	}
	if isAlnum(runeAt(t, stop)) || dniLetter(t[g.start:g.end]) != letter {
		return
	}
	s.add(int(g.start), stop, kID)
}

// alphaID tries the identifiers that begin with letters at the word text[i:j]: UK National
// Insurance number ("AB123456C", "AB 12 34 56 C"), Spanish NIE ("X1234567L") and Italian codice
// fiscale ("RSSMRA85T10A562S"). Each reads at most 16 characters plus separators.
func (s *scanner) alphaID(i, j int) (int, bool) {
	t := s.text
	switch j - i {
	case 1: // NIE
		c := t[i]
		if c != 'X' && c != 'Y' && c != 'Z' {
			return 0, false
		}
		k := j
		if k < len(t) && (t[k] == '-' || t[k] == ' ') {
			k++
		}
		if k+7 > len(t) || !allDigits(t[k:k+7]) {
			return 0, false
		}
		num := t[k : k+7]
		k += 7
		if k < len(t) && (t[k] == '-' || t[k] == ' ') {
			k++
		}
		if k >= len(t) || !isUpper(t[k]) || isAlnum(runeAt(t, k+1)) {
			return 0, false
		}
		if dniLetter(string(rune('0'+c-'X'))+num) != t[k] {
			return 0, false
		}
		s.add(i, k+1, kID)
		return k + 1, true
	case 2: // NINO
		if !isUpper(t[i]) || !isUpper(t[i+1]) || !validNINOPrefix(t[i:j]) {
			return 0, false
		}
		k := j
		spaced := k < len(t) && t[k] == ' '
		for p := 0; p < 3; p++ {
			if spaced {
				if k >= len(t) || t[k] != ' ' {
					return 0, false
				}
				k++
			}
			if k+2 > len(t) || !isDigit(t[k]) || !isDigit(t[k+1]) {
				return 0, false
			}
			k += 2
		}
		if spaced {
			if k >= len(t) || t[k] != ' ' {
				return 0, false
			}
			k++
		}
		if k >= len(t) || t[k] < 'A' || t[k] > 'D' || isAlnum(runeAt(t, k+1)) {
			return 0, false
		}
		s.add(i, k+1, kID)
		return k + 1, true
	case 6: // codice fiscale
		if i+16 > len(t) || isAlnum(runeAt(t, i+16)) {
			return 0, false
		}
		cf := t[i : i+16]
		if !codiceFiscaleShape(cf) || codiceFiscaleCheck(cf) != cf[15] {
			return 0, false
		}
		s.add(i, i+16, kID)
		return i + 16, true
	}
	return 0, false
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return s != ""
}

// validSSN applies the SSA's rules: area not 000, 666 or 9xx; group not 00; serial not 0000;
// and not one of the famous advertising numbers.
func validSSN(d string) bool {
	area, group, serial := d[:3], d[3:5], d[5:]
	if area == "000" || area == "666" || area[0] == '9' || group == "00" || serial == "0000" {
		return false
	}
	switch d {
	case "078051120", "219099999", "123456789":
		return false
	}
	return true
}

// ninoBadPrefixes are prefixes HMRC never issues; the letters D, F, I, Q, U, V never appear in
// either position and O never second.
var ninoBadPrefixes = map[string]bool{"BG": true, "GB": true, "KN": true, "NK": true, "NT": true, "TN": true, "ZZ": true}

func validNINOPrefix(p string) bool {
	if ninoBadPrefixes[p] || strings.ContainsAny(p, "DFIQUV") || p[1] == 'O' {
		return false
	}
	return true
}

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

// validNIFPT checks a Portuguese NIF: a first digit that a person or company number can have,
// and the mod-11 check digit.
func validNIFPT(d string) bool {
	if len(d) != 9 || !strings.ContainsRune("1235689", rune(d[0])) {
		return false
	}
	sum := 0
	for i := 0; i < 8; i++ {
		sum += (9 - i) * int(d[i]-'0')
	}
	check := 11 - sum%11
	if check >= 10 {
		check = 0
	}
	return int(d[8]-'0') == check
}

// validPESEL checks a Polish PESEL: a real birth date (the month carries the century) and the
// weighted check digit.
func validPESEL(d string) bool {
	if len(d) != 11 {
		return false
	}
	yy, _ := strconv.Atoi(d[0:2])
	mm, _ := strconv.Atoi(d[2:4])
	dd, _ := strconv.Atoi(d[4:6])
	century := [...]int{1900, 2000, 2100, 2200, 1800}[mm/20] // mm < 100
	mm %= 20
	if !validDate(century+yy, mm, dd) {
		return false
	}
	w := [...]int{1, 3, 7, 9, 1, 3, 7, 9, 1, 3}
	sum := 0
	for i, x := range w {
		sum += x * int(d[i]-'0')
	}
	return (10-sum%10)%10 == int(d[10]-'0')
}

// validTaxIDDE checks a German Steuer-Identifikationsnummer: no leading zero; among the first
// ten digits exactly one digit appears two or three times and the others at most once; and the
// ISO 7064 MOD 11,10 check digit.
func validTaxIDDE(d string) bool {
	if len(d) != 11 || d[0] == '0' {
		return false
	}
	var count [10]int
	for i := 0; i < 10; i++ {
		count[d[i]-'0']++
	}
	repeated := 0
	for _, c := range count {
		switch {
		case c == 2 || c == 3:
			repeated++
		case c > 3:
			return false
		}
	}
	if repeated != 1 {
		return false
	}
	product := 10
	for i := 0; i < 10; i++ {
		sum := (int(d[i]-'0') + product) % 10
		if sum == 0 {
			sum = 10
		}
		product = (sum * 2) % 11
	}
	check := 11 - product
	if check == 10 {
		check = 0
	}
	return int(d[10]-'0') == check
}

// validNIR checks a French NIR (15 digits: sex, year, month, department, commune, order, key):
// the sex digit, the month field (1-12, or the 20-42 and 50-99 ranges used for unknown months),
// and the key 97 - (first 13 digits mod 97). Corsican departments (2A, 2B) are not recognised.
func validNIR(d string) bool {
	if len(d) != 15 || (d[0] != '1' && d[0] != '2') {
		return false
	}
	month, _ := strconv.Atoi(d[3:5])
	if month == 0 || (month > 12 && month < 20) || (month > 42 && month < 50) {
		return false
	}
	n, err := strconv.ParseUint(d[:13], 10, 64)
	if err != nil {
		return false
	}
	key, _ := strconv.Atoi(d[13:])
	return int(97-n%97) == key
}

// validPersonnummer checks a Swedish personnummer (YYMMDDNNNN or YYYYMMDDNNNN): the date fields
// (day + 60 for a samordningsnummer), the century, and the Luhn digit over the last ten digits.
func validPersonnummer(d string) bool {
	if len(d) == 12 {
		if c := d[:2]; c != "18" && c != "19" && c != "20" {
			return false
		}
		d = d[2:]
	}
	if len(d) != 10 {
		return false
	}
	month, _ := strconv.Atoi(d[2:4])
	day, _ := strconv.Atoi(d[4:6])
	if day > 60 {
		day -= 60
	}
	if month < 1 || month > 12 || day < 1 || day > 31 {
		return false
	}
	return luhn(d)
}

func validDate(y, m, d int) bool {
	if m < 1 || m > 12 || d < 1 {
		return false
	}
	days := [...]int{31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31}[m-1]
	if m == 2 && y%4 == 0 && (y%100 != 0 || y%400 == 0) {
		days = 29
	}
	return d <= days
}

// codiceFiscaleShape checks the layout of an Italian codice fiscale: six letters (surname and
// name), year, month letter, day, a letter and three digits (place of birth), control letter;
// digits may be replaced by the omocodia letters L-V.
func codiceFiscaleShape(cf string) bool {
	const omocodia = "LMNPQRSTUV"
	digitOrOmo := func(c byte) bool { return isDigit(c) || strings.IndexByte(omocodia, c) >= 0 }
	for i := 0; i < 16; i++ {
		c := cf[i]
		var ok bool
		switch {
		case i < 6 || i == 11 || i == 15:
			ok = isUpper(c)
		case i == 8:
			ok = strings.IndexByte("ABCDEHLMPRST", c) >= 0
		default:
			ok = digitOrOmo(c)
		}
		if !ok {
			return false
		}
	}
	return true
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

// canonicalID removes separators and upper-cases the identifier.
func canonicalID(s string) string {
	return strings.ToUpper(strings.NewReplacer(" ", "", "-", "", ".", "", "+", "", "/", "").Replace(s))
}
