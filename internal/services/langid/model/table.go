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
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"slices"
	"strings"

	"github.com/sluice-api/sluice/internal/modelfile"
)

// MaxOrder is the longest n-gram the model holds, in characters (boundaries included).
const MaxOrder = 5

// The model file (internal/modelfile) has one section, the table; its metadata lists the
// languages. The table stores each n-gram as its place in the table (home slot and
// fingerprint) instead of its text, in slot order, so Load fills the table front to back
// without hashing (storing the front-coded n-grams cost 40 ms of every cold start in hashing
// them and scattering them over 16 MB of slots).
const (
	fileID       = "sluice-langid"
	tableSection = "table"
)

// meta is the model file's metadata.
type meta struct {
	Languages []string `json:"languages"`
}

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
	// ones after it hold (fingerprint: high 32 bits of the hash) << 32 | (offset of the postings + 1);
	// 0 is a free slot.
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

// empty marks a free slot. A slot holds an n-gram's postings offset plus one, so no n-gram's
// slot is zero, and a new table is empty as allocated.
const empty = 0

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
			off := uint32(s) - 1
			n := uint32(m.posts[off])
			return m.posts[off+1 : off+1+2*n]
		}
	}
}

// Len is the number of n-grams the model holds.
func (m *Model) Len() int { return m.grams }

// Encode writes a model file: header, languages, scripts, priors, params, the number of n-grams,
// then each n-gram's place in the table Load builds, in slot order: the distance of its home
// slot (hash & mask, see tableMask) from the previous n-gram's as a uvarint, then its
// Fingerprint (4 bytes, little-endian); then for each n-gram, in the same order, its postings
// (count, then language and score pairs). The n-grams' text is not stored: a lookup needs only
// the hash. The file is not compressed: Load uses the postings where they lie, and git and the
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
	var table bytes.Buffer
	bw := bufio.NewWriter(&table)
	var err error
	put := func(v any) {
		if err == nil {
			err = binary.Write(bw, binary.LittleEndian, v)
		}
	}
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
	// Slot order: by home slot, then fingerprint (the gram order breaks no tie: fingerprints
	// are unique).
	mask := tableMask(len(es))
	hs := make([]uint64, len(es))
	for i, e := range es {
		hs[i] = HashString(e.Gram)
	}
	order := make([]int, len(es))
	for i := range order {
		order[i] = i
	}
	place := func(i int) (uint64, uint32) { return hs[i] & mask, Fingerprint(hs[i]) }
	slices.SortFunc(order, func(a, b int) int {
		ha, fa := place(a)
		hb, fb := place(b)
		return cmp.Or(cmp.Compare(ha, hb), cmp.Compare(fa, fb))
	})
	var home uint64
	var tmp [binary.MaxVarintLen64 + 4]byte
	for _, i := range order {
		h, fp := place(i)
		n := binary.PutUvarint(tmp[:], h-home)
		binary.LittleEndian.PutUint32(tmp[n:], fp)
		bw.Write(tmp[:n+4])
		home = h
	}
	for _, i := range order {
		e := es[i]
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
	b, err := modelfile.Encode(fileID, meta{Languages: langs}, modelfile.Section{Name: tableSection, Data: table.Bytes()})
	if err != nil {
		return fmt.Errorf("model: %w", err)
	}
	if _, err := w.Write(b); err != nil {
		return fmt.Errorf("model: %w", err)
	}
	return nil
}

// tableMask is the mask of the table that holds n n-grams: a power of two at least twice n, so
// the table is at most half full.
func tableMask(n int) uint64 { return uint64(1)<<bits.Len64(uint64(2*n)) - 1 }

// Load decodes a model file written by Encode. The model keeps using file's postings in place,
// so file must not change afterwards (an embedded file never does).
func Load(file []byte) (*Model, error) {
	f, err := modelfile.Decode(file)
	if err != nil {
		return nil, fmt.Errorf("model: %w", err)
	}
	if f.ID != fileID {
		return nil, fmt.Errorf("model: %s is not a language model", f.ID)
	}
	table, err := f.Section(tableSection)
	if err != nil {
		return nil, fmt.Errorf("model: %w", err)
	}
	r := &reader{b: table}
	m := &Model{}
	nl := int(r.byte())
	for range nl {
		m.Langs = append(m.Langs, string(r.next(2)))
	}
	var md meta
	if err := f.UnmarshalMeta(&md); err != nil || !slices.Equal(md.Languages, m.Langs) {
		return nil, fmt.Errorf("model: the metadata's languages are not the table's (%v)", err)
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
	if n > len(table)/4 {
		return nil, errors.New("model: truncated")
	}
	m.grams = n
	m.mask = tableMask(n)
	// The n-grams' places come first, in slot order, and the postings after them: find where
	// the places end, then fill the table front to back, each n-gram from its home slot.
	b := r.b
	at := 0
	for range n {
		_, k := binary.Uvarint(b[at:])
		if k <= 0 || at+k+4 > len(b) {
			return nil, errors.New("model: truncated n-grams")
		}
		at += k + 4
	}
	places := b[:at]
	m.posts = b[at:]
	if len(m.posts) >= math.MaxUint32 {
		return nil, errors.New("model: too large")
	}
	m.slots = make([]uint64, m.mask+1) // all empty
	var home uint64
	off := 0
	for at := 0; at < len(places); {
		d, k := binary.Uvarint(places[at:])
		if d > m.mask-home {
			return nil, errors.New("model: n-gram outside the table")
		}
		home += d
		fp := uint64(binary.LittleEndian.Uint32(places[at+k:]))
		at += k + 4
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
		i := home
		for m.slots[i] != empty {
			if m.slots[i]>>32 == fp {
				return nil, errors.New("model: two n-grams share a fingerprint")
			}
			i = (i + 1) & m.mask
		}
		m.slots[i] = fp<<32 | uint64(off+1)
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
