// Package names finds person names in text with a statistical tagger: a linear-chain model (a
// structured averaged perceptron) that labels each word outside, beginning or inside a name
// (BIO) and is decoded with Viterbi. Its features are the word, its shape, prefixes and
// suffixes, capitalisation, its neighbours, the punctuation and line breaks around it, a
// gazetteer of given names and surnames of many locales, a lexicon of titles, cue words,
// months, weekdays, places, organisations, products and roles (lists/*.txt), word classes
// learned from unlabeled text (Clusters), and the label before it. The weights are hashed into
// a fixed number of buckets and stored as 16-bit integers.
//
// A short table of rules then corrects the tagger where its training data is thin (names after
// titles and offices, initials; see rules.go). Each rule can be switched off by name, and
// carries what switching it off was measured to change.
//
// The weights, the gazetteer and the word classes are trained by scripts/train/pii and embedded
// in one model file (tagger.model, see modelfile.go); see MODEL.md. Tagging is linear in the text: one tokenizing pass, one pass per line for the
// log-line rule, and a bounded number of features per word.
package names

import (
	"context"
	_ "embed"
	"fmt"
	"slices"
	"sync"
)

// Span is a name: text[Start:End], byte offsets.
type Span struct{ Start, End int }

// Model is a trained tagger: the weights of every feature bucket for each label, and the
// gazetteer its features look words up in.
type Model struct {
	bits    uint
	weights []int16 // bucket*numLabels + label
	scale   float32 // weight = int16 / scale
	gaz     *Gazetteer
	clus    *Clusters
	// without names the rules switched off (see WithoutRules).
	without map[string]bool
	// biasB is added to the score of B (a name starts here) at every token, in the units of
	// the weights before quantisation: a positive bias trades precision for recall. The trainer
	// records it in the model file; it is chosen on the development sets.
	biasB float64
	// lists: the SHA-256 of each word list the model was trained with, by name (lists/NAME.txt).
	lists map[string]string
}

//go:embed tagger.model
var modelFile []byte

// Default returns the embedded model, loaded once per process.
var Default = sync.OnceValues(func() (*Model, error) { return Decode(modelFile) })

// WithoutRules returns a copy of m with the named rules after the tagger switched off, for
// measuring what each is worth (go run ./scripts/eval/pii -without NAME). It returns an error
// naming a rule that does not exist.
func (m *Model) WithoutRules(names ...string) (*Model, error) {
	cp := *m
	cp.without = map[string]bool{}
	for k := range m.without {
		cp.without[k] = true
	}
	for _, n := range names {
		if !slices.Contains(RuleNames, n) {
			return nil, fmt.Errorf("names: no rule %q", n)
		}
		cp.without[n] = true
	}
	return &cp, nil
}

// HighRecallBias is what the high-recall operating point (the name_recall param of the PII
// services) adds to the model's bias of B, in weight units; MODEL.md gives the precision and
// recall of both points on the development sets.
const HighRecallBias = 32

// WithBias returns a copy of m whose score of B is raised by b (see Model.biasB).
func (m *Model) WithBias(b float64) *Model {
	cp := *m
	cp.biasB = b
	return &cp
}

// Bias is the bias of the score of B (see WithBias).
func (m *Model) Bias() float64 { return m.biasB }

// WithClusters returns a copy of m that reads word classes from c (nil: none).
func (m *Model) WithClusters(c *Clusters) *Model {
	cp := *m
	cp.clus = c
	return &cp
}

// Gazetteer is the gazetteer the model's features look words up in.
func (m *Model) Gazetteer() *Gazetteer { return m.gaz }

// WithGazetteer returns a copy of m that looks words up in g.
func (m *Model) WithGazetteer(g *Gazetteer) *Model {
	c := *m
	c.gaz = g
	return &c
}

// checkEvery is how many tokens the tagger handles between two looks at its context.
const checkEvery = 1024

// Tag returns the names in text, in order. It returns ctx.Err() when ctx is done first.
func (m *Model) Tag(ctx context.Context, text string) ([]Span, error) {
	toks := Tokenize(text)
	labels, err := m.labels(ctx, text, toks)
	if err != nil {
		return nil, err
	}
	return Spans(text, toks, labels), nil
}

// labels labels every token of text (see decode) and runs the rules after the tagger.
func (m *Model) labels(ctx context.Context, text string, toks []Token) ([]uint8, error) {
	f := featurizer{text: text, toks: toks, bits: m.bits, buf: make([]uint32, 0, 64), gaz: m.gaz, clus: m.clus, off: m.without}
	f.info = analyse(text, toks, m.gaz, make([]byte, 0, 64))
	labels, err := m.decode(&f, func(i int) error {
		if i%checkEvery == checkEvery-1 {
			return ctx.Err()
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	applyRules(&f, labels)
	return labels, ctx.Err()
}

// Spans turns the labels of toks into name spans. A name is a B token and the I tokens after
// it, cut where the text between two of its words is more than a space, a hyphen, or the
// period after an initial ("John F. Kennedy"). A trailing possessive 's is left out.
func Spans(text string, toks []Token, labels []uint8) []Span {
	var out []Span
	open := false
	for i, t := range toks {
		l := labels[i]
		if l == I && open && joins(text, toks, i) {
			out[len(out)-1].End = int(t.End)
			continue
		}
		if l == O {
			open = false
			continue
		}
		out = append(out, Span{Start: int(t.Start), End: int(t.End)})
		open = true
	}
	for i, s := range out {
		v := text[s.Start:s.End]
		for _, suf := range []string{"'s", "’s"} {
			if len(v) > len(suf)+1 && v[len(v)-len(suf):] == suf {
				out[i].End -= len(suf)
			}
		}
	}
	return out
}

// joins reports whether token i continues the name that token i-1 is in.
func joins(text string, toks []Token, i int) bool {
	g := toks[i].Gap
	switch {
	case g == 0, g == GapDash:
		return true
	case g == GapSent:
		// Only the period of an initial or a short abbreviation: "J. Smith", "Ma. Cruz".
		prev := toks[i-1]
		between := text[prev.End:toks[i].Start]
		return len(between) <= 2 && between[0] == '.' && prev.End-prev.Start <= 3
	}
	return false
}
