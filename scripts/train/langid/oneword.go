package main

import (
	"maps"
	"math"

	"github.com/sluice-api/sluice/internal/services/langid/model"
	"github.com/sluice-api/sluice/scripts/internal/evalkit"
)

// One-word messages. When a whole message is one word, the word is rarely what running text
// would predict: people write "hola", "danke", "merci", "help", not the content words that news
// and even Tatoeba's sentences use most. A Sesotho word spelt "hola" is frequent in Sesotho text,
// and no amount of Spanish running text makes Spanish's n-grams or whole words outscore it; what
// does is that "hola" is something Spanish speakers write on its own. The detector therefore
// looks up a message of exactly one word once more, under a key of its own (model.OneWordMark +
// " hola "), and adds that key's values. For each of the eight Tatoeba languages the trainer
// values a word by how much more likely it is as a one-word line of the language's Tatoeba
// training sentences ("Hola.", "¡Gracias!") than the language's other values already make it:
//
//	value(w) = OneWeight × (log P_one(w) − (log P_ngram(w) + whole-word value(w))), when positive
//
// P_one(w) = (lines(w) − OneDiscount) / lines, where lines(w) counts the distinct one-word
// training lines that are w with any punctuation or case ("Hola." and "¡Hola!" are two) and
// lines all one-word training lines. The held-out tenth is never counted: its one-word lines are
// the development set that chose the settings.

// oneWordCounts returns, for the lines that are a single word, how many are each (lower-cased)
// word, and how many there are in all.
func oneWordCounts(lines []string) (map[string]int, int) {
	n := map[string]int{}
	total := 0
	for _, t := range lines {
		ws := chatWords([]string{t})
		if len(ws) != 1 {
			continue
		}
		n[ws[0]]++
		total++
	}
	return n, total
}

// oneWords returns the one-word values of a language, keyed by the model.OneWordMark key of the
// padded word; whole holds the language's whole-word values (wholeWords).
func oneWords(counts map[string]int, total int, whole map[string]float64, kept []candidate, cfg config) map[string]float64 {
	if cfg.OneWeight <= 0 || total == 0 {
		return nil
	}
	lp := make(map[string]float64, len(kept))
	for _, c := range kept {
		lp[c.gram] = c.lp
	}
	out := map[string]float64{}
	for w, c := range counts {
		p := (float64(c) - cfg.OneDiscount) / float64(total)
		if p <= 0 {
			continue
		}
		base := ngramLogProb(w, lp, cfg) + whole[" "+w+" "]
		v := cfg.OneWeight * (math.Log(p) - base)
		if v > 0 {
			out[oneWordKey(w)] = v
		}
	}
	return out
}

// oneWordKey is the key of w (lower-cased by chatWords) written as a whole message.
func oneWordKey(w string) string {
	return string(rune(model.OneWordMark)) + " " + w + " "
}

// chatbotTurns returns the one-word turns of ConvAbuse's training split (toxicity/convabuse in
// the data directory, CC BY 4.0): what users typed to two chatbots, in English, counted as often
// as typed (Tatoeba's lines are deduplicated, so they cannot say that "hi" is common).
func chatbotTurns(data string) (map[string]int, int, error) {
	path, err := evalkit.Require(data, "toxicity", "convabuse", "ConvAbuseEMNLPtrain.csv")
	if err != nil {
		return nil, 0, err
	}
	rows, err := evalkit.ReadCSV(path, ',')
	if err != nil {
		return nil, 0, err
	}
	turns := make([]string, 0, len(rows))
	for _, r := range rows {
		turns = append(turns, r["user"])
	}
	n, total := oneWordCounts(turns)
	return n, total, nil
}

// addCounts returns the sum of two word counts.
func addCounts(a, b map[string]int) map[string]int {
	out := maps.Clone(a)
	if out == nil {
		out = map[string]int{}
	}
	for w, c := range b {
		out[w] += c
	}
	return out
}
