package textclass

import (
	"errors"
	"fmt"
	"math"
)

// Deep is an optional non-linear part of the primary head ("wide and deep", residual): a small
// network over the same window features whose output z_deep is added to the head's raw score
// z_lin, so the window's probability is Heads[0].Probability(z_lin + z_deep). The head's Platt
// scaling is fitted on the sum. A model without one (Model.Deep nil, every model file without a
// "deep" part) scores exactly as before.
//
// For a window whose features f have values v_f (as for a head: count over the divisor), the
// embedding bag is
//
//	e_j = Scale[j] * sum_f Emb[slot(f)*Dim + j] * v_f
//
// (the int8 sums are taken per word and per window exactly, then scaled and divided), then
//
//	h = ReLU(W1 e + B1)   (Hidden units; with Hidden 0, h = ReLU(e + B1) over Dim units)
//	z_deep = W2 . h + B2
//
// Script features (Spec.Script) are not part of the bag: a model with a deep part must not set
// Spec.Script.
type Deep struct {
	// Bits is the log2 of the number of embedding rows (features are hashed into them as into a
	// head's slots).
	Bits int
	// Dim is the width of an embedding, Hidden the width of the hidden layer (0: none, the bag
	// goes straight through the ReLU).
	Dim, Hidden int
	// Scale holds one dequantization factor per embedding dimension (Dim).
	Scale []float32
	// Emb holds the quantized embeddings, row by row: (1<<Bits)*Dim values.
	Emb []int8
	// W1 (Hidden*Dim, row per hidden unit) and B1 (Hidden, or Dim with Hidden 0) form the hidden
	// layer; W2 (one per hidden unit) and B2 the output.
	W1, B1, W2 []float32
	B2         float32
}

// Deep's bounds.
const (
	MinDeepBits = 8
	MaxDeepBits = 22
	MaxDeepDim  = 64
	MaxHidden   = 256
)

// units is the number of hidden units.
func (d *Deep) units() int {
	if d.Hidden == 0 {
		return d.Dim
	}
	return d.Hidden
}

// check reports the first way d is unusable.
func (d *Deep) check() error {
	switch {
	case d.Bits < MinDeepBits || d.Bits > MaxDeepBits:
		return fmt.Errorf("textclass: deep: bits %d out of [%d, %d]", d.Bits, MinDeepBits, MaxDeepBits)
	case d.Dim < 1 || d.Dim > MaxDeepDim:
		return fmt.Errorf("textclass: deep: dim %d out of [1, %d]", d.Dim, MaxDeepDim)
	case d.Hidden < 0 || d.Hidden > MaxHidden:
		return fmt.Errorf("textclass: deep: hidden %d out of [0, %d]", d.Hidden, MaxHidden)
	case len(d.Scale) != d.Dim:
		return fmt.Errorf("textclass: deep: %d scales for dim %d", len(d.Scale), d.Dim)
	case len(d.Emb) != (1<<d.Bits)*d.Dim:
		return fmt.Errorf("textclass: deep: %d embedding values for %d rows of %d", len(d.Emb), 1<<d.Bits, d.Dim)
	case len(d.W1) != d.Hidden*d.Dim:
		return fmt.Errorf("textclass: deep: %d hidden weights for %dx%d", len(d.W1), d.Hidden, d.Dim)
	case len(d.B1) != d.units() || len(d.W2) != d.units():
		return fmt.Errorf("textclass: deep: %d hidden biases and %d output weights for %d units", len(d.B1), len(d.W2), d.units())
	}
	for _, vs := range [][]float32{d.Scale, d.W1, d.B1, d.W2, {d.B2}} {
		for _, v := range vs {
			if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
				return errors.New("textclass: deep: a weight is not a finite number")
			}
		}
	}
	return nil
}

// row returns the embedding row of a feature hash.
func (d *Deep) row(h uint64) []int8 {
	r := int(slot(h, d.Bits)) * d.Dim
	return d.Emb[r : r+d.Dim]
}

// Output returns z_deep for an embedding bag e (len Dim, already scaled and divided).
func (d *Deep) Output(e []float64) float64 {
	z := float64(d.B2)
	if d.Hidden == 0 {
		for j, v := range e {
			if a := v + float64(d.B1[j]); a > 0 {
				z += float64(d.W2[j]) * a
			}
		}
		return z
	}
	for k := range d.Hidden {
		a := float64(d.B1[k])
		for j, w := range d.W1[k*d.Dim : (k+1)*d.Dim] {
			a += float64(w) * e[j]
		}
		if a > 0 {
			z += float64(d.W2[k]) * a
		}
	}
	return z
}

// Raw returns z_deep for a window's features (Window.Features, values already divided), the
// way a trainer sees it. Model.Score sums the same int8 values per word instead, so the two
// agree up to rounding.
func (d *Deep) Raw(fs []Feature) float64 {
	e := make([]float64, d.Dim)
	for _, f := range fs {
		v := float64(f.Value)
		for j, q := range d.row(f.Hash) {
			e[j] += float64(q) * v
		}
	}
	for j := range e {
		e[j] *= float64(d.Scale[j])
	}
	return d.Output(e)
}

// fileDeep is a deep part's entry in the file's metadata; the embeddings are a section.
type fileDeep struct {
	Bits   int       `json:"bits"`
	Dim    int       `json:"dim"`
	Hidden int       `json:"hidden"`
	Scale  []float32 `json:"scale"`
	W1     []float32 `json:"w1"`
	B1     []float32 `json:"b1"`
	W2     []float32 `json:"w2"`
	B2     float32   `json:"b2"`
}

// appendWord appends to prefix (prefix sums, Dim per word) the sum for the next word: the last
// entry plus the embeddings of the word's feature hashes fs. word is scratch of len Dim. The sums
// are exact (integers), so the window's bag does not depend on where the window starts.
func (d *Deep) appendWord(prefix, word []int32, fs []uint64) []int32 {
	word = word[:d.Dim]
	copy(word, prefix[len(prefix)-d.Dim:])
	for _, h := range fs {
		r := int(slot(h, d.Bits)) * d.Dim
		row := d.Emb[r : r+len(word) : r+len(word)] // len(row) == len(word): no bounds checks below
		for j, q := range row {
			word[j] += int32(q)
		}
	}
	return append(prefix, word...)
}

// window returns z_deep for the words [sp[0], sp[1]) given the per-word prefix sums, the
// window's divisor and scratch bag of len Dim.
func (d *Deep) window(bag []float64, prefix []int32, sp [2]int, div float64) float64 {
	lo, hi := prefix[sp[0]*d.Dim:(sp[0]+1)*d.Dim], prefix[sp[1]*d.Dim:(sp[1]+1)*d.Dim]
	for j := range bag {
		bag[j] = float64(hi[j]-lo[j]) * float64(d.Scale[j]) / div
	}
	return d.Output(bag)
}
