// Package numfmt writes numbers for people, the same way in the dashboard and in keyctl.
package numfmt

import "strconv"

// Thousands writes n in decimal with a comma between groups of three digits:
// 1234567 -> "1,234,567", -1234 -> "-1,234".
func Thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	sign := ""
	if s[0] == '-' {
		sign, s = "-", s[1:]
	}
	b := make([]byte, 0, len(sign)+len(s)+len(s)/3)
	b = append(b, sign...)
	for i := range len(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			b = append(b, ',')
		}
		b = append(b, s[i])
	}
	return string(b)
}
