package pii

import (
	"context"
	"net/netip"
	"regexp"
	"strings"
)

var (
	ipv4Re = regexp.MustCompile(`\d{1,3}(?:\.\d{1,3}){3}`)
	// ipv6Re finds runs of hex digits, colons and dots; findIPs keeps those with at least two
	// colons that net/netip parses as IPv6.
	ipv6Re = regexp.MustCompile(`[0-9A-Fa-f:][0-9A-Fa-f:.]*:[0-9A-Fa-f:.]*`)
)

func findIPs(_ context.Context, text string, _ []Span) []Span {
	var out []Span
	for _, m := range ipv4Re.FindAllStringIndex(text, -1) {
		if !standalone(text, m[0], m[1]) {
			continue
		}
		if a, err := netip.ParseAddr(text[m[0]:m[1]]); err == nil && a.Is4() {
			out = append(out, Span{Type: TypeIP, Start: m[0], End: m[1]})
		}
	}
	for _, m := range ipv6Re.FindAllStringIndex(text, -1) {
		start, end := m[0], m[1]
		// A trailing dot or colon is sentence punctuation, not part of the address.
		for end > start && (text[end-1] == '.' || (text[end-1] == ':' && !strings.HasSuffix(text[start:end], "::"))) {
			end--
		}
		v := text[start:end]
		if strings.Count(v, ":") < 2 || isAlnum(runeBefore(text, start)) || runeBefore(text, start) == ':' ||
			isAlnum(runeAt(text, end)) {
			continue
		}
		if a, err := netip.ParseAddr(v); err == nil && a.Is6() {
			out = append(out, Span{Type: TypeIP, Start: start, End: end})
		}
	}
	return out
}

// canonicalIP is netip's canonical text form of the address.
func canonicalIP(s string) string {
	a, err := netip.ParseAddr(s)
	if err != nil {
		return s
	}
	return a.String()
}
