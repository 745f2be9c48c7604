package main

import (
	"bufio"
	"cmp"
	"compress/gzip"
	"fmt"
	"hash/fnv"
	"maps"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/sluice-api/sluice/internal/services/langid/model"
	"github.com/sluice-api/sluice/scripts/internal/evalkit"
)

// Tatoeba's everyday sentences (unlabeled/tatoeba in the data directory, CC BY 2.0 FR) are
// written by many people in the register users chat in: greetings, thanks, questions, the
// pronouns and small verbs that news rarely uses. They add to the news counts of the eight
// languages they cover, one line in ten held out (by hash) for the development set.

// tatoebaLangs are the languages of the Tatoeba sentences in the data directory.
var tatoebaLangs = []string{"de", "en", "es", "fr", "it", "nl", "pl", "pt"}

// tatoebaHeldOut reports whether a Tatoeba line belongs to the development set (one in ten, by
// its hash), never to training.
func tatoebaHeldOut(line string) bool {
	h := fnv.New32a()
	h.Write([]byte(line))
	return h.Sum32()%10 == 0
}

// readTatoeba returns lang's Tatoeba lines, split into training and held-out lines; ok is false
// when the language has none.
func readTatoeba(data, lang string) (train, heldOut []string, ok bool, err error) {
	known := false
	for _, l := range tatoebaLangs {
		known = known || l == lang
	}
	if !known {
		return nil, nil, false, nil
	}
	path, err := evalkit.Require(data, "unlabeled", "tatoeba", lang+".txt.gz")
	if err != nil {
		return nil, nil, false, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, false, err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return nil, nil, false, fmt.Errorf("%s: %w", path, err)
	}
	sc := bufio.NewScanner(zr)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		if tatoebaHeldOut(line) {
			heldOut = append(heldOut, line)
		} else {
			train = append(train, line)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, nil, false, fmt.Errorf("%s: %w", path, err)
	}
	return train, heldOut, true, nil
}

// wordCounts returns the padded n-gram counts of words, scaled so that their letters add up to
// 1 (like the news counts): every n-gram of up to model.MaxOrder characters of " word ", the
// word itself counted as the end boundary " ".
func wordCounts(words []string) map[string]float64 {
	counts := map[string]float64{}
	letters := 0
	for _, w := range words {
		letters += utf8.RuneCountInString(w)
		p := []rune(" " + w + " ")
		for i := range p {
			for n := 1; n <= model.MaxOrder && i+n <= len(p); n++ {
				if n == 1 && i == 0 {
					continue // the start boundary alone is not counted; the end one counts the word
				}
				counts[string(p[i:i+n])]++
			}
		}
	}
	if letters == 0 {
		return counts
	}
	for g := range counts {
		counts[g] /= float64(letters)
	}
	return counts
}

// addScaled adds weight × extra to counts.
func addScaled(counts, extra map[string]float64, weight float64) {
	for g, c := range extra {
		counts[g] += weight * c
	}
}

// tatoebaDev cuts the held-out lines of a language into development samples: up to 2,000
// sentences, and from each a word pair and a single word at seeded positions, so the single
// words are as frequent as they are in the sentences.
func tatoebaDev(lang string, heldOut []string) []sample {
	rng := rand.New(rand.NewPCG(11, uint64(len(lang))))
	step := max(len(heldOut)/2000, 1)
	var out []sample
	for i := 0; i < len(heldOut); i += step {
		t := heldOut[i]
		ws := strings.FieldsFunc(t, func(r rune) bool { return model.ScriptOf(r) == model.NoScript })
		if len(ws) == 0 {
			continue
		}
		out = append(out, sample{lang, "sentences", t})
		if len(ws) >= 2 {
			j := rng.IntN(len(ws) - 1)
			out = append(out, sample{lang, "word-pairs", ws[j] + " " + ws[j+1]})
		}
		out = append(out, sample{lang, "single-words", ws[rng.IntN(len(ws))]})
	}
	return out
}

// byFrequency returns the distinct words, most frequent first (alphabetically on a tie).
func byFrequency(words []string) []string {
	n := map[string]int{}
	for _, w := range words {
		n[w]++
	}
	out := slices.Collect(maps.Keys(n))
	slices.SortFunc(out, func(a, b string) int {
		if c := cmp.Compare(n[b], n[a]); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	return out
}

// keepGrams returns the n-grams of orders 2 to model.MaxOrder of the padded words (" word "),
// the ones prune keeps whatever the budget.
func keepGrams(words []string) map[string]bool {
	keep := map[string]bool{}
	for _, w := range words {
		p := []rune(" " + w + " ")
		for i := range p {
			for n := 2; n <= model.MaxOrder && i+n <= len(p); n++ {
				keep[string(p[i:i+n])] = true
			}
		}
	}
	return keep
}

// oneWordLines returns the held-out lines of lang that are one word ("Hola.", "¡Gracias!"): what
// people write when a single word is the whole message.
func oneWordLines(lang string, heldOut []string) []sample {
	var out []sample
	for _, t := range heldOut {
		ws := strings.FieldsFunc(t, func(r rune) bool { return model.ScriptOf(r) == model.NoScript })
		if len(ws) == 1 {
			out = append(out, sample{lang, "single-words", t})
		}
	}
	return out
}
