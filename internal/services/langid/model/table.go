// Package model is the compact n-gram model behind routing.language.detect: the file format
// that scripts/train/langid writes and the service embeds, the hash table it loads into, and
// the way text is cut into the padded letter n-grams the model scores.
//
// A model holds, for every kept n-gram of one to five characters (letters, with a boundary
// marker ' ' before and after each word), the languages that have it and for each a quantised
// score: how much more likely the language makes the n-gram's last character than its floor.
// Load indexes the file (see Encode) in an open-addressing table keyed by a 64-bit hash of the
// n-gram, so a lookup costs one hash and usually one slot.
package model

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"slices"
	"strings"
)

// MaxOrder is the longest n-gram the model holds, in characters (boundaries included).
const MaxOrder = 5

// magic starts every model file; the byte after it is the format version.
const magic = "SLID"

const formatVersion = 1

// Posting is one language's entry for an n-gram.
type Posting struct {
	Lang  uint8 // index into Model.Langs
	Score uint8 // quantised score, see Model.Dequant
}

// Entry is one n-gram with its postings, as the trainer hands it to Encode.
type Entry struct {
	Gram     string
	Postings []Posting
}

// Params are the constants the model was trained and calibrated with; they travel in the file so
// a model and the numbers tuned for it never part.
type Params struct {
	// Step is the size of one quantisation step of a posting's value, in nats.
	Step float32
	// Backoff and Unseen are the backoff penalty per order and the log probability of a
	// character a language lacks, already folded into the values (see scripts/train/langid).
	Backoff float32
	Unseen  float32
	// MinOrder is the shortest n-gram the model scores in words of more than one character
	// (single-character words of Han, kana and Hangul are scored on the character).
	MinOrder uint32
	// Calibration holds the constants that turn scores into confidences (see Detector.Detect).
	Calibration [8]float32
}

// Model is a loaded model. It is read-only and safe for concurrent use.
type Model struct {
	Langs []string // ISO 639-1 codes, index = Posting.Lang
	// Scripts[l] has bit 1<<s set for every Script s language l is written in.
	Scripts []uint32
	Params  Params
	// Prior[l] is the log prior probability of language l (nats, up to a constant): how much
	// more often we expect it than the others before reading the text.
	Prior []float32

	// slots is an open-addressing table of the n-grams, at most half full: slot h&mask and the
	// ones after it hold (fingerprint: high 32 bits of the hash) << 32 | offset of the postings.
	// A lookup reads one slot, rarely a neighbour, then the postings.
	mask  uint64
	slots []uint64
	posts []byte // per n-gram: count, then count × (lang, value)
	grams int
}

// Hash is the 64-bit hash of an n-gram's UTF-8 bytes (FNV-1a, then a final mix so every bit is
// well spread).
func Hash(b []byte) uint64 {
	h := uint64(14695981039346656037)
	for _, c := range b {
		h ^= uint64(c)
		h *= 1099511628211
	}
	return mix(h)
}

// HashString is Hash of a string.
func HashString(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return mix(h)
}

func mix(h uint64) uint64 {
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	return h
}

// Fingerprint is the part of an n-gram's hash a lookup compares. Two n-grams of one model must
// not share it.
func Fingerprint(h uint64) uint32 { return uint32(h >> 32) }

// empty marks a free slot: no n-gram has offset 2^32-1 (postings are shorter than 4 GB).
const empty = ^uint64(0)

// Lookup returns the postings of the n-gram with hash h: pairs of (language, value) bytes,
// empty when the model does not hold it. A missing n-gram matches a held one by chance with
// probability about 2^-31.
func (m *Model) Lookup(h uint64) []byte {
	fp := h >> 32
	for i := h & m.mask; ; i = (i + 1) & m.mask {
		s := m.slots[i]
		if s == empty {
			return nil
		}
		if s>>32 == fp {
			off := uint32(s)
			n := uint32(m.posts[off])
			return m.posts[off+1 : off+1+2*n]
		}
	}
}

// Len is the number of n-grams the model holds.
func (m *Model) Len() int { return m.grams }

// Encode writes a model file: header, languages, scripts, priors, params, the number of n-grams,
// then the n-grams in order, front-coded (bytes shared with the previous one, bytes that
// follow, those bytes), then for each n-gram its postings (count, then language and score
// pairs). The file is not compressed: Load uses the postings where they lie, and git and the
// deployment archive compress it anyway. No two grams may share a Fingerprint (the trainer drops
// the rarer of such a pair); postings keep the given order.
func Encode(w io.Writer, langs []string, scripts []uint32, prior []float32, p Params, entries []Entry) error {
	if len(langs) == 0 || len(langs) > 128 {
		return fmt.Errorf("model: %d languages", len(langs))
	}
	if len(prior) != len(langs) || len(scripts) != len(langs) {
		return fmt.Errorf("model: %d priors and %d scripts for %d languages", len(prior), len(scripts), len(langs))
	}
	es := slices.Clone(entries)
	slices.SortFunc(es, func(a, b Entry) int { return strings.Compare(a.Gram, b.Gram) })
	fps := make(map[uint32]string, len(es))
	for i, e := range es {
		if i > 0 && e.Gram == es[i-1].Gram {
			return fmt.Errorf("model: n-gram %q twice", e.Gram)
		}
		if len(e.Gram) == 0 || len(e.Gram) > 255 {
			return fmt.Errorf("model: n-gram %q", e.Gram)
		}
		if len(e.Postings) == 0 || len(e.Postings) > 255 {
			return fmt.Errorf("model: n-gram %q has %d postings", e.Gram, len(e.Postings))
		}
		for _, p := range e.Postings {
			if int(p.Lang) >= len(langs) {
				return fmt.Errorf("model: n-gram %q has a posting for language %d of %d", e.Gram, p.Lang, len(langs))
			}
		}
		fp := Fingerprint(HashString(e.Gram))
		if g, dup := fps[fp]; dup {
			return fmt.Errorf("model: n-grams %q and %q share a fingerprint", g, e.Gram)
		}
		fps[fp] = e.Gram
	}
	bw := bufio.NewWriter(w)
	var err error
	put := func(v any) {
		if err == nil {
			err = binary.Write(bw, binary.LittleEndian, v)
		}
	}
	bw.WriteString(magic)
	bw.WriteByte(formatVersion)
	bw.WriteByte(byte(len(langs)))
	for _, l := range langs {
		if len(l) != 2 {
			return fmt.Errorf("model: language code %q", l)
		}
		bw.WriteString(l)
	}
	put(scripts)
	put(prior)
	put(p)
	put(uint32(len(es)))
	prev := ""
	for _, e := range es {
		k := 0
		for k < len(prev) && k < len(e.Gram) && prev[k] == e.Gram[k] {
			k++
		}
		bw.WriteByte(byte(k))
		bw.WriteByte(byte(len(e.Gram) - k))
		bw.WriteString(e.Gram[k:])
		prev = e.Gram
	}
	for _, e := range es {
		bw.WriteByte(byte(len(e.Postings)))
		for _, p := range e.Postings {
			bw.WriteByte(p.Lang)
			bw.WriteByte(p.Score)
		}
	}
	if err != nil {
		return fmt.Errorf("model: %w", err)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("model: %w", err)
	}
	return nil
}

// Load decodes a model file written by Encode. The model keeps using file's postings in place,
// so file must not change afterwards (an embedded file never does).
func Load(file []byte) (*Model, error) {
	r := &reader{b: file}
	if string(r.next(len(magic))) != magic {
		return nil, errors.New("model: not a language model file")
	}
	if v := r.byte(); v != formatVersion {
		return nil, fmt.Errorf("model: format version %d, want %d", v, formatVersion)
	}
	m := &Model{}
	nl := int(r.byte())
	for range nl {
		m.Langs = append(m.Langs, string(r.next(2)))
	}
	m.Scripts = make([]uint32, nl)
	r.read(m.Scripts)
	m.Prior = make([]float32, nl)
	r.read(m.Prior)
	r.read(&m.Params)
	var n32 uint32
	r.read(&n32)
	n := int(n32)
	if r.err != nil {
		return nil, r.err
	}
	if n > len(file)/4 {
		return nil, errors.New("model: truncated")
	}
	m.grams = n
	// The n-grams: hash each one; the postings follow all of them.
	hashes := make([]uint64, n)
	var gram [255]byte
	glen := 0
	b := r.b
	at := 0
	for i := range hashes {
		if at+2 > len(b) {
			return nil, errors.New("model: truncated n-grams")
		}
		k, rest := int(b[at]), int(b[at+1])
		at += 2
		if k > glen || at+rest > len(b) || k+rest > len(gram) {
			return nil, errors.New("model: bad n-gram")
		}
		glen = k + copy(gram[k:], b[at:at+rest])
		at += rest
		hashes[i] = Hash(gram[:glen])
	}
	m.posts = b[at:]
	if len(m.posts) >= math.MaxUint32 {
		return nil, errors.New("model: too large")
	}
	size := uint64(1) << bits.Len64(uint64(2*n))
	m.mask = size - 1
	m.slots = make([]uint64, size)
	for i := range m.slots {
		m.slots[i] = empty
	}
	off := 0
	for _, h := range hashes {
		if off >= len(m.posts) {
			return nil, errors.New("model: truncated postings")
		}
		c := int(m.posts[off])
		if off+1+2*c > len(m.posts) {
			return nil, errors.New("model: truncated postings")
		}
		for j := 0; j < c; j++ {
			if int(m.posts[off+1+2*j]) >= nl {
				return nil, fmt.Errorf("model: posting for language %d of %d", m.posts[off+1+2*j], nl)
			}
		}
		i := h & m.mask
		for m.slots[i] != empty {
			if m.slots[i]>>32 == h>>32 {
				return nil, errors.New("model: two n-grams share a fingerprint")
			}
			i = (i + 1) & m.mask
		}
		m.slots[i] = h>>32<<32 | uint64(off)
		off += 1 + 2*c
	}
	if off != len(m.posts) {
		return nil, fmt.Errorf("model: %d bytes after the postings", len(m.posts)-off)
	}
	return m, nil
}

// reader walks a model file, remembering the first error.
type reader struct {
	b   []byte
	err error
}

func (r *reader) next(n int) []byte {
	if r.err != nil || n < 0 || n > len(r.b) {
		if r.err == nil {
			r.err = errors.New("model: truncated")
		}
		return make([]byte, max(n, 0))
	}
	out := r.b[:n]
	r.b = r.b[n:]
	return out
}

func (r *reader) byte() byte { return r.next(1)[0] }

func (r *reader) read(v any) {
	if r.err != nil {
		return
	}
	n := binary.Size(v)
	if n < 0 {
		r.err = errors.New("model: bad field")
		return
	}
	if err := binary.Read(bytes.NewReader(r.next(n)), binary.LittleEndian, v); err != nil && r.err == nil {
		r.err = fmt.Errorf("model: %w", err)
	}
}
