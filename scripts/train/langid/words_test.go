package main

import (
	"math"
	"testing"
	"unicode/utf8"

	"github.com/sluice-api/sluice/internal/services/langid/model"
)

// TestNgramLogProbMatchesAdditive checks that the word probability the whole-word values are
// measured against is the detector's: the sum of the additive values of the word's n-grams plus
// what every language shares (Unseen and a Backoff per order above one at each position).
func TestNgramLogProbMatchesAdditive(t *testing.T) {
	cfg := defaultConfig()
	kept := []candidate{
		{gram: " ", lp: -1.5}, {gram: "h", lp: -3}, {gram: "e", lp: -2}, {gram: "l", lp: -2.5},
		{gram: "o", lp: -2.2}, {gram: " h", lp: -2}, {gram: "he", lp: -0.7}, {gram: "ll", lp: -1.1},
		{gram: " he", lp: -0.4}, {gram: "llo", lp: -0.3}, {gram: "o ", lp: -0.9}, {gram: "lo ", lp: -0.5},
	}
	vals := additive(kept, cfg, false)
	for _, w := range []string{"hello", "hole", "x", "ohm"} {
		p := []rune(" " + w + " ")
		sum := 0.0
		for e := 1; e < len(p); e++ {
			k := min(e+1, model.MaxOrder)
			sum += cfg.Unseen + float64(k-1)*cfg.Backoff
			for s := e - k + 1; s <= e; s++ {
				sum += vals[string(p[s:e+1])]
			}
		}
		if got := ngramLogProb(w, lpOf(kept), cfg); math.Abs(got-sum) > 1e-9 {
			t.Errorf("%q: ngramLogProb %.4f, detector's sum %.4f", w, got, sum)
		}
	}
}

func lpOf(kept []candidate) map[string]float64 {
	m := map[string]float64{}
	for _, c := range kept {
		m[c.gram] = c.lp
	}
	return m
}

// TestWholeWords checks which words get a value (long and frequent enough) and that a word
// whose letters are rare gains more than one whose letters are common.
func TestWholeWords(t *testing.T) {
	cfg := defaultConfig()
	cfg.WordWeight, cfg.WordMin, cfg.WordShort = 1, 2, false
	kept := []candidate{{gram: " ", lp: -1}, {gram: "a", lp: -0.1}, {gram: "b", lp: -5}}
	words := []string{"bbbb", "bbbb", "bbbb", "aaaa", "aaaa", "abab", "ab", "ab", "ab"}
	got := wholeWords(words, kept, cfg)
	if _, ok := got[" abab "]; ok {
		t.Errorf("\" abab \" occurs once, below WordMin, got a value")
	}
	if len(got) != 2 || got[" bbbb "] <= got[" aaaa "] || got[" aaaa "] <= 0 {
		t.Fatalf("got %v, want \" bbbb \" (its letters are rare) valued above \" aaaa \"", got)
	}
	for g := range got {
		if utf8.RuneCountInString(g) <= model.MaxOrder {
			t.Errorf("%q is no longer than an n-gram", g)
		}
	}
	// With WordShort (the default since v4), short words get one too.
	cfg.WordShort = true
	if got := wholeWords(words, kept, cfg); got[" ab "] <= 0 || len(got) != 3 {
		t.Errorf("WordShort: got %v, want \" ab \" valued too", got)
	}
}
