package textclass

import (
	"context"

	"github.com/sluice-api/sluice/internal/services/textnorm"
)

// Result is the outcome of Score.
type Result struct {
	// P is the primary head's calibrated probability on the window where it is highest.
	P float64
	// Flags are the textnorm flags of that window's words, ORed: whether its text was disguised
	// (textnorm.Obfuscation) or came from a decoded blob (textnorm.FlagEncoded).
	Flags textnorm.Flag
	// Windows is how many windows were scored.
	Windows int

	// best is the best window's words with up to two words of context before them (word n-grams
	// reach back that far), context of them; long tells whether its segment is long.
	best    [][]byte
	context int
	long    bool
}

// scratch is the per-call working memory, pooled per model.
type scratch struct {
	p      prepared
	prefix []float64 // prefix sums of the primary head's weights per word
	counts []int     // prefix sums of feature occurrences per word
	script []float64 // prefix sums of the primary head's script weights per word (Spec.Script)
	spans  [][2]int
	deep   []int32   // prefix sums of the deep part's int8 embeddings per word, Deep.Dim per word
	word   []int32   // one word's embedding sum
	bag    []float64 // one window's embedding bag
}

// Score normalizes text, cuts it into windows (Spec.Window words, Spec.Stride apart; the
// readable text of encoded blobs too when Spec.DecodeBlobs) and returns the primary head's
// highest calibrated probability over the windows. The work is linear in len(text): every word's
// features are hashed and looked up once, and a window's score comes from prefix sums. It
// returns an error wrapping ctx.Err() when ctx is done, checking it every 4,096 bytes of text
// and every 4,096 words.
func (m *Model) Score(ctx context.Context, text string) (Result, error) {
	sc, _ := m.pool.Get().(*scratch)
	if sc == nil {
		sc = &scratch{}
	}
	defer m.pool.Put(sc)
	p := &sc.p
	if err := p.prepare(ctx, m.Spec, text); err != nil {
		return Result{}, err
	}
	head := &m.Heads[0]
	sc.prefix = append(sc.prefix[:0], 0)
	sc.counts = append(sc.counts[:0], 0)
	sc.script = append(sc.script[:0], 0)
	deep := m.Deep
	if deep != nil {
		sc.deep = append(sc.deep[:0], make([]int32, deep.Dim)...)
		sc.word = append(sc.word[:0], make([]int32, deep.Dim)...)
		sc.bag = append(sc.bag[:0], make([]float64, deep.Dim)...)
	}
	for _, sg := range p.segments {
		for i := sg.first; i < sg.end; i++ {
			if i%4096 == 4095 {
				if err := ctx.Err(); err != nil {
					return Result{}, err
				}
			}
			sum := 0.0
			fs := p.wordFeatures(sg, i)
			for _, h := range fs {
				sum += float64(head.Codebook[head.Codes[slot(h, head.Bits)]])
			}
			sc.prefix = append(sc.prefix, sc.prefix[i]+sum)
			sc.counts = append(sc.counts, sc.counts[i]+len(fs))
			if m.Spec.Script {
				sc.script = append(sc.script, sc.script[i]+float64(head.Codebook[head.Codes[slot(scriptHash(p.words.Word(i)), head.Bits)]]))
			}
			if deep != nil {
				sc.deep = deep.appendWord(sc.deep, sc.word, fs)
			}
		}
	}
	res := Result{P: -1}
	var bestSeg segment
	var bestSpan [2]int
	for _, sg := range p.segments {
		sc.spans = p.spans(m.Spec, sg, sc.spans[:0])
		for _, sp := range sc.spans {
			c := sc.counts[sp[1]] - sc.counts[sp[0]]
			z := head.Bias + (sc.prefix[sp[1]]-sc.prefix[sp[0]])/m.Spec.divisor(c)
			if m.Spec.Script && sp[1] > sp[0] {
				z += (sc.script[sp[1]] - sc.script[sp[0]]) / float64(sp[1]-sp[0])
			}
			if deep != nil {
				z += deep.window(sc.bag, sc.deep, sp, m.Spec.divisor(c))
			}
			res.Windows++
			if pr := head.Probability(z); pr > res.P {
				res.P, bestSeg, bestSpan = pr, sg, sp
			}
		}
	}
	from := max(bestSpan[0]-2, bestSeg.first)
	if m.Spec.Units && bestSpan[1] > bestSpan[0] {
		from = max(from, int(p.ustart[bestSpan[0]])) // n-grams do not reach across a unit's start
	}
	res.context = bestSpan[0] - from
	res.long = bestSeg.long(m.Spec)
	// The best window's words are copied into one buffer (p's words are reused by the next
	// call): one allocation instead of one per word.
	var buf []byte
	if bestSpan[1] > from {
		buf = make([]byte, 0, p.words.Ends[bestSpan[1]-1]-p.words.Start(from))
	}
	res.best = make([][]byte, 0, bestSpan[1]-from)
	for i := from; i < bestSpan[1]; i++ {
		start := len(buf)
		buf = append(buf, p.words.Word(i)...)
		res.best = append(res.best, buf[start:len(buf):len(buf)])
		if i >= bestSpan[0] {
			res.Flags |= p.words.Flags[i]
		}
	}
	return res, nil
}

// HeadProbabilities returns every head's calibrated probability on r's best window, in the
// order of m.Heads (so the first is r.P). r must come from m.Score. The work is bounded by the
// window size; the features are summed in the order the window's words give them, so the same
// window always gives the same answer.
func (m *Model) HeadProbabilities(r Result) []float64 {
	fz := featurizer{spec: m.Spec}
	var feats, buf []uint64
	var hs [3]uint64 // hashes of the current word and the two before it
	for i, w := range r.best {
		hs[2], hs[1], hs[0] = hs[1], hs[0], wordHash(w)
		buf = fz.appendWord(buf[:0], w, hs[0], hs[1], hs[2], r.long)
		if i >= r.context {
			feats = append(feats, buf...)
		}
	}
	norm := 1 / m.Spec.divisor(len(feats))
	out := make([]float64, len(m.Heads))
	for k := range m.Heads {
		h := &m.Heads[k]
		z := 0.0
		for _, f := range feats {
			z += float64(h.Codebook[h.Codes[slot(f, h.Bits)]])
		}
		z *= norm
		if m.Spec.Script && len(r.best) > r.context {
			s := 0.0
			for _, w := range r.best[r.context:] {
				s += float64(h.Codebook[h.Codes[slot(scriptHash(w), h.Bits)]])
			}
			z += s / float64(len(r.best)-r.context)
		}
		if k == 0 && m.Deep != nil {
			z += m.Deep.window(make([]float64, m.Deep.Dim), m.Deep.appendWord(make([]int32, m.Deep.Dim), make([]int32, m.Deep.Dim), feats), [2]int{0, 1}, m.Spec.divisor(len(feats)))
		}
		out[k] = h.Probability(h.Bias + z)
	}
	return out
}
