package model

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"

	"github.com/sluice-api/sluice/internal/modelfile"
)

// flagBigrams is the Spec.Bigrams bit of the flags byte; the other bits are zero.
const flagBigrams = 1

// section is the name of the model file's one section.
const section = "model"

// meta is the model file's metadata.
type meta struct {
	Catalog string `json:"catalog"`
}

// FileID is the id of the model file of catalog.
func FileID(catalog string) string { return "sluice-intent-" + catalog }

// Encode writes m as a model file (internal/modelfile) whose one section is the compact,
// deterministic form of the model: a little-endian stream of the header, the features (as
// varint deltas), the weights (embeddings two to a byte) and their scales. It is not compressed:
// quantized weights gain only 15% from gzip, and inflating them took most of a cold start's
// model loading.
func (m *Model) Encode() ([]byte, error) {
	if err := m.check(); err != nil {
		return nil, fmt.Errorf("intent model: encode: %w", err)
	}
	var raw bytes.Buffer
	w := &writer{b: &raw}
	w.str(m.Catalog)
	var flags byte
	if m.Spec.Bigrams {
		flags |= flagBigrams
	}
	raw.Write([]byte{m.Spec.Bits, flags, m.Spec.CharMin, m.Spec.CharMax, m.Spec.CharWeight})
	w.uvar(uint64(len(m.Intents)))
	for _, s := range m.Intents {
		w.str(s)
	}
	oos := byte(0)
	if m.OutOfScope {
		oos = 1
	}
	raw.WriteByte(oos)
	w.f64(m.Threshold)
	w.uvar(uint64(m.Hidden))
	w.uvar(uint64(len(m.Features)))
	var prev uint32
	for _, f := range m.Features {
		w.uvar(uint64(f - prev))
		prev = f
	}
	w.f32s(m.EmbScale)
	if m.Emb == nil {
		raw.Write(m.packed) // a decoded model: the weights as its file had them
	} else {
		w.nibbles(m.Emb)
	}
	w.f32s(m.HiddenBias)
	w.f32s(m.OutScale)
	w.f32s(m.OutBias)
	w.i8s(m.Out)
	b, err := modelfile.Encode(FileID(m.Catalog), meta{Catalog: m.Catalog}, modelfile.Section{Name: section, Data: raw.Bytes()})
	if err != nil {
		return nil, fmt.Errorf("intent model: encode: %w", err)
	}
	return b, nil
}

// Decode reads a model file written by Encode and indexes it for Predict.
func Decode(data []byte) (*Model, error) {
	f, err := modelfile.Decode(data)
	if err != nil {
		return nil, fmt.Errorf("intent model: %w", err)
	}
	var md meta
	if err := f.UnmarshalMeta(&md); err != nil {
		return nil, fmt.Errorf("intent model: %w", err)
	}
	raw, err := f.Section(section)
	if err != nil {
		return nil, fmt.Errorf("intent model: %w", err)
	}
	r := &reader{b: raw}
	m := &Model{Catalog: r.str()}
	if r.err == nil && (m.Catalog != md.Catalog || f.ID != FileID(m.Catalog)) {
		r.err = fmt.Errorf("file %s of catalog %q holds catalog %q", f.ID, md.Catalog, m.Catalog)
	}
	spec := r.take(5, "spec")
	if spec[1]&^flagBigrams != 0 && r.err == nil {
		r.err = fmt.Errorf("unknown feature flags %#x", spec[1])
	}
	m.Spec = Spec{Bits: spec[0], Bigrams: spec[1]&flagBigrams != 0, CharMin: spec[2], CharMax: spec[3], CharWeight: spec[4]}
	m.Intents = make([]string, r.count())
	for i := range m.Intents {
		m.Intents[i] = r.str()
	}
	m.OutOfScope = r.take(1, "flag")[0] == 1
	m.Threshold = r.f64()
	m.Hidden = r.count()
	m.Features = make([]uint32, r.count())
	var prev uint64
	for i := range m.Features {
		prev += r.uvar()
		if prev > math.MaxUint32 {
			r.fail("feature")
		}
		m.Features[i] = uint32(prev)
	}
	k := m.Classes()
	m.EmbScale = r.f32s(len(m.Features))
	m.packed = bytes.Clone(r.packed(len(m.Features) * m.Hidden))
	m.HiddenBias = r.f32s(m.Hidden)
	m.OutScale = r.f32s(k)
	m.OutBias = r.f32s(k)
	m.Out = r.i8s(k * m.Hidden)
	if r.err == nil && len(r.b) != 0 {
		r.err = fmt.Errorf("%d trailing bytes", len(r.b))
	}
	if r.err == nil {
		r.err = m.check()
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
func (w *writer) f32s(vs []float32) {
	for _, v := range vs {
		w.f32(v)
	}
}
func (w *writer) i8s(vs []int8) {
	for _, v := range vs {
		w.b.WriteByte(byte(v))
	}
}

// nibbles packs values in -7..7 two to a byte, the first in the low half.
func (w *writer) nibbles(vs []int8) {
	for i := 0; i < len(vs); i += 2 {
		b := byte(vs[i] + 8)
		if i+1 < len(vs) {
			b |= byte(vs[i+1]+8) << 4
		}
		w.b.WriteByte(b)
	}
}
func (w *writer) f64(v float64) {
	w.b.Write(binary.LittleEndian.AppendUint64(nil, math.Float64bits(v)))
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
func (r *reader) f32() float32 {
	return math.Float32frombits(binary.LittleEndian.Uint32(r.take(4, "float32")))
}
func (r *reader) f32s(n int) []float32 {
	if n > len(r.b)/4 {
		r.fail("float32s")
		return make([]float32, 0)
	}
	out := make([]float32, n)
	for i := range out {
		out[i] = r.f32()
	}
	return out
}
func (r *reader) i8s(n int) []int8 {
	if n > len(r.b) {
		r.fail("int8s")
		return nil
	}
	b := r.take(n, "int8s")
	out := make([]int8, len(b))
	for i, v := range b {
		out[i] = int8(v)
	}
	return out
}

// packed returns the bytes of n values packed two to a byte, where they lie.
func (r *reader) packed(n int) []byte {
	if n < 0 || (n+1)/2 > len(r.b) {
		r.fail("nibbles")
		return nil
	}
	return r.take((n+1)/2, "nibbles")
}

func (r *reader) f64() float64 {
	return math.Float64frombits(binary.LittleEndian.Uint64(r.take(8, "float64")))
}
