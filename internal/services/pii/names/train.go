package names

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
)

// Example is one training text with its names.
type Example struct {
	Text  string
	Names []Span
}

// TrainConfig sets up a training run.
type TrainConfig struct {
	Bits      uint // log2 of the number of feature buckets
	Epochs    int
	Seed      uint64
	Gazetteer *Gazetteer
	// Clusters are the word classes the features read; nil leaves the class features out.
	Clusters *Clusters
	// GazDropout is the share of words whose given-name and surname flags are hidden in each
	// epoch (drawn anew every epoch), so the tagger also learns names the gazetteer lacks from
	// their context and shape.
	GazDropout float64
	// Progress, when set, is called after each epoch with the share of tokens mislabelled.
	Progress func(epoch int, errRate float64)
}

type prepared struct {
	text string
	toks []Token
	info []tokInfo
	gaz  []uint8 // the gazetteer flags before dropout
	gold []uint8
}

// Gold returns the label of each token of text given its names: B for the first word of a
// name, I for the words after it, O elsewhere (numbers and codes inside a name are O).
func Gold(text string, toks []Token, names []Span) []uint8 {
	gold := make([]uint8, len(toks))
	j := 0
	for i, t := range toks {
		for j < len(names) && names[j].End <= int(t.Start) {
			j++
		}
		if j >= len(names) || int(t.End) <= names[j].Start || t.Kind != Word {
			continue
		}
		if i > 0 && gold[i-1] != O && int(toks[i-1].End) > names[j].Start {
			gold[i] = I
		} else {
			gold[i] = B
		}
	}
	return gold
}

// Train fits a structured averaged perceptron to the examples, deterministically for a given
// seed: the examples are visited in an order shuffled by the seed each epoch, each is labelled
// with Viterbi under the current weights, and where the best labels differ from the gold ones
// the features of the gold labels gain and those of the predicted ones lose. The returned model
// holds the weights averaged over every step, quantised to 16 bits.
func Train(examples []Example, cfg TrainConfig) *Model {
	n := (1 << cfg.Bits) * numLabels
	w := make([]float64, n)
	acc := make([]float64, n)
	ts := make([]int64, n)
	step := int64(1)
	update := func(b uint32, label int, delta float64) {
		j := int(b)*numLabels + label
		acc[j] += float64(step-ts[j]) * w[j]
		ts[j] = step
		w[j] += delta
	}
	data := make([]prepared, len(examples))
	scratch := make([]byte, 0, 64)
	for k, ex := range examples {
		toks := Tokenize(ex.Text)
		info := analyse(ex.Text, toks, cfg.Gazetteer, scratch)
		gaz := make([]uint8, len(info))
		for i := range info {
			gaz[i] = info[i].gaz
		}
		data[k] = prepared{text: ex.Text, toks: toks, info: info, gaz: gaz, gold: Gold(ex.Text, toks, ex.Names)}
	}
	rng := rand.New(rand.NewPCG(cfg.Seed, cfg.Seed^0x5eed))
	order := make([]int, len(data))
	for i := range order {
		order[i] = i
	}
	for k := range data {
		markScored(data[k].info)
	}
	for epoch := 1; epoch <= cfg.Epochs; epoch++ {
		rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		errs, total := 0, 0
		var bp [][numLabels]uint8
		for _, k := range order {
			d := &data[k]
			for i := range d.info {
				d.info[i].gaz = d.gaz[i]
				if cfg.GazDropout > 0 && rng.Float64() < cfg.GazDropout {
					d.info[i].gaz &^= Given | Surname
				}
			}
			f := featurizer{text: d.text, toks: d.toks, info: d.info, bits: cfg.Bits, gaz: cfg.Gazetteer, clus: cfg.Clusters}
			sum := func(feats []uint32) [numLabels]float64 {
				var s [numLabels]float64
				for _, b := range feats {
					j := int(b) * numLabels
					s[O] += w[j]
					s[B] += w[j+1]
					s[I] += w[j+2]
				}
				return s
			}
			bp = slices.Grow(bp[:0], len(d.info))[:len(d.info)]
			pred, _ := viterbi(&f, bp,
				func(i int) [numLabels]float64 { return sum(f.obsFeatures(i)) },
				func(i, y1 int) [numLabels]float64 { return sum(f.transFeatures(i, y1)) }, nil)
			gold := projectGold(d.info, d.gold)
			for i := range pred {
				if d.info[i].scored {
					total++
					if pred[i] != gold[i] {
						errs++
					}
				}
			}
			for i := range pred {
				gy, py := int(gold[i]), int(pred[i])
				gy1, py1 := O, O
				if i > 0 {
					gy1, py1 = int(gold[i-1]), int(pred[i-1])
				}
				if gy == py && gy1 == py1 {
					continue
				}
				if gy != py {
					for _, b := range f.obsFeatures(i) {
						update(b, gy, 1)
						update(b, py, -1)
					}
				}
				for _, b := range f.transFeatures(i, gy1) {
					update(b, gy, 1)
				}
				for _, b := range f.transFeatures(i, py1) {
					update(b, py, -1)
				}
			}
			step++
		}
		if cfg.Progress != nil {
			cfg.Progress(epoch, float64(errs)/float64(max(total, 1)))
		}
	}
	avg := make([]float64, n)
	maxAbs := 0.0
	for j := range w {
		acc[j] += float64(step-ts[j]) * w[j]
		avg[j] = acc[j] / float64(step)
		maxAbs = math.Max(maxAbs, math.Abs(avg[j]))
	}
	scale := 1.0
	if maxAbs > 0 {
		scale = 32767 / maxAbs
	}
	q := make([]int16, n)
	for j, v := range avg {
		q[j] = int16(math.Round(v * scale))
	}
	m := &Model{bits: cfg.Bits, weights: q, scale: float32(scale), gaz: cfg.Gazetteer, clus: cfg.Clusters}
	m.recordLists()
	return m
}

// projectGold returns the gold labels as the decoder can give them: O on the tokens it does not
// score, B where a name's first scored word follows an O, and O where that word may not begin a
// name (see tokInfo.noBegin).
func projectGold(info []tokInfo, gold []uint8) []uint8 {
	out := make([]uint8, len(gold))
	for i, g := range gold {
		if g == I && (i == 0 || out[i-1] == O) {
			g = B
		}
		switch {
		case !info[i].scored, g == B && info[i].noBegin():
		default:
			out[i] = g
		}
	}
	return out
}

// Average returns the model whose scores are the mean of the models' scores: the tagger is
// linear, so averaging the weights of taggers trained with different seeds (and different
// generated texts) is an ensemble that costs nothing at run time. The models must share their
// bucket bits; the gazetteer is the first model's.
func Average(models []*Model) (*Model, error) {
	if len(models) == 0 {
		return nil, errors.New("names: Average of no models")
	}
	if len(models) == 1 {
		return models[0], nil
	}
	avg := make([]float64, len(models[0].weights))
	for i, m := range models {
		if m.bits != models[0].bits {
			return nil, fmt.Errorf("names: Average: model %d has %d bucket bits, model 0 has %d", i, m.bits, models[0].bits)
		}
		for j, v := range m.weights {
			avg[j] += float64(v) / float64(m.scale) / float64(len(models))
		}
	}
	maxAbs := 0.0
	for _, v := range avg {
		maxAbs = math.Max(maxAbs, math.Abs(v))
	}
	scale := 1.0
	if maxAbs > 0 {
		scale = 32767 / maxAbs
	}
	q := make([]int16, len(avg))
	for j, v := range avg {
		q[j] = int16(math.Round(v * scale))
	}
	m := &Model{bits: models[0].bits, weights: q, scale: float32(scale), gaz: models[0].gaz, clus: models[0].clus}
	m.recordLists()
	return m, nil
}
