package pii

// group is one run of digits in a numeric sequence: text[start:end], and the separator before
// it (none for the first group). It is small, as a hostile text can be one sequence of tens of
// thousands of groups.
type group struct {
	start, end int32
	sepN       uint8
	sepB       [maxSepLen]byte
}

func (g group) n() int { return int(g.end - g.start) }

// sepIs reports whether the separator before g is sep.
func (g group) sepIs(sep string) bool { return string(g.sepB[:g.sepN]) == sep }

// sepEq reports whether g and h have the same separator before them.
func (g group) sepEq(h group) bool { return g.sepN == h.sepN && g.sepB == h.sepB }

// sepStarts and sepEnds report whether the separator before g starts or ends with c.
func (g group) sepStarts(c byte) bool { return g.sepN > 0 && g.sepB[0] == c }
func (g group) sepEnds(c byte) bool   { return g.sepN > 0 && g.sepB[g.sepN-1] == c }

// Bounds of a numeric sequence's parts.
const (
	maxSepLen      = 3  // "-", " ", ") ", " / ", " (" ...
	maxPhoneGroups = 8  // phone numbers are looked for in sequences of at most this many groups
	maxPhoneDigits = 15 // E.164
	minPhoneDigits = 7
)

func isSepByte(c byte) bool {
	return c == ' ' || c == '-' || c == '.' || c == '/' || c == '(' || c == ')'
}

// numeric reads the numeric sequence that starts at i (a digit, or '+' or '(' before one): digit
// groups joined by separators of one to three characters among space, '-', '.', '/', '(' and
// ')'. It examines the sequence once and returns its end. The sequence is consumed whole, so
// the work is linear in its length however long it is.
func (s *scanner) numeric(i int) int {
	t := s.text
	start := i
	lead := byte(0)
	if t[i] == '+' || t[i] == '(' {
		lead = t[i]
		i++
		if lead == '+' && i < len(t) && t[i] == '(' { // "+(44) 20 ..."
			i++
		}
	}
	gs := s.groups[:0]
	var sep group // carries the separator for the next group
	for {
		j := i
		for j < len(t) && isDigit(t[j]) {
			j++
		}
		g := sep
		g.start, g.end = int32(i), int32(j)
		gs = append(gs, g)
		// A separator continues the sequence only when a digit follows it.
		k := j
		for k < len(t) && k-j < maxSepLen && isSepByte(t[k]) {
			k++
		}
		if k == j || k >= len(t) || !isDigit(t[k]) {
			i = j
			break
		}
		sep = group{sepN: uint8(k - j)}
		copy(sep.sepB[:], t[j:k])
		i = k
	}
	s.groups = gs
	end := int(gs[len(gs)-1].end)
	s.examine(start, end, lead, gs)
	return end
}

// examine judges one numeric sequence text[start:end] with its groups.
func (s *scanner) examine(start, end int, lead byte, gs []group) {
	t := s.text
	// Glued to a word or code on the left ("v1.2", "ID-1234", "#1234"): not a value.
	if b := runeBefore(t, start); isAlnum(b) || b == '#' || b == '_' ||
		((b == '-' || b == '/' || b == '.') && isAlnum(runeBefore(t, start-1))) {
		return
	}
	// A time, an IPv6 address or a ratio continues with ':' and a digit.
	if end+1 < len(t) && t[end] == ':' && isASCIIAlnum(t[end+1]) {
		return
	}
	// Eight digits and a letter may be a Spanish DNI ("12345678Z", "12345678-Z").
	if s.types.has(kID) && lead == 0 && len(gs) == 1 {
		s.dni(gs[0], end)
	}
	// Glued to a letter on the right, it is a code, unless an 'x' starts a phone extension
	// ("555-0100x23").
	if after := runeAt(t, end); isAlnum(after) && after != 'x' && after != 'X' {
		return
	}
	if s.types.has(kIP) && lead == 0 {
		s.ipv4(gs)
	}
	if s.types.has(kCard) && lead == 0 {
		s.cards(gs)
	}
	if s.types.has(kID) && lead == 0 {
		s.numericIDs(gs, end)
	}
	if s.types.has(kPhone) {
		s.phonesIn(start, lead, gs)
	}
}

// sameSeps reports whether every group after the first is joined by the same separator.
func sameSeps(gs []group) bool {
	for _, g := range gs[2:] {
		if !g.sepEq(gs[1]) {
			return false
		}
	}
	return true
}

// lens reports whether the groups have exactly the given digit counts.
func lens(gs []group, want ...int) bool {
	if len(gs) != len(want) {
		return false
	}
	for i, g := range gs {
		if g.n() != want[i] {
			return false
		}
	}
	return true
}

func digitCount(gs []group) int {
	n := 0
	for _, g := range gs {
		n += g.n()
	}
	return n
}

// joined returns the digits of the groups.
func (s *scanner) joined(gs []group) string { return string(s.appendDigits(s.digits[:0], gs)) }

// appendDigits appends the digits of the groups to b.
func (s *scanner) appendDigits(b []byte, gs []group) []byte {
	for _, g := range gs {
		b = append(b, s.text[g.start:g.end]...)
	}
	return b
}
