// Package model is the intent classifier behind routing.intent.map: text normalisation, hashed
// word and character n-gram features, a linear softmax classifier with 8-bit weights, and an
// out-of-scope rule (a probability threshold). The same code is used by the training command,
// the evaluation command and the service, so what is measured is what ships.
package model

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Window bounds the work on long texts: only the first Window code points of a text are
// classified (cut back to the last word boundary), and of those at most MaxWords words. Intents
// are stated early in a message (the first two or three sentences), and the training
// utterances all fit: the longest of CLINC150 has 136 characters and of BANKING77 433 (79
// words). A longer window costs time on every long text and changes no measured answer.
const (
	Window   = 450
	MaxWords = 90
)

// Spec says which features a model takes from a text. It is stored in the model file, so the
// service always extracts what the model was trained on.
type Spec struct {
	// Bits is the width of the hashed feature space.
	Bits uint8
	// Bigrams adds word bigrams, including "<s> first" and "last </s>".
	Bigrams bool
	// CharMin and CharMax bound the character n-grams taken inside each word padded with '<' and
	// '>' (0 disables them).
	CharMin, CharMax uint8
	// CharWeight scales character n-gram counts against word features (in 1/16).
	CharWeight uint8
}

// DefaultSpec is the feature set of the shipped models.
var DefaultSpec = Spec{Bits: 20, Bigrams: true, CharMin: 3, CharMax: 5, CharWeight: 8}

func (s Spec) valid() error {
	if s.Bits < 8 || s.Bits > 28 || s.CharMin > s.CharMax || s.CharMax > 8 || (s.CharMin == 0) != (s.CharMax == 0) {
		return fmt.Errorf("invalid feature spec %+v", s)
	}
	return nil
}

// Feature kinds, mixed into the hash so that a word and a character n-gram never share a slot.
const (
	kindWord   = 'w'
	kindBigram = 'b'
	kindChar   = 'c'
)

// checkEvery is how many words are processed between two ctx checks.
const checkEvery = 64

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

// Clip returns the part of text that is classified: its first Window code points, cut back to
// the last whitespace when the cut falls inside a word (unless the window is one word).
func Clip(text string) string {
	n := 0
	for i := range text {
		if n == Window {
			cut := text[:i]
			r, _ := utf8.DecodeRuneInString(text[i:])
			if !unicode.IsSpace(r) {
				if j := strings.LastIndexFunc(cut, unicode.IsSpace); j > 0 {
					cut = cut[:j]
				}
			}
			return cut
		}
		n++
	}
	return text
}

// Normalize folds text to the words features are taken from: NFKC, lower case, every digit
// replaced by 0, apostrophes dropped ("don't" -> "dont") and every other rune that is not a
// letter, digit or combining mark turned into a separator. It returns at most MaxWords words.
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
			b.WriteRune(r) // combining marks stay with their letter
		default:
			b.WriteByte(' ')
		}
	}
	words := strings.Fields(b.String())
	return words[:min(len(words), MaxWords)]
}

// Entry is one non-zero component of a sparse feature vector.
type Entry struct {
	Feature uint32
	Value   float32
}

// Extract returns the unit-length feature vector of text (after Clip), sorted by feature: each
// feature's weighted count, dampened by TF, then L2-normalised. It stops with ctx's error when
// ctx is done.
func (s Spec) Extract(ctx context.Context, text string) ([]Entry, error) {
	raw, err := s.raw(ctx, text)
	if err != nil {
		return nil, err
	}
	return merge(raw), nil
}

// vector is Extract without the sort: the same entries in the order the text first produced
// them, for prediction, where order does not matter.
func (s Spec) vector(ctx context.Context, text string) ([]Entry, error) {
	raw, err := s.raw(ctx, text)
	if err != nil {
		return nil, err
	}
	return normalize(dedupe(raw)), nil
}

// raw returns one weighted entry per feature occurrence in text (after Clip).
func (s Spec) raw(ctx context.Context, text string) ([]Entry, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("intent features: %w", err)
	}
	words := Normalize(Clip(text))
	mask := uint32(1)<<s.Bits - 1
	charW := float32(s.CharWeight) / 16
	raw := make([]Entry, 0, 24*len(words)+1)
	var (
		buf    []byte
		starts []int
	)
	prev := "<s>"
	for i, w := range words {
		if i%checkEvery == checkEvery-1 {
			if err := ctx.Err(); err != nil {
				return nil, fmt.Errorf("intent features: %w", err)
			}
		}
		raw = append(raw, Entry{hashString(hashByte(fnvOffset, kindWord), w) & mask, 1})
		if s.Bigrams {
			raw = append(raw, Entry{bigram(prev, w) & mask, 1})
		}
		prev = w
		if s.CharMax == 0 {
			continue
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
		for n := int(s.CharMin); n <= int(s.CharMax); n++ {
			for st := 0; st+n <= runes; st++ {
				if n == runes && n > int(s.CharMin) {
					break // the whole padded word is already a feature of its own
				}
				h := hashByte(fnvOffset, kindChar)
				for _, c := range buf[starts[st]:starts[st+n]] {
					h = hashByte(h, c)
				}
				raw = append(raw, Entry{h & mask, charW})
			}
		}
	}
	if s.Bigrams && len(words) > 0 {
		raw = append(raw, Entry{bigram(prev, "</s>") & mask, 1})
	}
	return raw, nil
}

func bigram(a, b string) uint32 {
	h := hashString(hashByte(fnvOffset, kindBigram), a)
	return hashString(hashByte(h, ' '), b)
}

// merge sums the values of equal features, dampens each sum with TF and scales the vector to
// unit length. The result is sorted by feature, so it does not depend on the order of the text's
// words; Spec.Extract returns it for training and evaluation.
func merge(raw []Entry) []Entry {
	out := dedupe(raw)
	slices.SortFunc(out, func(a, b Entry) int { return cmp.Compare(a.Feature, b.Feature) })
	return normalize(out)
}

// dedupe sums the values of equal features in place, in one pass over an open-addressing table,
// and returns the distinct features in the order of their first occurrence. Values are multiples
// of 1/16, so the sums are exact in any order.
func dedupe(raw []Entry) []Entry {
	bits := 4
	for 1<<bits < 2*len(raw) {
		bits++
	}
	slots := make([]int32, 1<<bits) // index+1 into out; 0 is empty
	mask := uint32(len(slots) - 1)
	out := raw[:0]
	for _, e := range raw {
		for h := (e.Feature * 0x9E3779B1) >> (32 - bits); ; h = (h + 1) & mask {
			k := slots[h]
			if k == 0 {
				out = append(out, e)
				slots[h] = int32(len(out))
				break
			}
			if out[k-1].Feature == e.Feature {
				out[k-1].Value += e.Value
				break
			}
		}
	}
	return out
}

// normalize dampens each summed value with TF and scales the vector to unit length.
func normalize(out []Entry) []Entry {
	var sum float64
	for i := range out {
		out[i].Value = TF(out[i].Value)
		sum += float64(out[i].Value) * float64(out[i].Value)
	}
	if sum > 0 {
		inv := float32(1 / math.Sqrt(sum))
		for i := range out {
			out[i].Value *= inv
		}
	}
	return out
}

// TF dampens a weighted count: linear up to 1, logarithmic above.
func TF(c float32) float32 {
	if c <= 1 {
		return c
	}
	return 1 + float32(math.Log(float64(c)))
}
