package pii

// iinRule is one issuer range: card numbers whose first len(lo) digits lie in [lo, hi] and whose
// length is within [minLen, maxLen].
type iinRule struct {
	lo, hi         string
	minLen, maxLen int
}

// iinRules lists the issuer identification number ranges of the major networks.
var iinRules = []iinRule{
	{"4", "4", 13, 19},       // Visa
	{"51", "55", 16, 16},     // Mastercard
	{"2221", "2720", 16, 16}, // Mastercard 2-series
	{"34", "34", 15, 15},     // American Express
	{"37", "37", 15, 15},     // American Express
	{"6011", "6011", 16, 19}, // Discover
	{"644", "649", 16, 19},   // Discover
	{"65", "65", 16, 19},     // Discover, RuPay
	{"35", "35", 16, 19},     // JCB (3528-3589 assigned; the whole 35 block is accepted)
	{"1800", "1800", 15, 15}, // JCB (legacy)
	{"2131", "2131", 15, 15}, // JCB (legacy)
	{"300", "305", 14, 19},   // Diners Club
	{"36", "36", 14, 19},     // Diners Club
	{"38", "39", 14, 19},     // Diners Club
	{"62", "62", 16, 19},     // UnionPay
	{"2200", "2204", 16, 19}, // Mir
	{"50", "50", 12, 19},     // Maestro
	{"0604", "0604", 12, 19}, // Maestro (legacy)
	{"56", "69", 12, 19},     // Maestro (and national debit schemes in 60-69)
	{"60", "60", 16, 16},     // RuPay
	{"81", "82", 16, 16},     // RuPay
	{"9792", "9792", 16, 16}, // Troy
}

func knownIIN[T string | []byte](d T) bool {
	for _, r := range iinRules {
		if len(d) < r.minLen || len(d) > r.maxLen || len(d) < len(r.lo) {
			continue
		}
		if p := string(d[:len(r.lo)]); p >= r.lo && p <= r.hi {
			return true
		}
	}
	return false
}

// cards finds card numbers in a numeric sequence. A card is written as one run of 12 to 19
// digits, or in groups joined by single spaces or dashes: groups of four with a shorter last
// group (4-4-4-4, 4-4-4-4-3, 4-4-4-1...), or Amex's 4-6-5 and Diners' 4-6-4. Inside a longer
// sequence a card must sit between spaces ("card 4111 1111 1111 1111 exp 12 29" is a card, the
// "7.4111111111111111" of a decimal is not). From each group at most five shapes are tried, so
// the work is linear in the sequence.
func (s *scanner) cards(gs []group) {
	// A whole sequence written like a card is judged as one: if its Luhn digit is wrong it is
	// a look-alike, and no shorter card is looked for inside it.
	if cardShape(gs) {
		if s.cardAt(gs, 0) == len(gs) {
			s.add(int(gs[0].start), int(gs[len(gs)-1].end), kCard)
		}
		return
	}
	for i := 0; i < len(gs); {
		if i > 0 && !gs[i].sepIs(" ") {
			i++
			continue
		}
		if end := s.cardAt(gs, i); end > i {
			s.add(int(gs[i].start), int(gs[end-1].end), kCard)
			i = end
			continue
		}
		i++
	}
}

// cardAt returns the end (exclusive group index) of the longest card starting at group i, or i.
func (s *scanner) cardAt(gs []group, i int) int {
	for n := min(5, len(gs)-i); n >= 1; n-- {
		c := gs[i : i+n]
		if i+n < len(gs) && !gs[i+n].sepIs(" ") {
			continue // the card must end at a space or the end of the sequence
		}
		if !cardShape(c) {
			continue
		}
		s.digits = s.appendDigits(s.digits[:0], c)
		if luhn(s.digits) && knownIIN(s.digits) {
			return i + n
		}
	}
	return i
}

func cardShape(gs []group) bool {
	total := digitCount(gs)
	if total < 12 || total > 19 {
		return false
	}
	if len(gs) == 1 {
		return true
	}
	if (!gs[1].sepIs(" ") && !gs[1].sepIs("-")) || !sameSeps(gs) {
		return false
	}
	if lens(gs, 4, 6, 5) || lens(gs, 4, 6, 4) {
		return true
	}
	for _, g := range gs[:len(gs)-1] {
		if g.n() != 4 {
			return false
		}
	}
	last := gs[len(gs)-1].n()
	return last >= 1 && last <= 4
}

// luhn reports whether the digit string passes the Luhn (mod 10) check.
func luhn[T string | []byte](d T) bool {
	if len(d) == 0 {
		return false
	}
	sum := 0
	double := false
	for i := len(d) - 1; i >= 0; i-- {
		n := int(d[i] - '0')
		if double {
			n *= 2
			if n > 9 {
				n -= 9
			}
		}
		sum += n
		double = !double
	}
	return sum%10 == 0
}

// canonicalDigits keeps only the digits of a number written with separators.
func canonicalDigits(s string) string { return digitsOf(s) }
