package services

import (
	"strconv"
	"strings"
)

// TypeText is the parameter's type for people: "string", "number", "array of string".
func (p Param) TypeText() string {
	if p.Type == ParamArray && p.Items != "" {
		return "array of " + p.Items
	}
	return p.Type
}

// BoundsText is the parameter's bounds for people, "" when it has none: "0 to 1", "at most 16
// characters", "at most 64 items; each item 1 to 40 characters". Allowed values are not in it.
// The dashboard's catalog and docs/services.md (scripts/docgen) both show it.
func (p Param) BoundsText() string {
	num := func(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }
	var parts []string
	switch {
	case p.Minimum != nil && p.Maximum != nil:
		parts = append(parts, num(*p.Minimum)+" to "+num(*p.Maximum))
	case p.Minimum != nil:
		parts = append(parts, "at least "+num(*p.Minimum))
	case p.Maximum != nil:
		parts = append(parts, "at most "+num(*p.Maximum))
	}
	noun := [2]string{"character", "characters"}
	if p.Type == ParamArray {
		noun = [2]string{"item", "items"}
	}
	parts = appendRange(parts, "", p.MinLength, p.MaxLength, noun)
	return strings.Join(appendRange(parts, "each item ", p.ItemMinLength, p.ItemMaxLength, [2]string{"character", "characters"}), "; ")
}

// appendRange appends prefix and the range [lo, hi] of noun ("1 to 40 characters", "at least
// 1 item", "at most 1 character") to parts, when either end is set.
func appendRange(parts []string, prefix string, lo, hi *int, noun [2]string) []string {
	count := func(n int) string {
		if n == 1 {
			return "1 " + noun[0]
		}
		return strconv.Itoa(n) + " " + noun[1]
	}
	switch {
	case lo != nil && hi != nil:
		return append(parts, prefix+strconv.Itoa(*lo)+" to "+count(*hi))
	case lo != nil:
		return append(parts, prefix+"at least "+count(*lo))
	case hi != nil:
		return append(parts, prefix+"at most "+count(*hi))
	}
	return parts
}
