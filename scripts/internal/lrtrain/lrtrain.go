// Package lrtrain fits the heads of textclass models: L2-regularized logistic regression on
// hashed features with per-example weights, solved by L-BFGS, then Platt scaling fitted on
// scores the weights did not see, so that a head's probability is calibrated.
//
// Everything is deterministic: examples are visited in the order given, sums run in a fixed
// order on one goroutine, and the split into training and calibration data depends only on each
// example's Group and the seed. The same examples and Config give the same weights, bit for bit,
// and so (through textclass.NewHead and Model.Encode) the same model file.
//
// Typical use, per head:
//
//	var ex []lrtrain.Example
//	for _, d := range docs {
//		ws, _ := spec.Windows(ctx, d.Text) // exactly what textclass.Model.Score will see
//		for _, w := range ws {
//			ex = append(ex, lrtrain.Example{Features: w.Features, Label: d.Toxic, Weight: 1, Group: d.ID})
//		}
//	}
//	fit, err := lrtrain.Train(ex, lrtrain.Config{Bits: 20, L2: 1e-5, Folds: 5, Seed: 1})
//	head, err := fit.Head("toxic") // quantized
//	model := &textclass.Model{ID: "...", Spec: spec, Heads: []textclass.Head{head, ...}}
//	err = model.Encode(file)
package lrtrain

import (
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"slices"

	"github.com/sluice-api/sluice/internal/services/textclass"
)

// Example is one training window.
type Example struct {
	Features []textclass.Feature
	Label    bool
	// Weight scales the example's loss (> 0): use it to balance sources and classes.
	Weight float64
	// Group keeps related examples (the windows of one document, the variants of one template)
	// on the same side of every split, so calibration is measured on unseen documents.
	Group string
}

// Config controls a fit.
type Config struct {
	// Bits is the head's size: 1<<Bits weight slots (textclass.MinBits..MaxBits).
	Bits int
	// L2 is the penalty L2/2*|w|^2 added to the mean weighted log loss (the bias is not
	// penalized).
	L2 float64
	// Folds chooses how calibration data is found. With k >= 2, the groups are dealt into k
	// folds, each fold is scored by weights fitted on the others, Platt scaling is fitted on these
	// out-of-fold scores, and the final weights are fitted on all examples. With 0 or 1, a share
	// Holdout of the groups is held out: the weights are fitted on the rest and calibrated on it.
	Folds   int
	Holdout float64
	// Seed fixes the split.
	Seed uint64
	// MaxIter bounds the L-BFGS iterations per fit (default 300); Tol stops a fit when the
	// objective improved by less than Tol (relative) over the last 5 iterations (default 1e-6).
	MaxIter int
	Tol     float64
	// Memory is the number of L-BFGS correction pairs kept (default 10).
	Memory int
	// Log, when set, receives one line per fit.
	Log func(format string, args ...any)
}

// Scored is one calibration example: its raw score from weights that did not see it.
type Scored struct {
	Index  int // the example's index in Train's input
	Z      float64
	Label  bool
	Weight float64
}

// Fit is a trained head before quantization.
type Fit struct {
	Bits           int
	Weights        []float64 // 1<<Bits
	Bias           float64
	PlattA, PlattB float64
	// Calibration holds the scores Platt scaling was fitted on (out-of-fold or held out).
	Calibration []Scored
	// Iterations and Loss describe the final fit (Loss is the regularized objective).
	Iterations int
	Loss       float64
}

// Probability is the calibrated probability of raw score z.
func (f *Fit) Probability(z float64) float64 { return Sigmoid(f.PlattA*z + f.PlattB) }

// Raw is the raw score of a window under the float weights.
func (f *Fit) Raw(fs []textclass.Feature) float64 {
	z := f.Bias
	for _, x := range fs {
		z += f.Weights[x.ID(f.Bits)] * float64(x.Value)
	}
	return z
}

// Head quantizes the fit into a textclass head.
func (f *Fit) Head(name string) (textclass.Head, error) {
	return textclass.NewHead(name, f.Bits, f.Weights, f.Bias, f.PlattA, f.PlattB)
}

// Train fits one head on ex.
func Train(ex []Example, cfg Config) (*Fit, error) {
	if cfg.Bits < textclass.MinBits || cfg.Bits > textclass.MaxBits {
		return nil, fmt.Errorf("lrtrain: bits %d out of range", cfg.Bits)
	}
	if cfg.L2 < 0 || math.IsNaN(cfg.L2) {
		return nil, fmt.Errorf("lrtrain: L2 %v", cfg.L2)
	}
	if cfg.MaxIter == 0 {
		cfg.MaxIter = 300
	}
	if cfg.Tol == 0 {
		cfg.Tol = 1e-6
	}
	if cfg.Memory == 0 {
		cfg.Memory = 10
	}
	if cfg.Folds < 2 && (cfg.Holdout <= 0 || cfg.Holdout >= 1) {
		return nil, fmt.Errorf("lrtrain: with %d folds, holdout %v must be in (0, 1)", cfg.Folds, cfg.Holdout)
	}
	var pos, neg bool
	for i, e := range ex {
		if !(e.Weight > 0) || math.IsInf(e.Weight, 0) {
			return nil, fmt.Errorf("lrtrain: example %d has weight %v", i, e.Weight)
		}
		pos, neg = pos || e.Label, neg || !e.Label
	}
	if !pos || !neg {
		return nil, errors.New("lrtrain: need positive and negative examples")
	}
	data := compile(ex, cfg.Bits)

	fold := make([]int, len(ex)) // fold of each example; -1 = never held out
	k := max(cfg.Folds, 1)
	for i, e := range ex {
		u := unit(cfg.Seed, e.Group)
		if cfg.Folds >= 2 {
			fold[i] = min(int(u*float64(k)), k-1)
		} else if u < cfg.Holdout {
			fold[i] = 0
		} else {
			fold[i] = -1
		}
	}

	fit := &Fit{Bits: cfg.Bits}
	for f := range k {
		train := make([]bool, len(ex))
		n := 0
		for i := range ex {
			train[i] = fold[i] != f
			if !train[i] {
				n++
			}
		}
		if n == 0 {
			return nil, fmt.Errorf("lrtrain: fold %d holds no example", f)
		}
		w, b, st := data.fit(train, cfg)
		if cfg.Log != nil {
			cfg.Log("lrtrain: fold %d/%d: %d held out, %d iterations, objective %.6f", f+1, k, n, st.iter, st.loss)
		}
		for i := range ex {
			if !train[i] {
				fit.Calibration = append(fit.Calibration, Scored{Index: i, Z: data.score(i, w, b), Label: ex[i].Label, Weight: ex[i].Weight})
			}
		}
		if cfg.Folds < 2 {
			fit.Weights, fit.Bias, fit.Iterations, fit.Loss = data.expand(w), b, st.iter, st.loss
		}
	}
	if cfg.Folds >= 2 {
		all := make([]bool, len(ex))
		for i := range all {
			all[i] = true
		}
		w, b, st := data.fit(all, cfg)
		if cfg.Log != nil {
			cfg.Log("lrtrain: final fit on %d examples: %d iterations, objective %.6f", len(ex), st.iter, st.loss)
		}
		fit.Weights, fit.Bias, fit.Iterations, fit.Loss = data.expand(w), b, st.iter, st.loss
	}
	fit.PlattA, fit.PlattB = Platt(fit.Calibration)
	return fit, nil
}

// unit maps (seed, group) to a number in [0, 1).
func unit(seed uint64, group string) float64 { return Unit(seed, group) }

// Unit maps a seed and the strings parts, written one after the other, to a number in [0, 1),
// the same on every machine. Trainers split their examples by it; a trainer that must split
// apart from lrtrain's folds of the same seed puts its own prefix first (mlptrain does).
func Unit(seed uint64, parts ...string) float64 {
	h := fnv.New64a()
	var b [8]byte
	for i := range b {
		b[i] = byte(seed >> (8 * i))
	}
	h.Write(b[:])
	for _, p := range parts {
		h.Write([]byte(p))
	}
	x := h.Sum64() // FNV's high bits mix poorly on short inputs: finalize (splitmix64)
	x ^= x >> 30
	x *= 0xBF58476D1CE4E5B9
	x ^= x >> 27
	x *= 0x94D049BB133111EB
	x ^= x >> 31
	return float64(x>>11) / (1 << 53)
}

// dataset is the examples in compressed sparse rows over compact column indices.
type dataset struct {
	rows   []int32   // row i is cols[rows[i]:rows[i+1]]
	cols   []int32   // compact index
	vals   []float32 // feature values
	y      []float64 // +1 / -1
	c      []float64 // example weights
	slots  []uint32  // slot of each compact index
	nslots int
}

func compile(ex []Example, bits int) *dataset {
	d := &dataset{rows: make([]int32, 1, len(ex)+1), nslots: 1 << bits}
	index := map[uint32]int32{}
	var merged map[int32]float32
	for _, e := range ex {
		// Two features may share a slot: merge them so each row has distinct columns.
		merged = map[int32]float32{}
		var order []int32
		for _, f := range e.Features {
			s := f.ID(bits)
			j, ok := index[s]
			if !ok {
				j = int32(len(d.slots))
				index[s] = j
				d.slots = append(d.slots, s)
			}
			if _, seen := merged[j]; !seen {
				order = append(order, j)
			}
			merged[j] += f.Value
		}
		slices.Sort(order)
		for _, j := range order {
			d.cols = append(d.cols, j)
			d.vals = append(d.vals, merged[j])
		}
		d.rows = append(d.rows, int32(len(d.cols)))
		y := -1.0
		if e.Label {
			y = 1
		}
		d.y = append(d.y, y)
		d.c = append(d.c, e.Weight)
	}
	return d
}

// expand turns compact weights into one weight per slot.
func (d *dataset) expand(w []float64) []float64 {
	out := make([]float64, d.nslots)
	for j, s := range d.slots {
		out[s] = w[j]
	}
	return out
}

func (d *dataset) score(i int, w []float64, b float64) float64 {
	z := b
	for k := d.rows[i]; k < d.rows[i+1]; k++ {
		z += w[d.cols[k]] * float64(d.vals[k])
	}
	return z
}

// objective returns the regularized mean weighted log loss of the examples in use at (w, b), and
// writes its gradient into gw and returns the bias gradient.
func (d *dataset) objective(use []bool, w []float64, b, l2 float64, gw []float64) (loss, gb float64) {
	clear(gw)
	total := 0.0
	for i := range d.y {
		if !use[i] {
			continue
		}
		total += d.c[i]
		z := d.score(i, w, b)
		yz := d.y[i] * z
		loss += d.c[i] * Softplus(-yz)
		g := -d.c[i] * d.y[i] * Sigmoid(-yz) // d loss / d z
		gb += g
		for k := d.rows[i]; k < d.rows[i+1]; k++ {
			gw[d.cols[k]] += g * float64(d.vals[k])
		}
	}
	loss /= total
	gb /= total
	reg := 0.0
	for j := range w {
		gw[j] = gw[j]/total + l2*w[j]
		reg += w[j] * w[j]
	}
	return loss + l2/2*reg, gb
}

type stats struct {
	iter int
	loss float64
}

// fit minimizes the objective over the examples in use with L-BFGS and a backtracking (Armijo)
// line search. The parameter vector is the compact weights followed by the bias.
func (d *dataset) fit(use []bool, cfg Config) ([]float64, float64, stats) {
	n := len(d.slots) + 1
	x := make([]float64, n)
	g := make([]float64, n)
	eval := func(x, g []float64) float64 {
		loss, gb := d.objective(use, x[:n-1], x[n-1], cfg.L2, g[:n-1])
		g[n-1] = gb
		return loss
	}
	f := eval(x, g)
	m := cfg.Memory
	S, Y := make([][]float64, 0, m), make([][]float64, 0, m)
	rho := make([]float64, 0, m)
	alpha := make([]float64, m)
	dir := make([]float64, n)
	xNew, gNew := make([]float64, n), make([]float64, n)
	history := []float64{f}
	it := 0
	for it = 1; it <= cfg.MaxIter; it++ {
		// Two-loop recursion: dir = -H g.
		copy(dir, g)
		for k := len(S) - 1; k >= 0; k-- {
			alpha[k] = rho[k] * dot(S[k], dir)
			axpy(-alpha[k], Y[k], dir)
		}
		gamma := 1.0
		if len(S) > 0 {
			last := len(S) - 1
			gamma = dot(S[last], Y[last]) / dot(Y[last], Y[last])
		} else if gn := math.Sqrt(dot(g, g)); gn > 0 {
			gamma = 1 / gn
		}
		for j := range dir {
			dir[j] *= gamma
		}
		for k := range S {
			beta := rho[k] * dot(Y[k], dir)
			axpy(alpha[k]-beta, S[k], dir)
		}
		for j := range dir {
			dir[j] = -dir[j]
		}
		slope := dot(g, dir)
		if slope >= 0 { // not a descent direction: restart from the gradient
			S, Y, rho = S[:0], Y[:0], rho[:0]
			for j := range dir {
				dir[j] = -g[j]
			}
			slope = -dot(g, g)
		}
		if slope == 0 {
			break
		}
		step, fNew := 1.0, 0.0
		for tries := 0; ; tries++ {
			for j := range x {
				xNew[j] = x[j] + step*dir[j]
			}
			fNew = eval(xNew, gNew)
			if fNew <= f+1e-4*step*slope || tries == 40 {
				break
			}
			step /= 2
		}
		if fNew > f { // no progress possible
			break
		}
		s, y := make([]float64, n), make([]float64, n)
		for j := range x {
			s[j] = xNew[j] - x[j]
			y[j] = gNew[j] - g[j]
		}
		if sy := dot(s, y); sy > 1e-12 {
			if len(S) == m {
				S, Y, rho = S[1:], Y[1:], rho[1:]
			}
			S, Y, rho = append(S, s), append(Y, y), append(rho, 1/sy)
		}
		copy(x, xNew)
		copy(g, gNew)
		f = fNew
		history = append(history, f)
		if len(history) > 5 {
			old := history[len(history)-6]
			if (old-f)/math.Max(math.Abs(f), 1e-12) < cfg.Tol {
				break
			}
		}
	}
	return x[:n-1], x[n-1], stats{iter: min(it, cfg.MaxIter), loss: f}
}

// Platt fits p = Sigmoid(A*z + B) to scored examples by weighted maximum likelihood, with
// Platt's smoothed targets ((N+ + 1)/(N+ + 2) for positives, 1/(N- + 2) for negatives, N counting
// examples), by Newton's method with backtracking (Lin, Lin and Weng, 2007). With no positive or
// no negative example it returns (1, 0).
func Platt(s []Scored) (a, b float64) {
	var npos, nneg, wpos, wneg float64
	for _, e := range s {
		if e.Label {
			npos++
			wpos += e.Weight
		} else {
			nneg++
			wneg += e.Weight
		}
	}
	if npos == 0 || nneg == 0 {
		return 1, 0
	}
	// The smoothing is about how many examples there are, whatever their weights.
	hi, lo := (npos+1)/(npos+2), 1/(nneg+2)
	t := make([]float64, len(s))
	for i, e := range s {
		t[i] = lo
		if e.Label {
			t[i] = hi
		}
	}
	nll := func(a, b float64) float64 {
		f := 0.0
		for i, e := range s {
			z := a*e.Z + b
			// -(t log p + (1-t) log(1-p)) = Softplus(z) - t z, computed stably
			f += e.Weight * (Softplus(z) - t[i]*z)
		}
		return f
	}
	a, b = 1, 0
	f := nll(a, b)
	for range 100 {
		var h11, h22, h21, g1, g2 float64
		for i, e := range s {
			p := Sigmoid(a*e.Z + b)
			d1 := e.Weight * (p - t[i])
			d2 := e.Weight * p * (1 - p)
			h11 += e.Z * e.Z * d2
			h22 += d2
			h21 += e.Z * d2
			g1 += e.Z * d1
			g2 += d1
		}
		if math.Abs(g1) < 1e-9*(wpos+wneg) && math.Abs(g2) < 1e-9*(wpos+wneg) {
			break
		}
		h11 += 1e-12
		h22 += 1e-12
		det := h11*h22 - h21*h21
		da := -(h22*g1 - h21*g2) / det
		db := -(-h21*g1 + h11*g2) / det
		gd := g1*da + g2*db
		step := 1.0
		for step >= 1e-10 {
			na, nb := a+step*da, b+step*db
			if nf := nll(na, nb); nf < f+1e-4*step*gd {
				a, b, f = na, nb, nf
				break
			}
			step /= 2
		}
		if step < 1e-10 {
			break
		}
	}
	return a, b
}

// Sigmoid is 1 / (1 + exp(-z)), computed without overflow.
func Sigmoid(z float64) float64 {
	if z >= 0 {
		return 1 / (1 + math.Exp(-z))
	}
	e := math.Exp(z)
	return e / (1 + e)
}

// Softplus is log(1 + exp(z)), computed without overflow: the log loss of a logit z whose
// label is false (of -z when it is true).
func Softplus(z float64) float64 {
	if z > 0 {
		return z + math.Log1p(math.Exp(-z))
	}
	return math.Log1p(math.Exp(z))
}

func dot(a, b []float64) float64 {
	s := 0.0
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

func axpy(a float64, x, y []float64) {
	for i := range x {
		y[i] += a * x[i]
	}
}
