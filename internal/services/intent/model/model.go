package model

import (
	"bytes"
	"cmp"
	"compress/gzip"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
)

// None is the intent index of "no intent matches well enough".
const None = -1

// Prototype is one sparse, unit-length point in feature space that stands for an intent.
type Prototype struct {
	Intent   int
	Features []uint32 // strictly increasing
	Weights  []float32
}

// Model is a trained catalog. Build one with the training script and ship it with Encode; load it
// with Decode, which also builds the index Similarities needs. A decoded Model is read-only and
// safe for concurrent use.
type Model struct {
	Catalog string
	Intents []string
	// IDF holds the inverse document frequency of every feature seen in at least two training
	// utterances; every other feature gets DefaultIDF.
	IDF        map[uint32]float32
	DefaultIDF float32
	Prototypes []Prototype
	// Temperature divides similarities before the softmax.
	Temperature float64
	// Threshold is the similarity of the "no intent" class: a best similarity below it answers
	// None.
	Threshold float64

	postings map[uint32][]posting
}

type posting struct {
	proto  int32
	weight float32
}

// Entry is one non-zero component of a sparse vector.
type Entry struct {
	Feature uint32
	Weight  float32
}

// TF dampens a weighted count: linear below 1, logarithmic above.
func TF(c float32) float32 {
	if c <= 1 {
		return c
	}
	return 1 + float32(math.Log(float64(c)))
}

// Vector turns feature counts into a unit-length TF-IDF vector, sorted by feature.
func (m *Model) Vector(counts map[uint32]float32) []Entry {
	v := make([]Entry, 0, len(counts))
	for f, c := range counts {
		idf, ok := m.IDF[f]
		if !ok {
			idf = m.DefaultIDF
		}
		if w := TF(c) * idf; w != 0 {
			v = append(v, Entry{f, w})
		}
	}
	slices.SortFunc(v, func(a, b Entry) int { return cmp.Compare(a.Feature, b.Feature) })
	var sum float64 // summed in feature order, so the result does not depend on map order
	for _, e := range v {
		sum += float64(e.Weight) * float64(e.Weight)
	}
	if sum > 0 {
		inv := float32(1 / math.Sqrt(sum))
		for i := range v {
			v[i].Weight *= inv
		}
	}
	return v
}

// Similarities returns, for each intent, the highest cosine similarity between text and one of
// the intent's prototypes.
func (m *Model) Similarities(ctx context.Context, text string) ([]float64, error) {
	counts, err := Counts(ctx, text)
	if err != nil {
		return nil, err
	}
	return m.similarities(m.Vector(counts)), nil
}

func (m *Model) similarities(v []Entry) []float64 {
	per := make([]float32, len(m.Prototypes))
	for _, e := range v {
		for _, p := range m.postings[e.Feature] {
			per[p.proto] += e.Weight * p.weight
		}
	}
	sims := make([]float64, len(m.Intents))
	for i := range sims {
		sims[i] = math.Inf(-1)
	}
	for i, p := range m.Prototypes {
		sims[p.Intent] = max(sims[p.Intent], float64(per[i]))
	}
	for i, s := range sims {
		if math.IsInf(s, -1) {
			sims[i] = 0
		}
	}
	return sims
}

// Scored is an intent with its confidence.
type Scored struct {
	Intent     int
	Confidence float64
}

// Prediction is the answer for one text: Intent is None when no intent matches well enough, and
// Confidence is then the probability of "no intent". Alternatives are the next best intents, best
// first.
type Prediction struct {
	Intent       int
	Confidence   float64
	Alternatives []Scored
}

// Predict classifies text, returning up to k alternatives.
func (m *Model) Predict(ctx context.Context, text string, k int) (Prediction, error) {
	sims, err := m.Similarities(ctx, text)
	if err != nil {
		return Prediction{}, err
	}
	return m.Decide(sims, k), nil
}

// Decide turns similarities into a prediction: a softmax over the intents' similarities and the
// "no intent" class (whose similarity is Threshold), all divided by Temperature.
func (m *Model) Decide(sims []float64, k int) Prediction {
	probs, none := m.Probabilities(sims)
	order := make([]int, len(probs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		switch {
		case probs[a] > probs[b]:
			return -1
		case probs[a] < probs[b]:
			return 1
		}
		return 0
	})
	var p Prediction
	rest := order
	if len(order) > 0 && sims[order[0]] >= m.Threshold {
		p.Intent, p.Confidence = order[0], probs[order[0]]
		rest = order[1:]
	} else {
		p.Intent, p.Confidence = None, none
	}
	for _, i := range rest[:min(k, len(rest))] {
		p.Alternatives = append(p.Alternatives, Scored{i, probs[i]})
	}
	return p
}

// Probabilities returns the softmax probability of each intent and of "no intent".
func (m *Model) Probabilities(sims []float64) (probs []float64, none float64) {
	t := m.Temperature
	if t <= 0 {
		t = 1
	}
	hi := m.Threshold
	for _, s := range sims {
		hi = max(hi, s)
	}
	probs = make([]float64, len(sims))
	none = math.Exp((m.Threshold - hi) / t)
	z := none
	for i, s := range sims {
		probs[i] = math.Exp((s - hi) / t)
		z += probs[i]
	}
	for i := range probs {
		probs[i] /= z
	}
	return probs, none / z
}

// magic starts every encoded model.
const magic = "SLI1"

// Encode writes m in its compact, deterministic shipping form: gzip over a varint stream with
// IDF values and prototype weights quantised to 8 bits. Decode(Encode(m)) is what ships.
func (m *Model) Encode() ([]byte, error) {
	var raw bytes.Buffer
	w := &writer{b: &raw}
	w.b.WriteString(magic)
	w.str(m.Catalog)
	w.uvar(uint64(len(m.Intents)))
	for _, s := range m.Intents {
		w.str(s)
	}
	w.f64(m.Temperature)
	w.f64(m.Threshold)
	w.f32(m.DefaultIDF)

	feats := make([]uint32, 0, len(m.IDF))
	lo, hi := float32(math.Inf(1)), float32(math.Inf(-1))
	for f, v := range m.IDF {
		feats = append(feats, f)
		lo, hi = min(lo, v), max(hi, v)
	}
	slices.Sort(feats)
	if len(feats) == 0 {
		lo, hi = 0, 0
	}
	w.uvar(uint64(len(feats)))
	w.f32(lo)
	w.f32(hi)
	w.deltas(feats)
	for _, f := range feats {
		w.b.WriteByte(quantize(m.IDF[f]-lo, hi-lo))
	}

	w.uvar(uint64(len(m.Prototypes)))
	for _, p := range m.Prototypes {
		if len(p.Features) != len(p.Weights) || !slices.IsSorted(p.Features) {
			return nil, fmt.Errorf("intent model: prototype of intent %d is malformed", p.Intent)
		}
		w.uvar(uint64(p.Intent))
		w.uvar(uint64(len(p.Features)))
		w.deltas(p.Features)
		var scale float32
		for _, v := range p.Weights {
			scale = max(scale, v)
		}
		w.f32(scale)
		for _, v := range p.Weights {
			w.b.WriteByte(max(quantize(v, scale), 1))
		}
	}

	var out bytes.Buffer
	zw, err := gzip.NewWriterLevel(&out, gzip.BestCompression)
	if err != nil {
		return nil, fmt.Errorf("intent model: %w", err)
	}
	if _, err := zw.Write(raw.Bytes()); err != nil {
		return nil, fmt.Errorf("intent model: compress: %w", err)
	}
	if err := zw.Close(); err != nil {
		return nil, fmt.Errorf("intent model: compress: %w", err)
	}
	return out.Bytes(), nil
}

func quantize(v, scale float32) byte {
	if scale <= 0 {
		return 0
	}
	return byte(math.Round(float64(min(max(v/scale, 0), 1)) * 255))
}

// Decode reads a model written by Encode and indexes it for Similarities.
func Decode(data []byte) (*Model, error) {
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("intent model: %w", err)
	}
	raw, err := io.ReadAll(zr)
	if err != nil {
		return nil, fmt.Errorf("intent model: decompress: %w", err)
	}
	if !bytes.HasPrefix(raw, []byte(magic)) {
		return nil, errors.New("intent model: bad magic")
	}
	r := &reader{b: raw[len(magic):]}
	m := &Model{Catalog: r.str()}
	m.Intents = make([]string, r.count())
	for i := range m.Intents {
		m.Intents[i] = r.str()
	}
	m.Temperature, m.Threshold, m.DefaultIDF = r.f64(), r.f64(), r.f32()

	nf := r.count()
	lo, hi := r.f32(), r.f32()
	feats := r.deltas(nf)
	m.IDF = make(map[uint32]float32, nf)
	for _, f := range feats {
		m.IDF[f] = lo + float32(r.byte())/255*(hi-lo)
	}

	m.Prototypes = make([]Prototype, r.count())
	m.postings = make(map[uint32][]posting)
	for i := range m.Prototypes {
		p := Prototype{Intent: int(r.uvar())}
		n := r.count()
		p.Features = r.deltas(n)
		scale := r.f32()
		p.Weights = make([]float32, n)
		var sum float64
		for j := range p.Weights {
			p.Weights[j] = float32(r.byte()) / 255 * scale
			sum += float64(p.Weights[j]) * float64(p.Weights[j])
		}
		if sum > 0 {
			inv := float32(1 / math.Sqrt(sum))
			for j := range p.Weights {
				p.Weights[j] *= inv
			}
		}
		if r.err == nil && (p.Intent < 0 || p.Intent >= len(m.Intents)) {
			r.err = fmt.Errorf("prototype %d names intent %d of %d", i, p.Intent, len(m.Intents))
		}
		for j, f := range p.Features {
			m.postings[f] = append(m.postings[f], posting{int32(i), p.Weights[j]})
		}
		m.Prototypes[i] = p
	}
	if r.err == nil && len(r.b) != 0 {
		r.err = fmt.Errorf("%d trailing bytes", len(r.b))
	}
	if r.err != nil {
		return nil, fmt.Errorf("intent model: decode: %w", r.err)
	}
	return m, nil
}

type writer struct{ b *bytes.Buffer }

func (w *writer) uvar(v uint64) { w.b.Write(binary.AppendUvarint(nil, v)) }
func (w *writer) str(s string)  { w.uvar(uint64(len(s))); w.b.WriteString(s) }
func (w *writer) f32(v float32) {
	w.b.Write(binary.LittleEndian.AppendUint32(nil, math.Float32bits(v)))
}
func (w *writer) f64(v float64) {
	w.b.Write(binary.LittleEndian.AppendUint64(nil, math.Float64bits(v)))
}
func (w *writer) deltas(fs []uint32) {
	var prev uint32
	for _, f := range fs {
		w.uvar(uint64(f - prev))
		prev = f
	}
}

// reader decodes the varint stream; the first error sticks and later reads return zeros.
type reader struct {
	b   []byte
	err error
}

func (r *reader) fail(what string) {
	if r.err == nil {
		r.err = fmt.Errorf("truncated %s", what)
	}
	r.b = nil
}

func (r *reader) uvar() uint64 {
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.fail("varint")
		return 0
	}
	r.b = r.b[n:]
	return v
}

// count reads a length, refusing values larger than the remaining input could hold.
func (r *reader) count() int {
	v := r.uvar()
	if v > uint64(len(r.b)) {
		r.fail("count")
		return 0
	}
	return int(v)
}

func (r *reader) take(n int, what string) []byte {
	if len(r.b) < n {
		r.fail(what)
		return make([]byte, n)
	}
	out := r.b[:n]
	r.b = r.b[n:]
	return out
}

func (r *reader) str() string { return string(r.take(r.count(), "string")) }
func (r *reader) byte() byte  { return r.take(1, "byte")[0] }
func (r *reader) f32() float32 {
	return math.Float32frombits(binary.LittleEndian.Uint32(r.take(4, "float32")))
}
func (r *reader) f64() float64 {
	return math.Float64frombits(binary.LittleEndian.Uint64(r.take(8, "float64")))
}
func (r *reader) deltas(n int) []uint32 {
	out := make([]uint32, n)
	var prev uint32
	for i := range out {
		prev += uint32(r.uvar())
		out[i] = prev
	}
	return out
}
