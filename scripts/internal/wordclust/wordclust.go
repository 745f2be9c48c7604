// Package wordclust groups the words of unlabeled text into classes by the words they follow,
// with the predictive exchange algorithm (Uszkoreit and Brants, "Distributed Word Clustering for
// Large Scale Class-Based Language Modeling in Machine Translation", ACL 2008): each word is
// moved, in turn, to the class that most raises the likelihood of the text under the model
// P(w | v) = P(class(w) | v) P(w | class(w)), where v is the word before w. Words that follow
// the same words end up together: given names in one class, surnames in another, verbs of
// speech in a third. The name tagger reads a word's classes as features, which tells it about
// words its labelled data never had.
//
// The result depends only on the text, the settings and the order of the words, so a run is
// reproducible byte for byte.
package wordclust

import (
	"cmp"
	"errors"
	"math"
	"slices"
)

// Corpus counts the words of a text and the pairs of adjacent words.
type Corpus struct {
	ids    map[string]int32
	words  []string
	counts []int64
	pairs  map[uint64]int64 // prev<<32 | word
}

// Start is the word before the first word of a sentence.
const Start = "<s>"

// NewCorpus returns an empty corpus.
func NewCorpus() *Corpus {
	c := &Corpus{ids: map[string]int32{}, pairs: map[uint64]int64{}}
	c.id(Start)
	return c
}

func (c *Corpus) id(w string) int32 {
	if i, ok := c.ids[w]; ok {
		return i
	}
	i := int32(len(c.words))
	c.ids[w] = i
	c.words = append(c.words, w)
	c.counts = append(c.counts, 0)
	return i
}

// Add counts one sentence, already split into words.
func (c *Corpus) Add(words []string) {
	prev := int32(0)
	for _, w := range words {
		i := c.id(w)
		c.counts[i]++
		c.pairs[uint64(prev)<<32|uint64(i)]++
		prev = i
	}
}

// Config sets up a clustering run.
type Config struct {
	Classes    int // number of classes
	MinCount   int // words seen fewer times share one class of rare words and are not returned
	Iterations int // passes over the vocabulary (a pass that moves no word ends the run)
	// Progress, when set, is called after each pass with the number of words moved.
	Progress func(pass, moved int)
}

// Cluster returns the class of every word seen at least cfg.MinCount times.
func (c *Corpus) Cluster(cfg Config) (map[string]int, error) {
	if cfg.Classes < 2 || cfg.Classes > 1<<16 {
		return nil, errors.New("wordclust: want 2 to 65536 classes")
	}
	// Vocabulary: the frequent words by descending count (then by spelling), then one word for
	// every rare one; the start symbol is a predecessor only.
	var vocab []int32
	for i := range c.words {
		if i > 0 && c.counts[i] >= int64(max(cfg.MinCount, 1)) {
			vocab = append(vocab, int32(i))
		}
	}
	slices.SortFunc(vocab, func(a, b int32) int {
		if d := cmp.Compare(c.counts[b], c.counts[a]); d != 0 {
			return d
		}
		return cmp.Compare(c.words[a], c.words[b])
	})
	rare := int32(len(vocab)) // index of the rare-word class member
	idx := make([]int32, len(c.words))
	for i := range idx {
		idx[i] = rare
	}
	for k, i := range vocab {
		idx[i] = int32(k)
	}
	nw := len(vocab) + 1
	// Predecessors of each word (as predecessor rows: words, the rare word, the start symbol).
	startRow := int32(nw)
	row := func(i int32) int32 {
		if i == 0 {
			return startRow
		}
		return idx[i]
	}
	type pred struct {
		v int32
		n int64
	}
	preds := make([][]pred, nw)
	keys := make([]uint64, 0, len(c.pairs))
	for k := range c.pairs {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	succ := make([]int64, nw) // times each word follows another (or the start)
	merged := map[uint64]int64{}
	for _, k := range keys {
		v, w := row(int32(k>>32)), idx[int32(k&0xffffffff)]
		merged[uint64(v)<<32|uint64(w)] += c.pairs[k]
	}
	keys = keys[:0]
	for k := range merged {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		v, w := int32(k>>32), int32(k&0xffffffff)
		preds[w] = append(preds[w], pred{v, merged[k]})
		succ[w] += merged[k]
	}
	C := cfg.Classes
	class := make([]int32, nw)
	for w := range class {
		class[w] = int32(w % C)
	}
	// n[v*C+c]: times a word of class c follows v; total[c]: times a word of class c occurs.
	n := make([]int64, (nw+1)*C)
	total := make([]int64, C)
	for w := range preds {
		for _, p := range preds[w] {
			n[int(p.v)*C+int(class[w])] += p.n
		}
		total[class[w]] += succ[w]
	}
	g := func(x int64) float64 {
		if x <= 0 {
			return 0
		}
		f := float64(x)
		return f * math.Log(f)
	}
	gain := make([]float64, C)
	for pass := 1; pass <= cfg.Iterations; pass++ {
		moved := 0
		for w := range nw {
			a := class[w]
			for _, p := range preds[w] {
				n[int(p.v)*C+int(a)] -= p.n
			}
			total[a] -= succ[w]
			// gain[b]: the change of the objective when w joins b, up to a constant.
			for b := range C {
				gain[b] = g(total[b]) - g(total[b]+succ[w])
			}
			for _, p := range preds[w] {
				r := n[int(p.v)*C : int(p.v)*C+C]
				for b, x := range r {
					if x != 0 {
						gain[b] += g(x+p.n) - g(x) - g(p.n)
					}
				}
			}
			best := a
			for b := range C {
				if gain[b] > gain[best]+1e-9 {
					best = int32(b)
				}
			}
			if best != a {
				moved++
			}
			class[w] = best
			for _, p := range preds[w] {
				n[int(p.v)*C+int(best)] += p.n
			}
			total[best] += succ[w]
		}
		if cfg.Progress != nil {
			cfg.Progress(pass, moved)
		}
		if moved == 0 {
			break
		}
	}
	out := make(map[string]int, len(vocab))
	for k, i := range vocab {
		out[c.words[i]] = int(class[k])
	}
	return out, nil
}
