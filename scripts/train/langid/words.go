package main

import (
	"math"
	"unicode/utf8"

	"github.com/sluice-api/sluice/internal/services/langid/model"
)

// Whole words. The n-gram model predicts a word letter by letter from news text, so an everyday
// word that news rarely prints ("hello", "hola") scores no better in its language than in one
// that happens to share its n-grams (Tagalog has " hell" and "hello"; English does not keep
// them). The detector therefore also looks up every padded word longer than model.MaxOrder as a
// whole (" hello "), a key no n-gram can have. Its value for a language is how much more often
// the language's Tatoeba sentences use the word than the language's n-grams predict:
//
//	value(w) = WordWeight × (log P_tatoeba(w) - log P_ngram(w)), when positive
//
// P_tatoeba(w) is the word's share of the words of the training lines (the held-out tenth is
// never counted) and P_ngram(w) the backoff model's probability of " w " spelled out, the
// same chain the detector adds up. Only words seen at least WordMin times qualify. With
// WordShort, words of up to three letters get one too: their padded form is an n-gram that only
// the whole word can match, so the value is added to that n-gram's.

// wholeWords returns the whole-word values of one language: every qualifying word of words
// (its training sentences' words) as " w ", with its value in nats, from the kept n-grams.
func wholeWords(words []string, kept []candidate, cfg config) map[string]float64 {
	if cfg.WordWeight <= 0 || len(words) == 0 {
		return nil
	}
	n := map[string]int{}
	for _, w := range words {
		if cfg.WordShort || utf8.RuneCountInString(w)+2 > model.MaxOrder {
			n[w]++
		}
	}
	lp := make(map[string]float64, len(kept))
	for _, c := range kept {
		lp[c.gram] = c.lp
	}
	total := float64(len(words))
	out := map[string]float64{}
	for w, c := range n {
		if c < cfg.WordMin {
			continue
		}
		v := cfg.WordWeight * (math.Log(float64(c)/total) - ngramLogProb(w, lp, cfg))
		if v > 0 {
			out[" "+w+" "] = v
		}
	}
	return out
}

// ngramLogProb is the backoff model's log probability of the padded word " w ": each letter and
// the end boundary predicted by the longest kept n-gram of up to model.MaxOrder characters
// ending at it, less Backoff per order dropped, Unseen for a character the language lacks.
func ngramLogProb(w string, lp map[string]float64, cfg config) float64 {
	p := []rune(" " + w + " ")
	total := 0.0
	for e := 1; e < len(p); e++ {
		v := cfg.Unseen
		drop := 0.0
		for s := max(e-model.MaxOrder+1, 0); s <= e; s++ {
			if x, ok := lp[string(p[s:e+1])]; ok {
				v = x
				break
			}
			if s < e {
				drop += cfg.Backoff
			}
		}
		total += v + drop
	}
	return total
}
