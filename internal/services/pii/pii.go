// Package pii finds personal data in text and removes it. Two services share one detector:
// governance.pii.redact replaces every detected span with a mask, and governance.pii.tokenize
// replaces it with a typed token that is deterministic per account.
//
// Detection runs in time linear in the text. One scan over the text finds the candidates of
// every structured type (e-mail addresses, IBANs, cards, phone numbers, IP addresses, national
// identifiers) with bounded lengths and validates each one (checksums, country length tables,
// libphonenumber metadata, net/netip); names come from a statistical tagger over the text's
// words (package names); deny-list values from an Aho-Corasick automaton. Overlapping
// candidates are then resolved once: the longest wins, then the most specific type.
package pii

import (
	"context"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/sluice-api/sluice/internal/services/pii/names"
)

// Entity types, as used in the entities parameter and in Span.Type. TypeCustom is the type of
// the values of the deny parameter; it is not an entities value.
const (
	TypeName   = "name"
	TypeEmail  = "email"
	TypeIBAN   = "iban"
	TypeID     = "id"
	TypePhone  = "phone"
	TypeCard   = "card"
	TypeIP     = "ip"
	TypeCustom = "custom"
)

// priority orders the types from most to least specific: when two overlapping candidates have
// the same length, the one whose type comes first wins. A deny-list value is what the client
// asked for explicitly; validated structured types come before phone numbers, and free-text
// names come last.
var priority = [...]string{TypeCustom, TypeEmail, TypeIBAN, TypeCard, TypeID, TypeIP, TypePhone, TypeName}

// entityTypes are the values of the entities parameter, in priority order.
var entityTypes = priority[1:]

// Types returns every entity type the entities parameter accepts, in priority order.
func Types() []string { return slices.Clone(entityTypes) }

// kind is a type as a small integer (its index in priority), for fast sets and comparisons.
type kind uint8

const (
	kCustom kind = iota
	kEmail
	kIBAN
	kCard
	kID
	kIP
	kPhone
	kName
	numKinds
)

func (k kind) String() string { return priority[k] }

func kindOf(t string) (kind, bool) {
	i := slices.Index(priority[:], t)
	return kind(i), i >= 0
}

// kindSet is a set of kinds.
type kindSet uint16

func (s kindSet) has(k kind) bool { return s&(1<<k) != 0 }

func setOf(types []string) kindSet {
	var s kindSet
	for _, t := range types {
		if k, ok := kindOf(t); ok && k != kCustom {
			s |= 1 << k
		}
	}
	return s
}

// Span is one detected entity: text[Start:End] (byte offsets on rune boundaries) is of Type.
type Span struct {
	Type       string
	Start, End int
}

// Options says what Find looks for.
type Options struct {
	// Types are the entity types to find (see Types); unknown names are ignored.
	Types []string
	// Allow lists values that are never reported, compared with each detected value
	// case-insensitively as a whole (surrounding white space ignored).
	Allow []string
	// Deny lists literal strings that are always reported as TypeCustom wherever they occur
	// as whole words, compared case-insensitively.
	Deny []string
	// HighRecall runs the name tagger at its high-recall operating point (names.HighRecallBias
	// added to its bias of B): more names found, more ordinary words reported.
	HighRecall bool
	// Names is the name tagger to run; nil means the embedded one (names.Default). Evaluations
	// set it to score a candidate model the way the service would run it.
	Names *names.Model
}

// Detect returns the non-overlapping entity spans of the given types in text, ordered by start,
// with byte offsets. Unknown type names are ignored.
func Detect(text string, types []string) []Span {
	spans, _ := find(context.Background(), text, Options{Types: types})
	return spans
}

// Entity is one detected entity with offsets in code points, as every size in Sluice counts.
type Entity struct {
	Type string
	// Start and End are code-point offsets: the entity is runes [Start, End) of the text.
	Start, End int
	Value      string
}

// Find returns the entities of text that opts asks for, ordered by start, with code-point
// offsets. It returns ctx.Err() (wrapped) when ctx is done before it finishes.
func Find(ctx context.Context, text string, opts Options) ([]Entity, error) {
	spans, err := find(ctx, text, opts)
	if err != nil {
		return nil, err
	}
	out := make([]Entity, 0, len(spans))
	runes, last := 0, 0
	for _, s := range spans {
		runes += utf8.RuneCountInString(text[last:s.Start])
		start := runes
		runes += utf8.RuneCountInString(text[s.Start:s.End])
		last = s.End
		out = append(out, Entity{Type: s.Type, Start: start, End: runes, Value: text[s.Start:s.End]})
	}
	return out, nil
}

// cand is a candidate span during detection.
type cand struct {
	start, end int
	k          kind
}

// find runs the detector: the structured scan, the name tagger and the deny automaton collect
// candidates; resolve keeps the winners; allowed values are dropped.
func find(ctx context.Context, text string, opts Options) ([]Span, error) {
	types := setOf(opts.Types)
	var cands []cand
	if types&^(1<<kName) != 0 {
		sc := newScanner(text, types)
		if err := sc.run(ctx); err != nil {
			return nil, err
		}
		cands = sc.cands
	}
	if types.has(kName) {
		names, err := findNames(ctx, text, opts.Names, opts.HighRecall)
		if err != nil {
			return nil, err
		}
		cands = append(cands, names...)
	}
	if len(opts.Deny) > 0 {
		custom, err := newDenyMatcher(opts.Deny).find(ctx, text)
		if err != nil {
			return nil, err
		}
		cands = append(cands, custom...)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	spans := resolve(text, cands)
	spans, err := everyOccurrence(ctx, text, spans)
	if err != nil {
		return nil, err
	}
	if len(opts.Allow) > 0 {
		spans = dropAllowed(text, spans, opts.Allow)
	}
	return spans, nil
}

// resolve keeps the winners among overlapping candidates: the longer span wins, then the more
// specific type (priority), then the earlier one. Candidates are sorted once and each accepted
// byte is marked once, so the cost is O(c log c + the length of the accepted spans).
func resolve(text string, cands []cand) []Span {
	if len(cands) == 0 {
		return nil
	}
	sort.Slice(cands, func(i, j int) bool {
		a, b := cands[i], cands[j]
		if la, lb := a.end-a.start, b.end-b.start; la != lb {
			return la > lb
		}
		if a.k != b.k {
			return a.k < b.k
		}
		return a.start < b.start
	})
	taken := make([]bool, len(text))
	out := make([]Span, 0, len(cands))
	for _, c := range cands {
		if c.start < 0 || c.end > len(text) || c.start >= c.end ||
			!utf8.RuneStart(text[c.start]) || (c.end < len(text) && !utf8.RuneStart(text[c.end])) {
			continue
		}
		// Every span taken before c is at least as long as c, so one that overlaps c covers
		// c's first or last byte: checking those two is exact.
		if taken[c.start] || taken[c.end-1] {
			continue
		}
		for i := c.start; i < c.end; i++ {
			taken[i] = true
		}
		out = append(out, Span{Type: c.k.String(), Start: c.start, End: c.end})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Start < out[j].Start })
	return out
}

// Bounds of everyOccurrence: values shorter than minRepeat code points are not looked for again
// (a one-letter name would take every "C").
const minRepeat = 3

// everyOccurrence reports every other whole-word occurrence of a value already reported, in
// any case (names only as written), with the same type: a name the tagger found once in a clear
// context ("my name is Anna Berg") is removed where it appears again without one, a number found
// next to its keyword, or between separators that let it be read as one, is removed wherever
// else it is written. New spans never overlap the ones already reported.
//
// The values are indexed by their first run of letters and digits; one pass over the text's
// runs of letters and digits looks each up and compares the few values that start with it, so
// the cost is linear in the text plus the length of the values compared.
func everyOccurrence(ctx context.Context, text string, spans []Span) ([]Span, error) {
	type repeat struct {
		value string
		off   int // byte offset of the key in value
		k     kind
	}
	index := map[string][]repeat{}
	seen := map[string]bool{}
	for _, s := range spans {
		v := text[s.Start:s.End]
		k, _ := kindOf(s.Type)
		if k == kCustom || seen[v] || utf8.RuneCountInString(v) < minRepeat {
			continue
		}
		seen[v] = true
		ks, ke := firstRun(v)
		if ks == ke {
			continue
		}
		key := strings.Map(foldRune, v[ks:ke])
		index[key] = append(index[key], repeat{value: v, off: ks, k: k})
	}
	if len(index) == 0 {
		return spans, nil
	}
	taken := make([]bool, len(text))
	for _, s := range spans {
		for i := s.Start; i < s.End; i++ {
			taken[i] = true
		}
	}
	var fresh []cand
	buf := make([]byte, 0, 64)
	next := checkEvery
	for i := 0; i < len(text); {
		if i >= next {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			next = i + checkEvery
		}
		if c := text[i]; c < utf8.RuneSelf && !asciiAlnum(c) {
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(text[i:])
		if !isAlnum(r) {
			i += n
			continue
		}
		ws := i
		buf = buf[:0]
		for i < len(text) {
			if c := text[i]; c < utf8.RuneSelf {
				// ASCII, most of any text: no decoding.
				if !asciiAlnum(c) {
					break
				}
				if c >= 'A' && c <= 'Z' {
					c += 'a' - 'A'
				}
				buf = append(buf, c)
				i++
				continue
			}
			r, n := utf8.DecodeRuneInString(text[i:])
			if !isAlnum(r) {
				break
			}
			buf = utf8.AppendRune(buf, foldRune(r))
			i += n
		}
		for _, rv := range index[string(buf)] {
			start, end := ws-rv.off, ws-rv.off+len(rv.value)
			if start < 0 || end > len(text) || taken[start] || taken[end-1] {
				continue
			}
			got := text[start:end]
			if rv.k == kName && got != rv.value || !strings.EqualFold(got, rv.value) {
				continue // names only as written ("Bodyboarding" at a sentence start is not a name)
			}
			// Whole words, as for deny values: an edge that is a letter or digit must not be
			// glued to another one.
			first, _ := utf8.DecodeRuneInString(got)
			last, _ := utf8.DecodeLastRuneInString(got)
			if (isAlnum(first) && isAlnum(runeBefore(text, start))) || (isAlnum(last) && isAlnum(runeAt(text, end))) ||
				slices.Contains(taken[start:end], true) {
				continue
			}
			fresh = append(fresh, cand{start: start, end: end, k: rv.k})
		}
	}
	if len(fresh) == 0 {
		return spans, nil
	}
	spans = append(spans, resolve(text, fresh)...)
	sort.Slice(spans, func(i, j int) bool { return spans[i].Start < spans[j].Start })
	return spans, nil
}

// asciiAlnum reports whether the ASCII byte c is a letter or a digit (isAlnum for ASCII).
func asciiAlnum(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' || c >= '0' && c <= '9' }

// firstRun returns the byte offsets of the first run of letters and digits in v.
func firstRun(v string) (int, int) {
	start := -1
	for i, r := range v {
		switch a := isAlnum(r); {
		case a && start < 0:
			start = i
		case !a && start >= 0:
			return start, i
		}
	}
	if start < 0 {
		return 0, 0
	}
	return start, len(v)
}

// dropAllowed removes the spans whose value is an allowed value; deny-list spans stay, as the
// client asked for them explicitly.
func dropAllowed(text string, spans []Span, allow []string) []Span {
	out := spans[:0]
	for _, s := range spans {
		if s.Type != TypeCustom && allowed(text[s.Start:s.End], allow) {
			continue
		}
		out = append(out, s)
	}
	return out
}

func allowed(value string, allow []string) bool {
	value = strings.TrimSpace(value)
	for _, a := range allow {
		if strings.EqualFold(value, strings.TrimSpace(a)) {
			return true
		}
	}
	return false
}
