// Package mlptrain fits the deep part of a "wide and deep" textclass head (textclass.Deep): a
// small network (an embedding bag of the hashed window features, a ReLU hidden layer, a linear
// output) whose output is added to a trained linear head's raw score. The linear head stays as
// it is: its calibrated logit, computed from scores it did not see (out-of-fold), is a fixed
// offset of the network's logit, so the network only learns what the linear head gets wrong on
// unseen text.
//
// Training is stochastic gradient descent on the weighted log loss with L2 decay: every epoch
// draws as many examples as the training part holds, with replacement and in proportion to
// their weights (so a heavy example takes more steps, not larger ones), from a generator seeded
// by Config.Seed; the step falls linearly to zero over Config.Epochs. A share Config.Holdout of
// the groups is held back: the weights with the lowest held-back loss, measured ChecksPerEpoch
// times an epoch, are kept (early stopping after Config.Patience checks without improvement),
// and the head's Platt scaling is fitted again on the held-back examples' summed scores,
// through the quantized network. Everything runs on one goroutine in a fixed order, so the same
// examples and Config give the same bytes.
package mlptrain

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"

	"github.com/sluice-api/sluice/internal/services/textclass"
	"github.com/sluice-api/sluice/scripts/internal/lrtrain"
)

// Example is one training window.
type Example struct {
	// Features are the window's features as textclass.Spec.Windows gives them.
	Features []textclass.Feature
	// Z is the linear head's raw score of the window from weights that did not see it.
	Z      float64
	Label  bool
	Weight float64 // > 0
	// Group keeps related windows on the same side of the holdout split.
	Group string
}

// Config controls a fit.
type Config struct {
	// Bits, Dim and Hidden are the network's shape (see textclass.Deep).
	Bits, Dim, Hidden int
	// PlattA and PlattB are the linear head's calibration: the offset of an example is
	// PlattA*Z + PlattB. PlattA must be > 0.
	PlattA, PlattB float64
	// Epochs bounds the passes (default 8). The held-back loss is measured Checks times an epoch
	// (ChecksPerEpoch); Patience stops after that many checks without a lower one (default 4).
	Epochs, Patience int
	// Rate is the first step (default 0.05); L2 the decay of every weight a step touches.
	Rate, L2 float64
	// MinCount, when above 0, leaves the embedding row of a slot at 0 unless at least MinCount
	// training windows hold a feature in it: rare features (most character n-grams of one text)
	// are how a network memorizes its training examples.
	MinCount int
	// Holdout is the share of groups held back (default 0.2).
	Holdout float64
	Seed    uint64
	// Log, when set, receives one line per epoch.
	Log func(format string, args ...any)
}

// ChecksPerEpoch is how many times an epoch the held-back loss is measured for early stopping.
const ChecksPerEpoch = 4

// Result is a fitted deep part.
type Result struct {
	// Deep is quantized and in the units of the linear head's raw score: a window scores
	// PlattA*(z_lin + Deep.Raw(features)) + PlattB.
	Deep           *textclass.Deep
	PlattA, PlattB float64
	// Held are the held-back examples' indices; the losses are their weighted mean log loss
	// with the linear head alone (calibrated as in Config), with the float network, with the
	// quantized network and the new calibration, and, to compare with that, with the linear head
	// alone calibrated the same way on the same examples.
	Held                                               []int
	LinearLoss, FloatLoss, QuantizedLoss, RecalLinLoss float64
	// Check is the number of the check whose weights were kept (ChecksPerEpoch an epoch; 0: the
	// starting weights, whose output is nearly constant).
	Check int
}

// net holds the float weights.
type net struct {
	bits, dim, hidden int
	emb               []float32 // (1<<bits)*dim
	frozen            []bool    // rows left at 0 (Config.MinCount); nil: none
	w1, b1, w2        []float64
	b2                float64
}

func (n *net) units() int {
	if n.hidden == 0 {
		return n.dim
	}
	return n.hidden
}

func (n *net) clone() *net {
	c := *n
	c.emb, c.w1, c.b1, c.w2 = slices.Clone(n.emb), slices.Clone(n.w1), slices.Clone(n.b1), slices.Clone(n.w2)
	return &c
}

// state is one forward pass's intermediate values.
type state struct {
	e, a, gh, ge []float64
}

func (n *net) newState() *state {
	return &state{e: make([]float64, n.dim), a: make([]float64, n.units()), gh: make([]float64, n.units()), ge: make([]float64, n.dim)}
}

// forward returns z_deep of fs, leaving the bag and the pre-activations in s.
func (n *net) forward(fs []textclass.Feature, s *state) float64 {
	clear(s.e)
	for _, f := range fs {
		r := int(f.ID(n.bits)) * n.dim
		v := float64(f.Value)
		for j, w := range n.emb[r : r+n.dim] {
			s.e[j] += float64(w) * v
		}
	}
	z := n.b2
	for k := range s.a {
		a := n.b1[k]
		if n.hidden == 0 {
			a += s.e[k]
		} else {
			for j, w := range n.w1[k*n.dim : (k+1)*n.dim] {
				a += w * s.e[j]
			}
		}
		s.a[k] = a
		if a > 0 {
			z += n.w2[k] * a
		}
	}
	return z
}

// step moves the weights against the gradient of the loss, whose derivative in z_deep is g.
func (n *net) step(fs []textclass.Feature, s *state, g, rate, l2 float64) {
	for k, a := range s.a {
		s.gh[k] = 0
		if a > 0 {
			s.gh[k] = g * n.w2[k]
			n.w2[k] -= rate * (g*a + l2*n.w2[k])
		}
	}
	n.b2 -= rate * g
	clear(s.ge)
	for k, gh := range s.gh {
		if gh == 0 {
			continue
		}
		n.b1[k] -= rate * gh
		if n.hidden == 0 {
			s.ge[k] = gh
			continue
		}
		w := n.w1[k*n.dim : (k+1)*n.dim]
		for j := range w {
			s.ge[j] += gh * w[j]
			w[j] -= rate * (gh*s.e[j] + l2*w[j])
		}
	}
	for _, f := range fs {
		id := int(f.ID(n.bits))
		if n.frozen != nil && n.frozen[id] {
			continue
		}
		r := id * n.dim
		v := float64(f.Value)
		row := n.emb[r : r+n.dim]
		for j := range row {
			row[j] -= float32(rate * (s.ge[j]*v + l2*float64(row[j])))
		}
	}
}

// Train fits a deep part on ex.
func Train(ex []Example, cfg Config) (*Result, error) {
	if cfg.Epochs == 0 {
		cfg.Epochs = 8
	}
	if cfg.Patience == 0 {
		cfg.Patience = 4
	}
	if cfg.Rate == 0 {
		cfg.Rate = 0.05
	}
	if cfg.Holdout == 0 {
		cfg.Holdout = 0.2
	}
	switch {
	case cfg.Bits < textclass.MinDeepBits || cfg.Bits > textclass.MaxDeepBits:
		return nil, fmt.Errorf("mlptrain: bits %d out of [%d, %d]", cfg.Bits, textclass.MinDeepBits, textclass.MaxDeepBits)
	case cfg.Dim < 1 || cfg.Dim > textclass.MaxDeepDim || cfg.Hidden < 0 || cfg.Hidden > textclass.MaxHidden:
		return nil, fmt.Errorf("mlptrain: dim %d or hidden %d out of range", cfg.Dim, cfg.Hidden)
	case !(cfg.PlattA > 0) || math.IsInf(cfg.PlattA, 0) || math.IsNaN(cfg.PlattB):
		return nil, fmt.Errorf("mlptrain: calibration %v, %v: want a > 0", cfg.PlattA, cfg.PlattB)
	case cfg.Epochs < 1 || cfg.Patience < 1 || !(cfg.Rate > 0) || !(cfg.L2 >= 0) || !(cfg.Holdout > 0 && cfg.Holdout < 1) || cfg.MinCount < 0:
		return nil, errors.New("mlptrain: epochs, patience and rate must be > 0, L2 and MinCount >= 0, holdout in (0, 1)")
	}
	var train, held []int
	for i, e := range ex {
		if !(e.Weight > 0) || math.IsInf(e.Weight, 0) || math.IsNaN(e.Z) || math.IsInf(e.Z, 0) {
			return nil, fmt.Errorf("mlptrain: example %d has weight %v and score %v", i, e.Weight, e.Z)
		}
		if unit(cfg.Seed, e.Group) < cfg.Holdout {
			held = append(held, i)
		} else {
			train = append(train, i)
		}
	}
	if len(train) == 0 || len(held) == 0 {
		return nil, errors.New("mlptrain: need examples on both sides of the holdout split")
	}
	offset := func(i int) float64 { return cfg.PlattA*ex[i].Z + cfg.PlattB }

	rng := rand.New(rand.NewPCG(cfg.Seed, 0x6d6c70747261696e)) // "mlptrain"
	n := &net{bits: cfg.Bits, dim: cfg.Dim, hidden: cfg.Hidden, emb: make([]float32, (1<<cfg.Bits)*cfg.Dim)}
	// The embeddings start at 0 (a feature no training window holds adds nothing) and the
	// hidden biases above it, so every unit is active and passes a gradient at first.
	n.b1 = make([]float64, n.units())
	n.w2 = make([]float64, n.units())
	for k := range n.b1 {
		n.b1[k] = 0.1
		n.w2[k] = rng.NormFloat64() * 0.1 / math.Sqrt(float64(n.units()))
	}
	n.w1 = make([]float64, cfg.Hidden*cfg.Dim)
	for j := range n.w1 {
		n.w1[j] = rng.NormFloat64() * math.Sqrt(2/float64(cfg.Dim))
	}

	if cfg.MinCount > 0 {
		count := make([]int32, 1<<cfg.Bits)
		for _, i := range train {
			for _, f := range ex[i].Features {
				count[f.ID(cfg.Bits)]++
			}
		}
		n.frozen = make([]bool, len(count))
		for id, c := range count {
			n.frozen[id] = int(c) < cfg.MinCount
		}
	}

	// Draw examples in proportion to their weight: cumulative weights, binary search.
	cum := make([]float64, len(train))
	total := 0.0
	for k, i := range train {
		total += ex[i].Weight
		cum[k] = total
	}
	s := n.newState()
	heldLoss := func(n *net) float64 {
		loss, w := 0.0, 0.0
		for _, i := range held {
			loss += ex[i].Weight * logLoss(offset(i)+n.forward(ex[i].Features, s), ex[i].Label)
			w += ex[i].Weight
		}
		return loss / w
	}
	res := &Result{Held: held}
	for _, i := range held {
		res.LinearLoss += ex[i].Weight * logLoss(offset(i), ex[i].Label)
	}
	wHeld := 0.0
	for _, i := range held {
		wHeld += ex[i].Weight
	}
	res.LinearLoss /= wHeld
	best, bestLoss, since := n.clone(), heldLoss(n), 0
	steps, all := 0, cfg.Epochs*len(train)
	per := max(len(train)/ChecksPerEpoch, 1)
	for check := 1; check <= cfg.Epochs*ChecksPerEpoch; check++ {
		trainLoss := 0.0
		for range per {
			k := sort.SearchFloat64s(cum, rng.Float64()*total)
			i := train[min(k, len(train)-1)]
			rate := cfg.Rate * max(1-float64(steps)/float64(all), 0)
			steps++
			z := offset(i) + n.forward(ex[i].Features, s)
			trainLoss += logLoss(z, ex[i].Label)
			y := 0.0
			if ex[i].Label {
				y = 1
			}
			n.step(ex[i].Features, s, lrtrain.Sigmoid(z)-y, rate, cfg.L2)
		}
		l := heldLoss(n)
		if cfg.Log != nil {
			cfg.Log("mlptrain: epoch %.2f: training loss %.5f, held-back loss %.5f (linear head alone %.5f)", float64(check)/ChecksPerEpoch, trainLoss/float64(per), l, res.LinearLoss)
		}
		if l < bestLoss {
			best, bestLoss, since, res.Check = n.clone(), l, 0, check
		} else if since++; since >= cfg.Patience {
			break
		}
	}
	res.FloatLoss = bestLoss
	res.Deep = quantize(best, cfg.PlattA)

	// Calibrate the sum of the raw scores on the held-back examples, through the quantized part.
	sc := make([]lrtrain.Scored, len(held))
	for k, i := range held {
		sc[k] = lrtrain.Scored{Index: i, Z: ex[i].Z + res.Deep.Raw(ex[i].Features), Label: ex[i].Label, Weight: ex[i].Weight}
	}
	res.PlattA, res.PlattB = lrtrain.Platt(sc)
	for _, e := range sc {
		res.QuantizedLoss += e.Weight * logLoss(res.PlattA*e.Z+res.PlattB, e.Label)
	}
	res.QuantizedLoss /= wHeld
	for k, i := range held {
		sc[k].Z = ex[i].Z
	}
	la, lb := lrtrain.Platt(sc)
	for _, e := range sc {
		res.RecalLinLoss += e.Weight * logLoss(la*e.Z+lb, e.Label)
	}
	res.RecalLinLoss /= wHeld
	return res, nil
}

// quantize turns the float network into a textclass.Deep in the units of the linear head's raw
// score (the output layer divided by a): embeddings to int8 with one scale per dimension (its
// largest magnitude over 127), the dense layers to float32.
func quantize(n *net, a float64) *textclass.Deep {
	d := &textclass.Deep{Bits: n.bits, Dim: n.dim, Hidden: n.hidden, Scale: make([]float32, n.dim), Emb: make([]int8, len(n.emb)),
		W1: make([]float32, len(n.w1)), B1: make([]float32, len(n.b1)), W2: make([]float32, len(n.w2)), B2: float32(n.b2 / a)}
	for j := range n.dim {
		hi := 0.0
		for r := j; r < len(n.emb); r += n.dim {
			hi = max(hi, math.Abs(float64(n.emb[r])))
		}
		if hi == 0 {
			continue
		}
		scale := float32(hi / 127)
		d.Scale[j] = scale
		for r := j; r < len(n.emb); r += n.dim {
			d.Emb[r] = int8(max(-127, min(127, math.Round(float64(n.emb[r]/scale)))))
		}
	}
	for i, v := range n.w1 {
		d.W1[i] = float32(v)
	}
	for i, v := range n.b1 {
		d.B1[i] = float32(v)
	}
	for i, v := range n.w2 {
		d.W2[i] = float32(v / a)
	}
	return d
}

// unit maps (seed, group) to a number in [0, 1), apart from lrtrain's folds of the same seed.
func unit(seed uint64, group string) float64 { return lrtrain.Unit(seed, "mlptrain:", group) }

// logLoss is -log P(label) under logit z, computed without overflow.
func logLoss(z float64, label bool) float64 {
	if label {
		z = -z
	}
	return lrtrain.Softplus(z)
}
