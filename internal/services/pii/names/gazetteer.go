package names

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"
	"unicode/utf8"
)

// Gazetteer flags of a word.
const (
	Given   uint8 = 1 << iota // a given (or middle) name somewhere
	Surname                   // a surname somewhere
	Common                    // written in lower case in ordinary text (a common word)
)

// Gazetteer is a set of lower-case words, each a given name, a surname, a common word or a mix.
// It stores a 29-bit fingerprint of each word and its three flags in one sorted uint32, with an
// index on the fingerprints' top bits, so a lookup is one hash and a short scan. A fingerprint
// can collide (about one word in ten thousand not in the set is reported with the flags of one
// that is); the flags are features of a statistical tagger, which tolerates that.
type Gazetteer struct {
	entries []uint32 // fingerprint<<3 | flags, sorted
	index   []uint32 // index[b] = first entry whose fingerprint's top indexBits bits are >= b
}

const indexBits = 14

// fpBits is the width of a fingerprint: the top bits of FNV-1a 64 of the word.
const fpBits = 29

func fingerprint(word string) uint32 { return uint32(fnv(word) >> (64 - fpBits)) }

func fnv(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}

// Flags returns the gazetteer flags of the lower-case word.
func (g *Gazetteer) Flags(lower string) uint8 { return g.flagsFP(fingerprint(lower)) }

func (g *Gazetteer) flagsFP(fp uint32) uint8 {
	if g == nil || len(g.entries) == 0 {
		return 0
	}
	b := fp >> (fpBits - indexBits)
	for i := g.index[b]; i < g.index[b+1]; i++ {
		e := g.entries[i]
		if e>>3 == fp {
			return uint8(e & 7)
		}
		if e>>3 > fp {
			break
		}
	}
	return 0
}

// Len is the number of words in the set.
func (g *Gazetteer) Len() int { return len(g.entries) }

// GazetteerBuilder collects words for a gazetteer.
type GazetteerBuilder struct{ m map[uint32]uint8 }

// NewGazetteerBuilder returns an empty builder.
func NewGazetteerBuilder() *GazetteerBuilder { return &GazetteerBuilder{m: map[uint32]uint8{}} }

// Add records word (any case) with flags.
func (b *GazetteerBuilder) Add(word string, flags uint8) {
	b.m[fingerprint(Lower(word))] |= flags
}

// Flags returns the flags recorded so far for the word (any case).
func (b *GazetteerBuilder) Flags(word string) uint8 { return b.m[fingerprint(Lower(word))] }

// Build returns the gazetteer of the words added.
func (b *GazetteerBuilder) Build() *Gazetteer {
	entries := make([]uint32, 0, len(b.m))
	for fp, f := range b.m {
		entries = append(entries, fp<<3|uint32(f))
	}
	slices.Sort(entries)
	return newGazetteer(entries)
}

func newGazetteer(entries []uint32) *Gazetteer {
	g := &Gazetteer{entries: entries, index: make([]uint32, 1<<indexBits+1)}
	j := 0
	for b := 0; b <= 1<<indexBits; b++ {
		for j < len(entries) && int(entries[j]>>(32-indexBits)) < b {
			j++
		}
		g.index[b] = uint32(j)
	}
	return g
}

// marshal returns the gazetteer section of a model file, gzip-compressed: the count, then the
// sorted entries as uvarint deltas.
func (g *Gazetteer) marshal() ([]byte, error) {
	b := binary.AppendUvarint(nil, uint64(len(g.entries)))
	prev := uint32(0)
	for _, e := range g.entries {
		b = binary.AppendUvarint(b, uint64(e-prev))
		prev = e
	}
	return gzipBytes(b)
}

// unmarshalGazetteer reads what marshal wrote.
func unmarshalGazetteer(data []byte) (*Gazetteer, error) {
	br, err := gunzip(data)
	if err != nil {
		return nil, fmt.Errorf("gazetteer: %w", err)
	}
	n, err := binary.ReadUvarint(br)
	if err != nil || n > 1<<24 {
		return nil, errors.New("gazetteer: bad count")
	}
	entries := make([]uint32, n)
	prev := uint64(0)
	for i := range entries {
		d, err := binary.ReadUvarint(br)
		if err != nil {
			return nil, fmt.Errorf("gazetteer: entry %d: %w", i, err)
		}
		if i > 0 && d == 0 {
			return nil, errors.New("gazetteer: entries not in order")
		}
		prev += d
		if prev > 1<<32-1 {
			return nil, errors.New("gazetteer: entry out of range")
		}
		entries[i] = uint32(prev)
	}
	if _, err := br.ReadByte(); err != io.EOF {
		return nil, errors.New("gazetteer: data after the entries")
	}
	return newGazetteer(entries), nil
}

// gzipBytes compresses b (best compression: the output is the same for the same input).
func gzipBytes(b []byte) ([]byte, error) {
	var out bytes.Buffer
	zw, err := gzip.NewWriterLevel(&out, gzip.BestCompression)
	if err != nil {
		return nil, err
	}
	if _, err := zw.Write(b); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// gunzip returns a reader of the decompressed data.
func gunzip(data []byte) (*bufio.Reader, error) {
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	return bufio.NewReader(zr), nil
}

// Lower is the lower-case form of a word as the tagger and the gazetteer see it.
func Lower(w string) string {
	ascii := true
	for i := 0; i < len(w); i++ {
		if w[i] >= utf8.RuneSelf || (w[i] >= 'A' && w[i] <= 'Z') {
			ascii = false
			break
		}
	}
	if ascii {
		return w
	}
	return string(appendLower(make([]byte, 0, len(w)), w))
}

// appendLower appends the lower-case form of w to b, with typographic apostrophes as '.
func appendLower(b []byte, w string) []byte {
	for i := 0; i < len(w); {
		c := w[i]
		if c < utf8.RuneSelf {
			if c >= 'A' && c <= 'Z' {
				c += 'a' - 'A'
			}
			b = append(b, c)
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(w[i:])
		if r == '’' {
			r = '\''
		}
		b = utf8.AppendRune(b, ToLowerRune(r))
		i += n
	}
	return b
}
