// Package model is the intent classifier behind routing.intent.map: text normalisation, hashed
// TF-IDF features, sparse class prototypes compared by cosine similarity, and a softmax with a
// fitted temperature and an explicit "no intent" class. The same code is used by the training
// script, the evaluation command and the service, so what is measured is what ships.
package model

import (
	"context"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Bits is the width of the hashed feature space.
const Bits = 22

const mask = 1<<Bits - 1

// Feature kinds, mixed into the hash so that a word and a character n-gram never share a slot.
const (
	kindWord   = 'w'
	kindBigram = 'b'
	kindChar   = 'c'
)

// Character n-gram lengths taken inside each padded word.
const (
	minGram = 3
	maxGram = 5
)

// charWeight scales character n-gram counts relative to word features, so that the many n-grams
// of a word do not drown the word itself.
const charWeight = 0.5

// checkEvery is how many words are processed between two ctx checks.
const checkEvery = 512

// FNV-1a, 32 bit.
const (
	fnvOffset = 2166136261
	fnvPrime  = 16777619
)

func hashByte(h uint32, b byte) uint32 { return (h ^ uint32(b)) * fnvPrime }

func hashString(h uint32, s string) uint32 {
	for i := 0; i < len(s); i++ {
		h = hashByte(h, s[i])
	}
	return h
}

// Normalize folds text to the form features are taken from: NFKC, lower case, every digit
// replaced by 0, apostrophes dropped ("don't" -> "dont") and every other non-letter, non-digit
// rune turned into a separator. It returns the words.
func Normalize(text string) []string {
	text = norm.NFKC.String(text)
	var b strings.Builder
	b.Grow(len(text))
	for _, r := range text {
		switch {
		case unicode.IsLetter(r):
			b.WriteRune(unicode.ToLower(r))
		case unicode.IsDigit(r):
			b.WriteByte('0')
		case r == '\'' || r == '’' || r == '`':
			// dropped: joins the two halves of a contraction
		case unicode.Is(unicode.Mn, r):
			// combining marks stay with their letter
			b.WriteRune(r)
		default:
			b.WriteByte(' ')
		}
	}
	return strings.Fields(b.String())
}

// Counts returns the weighted term counts of text's features: word unigrams, word bigrams and
// character n-grams (3 to 5 runes) of each word padded with '<' and '>'. It stops with ctx's
// error when ctx is done.
func Counts(ctx context.Context, text string) (map[uint32]float32, error) {
	words := Normalize(text)
	counts := make(map[uint32]float32, 8*len(words))
	var (
		buf    []byte
		starts []int
	)
	for i, w := range words {
		if i%checkEvery == 0 {
			if err := ctx.Err(); err != nil {
				return nil, fmt.Errorf("intent features: %w", err)
			}
		}
		counts[hashString(hashByte(fnvOffset, kindWord), w)&mask]++
		if i > 0 {
			h := hashString(hashByte(fnvOffset, kindBigram), words[i-1])
			h = hashByte(h, ' ')
			counts[hashString(h, w)&mask]++
		}
		buf = append(append(append(buf[:0], '<'), w...), '>')
		starts = starts[:0]
		for j := 0; j < len(buf); {
			starts = append(starts, j)
			_, size := utf8.DecodeRune(buf[j:])
			j += size
		}
		starts = append(starts, len(buf))
		runes := len(starts) - 1
		for n := minGram; n <= maxGram; n++ {
			for s := 0; s+n <= runes; s++ {
				h := hashByte(fnvOffset, kindChar)
				for _, c := range buf[starts[s]:starts[s+n]] {
					h = hashByte(h, c)
				}
				counts[h&mask] += charWeight
			}
		}
	}
	return counts, nil
}
