// Package modelfile is the one container of Sluice's model files: a small header (magic, format
// version, model id), the model's metadata as JSON, and named sections of bytes. Every model
// package reads its file with Decode and every trainer writes it with Encode, which is
// deterministic: the same content gives the same bytes, so a model rebuilds byte for byte.
//
// The layout, integers as unsigned varints:
//
//	"SLMF"  version  len(id) id  len(meta) meta  count  (len(name) name  len(data) data)*
//
// Decode checks every length against what is left of the input before it slices, refuses
// anything after the last section, and never copies a section: the sections of a decoded file
// are slices of its input (a cold start reads 20 MB of models in place). The file carries no
// digest of its own: the embedded files are checked against the SHA-256 of models.lock by a
// test, and hashing them again at every cold start would cost tens of milliseconds.
package modelfile

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
)

// Magic starts every model file.
const Magic = "SLMF"

// Version is the container's format version.
const Version = 1

// Limits of a model file.
const (
	MaxID       = 128
	MaxName     = 64
	MaxSections = 64
	MaxMeta     = 1 << 20
)

// File is a decoded model file.
type File struct {
	// ID names the model (it goes into the descriptor of the service that serves it).
	ID string
	// Meta is the model's metadata, a JSON object: its provenance, its settings, the hashes of
	// the word lists it was trained with.
	Meta json.RawMessage
	// Sections hold the model's data, in the order they were written.
	Sections []Section
}

// Section is one named part of a model file.
type Section struct {
	Name string
	Data []byte
}

// ErrFormat is returned, wrapped, for input that is not a model file of this version.
var ErrFormat = errors.New("modelfile: not a model file")

// Encode writes f. meta is marshalled with encoding/json (maps in key order), so it must be an
// object; section names must be unique and non-empty.
func Encode(id string, meta any, sections ...Section) ([]byte, error) {
	if id == "" || len(id) > MaxID {
		return nil, fmt.Errorf("modelfile: id %q: want 1 to %d bytes", id, MaxID)
	}
	m, err := json.Marshal(meta)
	if err != nil {
		return nil, fmt.Errorf("modelfile: metadata: %w", err)
	}
	if len(m) == 0 || m[0] != '{' || len(m) > MaxMeta {
		return nil, fmt.Errorf("modelfile: metadata must be a JSON object of at most %d bytes", MaxMeta)
	}
	if len(sections) > MaxSections {
		return nil, fmt.Errorf("modelfile: %d sections, at most %d", len(sections), MaxSections)
	}
	size := len(Magic) + 3*binary.MaxVarintLen64 + len(id) + len(m)
	for i, s := range sections {
		if s.Name == "" || len(s.Name) > MaxName {
			return nil, fmt.Errorf("modelfile: section name %q: want 1 to %d bytes", s.Name, MaxName)
		}
		if slices.ContainsFunc(sections[:i], func(o Section) bool { return o.Name == s.Name }) {
			return nil, fmt.Errorf("modelfile: section %q twice", s.Name)
		}
		size += 2*binary.MaxVarintLen64 + len(s.Name) + len(s.Data)
	}
	b := make([]byte, 0, size)
	b = append(b, Magic...)
	b = binary.AppendUvarint(b, Version)
	b = appendBytes(b, []byte(id))
	b = appendBytes(b, m)
	b = binary.AppendUvarint(b, uint64(len(sections)))
	for _, s := range sections {
		b = appendBytes(b, []byte(s.Name))
		b = appendBytes(b, s.Data)
	}
	return b, nil
}

func appendBytes(b, p []byte) []byte {
	return append(binary.AppendUvarint(b, uint64(len(p))), p...)
}

// Decode reads a model file written by Encode.
func Decode(data []byte) (*File, error) {
	if len(data) < len(Magic) || string(data[:len(Magic)]) != Magic {
		return nil, fmt.Errorf("%w: no %q header", ErrFormat, Magic)
	}
	r := reader{b: data[len(Magic):]}
	if v := r.uvarint(); r.err == nil && v != Version {
		return nil, fmt.Errorf("%w: format version %d, this program reads %d", ErrFormat, v, Version)
	}
	f := &File{ID: string(r.bytes(MaxID))}
	f.Meta = json.RawMessage(r.bytes(MaxMeta))
	n := r.uvarint()
	if r.err == nil && n > MaxSections {
		return nil, fmt.Errorf("%w: %d sections", ErrFormat, n)
	}
	for i := uint64(0); i < n && r.err == nil; i++ {
		s := Section{Name: string(r.bytes(MaxName)), Data: r.bytes(len(r.b))}
		if s.Name == "" || slices.ContainsFunc(f.Sections, func(o Section) bool { return o.Name == s.Name }) {
			r.fail("a section name is empty or repeated")
		}
		f.Sections = append(f.Sections, s)
	}
	if r.err == nil && len(r.b) != 0 {
		r.fail("bytes after the last section")
	}
	if r.err != nil {
		return nil, fmt.Errorf("%w: %v", ErrFormat, r.err)
	}
	// The metadata must be exactly what Encode writes (compact, with encoding/json's escapes),
	// so that a decoded file encodes back to the same bytes.
	if f.ID == "" || len(f.Meta) == 0 || f.Meta[0] != '{' {
		return nil, fmt.Errorf("%w: no id, or metadata that is not a JSON object", ErrFormat)
	}
	if again, err := json.Marshal(f.Meta); err != nil || !bytes.Equal(again, f.Meta) {
		return nil, fmt.Errorf("%w: metadata that is not JSON as Encode writes it", ErrFormat)
	}
	return f, nil
}

// Section returns the data of the section name.
func (f *File) Section(name string) ([]byte, error) {
	for _, s := range f.Sections {
		if s.Name == name {
			return s.Data, nil
		}
	}
	return nil, fmt.Errorf("modelfile: model %s has no section %q", f.ID, name)
}

// UnmarshalMeta decodes the metadata into v.
func (f *File) UnmarshalMeta(v any) error {
	if err := json.Unmarshal(f.Meta, v); err != nil {
		return fmt.Errorf("modelfile: metadata of %s: %w", f.ID, err)
	}
	return nil
}

// reader reads the varint-framed fields of a file; the first error sticks.
type reader struct {
	b   []byte
	err error
}

func (r *reader) fail(msg string) {
	if r.err == nil {
		r.err = errors.New(msg)
	}
}

func (r *reader) uvarint() uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.fail("a length is cut off")
		return 0
	}
	r.b = r.b[n:]
	return v
}

// bytes reads a length-prefixed field of at most max bytes.
func (r *reader) bytes(max int) []byte {
	n := r.uvarint()
	if r.err != nil {
		return nil
	}
	if n > uint64(max) || n > uint64(len(r.b)) {
		r.fail("a field is longer than its limit or than the file")
		return nil
	}
	p := r.b[:n:n]
	r.b = r.b[n:]
	return p
}
