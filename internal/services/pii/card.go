package pii

import (
	"context"
	"regexp"
)

// digitRunRe finds runs of digit groups joined by single spaces or dashes.
var digitRunRe = regexp.MustCompile(`\d+(?:[ -]\d+)*`)

// iinRule is one issuer range: card numbers whose first len(lo) digits lie in [lo, hi] and whose
// length is within [minLen, maxLen].
type iinRule struct {
	lo, hi         string
	minLen, maxLen int
}

// iinRules lists the major networks' issuer identification number ranges.
var iinRules = []iinRule{
	{"4", "4", 13, 19},       // Visa (13, 16, 19 in practice)
	{"51", "55", 16, 16},     // Mastercard
	{"2221", "2720", 16, 16}, // Mastercard 2-series
	{"34", "34", 15, 15},     // American Express
	{"37", "37", 15, 15},     // American Express
	{"6011", "6011", 16, 19}, // Discover
	{"644", "649", 16, 19},   // Discover
	{"65", "65", 16, 19},     // Discover
	{"3528", "3589", 16, 19}, // JCB
	{"1800", "1800", 15, 15}, // JCB (legacy)
	{"2131", "2131", 15, 15}, // JCB (legacy)
	{"300", "305", 14, 19},   // Diners Club
	{"36", "36", 14, 19},     // Diners Club
	{"38", "39", 14, 19},     // Diners Club
	{"62", "62", 16, 19},     // UnionPay
	{"2200", "2204", 16, 19}, // Mir
	{"50", "50", 13, 19},     // Maestro
	{"56", "69", 13, 19},     // Maestro
}

func knownIIN(d string) bool {
	for _, r := range iinRules {
		if len(d) < r.minLen || len(d) > r.maxLen || len(d) < len(r.lo) {
			continue
		}
		p := d[:len(r.lo)]
		if p >= r.lo && p <= r.hi {
			return true
		}
	}
	return false
}

func findCards(ctx context.Context, text string, _ []Span) []Span {
	var out []Span
	for _, m := range digitRunRe.FindAllStringIndex(text, -1) {
		if m[1]-m[0] < 13 || !standalone(text, m[0], m[1]) {
			continue
		}
		if ctx.Err() != nil {
			return out
		}
		out = append(out, cardsInRun(text, m[0], m[1])...)
	}
	return out
}

// cardsInRun looks for card numbers made of whole digit groups inside the run text[start:end],
// preferring the longest valid sequence of groups from each starting group.
func cardsInRun(text string, start, end int) []Span {
	type group struct{ s, e int }
	var groups []group
	for i := start; i < end; {
		j := i
		for j < end && isDigit(text[j]) {
			j++
		}
		groups = append(groups, group{i, j})
		i = j + 1
	}
	var out []Span
	for i := 0; i < len(groups); {
		found := false
		for j := len(groups) - 1; j >= i; j-- {
			d := digitsOf(text[groups[i].s:groups[j].e])
			if len(d) < 13 || len(d) > 19 {
				continue
			}
			if luhn(d) && knownIIN(d) {
				out = append(out, Span{Type: TypeCard, Start: groups[i].s, End: groups[j].e})
				i = j + 1
				found = true
				break
			}
		}
		if !found {
			i++
		}
	}
	return out
}

// canonicalDigits keeps only the digits of a number written with separators.
func canonicalDigits(s string) string { return digitsOf(s) }
