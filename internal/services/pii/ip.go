package pii

import (
	"net/netip"
	"strings"
)

// maxIPv6 is the longest textual IPv6 address (with an embedded IPv4 tail).
const maxIPv6 = 45

// ipv4 reports a dotted quad that is a whole numeric sequence (or is followed by a CIDR prefix
// length, "10.0.0.0/8"): four groups of one to three digits joined by dots, which net/netip
// accepts (no octet above 255, no leading zeros).
func (s *scanner) ipv4(gs []group) {
	if len(gs) < 4 || (len(gs) > 4 && !(len(gs) == 5 && gs[4].sepIs("/") && gs[4].n() <= 2)) {
		return
	}
	for i, g := range gs[:4] {
		if g.n() > 3 || (i > 0 && !g.sepIs(".")) {
			return
		}
	}
	start, end := int(gs[0].start), int(gs[3].end)
	if a, err := netip.ParseAddr(s.text[start:end]); err == nil && a.Is4() {
		s.add(start, end, kIP)
	}
}

func isHexOrColon(c byte) bool {
	return isDigit(c) || (c|0x20 >= 'a' && c|0x20 <= 'f') || c == ':' || c == '.'
}

// ipv6 examines the run of hex digits, colons and dots around the ':' at i, once per run: a run
// with at least two colons and at most 45 characters that net/netip parses as IPv6 (sentence
// punctuation at its end aside) is an address. Longer runs are skipped whole.
func (s *scanner) ipv6(i int) {
	t := s.text
	start := i
	for start > 0 && i-start <= maxIPv6 && isHexOrColon(t[start-1]) {
		start--
	}
	end := i + 1
	for end < len(t) && isHexOrColon(t[end]) {
		end++
	}
	s.hexEnd = end
	if end-start > maxIPv6+1 || (start > 0 && isHexOrColon(t[start-1])) {
		return
	}
	if isAlnum(runeBefore(t, start)) || isAlnum(runeAt(t, end)) {
		return
	}
	// A trailing dot or colon is punctuation, not part of the address ("... from fe80::1.").
	for end > start && (t[end-1] == '.' || (t[end-1] == ':' && !strings.HasSuffix(t[start:end], "::"))) {
		end--
	}
	v := t[start:end]
	if strings.Count(v, ":") < 2 {
		return
	}
	if a, err := netip.ParseAddr(v); err == nil && a.Is6() && a.Zone() == "" {
		s.add(start, end, kIP)
	}
}

// canonicalIP is netip's canonical text form of the address.
func canonicalIP(s string) string {
	a, err := netip.ParseAddr(s)
	if err != nil {
		return s
	}
	return a.String()
}
