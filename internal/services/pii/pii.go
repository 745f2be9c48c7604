// Package pii finds personal data in text and removes it. Two services share one rule-based
// recognizer engine: governance.pii.redact replaces every detected span with a mask, and
// governance.pii.tokenize replaces it with a typed token that is deterministic per account.
//
// Every structured recognizer validates what its pattern finds (checksums, length tables,
// libphonenumber metadata, net/netip), so a number that merely looks like an IBAN or a card is
// not reported. The name recognizer is a small English-centric rule set (honorifics, cue phrases,
// a hand-curated list of common given names) tuned for precision rather than recall.
package pii

import (
	"context"
	"slices"
	"sort"
	"unicode"
	"unicode/utf8"
)

// Entity types, as used in the entities parameter and in Span.Type.
const (
	TypeName  = "name"
	TypeEmail = "email"
	TypeIBAN  = "iban"
	TypeID    = "id"
	TypePhone = "phone"
	TypeCard  = "card"
	TypeIP    = "ip"
)

// priority orders the entity types: when two overlapping candidates have the same length, the
// type that comes first wins. Structured, validated types come before free-text names.
var priority = [...]string{TypeEmail, TypeIBAN, TypeCard, TypeID, TypeIP, TypePhone, TypeName}

// Types returns every entity type the recognizers know, in priority order.
func Types() []string { return slices.Clone(priority[:]) }

// Span is one detected entity: text[Start:End] (byte offsets on rune boundaries) is of Type.
type Span struct {
	Type       string
	Start, End int
}

// recognizer returns candidate spans of one entity type. prior holds the candidates of the
// types before it in priority order; a recognizer may skip work inside them. It may stop early
// (returning what it has) when ctx is done; detect then reports ctx.Err().
type recognizer func(ctx context.Context, text string, prior []Span) []Span

var recognizers = map[string]recognizer{
	TypeEmail: findEmails,
	TypeIBAN:  findIBANs,
	TypeCard:  findCards,
	TypeID:    findNationalIDs,
	TypeIP:    findIPs,
	TypePhone: findPhones,
	TypeName:  findNames,
}

// Detect returns the non-overlapping entity spans of the given types in text, ordered by start.
// Unknown type names are ignored.
func Detect(text string, types []string) []Span {
	spans, _ := detect(context.Background(), text, types)
	return spans
}

// detect runs the recognizers for types and resolves overlaps: the longer span wins, then the
// type with the higher priority, then the earlier span.
func detect(ctx context.Context, text string, types []string) ([]Span, error) {
	var cands []Span
	for _, t := range priority {
		if !slices.Contains(types, t) {
			continue
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		cands = append(cands, recognizers[t](ctx, text, cands)...)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return resolve(text, cands), nil
}

func rank(t string) int { return slices.Index(priority[:], t) }

func resolve(text string, cands []Span) []Span {
	if len(cands) == 0 {
		return nil
	}
	sort.SliceStable(cands, func(i, j int) bool {
		a, b := cands[i], cands[j]
		if la, lb := a.End-a.Start, b.End-b.Start; la != lb {
			return la > lb
		}
		if ra, rb := rank(a.Type), rank(b.Type); ra != rb {
			return ra < rb
		}
		return a.Start < b.Start
	})
	taken := make([]bool, len(text))
	var out []Span
next:
	for _, c := range cands {
		if c.Start < 0 || c.End > len(text) || c.Start >= c.End ||
			!utf8.RuneStart(text[c.Start]) || (c.End < len(text) && !utf8.RuneStart(text[c.End])) {
			continue
		}
		for i := c.Start; i < c.End; i++ {
			if taken[i] {
				continue next
			}
		}
		for i := c.Start; i < c.End; i++ {
			taken[i] = true
		}
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Start < out[j].Start })
	return out
}

// runeBefore returns the rune that ends just before byte offset i, or -1 at the start.
func runeBefore(s string, i int) rune {
	if i <= 0 {
		return -1
	}
	r, _ := utf8.DecodeLastRuneInString(s[:i])
	return r
}

// runeAt returns the rune starting at byte offset i, or -1 at the end.
func runeAt(s string, i int) rune {
	if i >= len(s) {
		return -1
	}
	r, _ := utf8.DecodeRuneInString(s[i:])
	return r
}

func isAlnum(r rune) bool { return r >= 0 && (unicode.IsLetter(r) || unicode.IsDigit(r)) }

// standalone reports whether text[start:end] is not glued to a neighbouring word or number:
// no letter or digit touches it, and no "digit + separator" continues it on either side (so a
// match inside 12-34-56-78 or 1.2.3.4.5 is rejected).
func standalone(s string, start, end int) bool {
	if isAlnum(runeBefore(s, start)) || isAlnum(runeAt(s, end)) {
		return false
	}
	if start >= 2 && isSep(s[start-1]) && isDigit(s[start-2]) {
		return false
	}
	if end+1 < len(s) && isSep(s[end]) && isDigit(s[end+1]) {
		return false
	}
	return true
}

func isSep(b byte) bool   { return b == '-' || b == '.' || b == '/' }
func isDigit(b byte) bool { return b >= '0' && b <= '9' }

// digitsOf returns the ASCII digits of s in order.
func digitsOf(s string) string {
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if isDigit(s[i]) {
			b = append(b, s[i])
		}
	}
	return string(b)
}

// luhn reports whether the digit string passes the Luhn (mod 10) check.
func luhn(d string) bool {
	if d == "" {
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
