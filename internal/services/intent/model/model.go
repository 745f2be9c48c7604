package model

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
)

// None is the intent index of "no intent of the catalog".
const None = -1

// Model is a trained catalog: a small neural network over hashed features. Each feature of the
// text has an embedding row; the rows, weighted by the feature's value, are summed with a bias
// and passed through a ReLU (the hidden layer), and a linear layer with a softmax gives one
// probability per class: the catalog's intents and, when OutOfScope is set, one more class for
// "none of these", trained on out-of-scope examples.
//
// A text is out of scope (intent None) when the out-of-scope class beats the best intent, or
// when the best intent's probability is below Threshold. Weights are stored as small integers
// with one scale per row: 4 bits for the embeddings, 8 for the output layer. Build a Model with the training command, ship it with Encode and load
// it with Decode; a decoded Model is read-only and safe for concurrent use.
type Model struct {
	Catalog string
	Spec    Spec
	Intents []string
	// OutOfScope says the model has an extra last class, "none of these".
	OutOfScope bool
	// Threshold is the lowest probability at which the best intent is answered.
	Threshold float64
	// Hidden is the width of the hidden layer.
	Hidden int

	// Features are the hashed features with an embedding, strictly increasing; row i of Emb
	// (Hidden values in -EmbLevels..EmbLevels, times EmbScale[i]) belongs to Features[i]. A
	// decoded model leaves Emb nil and keeps the weights as its file has them, packed two
	// to a byte (see Weights).
	Features []uint32
	Emb      []int8
	EmbScale []float32
	// HiddenBias has Hidden values.
	HiddenBias []float32
	// Out has one row of Hidden values per class (in -OutLevels..OutLevels), times
	// OutScale[class], plus OutBias[class].
	Out      []int8
	OutScale []float32
	OutBias  []float32

	index rowIndex  // feature -> row, built by check
	out   []float32 // Out times OutScale, built by Decode
	// packed is the embedding as the file stores it: weight+8 (1..15) in each half of a byte,
	// low half first, row after row. Decode copies it from the file (so its pages are
	// touched once at load, not faulted in during requests); check builds it from Emb.
	packed []byte
}

// Classes is the number of classes: the intents, plus one for "none of these".
func (m *Model) Classes() int {
	if m.OutOfScope {
		return len(m.Intents) + 1
	}
	return len(m.Intents)
}

// Scored is an intent with its probability.
type Scored struct {
	Intent     int
	Confidence float64
}

// Prediction is the answer for one text. Intent is None when the text is out of scope, and
// Confidence is then 1 minus the best intent's probability. Ranked lists the k most probable
// intents, best first, the answered intent included.
type Prediction struct {
	Intent     int
	Confidence float64
	Ranked     []Scored
}

// Predict classifies text, ranking the k (at least 1) most probable intents.
func (m *Model) Predict(ctx context.Context, text string, k int) (Prediction, error) {
	x, err := m.Spec.vector(ctx, text)
	if err != nil {
		return Prediction{}, err
	}
	return m.Decide(m.Probabilities(x), k), nil
}

// Probabilities returns the softmax probability of every class for a feature vector.
func (m *Model) Probabilities(x []Entry) []float64 {
	d := m.Hidden
	h := slices.Clone(m.HiddenBias)
	var pairs [][2]float32 // h two by two, when d is even
	if d%2 == 0 {
		pairs = make([][2]float32, d/2)
		for j := range pairs {
			pairs[j] = [2]float32{h[2*j], h[2*j+1]}
		}
	}
	for _, e := range x {
		i, ok := m.index.row(e.Feature)
		if !ok {
			continue
		}
		// A weight takes only fifteen values, so its products with v are computed once per
		// row: the same products, summed in the same order, without a conversion and a
		// multiplication per weight.
		v := e.Value * m.EmbScale[i]
		var prod [16]float32 // indexed by weight+8
		for n := 8 - EmbLevels; n <= 8+EmbLevels; n++ {
			prod[n] = v * float32(n-8)
		}
		if pairs != nil {
			// One byte holds the weights of two hidden units: with the units in pairs too,
			// the loop needs no bounds check.
			row := m.packed[int(i)*d/2 : int(i)*d/2+d/2]
			pairs := pairs[:len(row)]
			for j, b := range row {
				pairs[j][0] += prod[b&15]
				pairs[j][1] += prod[b>>4]
			}
			continue
		}
		for j := range h {
			k := int(i)*d + j
			h[j] += prod[m.packed[k/2]>>(4*(k%2))&15]
		}
	}
	for j, p := range pairs {
		h[2*j], h[2*j+1] = p[0], p[1]
	}
	for j := range h {
		h[j] = max(h[j], 0)
	}
	probs := make([]float64, m.Classes())
	hi := math.Inf(-1)
	for c := range probs {
		var s float32
		for j, w := range m.out[c*d : c*d+d] {
			s += w * h[j]
		}
		probs[c] = float64(m.OutBias[c]) + float64(s)
		hi = max(hi, probs[c])
	}
	var z float64
	for c := range probs {
		probs[c] = math.Exp(probs[c] - hi)
		z += probs[c]
	}
	for c := range probs {
		probs[c] /= z
	}
	return probs
}

// Decide turns class probabilities into a prediction with the k best intents ranked (ties go
// to the lower intent index).
func (m *Model) Decide(probs []float64, k int) Prediction {
	n := len(m.Intents)
	k = min(max(k, 1), n)
	ranked := make([]Scored, 0, k)
	for i, p := range probs[:n] {
		if len(ranked) == k && p <= ranked[k-1].Confidence {
			continue
		}
		at := len(ranked)
		for at > 0 && p > ranked[at-1].Confidence {
			at--
		}
		if len(ranked) < k {
			ranked = append(ranked, Scored{})
		}
		copy(ranked[at+1:], ranked[at:len(ranked)-1])
		ranked[at] = Scored{i, p}
	}
	p := Prediction{Intent: None, Ranked: ranked}
	best := ranked[0]
	oos := 0.0
	if m.OutOfScope {
		oos = probs[n]
	}
	if best.Confidence >= m.Threshold && best.Confidence > oos {
		p.Intent, p.Confidence = best.Intent, best.Confidence
	} else {
		p.Confidence = 1 - best.Confidence
	}
	return p
}

// check verifies that the parts of m fit together and builds the feature index.
func (m *Model) check() error {
	if err := m.Spec.valid(); err != nil {
		return err
	}
	k, d := m.Classes(), m.Hidden
	switch {
	case len(m.Intents) == 0:
		return errors.New("no intents")
	case d <= 0 || d > 4096:
		return fmt.Errorf("hidden width %d", d)
	case !(m.Threshold >= 0 && m.Threshold <= 1):
		return fmt.Errorf("threshold %v out of [0, 1]", m.Threshold)
	case len(m.EmbScale) != len(m.Features) || m.Emb != nil && len(m.Emb) != len(m.Features)*d:
		return errors.New("embedding size does not match its features")
	case len(m.HiddenBias) != d:
		return errors.New("hidden bias size")
	case len(m.Out) != k*d || len(m.OutScale) != k || len(m.OutBias) != k:
		return errors.New("output layer size does not match the classes")
	}
	if m.Emb != nil {
		for _, q := range m.Emb {
			if q < -EmbLevels || q > EmbLevels {
				return errors.New("embedding weight out of range")
			}
		}
		m.packed = packNibbles(m.Emb)
	} else if !validNibbles(m.packed, len(m.Features)*d) { // nil packed fails on size
		return errors.New("embedding weights missing, of the wrong size or out of range")
	}
	limit := uint32(1)<<m.Spec.Bits - 1
	for i, f := range m.Features {
		if i > 0 && f <= m.Features[i-1] {
			return fmt.Errorf("features not increasing at %d", i)
		}
		if f > limit {
			return fmt.Errorf("feature %d outside %d bits", f, m.Spec.Bits)
		}
	}
	m.index = newRowIndex(m.Features)
	for _, s := range [][]float32{m.EmbScale, m.HiddenBias, m.OutScale, m.OutBias} {
		for _, v := range s {
			if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
				return errors.New("non-finite weight")
			}
		}
	}
	m.out = make([]float32, len(m.Out))
	for i, q := range m.Out {
		m.out[i] = float32(q) * m.OutScale[i/d]
	}
	return nil
}

// Weights returns the embedding weights, row after row: Emb, or for a decoded model the
// packed weights unpacked.
func (m *Model) Weights() []int8 {
	if m.Emb != nil {
		return m.Emb
	}
	n := len(m.Features) * m.Hidden
	out := make([]int8, n)
	for k := range out {
		out[k] = int8(m.packed[k/2]>>(4*(k%2))&15) - 8
	}
	return out
}

// packNibbles packs weights in -EmbLevels..EmbLevels two to a byte as weight+8, the first in
// the low half: the file's form.
func packNibbles(vs []int8) []byte {
	out := make([]byte, (len(vs)+1)/2)
	for i, v := range vs {
		out[i/2] |= byte(v+8) << (4 * (i % 2))
	}
	return out
}

// validNibbles reports whether the first n halves of packed all hold a weight (1..15, that is
// -7..7 plus 8), eight bytes at a time: a half-byte is 0 exactly when the classic zero test
// finds it.
func validNibbles(packed []byte, n int) bool {
	if len(packed) != (n+1)/2 {
		return false
	}
	full := n / 2
	i := 0
	for ; i+8 <= full; i += 8 {
		x := binary.LittleEndian.Uint64(packed[i:])
		if (x-0x1111111111111111)&^x&0x8888888888888888 != 0 {
			return false
		}
	}
	for ; i < full; i++ {
		if packed[i]&15 == 0 || packed[i]>>4 == 0 {
			return false
		}
	}
	return n%2 == 0 || packed[full]&15 != 0
}

// Quantization levels: embeddings are stored in 4 bits (-7..7), the output layer in 8 bits.
const (
	EmbLevels = 7
	OutLevels = 127
)

// QuantizeRows turns float rows of width d into integer rows in -levels..levels with one scale
// each (the row's largest magnitude over levels): the form Model stores.
func QuantizeRows(w []float32, d, levels int) ([]int8, []float32) {
	q := make([]int8, len(w))
	scales := make([]float32, len(w)/d)
	for r := range scales {
		row := w[r*d : r*d+d]
		var hi float32
		for _, v := range row {
			hi = max(hi, float32(math.Abs(float64(v))))
		}
		if hi == 0 {
			continue
		}
		scales[r] = hi / float32(levels)
		for j, v := range row {
			q[r*d+j] = int8(math.Round(float64(v / scales[r])))
		}
	}
	return q, scales
}

// rowIndex maps a feature to its row: an open-addressing table, at most half full, of
// feature<<32 | row+1 (zero is a free slot), probed from a multiplicative hash of the feature.
// A lookup is one multiplication and usually one slot, where a map lookup hashed the key and
// scanned a group.
type rowIndex struct {
	slots []uint64
	shift uint32
}

func newRowIndex(features []uint32) rowIndex {
	bits := uint32(4)
	for 1<<bits < 2*len(features) {
		bits++
	}
	x := rowIndex{slots: make([]uint64, 1<<bits), shift: 32 - bits}
	mask := uint32(len(x.slots) - 1)
	for i, f := range features {
		h := (f * 0x9E3779B1) >> x.shift
		for x.slots[h] != 0 {
			h = (h + 1) & mask
		}
		x.slots[h] = uint64(f)<<32 | uint64(i+1)
	}
	return x
}

// row returns the row of feature f, and whether the model has one.
func (x rowIndex) row(f uint32) (int32, bool) {
	if len(x.slots) == 0 {
		return 0, false
	}
	mask := uint32(len(x.slots) - 1)
	for h := (f * 0x9E3779B1) >> x.shift; ; h = (h + 1) & mask {
		s := x.slots[h]
		if s == 0 {
			return 0, false
		}
		if uint32(s>>32) == f {
			return int32(uint32(s)) - 1, true
		}
	}
}
