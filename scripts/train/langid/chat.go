package main

import (
	"bufio"
	"bytes"
	_ "embed"
	"strings"
	"unicode/utf8"

	"github.com/sluice-api/sluice/internal/services/langid/model"
)

// chatFile holds everyday chat phrases written by hand for the languages users write most
// (greetings, thanks, yes and no, small talk): the news corpora behind lingua-go's tables rarely
// contain them, and short chat messages are what the service sees most.
//
//go:embed chat.tsv
var chatFile []byte

// chatPhrases returns the phrases of lang.
func chatPhrases(lang string) []string {
	var out []string
	sc := bufio.NewScanner(bytes.NewReader(chatFile))
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		l, phrase, ok := strings.Cut(line, "\t")
		if ok && l == lang {
			out = append(out, phrase)
		}
	}
	return out
}

// chatWords cuts phrases into lower-cased words as the detector does (runs of letters, a letter
// stretched to three or more read as one).
func chatWords(phrases []string) []string {
	var words []string
	for _, p := range phrases {
		var w []rune
		flush := func() {
			if len(w) > 0 {
				words = append(words, model.Destretch(string(w))) // as the detector reads it
			}
			w = w[:0]
		}
		for _, r := range p {
			if model.ScriptOf(r) == model.NoScript {
				flush()
				continue
			}
			w = append(w, model.Lower(r))
		}
		flush()
	}
	return words
}

// addChat adds lang's chat phrases to its padded counts (letters normalised to 1) as if they
// were weight × the corpus: every padded n-gram of every word, the words as " ".
func addChat(counts map[string]float64, lang string, weight float64) {
	words := chatWords(chatPhrases(lang))
	if weight <= 0 || len(words) == 0 {
		return
	}
	letters := 0
	for _, w := range words {
		letters += utf8.RuneCountInString(w)
	}
	unit := weight / float64(letters)
	for _, w := range words {
		p := []rune(" " + w + " ")
		for i := range p {
			for n := 1; n <= model.MaxOrder && i+n <= len(p); n++ {
				g := string(p[i : i+n])
				if g == " " && i == 0 {
					continue // the start boundary alone is not counted; the end one counts the word
				}
				counts[g] += unit
			}
		}
	}
}
