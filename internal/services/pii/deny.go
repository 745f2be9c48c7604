package pii

import (
	"context"
	"strings"
	"unicode/utf8"

	"github.com/sluice-api/sluice/internal/services/pii/names"
)

// denyMatcher finds given values in a text (the deny parameter's, or the values already
// reported): an Aho-Corasick automaton over the lower-cased code points of the values, so one
// pass over the text finds every occurrence of every value, in time linear in the text plus the
// number of matches (at most one per value per position). A match counts only as whole words: a
// value that starts (ends) with a letter or digit must not be glued to a letter or digit before
// (after) it.
type denyMatcher struct {
	next map[uint64]int32 // state<<21 | rune -> state
	root [utf8.RuneSelf]int32
	// firstBits has bit r%4096 set for the first code point of every (folded) value, so most
	// code points are passed over at the root without a map lookup.
	firstBits [64]uint64
	fail      []int32
	out       []int32 // the value ending at this state, or -1
	dict      []int32 // the nearest state along the fail chain with a value, or -1
	values    []denyValue
}

type denyValue struct {
	runes      int
	alnumFirst bool
	alnumLast  bool
	k          kind // the type its matches are reported as
}

// maxDenyRunes bounds the code points of one deny value (the descriptor enforces it; the
// matcher relies on it for its ring of recent offsets).
const maxDenyRunes = 128

func foldRune(r rune) rune {
	if r < utf8.RuneSelf {
		if r >= 'A' && r <= 'Z' {
			return r + 'a' - 'A'
		}
		return r
	}
	return names.ToLowerRune(r)
}

func newDenyMatcher(deny []string) *denyMatcher {
	kinds := make([]kind, len(deny))
	for i := range kinds {
		kinds[i] = kCustom
	}
	return newMatcher(deny, kinds)
}

// newMatcher builds the automaton of values, each reported as the kind at the same index.
func newMatcher(values []string, kinds []kind) *denyMatcher {
	m := &denyMatcher{next: map[uint64]int32{}, fail: []int32{0}, out: []int32{-1}, dict: []int32{-1}}
	var children [][]int32
	children = append(children, nil)
	seen := map[string]bool{}
	for vi, v := range values {
		v = strings.TrimSpace(v)
		folded := strings.Map(foldRune, v)
		n := utf8.RuneCountInString(folded)
		if v == "" || n > maxDenyRunes || seen[folded] {
			continue
		}
		seen[folded] = true
		first, _ := utf8.DecodeRuneInString(folded)
		last, _ := utf8.DecodeLastRuneInString(folded)
		m.firstBits[(first&4095)>>6] |= 1 << (first & 63)
		m.values = append(m.values, denyValue{runes: n, alnumFirst: isAlnum(first), alnumLast: isAlnum(last), k: kinds[vi]})
		state := int32(0)
		for _, r := range folded {
			key := uint64(state)<<21 | uint64(r)
			nx, ok := m.next[key]
			if !ok {
				nx = int32(len(m.fail))
				m.next[key] = nx
				m.fail = append(m.fail, 0)
				m.out = append(m.out, -1)
				m.dict = append(m.dict, -1)
				children = append(children, nil)
				children[state] = append(children[state], nx)
			}
			state = nx
		}
		m.out[state] = int32(len(m.values) - 1)
	}
	// Fail links in breadth-first order: a state's fail link is the longest proper suffix of its
	// path that is also a path from the root.
	runeOf := make([]rune, len(m.fail))
	for key, st := range m.next {
		runeOf[st] = rune(key & (1<<21 - 1))
	}
	queue := append([]int32(nil), children[0]...)
	for len(queue) > 0 {
		st := queue[0]
		queue = queue[1:]
		for _, ch := range children[st] {
			r := runeOf[ch]
			f := m.fail[st]
			for {
				if nx, ok := m.next[uint64(f)<<21|uint64(r)]; ok && st != 0 {
					m.fail[ch] = nx
					break
				}
				if f == 0 {
					m.fail[ch] = 0
					break
				}
				f = m.fail[f]
			}
			if m.out[m.fail[ch]] >= 0 {
				m.dict[ch] = m.fail[ch]
			} else {
				m.dict[ch] = m.dict[m.fail[ch]]
			}
			queue = append(queue, ch)
		}
	}
	for r := rune(0); r < utf8.RuneSelf; r++ {
		m.root[r] = m.next[uint64(r)]
	}
	return m
}

func (m *denyMatcher) step(state int32, r rune) int32 {
	for {
		if state == 0 {
			if r < utf8.RuneSelf {
				return m.root[r]
			}
			return m.next[uint64(r)]
		}
		if nx, ok := m.next[uint64(state)<<21|uint64(r)]; ok {
			return nx
		}
		state = m.fail[state]
	}
}

// find returns the whole-word occurrences of the deny values in text as TypeCustom candidates.
func (m *denyMatcher) find(ctx context.Context, text string) ([]cand, error) {
	if len(m.values) == 0 {
		return nil, nil
	}
	var out []cand
	var ring [maxDenyRunes + 1]int // byte offsets of the most recent code points
	state := int32(0)
	n := 0 // code points read
	prevAlnum := false
	next := checkEvery
	for i := 0; i < len(text); {
		if i >= next {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			next = i + checkEvery
		}
		r, size := rune(text[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(text[i:])
		}
		ring[n%len(ring)] = i
		n++
		i += size
		alnum := isAlnum(r)
		glued := prevAlnum && alnum // inside a word: no whole-word match starts here
		prevAlnum = alnum
		r = foldRune(r)
		if state == 0 && (glued || m.firstBits[(r&4095)>>6]&(1<<(r&63)) == 0) {
			continue
		}
		state = m.step(state, r)
		for s := state; s > 0; s = m.dict[s] {
			v := m.out[s]
			if v < 0 {
				continue
			}
			val := m.values[v]
			start := ring[(n-val.runes)%len(ring)]
			if (val.alnumFirst && isAlnum(runeBefore(text, start))) || (val.alnumLast && isAlnum(runeAt(text, i))) {
				continue
			}
			out = append(out, cand{start: start, end: i, k: val.k})
		}
	}
	return out, ctx.Err()
}
