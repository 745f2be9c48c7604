package textclass

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"sync"

	"github.com/sluice-api/sluice/internal/modelfile"
)

// Model is a trained classifier: a Spec and one or more heads over the same features. Heads[0]
// is the primary head (the one Score maximizes over windows); the others are typically one
// per label, judged on the primary head's best window. A Model from Decode is read-only and safe
// for concurrent use.
type Model struct {
	// ID names the model (it goes into a service's descriptor).
	ID   string
	Spec Spec
	// Heads hold the weights; their names are distinct.
	Heads []Head
	// Meta is free-form provenance (training command, data, seed) stored in the file.
	Meta map[string]string
	// Lists holds the SHA-256 of each word list the model was trained with, by file name
	// (modelfile.ListHashes); the service serving it checks its lists with modelfile.CheckLists.
	Lists map[string]string
	// Deep, when set, is a non-linear part added to the primary head's raw score (see Deep).
	Deep *Deep

	pool sync.Pool // *scratch
}

// Levels is the number of distinct weights a head can hold: weights are quantized to one byte
// each, an index into the head's codebook.
const Levels = 256

// Head is one linear classifier over the hashed features. For a window whose distinct features
// f have values v_f (count / sqrt(total count), or count / total^Spec.NormPower, or below a
// Spec.NormKnee K count / (total * K^(NormPower-1))), its raw score is
//
//	z = Bias + sum_f Codebook[Codes[f.ID(Bits)]] * v_f
//
// and its calibrated probability is 1 / (1 + exp(-(PlattA*z + PlattB))).
type Head struct {
	Name string
	// Bits is the log2 of the number of weight slots.
	Bits int
	Bias float64
	// PlattA and PlattB calibrate the raw score into a probability (Platt scaling).
	PlattA, PlattB float64
	// Codebook holds the weight of each code; Codebook[0] is 0 (unseen features).
	Codebook [Levels]float32
	// Codes holds one code per slot (1<<Bits of them).
	Codes []uint8
}

// Probability maps a raw score z to the head's calibrated probability.
func (h *Head) Probability(z float64) float64 {
	return 1 / (1 + math.Exp(-(h.PlattA*z + h.PlattB)))
}

// Weight returns the (quantized) weight of a feature.
func (h *Head) Weight(f Feature) float64 {
	return float64(h.Codebook[h.Codes[f.ID(h.Bits)]])
}

// Raw returns the raw score of a window's features.
func (h *Head) Raw(fs []Feature) float64 {
	z := 0.0
	for _, f := range fs {
		z += h.Weight(f) * float64(f.Value)
	}
	return h.Bias + z
}

// MinBits and MaxBits bound a head's table size.
const (
	MinBits = 8
	MaxBits = 26
)

// NewHead builds a head from float weights (one per slot, len 1<<bits) by quantizing them to
// Levels values: 0 stays exactly 0, and the non-zero weights are clustered into Levels-1 values
// by one-dimensional k-means (Lloyd's algorithm from a fixed start, at most 100 rounds), which
// is deterministic.
func NewHead(name string, bits int, weights []float64, bias, plattA, plattB float64) (Head, error) {
	if bits < MinBits || bits > MaxBits {
		return Head{}, fmt.Errorf("textclass: head %q: bits %d out of [%d, %d]", name, bits, MinBits, MaxBits)
	}
	if len(weights) != 1<<bits {
		return Head{}, fmt.Errorf("textclass: head %q: %d weights for %d bits", name, len(weights), bits)
	}
	h := Head{Name: name, Bits: bits, Bias: bias, PlattA: plattA, PlattB: plattB, Codes: make([]uint8, len(weights))}
	centers := kmeans1D(weights, Levels-1)
	for i, c := range centers {
		h.Codebook[i+1] = float32(c)
	}
	// Assign each weight to the nearest center: centers are sorted, so compare with midpoints.
	mids := make([]float64, max(len(centers)-1, 0))
	for i := range mids {
		mids[i] = (centers[i] + centers[i+1]) / 2
	}
	for i, w := range weights {
		if w == 0 {
			continue
		}
		k, _ := slices.BinarySearch(mids, w)
		h.Codes[i] = uint8(k + 1)
	}
	return h, nil
}

// kmeans1D returns at most k sorted cluster centers of the non-zero values of xs.
func kmeans1D(xs []float64, k int) []float64 {
	var v []float64
	for _, x := range xs {
		if x != 0 && !math.IsNaN(x) {
			v = append(v, x)
		}
	}
	if len(v) == 0 {
		return nil
	}
	slices.Sort(v)
	distinct := slices.Compact(slices.Clone(v))
	if len(distinct) <= k {
		return distinct
	}
	// Start from centers spread evenly in sign(x)*sqrt(|x|), which puts more of them where the
	// weights are dense (near 0) without leaving the rare large weights, the ones that decide
	// scores, to a single center; then refine with Lloyd's algorithm.
	comp := func(x float64) float64 { return math.Copysign(math.Sqrt(math.Abs(x)), x) }
	lo, hi := comp(v[0]), comp(v[len(v)-1])
	centers := make([]float64, k)
	for i := range centers {
		c := lo + (hi-lo)*(float64(i)+0.5)/float64(k)
		centers[i] = math.Copysign(c*c, c)
	}
	centers = slices.Compact(centers)
	sum := make([]float64, len(centers))
	cnt := make([]int, len(centers))
	for range 100 {
		clear(sum)
		clear(cnt)
		j := 0
		for _, x := range v { // v is sorted, so the nearest center only moves right
			for j+1 < len(centers) && math.Abs(centers[j+1]-x) <= math.Abs(centers[j]-x) {
				j++
			}
			sum[j] += x
			cnt[j]++
		}
		moved := false
		for i := range centers {
			if cnt[i] > 0 {
				if c := sum[i] / float64(cnt[i]); c != centers[i] {
					centers[i], moved = c, true
				}
			}
		}
		if !moved {
			break
		}
	}
	slices.Sort(centers)
	return slices.Compact(centers)
}

// fileMeta is a model file's metadata: everything but the heads' codebooks and codes and the
// deep part's embeddings, which are its sections.
type fileMeta struct {
	Spec  Spec              `json:"spec"`
	Heads []fileHead        `json:"heads"`
	Meta  map[string]string `json:"meta,omitempty"`
	Lists map[string]string `json:"lists,omitempty"`
	Deep  *fileDeep         `json:"deep,omitempty"`
}

type fileHead struct {
	Name   string  `json:"name"`
	Bits   int     `json:"bits"`
	Bias   float64 `json:"bias"`
	PlattA float64 `json:"platt_a"`
	PlattB float64 `json:"platt_b"`
}

// headSection names the section of a head: its codebook (Levels little-endian float32) then its
// codes (one byte per slot).
func headSection(name string) string { return "head/" + name }

// deepSection names the section of the deep part's embeddings (one signed byte each).
const deepSection = "deep"

// Encode writes m in the model container (internal/modelfile): the model's ID, the metadata
// (spec, heads' names, bits, biases and calibration, provenance, word lists' hashes, and the deep
// part's shape and dense weights when there is one), then one section per head and one for the
// deep part's embeddings, if any. The same model always gives the same bytes.
func (m *Model) Encode(w io.Writer) error {
	if err := m.check(); err != nil {
		return err
	}
	meta := fileMeta{Spec: m.Spec, Meta: m.Meta, Lists: m.Lists}
	var sections []modelfile.Section
	for _, h := range m.Heads {
		meta.Heads = append(meta.Heads, fileHead{h.Name, h.Bits, h.Bias, h.PlattA, h.PlattB})
		data := make([]byte, 0, 4*Levels+len(h.Codes))
		for _, c := range h.Codebook {
			data = binary.LittleEndian.AppendUint32(data, math.Float32bits(c))
		}
		sections = append(sections, modelfile.Section{Name: headSection(h.Name), Data: append(data, h.Codes...)})
	}
	if d := m.Deep; d != nil {
		meta.Deep = &fileDeep{Bits: d.Bits, Dim: d.Dim, Hidden: d.Hidden, Scale: d.Scale, W1: d.W1, B1: d.B1, W2: d.W2, B2: d.B2}
		emb := make([]byte, len(d.Emb))
		for i, e := range d.Emb {
			emb[i] = byte(e)
		}
		sections = append(sections, modelfile.Section{Name: deepSection, Data: emb})
	}
	b, err := modelfile.Encode(m.ID, meta, sections...)
	if err != nil {
		return fmt.Errorf("textclass: encode: %w", err)
	}
	if _, err := w.Write(b); err != nil {
		return fmt.Errorf("textclass: encode: %w", err)
	}
	return nil
}

// Decode reads a model written by Encode. It refuses a file whose metadata has a field, or
// which has a section, this code does not know: that is an option it does not implement, and
// scoring without it would silently give other scores than the trainer measured.
func Decode(data []byte) (*Model, error) {
	f, err := modelfile.Decode(data)
	if err != nil {
		return nil, fmt.Errorf("textclass: decode: %w", err)
	}
	var meta fileMeta
	dec := json.NewDecoder(bytes.NewReader(f.Meta))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&meta); err != nil {
		return nil, fmt.Errorf("textclass: decode metadata: %w", err)
	}
	m := &Model{ID: f.ID, Spec: meta.Spec, Meta: meta.Meta, Lists: meta.Lists}
	want := len(meta.Heads)
	for _, fh := range meta.Heads {
		if fh.Bits < MinBits || fh.Bits > MaxBits {
			return nil, fmt.Errorf("textclass: decode: head %q has %d bits", fh.Name, fh.Bits)
		}
		h := Head{Name: fh.Name, Bits: fh.Bits, Bias: fh.Bias, PlattA: fh.PlattA, PlattB: fh.PlattB}
		sec, err := f.Section(headSection(fh.Name))
		if err != nil {
			return nil, fmt.Errorf("textclass: decode: %w", err)
		}
		if len(sec) != 4*Levels+1<<fh.Bits {
			return nil, fmt.Errorf("textclass: decode: head %q: %d bytes for %d bits", fh.Name, len(sec), fh.Bits)
		}
		for i := range h.Codebook {
			h.Codebook[i] = math.Float32frombits(binary.LittleEndian.Uint32(sec[4*i:]))
		}
		// The codes are copied to the heap, not used where they lie in the embedded file: the
		// binary's pages are faulted in one by one the first time a lookup touches them, during
		// requests, and that made long texts measurably slower (the conformance suite's
		// linearity check caught it). The copy touches every page once, at load.
		h.Codes = slices.Clone(sec[4*Levels:])
		m.Heads = append(m.Heads, h)
	}
	if fd := meta.Deep; fd != nil {
		want++
		d := &Deep{Bits: fd.Bits, Dim: fd.Dim, Hidden: fd.Hidden, Scale: fd.Scale, W1: fd.W1, B1: fd.B1, W2: fd.W2, B2: fd.B2}
		if d.Bits < MinDeepBits || d.Bits > MaxDeepBits || d.Dim < 1 || d.Dim > MaxDeepDim {
			return nil, fmt.Errorf("textclass: decode: deep part of %d bits and dim %d", d.Bits, d.Dim)
		}
		sec, err := f.Section(deepSection)
		if err != nil {
			return nil, fmt.Errorf("textclass: decode: %w", err)
		}
		if len(sec) != (1<<d.Bits)*d.Dim {
			return nil, errors.New("textclass: decode: deep part: embeddings truncated or followed by trailing data")
		}
		d.Emb = make([]int8, len(sec))
		for i, b := range sec {
			d.Emb[i] = int8(b)
		}
		m.Deep = d
	}
	if len(f.Sections) != want {
		return nil, fmt.Errorf("textclass: decode: %d sections for %d heads and deep part %v", len(f.Sections), len(meta.Heads), meta.Deep != nil)
	}
	if err := m.check(); err != nil {
		return nil, err
	}
	return m, nil
}

// check reports the first way m is unusable.
func (m *Model) check() error {
	if err := m.Spec.Validate(); err != nil {
		return err
	}
	if len(m.Heads) == 0 {
		return errors.New("textclass: model without heads")
	}
	seen := map[string]bool{}
	for _, h := range m.Heads {
		switch {
		case h.Name == "" || seen[h.Name]:
			return fmt.Errorf("textclass: head name %q empty or repeated", h.Name)
		case h.Bits < MinBits || h.Bits > MaxBits || len(h.Codes) != 1<<h.Bits:
			return fmt.Errorf("textclass: head %q: %d codes for %d bits", h.Name, len(h.Codes), h.Bits)
		case h.Codebook[0] != 0:
			return fmt.Errorf("textclass: head %q: code 0 must weigh 0", h.Name)
		case math.IsNaN(h.Bias) || math.IsInf(h.Bias, 0) || math.IsNaN(h.PlattA) || math.IsNaN(h.PlattB):
			return fmt.Errorf("textclass: head %q: bias or calibration is not a number", h.Name)
		}
		for _, c := range h.Codebook {
			if math.IsNaN(float64(c)) || math.IsInf(float64(c), 0) {
				return fmt.Errorf("textclass: head %q: codebook holds %v", h.Name, c)
			}
		}
		seen[h.Name] = true
	}
	if m.Deep != nil {
		if m.Spec.Script {
			return errors.New("textclass: a deep part does not take script features: unset Spec.Script")
		}
		return m.Deep.check()
	}
	return nil
}

// Head returns the index of the head called name, or -1.
func (m *Model) Head(name string) int {
	for i, h := range m.Heads {
		if h.Name == name {
			return i
		}
	}
	return -1
}
