package main

import (
	"hash/fnv"
	"math/rand/v2"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/sluice-api/sluice/scripts/train/toxicity/corpus"
)

// Spelling augmentation (-augment; by default our own examples, at weight 0.5): each toxic
// text of a chosen source gets a misspelt copy of the kinds people use to slip abuse past a
// filter: two words run together ("dumbpeople"), two inner letters swapped ("idoit"), an inner
// letter dropped ("idot"). The copies teach the character n-grams to carry a word the word
// n-grams no longer see. Each text gets one copy with one edit, chosen by a PCG seeded with the
// training seed (-seed, default Seed) and the FNV-1a hash of source and text, so the same data
// and seed give the same copies. Only toxic texts are misspelt: a misspelt negation or
// counter-speech cue ("nevr", "mustnot") would leave a harmless text that reads as abuse, with
// a harmless label.

// Spelling edits, one per augmented copy.
const (
	editJoin = iota // delete the space between two words
	editSwap        // swap two adjacent inner letters of a word
	editDrop        // drop an inner letter of a word
	numEdits
)

// minEditLen is the shortest word (in letters) that a swap or drop edits, and the shortest of
// the two words a join runs together: shorter words are mostly function words.
const minEditLen = 4

// augmented is one misspelt copy and the index of the document it was made from.
type augmented struct {
	doc  corpus.Example
	from int
}

// augment returns one misspelt copy of each toxic document whose source has a weight in aw
// (> 0), with an edit kind drawn at random (the next kind when a text offers nothing to edit).
func augment(docs []corpus.Example, aw map[string]float64, seed uint64) []augmented {
	var out []augmented
	for i, d := range docs {
		if !d.Toxic || aw[d.Source] <= 0 {
			continue
		}
		h := fnv.New64a()
		h.Write([]byte(d.Source))
		h.Write([]byte{0})
		h.Write([]byte(d.Text))
		rng := rand.New(rand.NewPCG(seed, h.Sum64()))
		first := rng.IntN(numEdits)
		for k := range numEdits {
			t, ok := misspell(d.Text, (first+k)%numEdits, rng)
			if !ok || t == d.Text {
				continue
			}
			c := d
			c.Text = t
			out = append(out, augmented{doc: c, from: i})
			break
		}
	}
	return out
}

// misspell applies one edit to text, or reports false when no word qualifies. Text is split at
// single spaces; words away from the edit are kept byte for byte. A word is edited only when,
// without the punctuation around it, it is all letters (links, mentions, numbers and hashtags
// are left alone).
func misspell(text string, edit int, rng *rand.Rand) (string, bool) {
	words := strings.Split(text, " ")
	var cand []int
	switch edit {
	case editJoin:
		for i := 0; i+1 < len(words); i++ {
			_, a, aPost := core(words[i])
			bPre, b, _ := core(words[i+1])
			if a == "" || b == "" || aPost != "" || bPre != "" {
				continue
			}
			if max(utf8.RuneCountInString(a), utf8.RuneCountInString(b)) >= minEditLen {
				cand = append(cand, i)
			}
		}
		if len(cand) == 0 {
			return "", false
		}
		i := cand[rng.IntN(len(cand))]
		words[i] += words[i+1]
		words = append(words[:i+1], words[i+2:]...)
	case editSwap, editDrop:
		for i, w := range words {
			if _, c, _ := core(w); utf8.RuneCountInString(c) >= minEditLen {
				cand = append(cand, i)
			}
		}
		if len(cand) == 0 {
			return "", false
		}
		i := cand[rng.IntN(len(cand))]
		pre, c, post := core(words[i])
		r := []rune(c)
		// Inner letters only: the first and last letters stay, as in most real misspellings.
		if edit == editSwap {
			var pos []int
			for j := 1; j+2 < len(r); j++ {
				if r[j] != r[j+1] {
					pos = append(pos, j)
				}
			}
			if len(pos) == 0 {
				return "", false
			}
			j := pos[rng.IntN(len(pos))]
			r[j], r[j+1] = r[j+1], r[j]
		} else {
			j := 1 + rng.IntN(len(r)-2)
			r = append(r[:j], r[j+1:]...)
		}
		words[i] = pre + string(r) + post
	default:
		return "", false
	}
	return strings.Join(words, " "), true
}

// core splits w into leading punctuation, a core of letters and trailing punctuation. The core
// is "" when w is empty, not valid UTF-8, or holds anything but letters between its punctuation.
func core(w string) (pre, c, post string) {
	if !utf8.ValidString(w) {
		return "", "", ""
	}
	isPunct := func(r rune) bool { return unicode.IsPunct(r) && r != '@' && r != '#' }
	c = strings.TrimLeftFunc(w, isPunct)
	pre = w[:len(w)-len(c)]
	trimmed := strings.TrimRightFunc(c, isPunct)
	post = c[len(trimmed):]
	c = trimmed
	for _, r := range c {
		if !unicode.IsLetter(r) {
			return "", "", ""
		}
	}
	return pre, c, post
}

// keepBalance scales the harmless documents of every source and language that got misspelt
// copies so that the toxic share of its weight stays what it was without them: the copies add
// robustness to misspelling, not a lean towards "toxic". docs and dw are the original documents
// and their weights (changed in place); extra and ew are the copies and theirs.
func keepBalance(docs []corpus.Example, dw []float64, extra []augmented, ew []float64) {
	type key struct{ source, lang string }
	added := map[key]float64{}
	for i, a := range extra {
		added[key{a.doc.Source, a.doc.Lang}] += ew[i]
	}
	toxic := map[key]float64{}
	for i, d := range docs {
		if k := (key{d.Source, d.Lang}); d.Toxic && added[k] > 0 {
			toxic[k] += dw[i]
		}
	}
	for i, d := range docs {
		if k := (key{d.Source, d.Lang}); !d.Toxic && added[k] > 0 && toxic[k] > 0 {
			dw[i] *= (toxic[k] + added[k]) / toxic[k]
		}
	}
}
