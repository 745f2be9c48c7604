package pipeline

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/sluice-api/sluice/internal/errcode"
)

// value is one JSON value of a request body, decoded by decodeBody. Everything else (the plan,
// the fingerprint, the echoed request_id) reads it, so no two parts of Sluice can read one body
// differently. decodeBody validates the whole body in one pass (JSON syntax, unique member
// names, UTF-8) without building anything; a container's children are decoded from its
// validated bytes when they are first asked for, so the parts of a body nobody reads (such as
// an unknown field, refused by name) cost no more than that pass.
type value struct {
	kind jsontext.Kind // 'n', 'f', 't', '"', '0', '{' or '['
	// text is a string's value or a number as written.
	text string
	// c is a container's bytes and, once decoded, its children.
	c *container
}

// container is an object's or array's validated bytes and, once decoded, its children: an
// array's items, or an object's members as name, value, name, value, ... (the names are string
// values, unique within the object).
type container struct {
	raw     []byte
	decoded bool
	kids    []value
}

// relaxed are the options for decoding bytes that decodeBody has validated already: the checks
// are skipped, not weakened.
func relaxed() []jsontext.Options {
	return []jsontext.Options{jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true)}
}

// decodeBody decodes body as exactly one JSON value surrounded by nothing but JSON whitespace
// (space, tab, LF, CR), strictly: a member name repeated in any object, and a string that is
// not valid UTF-8 (raw bytes, or an escaped lone surrogate such as "\ud800"), are errors. The
// answer to a failure: invalid_json naming the repeated member, invalid_request when the body
// is well-formed JSON apart from the UTF-8 of its strings, invalid_json for anything else.
func decodeBody(body []byte) (value, *errcode.Error) {
	v, err := decodeStrict(body)
	if err == nil {
		return v, nil
	}
	if e := duplicateName(err); e != nil {
		return value{}, e
	}
	// Is the body a well-formed object once strings may hold invalid UTF-8? Then that was its
	// only fault.
	if kind, lerr := wellFormed(body, jsontext.AllowInvalidUTF8(true)); lerr == nil && kind == '{' {
		e := errcode.New(errcode.InvalidRequest, "the request body has text that is not valid UTF-8 (an escaped lone surrogate such as \\ud800 is not valid either)")
		var serr *jsontext.SyntacticError
		if errors.As(err, &serr) && utf8.ValidString(string(serr.JSONPointer)) {
			e.Param = string(serr.JSONPointer)
		}
		return value{}, e
	} else if e := duplicateName(lerr); e != nil {
		return value{}, e
	}
	return value{}, errcode.New(errcode.InvalidJSON, "the request body must be one JSON object with nothing but JSON whitespace around it")
}

// duplicateName returns the invalid_json answer when err is a repeated member name.
func duplicateName(err error) *errcode.Error {
	var serr *jsontext.SyntacticError
	if !errors.As(err, &serr) || !errors.Is(serr.Err, jsontext.ErrDuplicateName) {
		return nil
	}
	ptr := string(serr.JSONPointer)
	if !utf8.ValidString(ptr) {
		return errcode.New(errcode.InvalidJSON, "an object of the request body repeats a member name")
	}
	return errcode.At(errcode.InvalidJSON, ptr, "member %s appears more than once in its object", shortQuote(serr.JSONPointer.LastToken()))
}

// shortQuote quotes s for a message, cut to 64 characters.
func shortQuote(s string) string {
	const limit = 64
	if utf8.RuneCountInString(s) <= limit {
		return fmt.Sprintf("%q", s)
	}
	r := []rune(s)
	return fmt.Sprintf("%q...", string(r[:limit]))
}

// decoderOn returns a decoder that reads b where it lies: given a bytes.Buffer, jsontext parses
// the buffer's bytes without copying them into a buffer of its own (it never writes to them).
// With a bytes.Reader it copied the body once per container, growing its buffer as it went.
func decoderOn(b []byte, opts ...jsontext.Options) *jsontext.Decoder {
	return jsontext.NewDecoder(bytes.NewBuffer(b), opts...)
}

// decodeStrict validates body as one JSON value with nothing but JSON whitespace around it and
// returns it; its children are decoded later, on demand, from the validated bytes.
func decodeStrict(body []byte) (value, error) {
	dec := decoderOn(body)
	raw, err := dec.ReadValue()
	if err != nil {
		return value{}, err
	}
	v := at(body, raw, dec.InputOffset())
	if err := atEnd(dec); err != nil {
		return value{}, err
	}
	return v, nil
}

// wellFormed reports whether body is one JSON value with nothing but JSON whitespace around it
// under opts, and its kind, building nothing.
func wellFormed(body []byte, opts ...jsontext.Options) (jsontext.Kind, error) {
	dec := decoderOn(body, opts...)
	raw, err := dec.ReadValue()
	if err != nil {
		return 0, err
	}
	return raw.Kind(), atEnd(dec)
}

// atEnd requires the end of the input.
func atEnd(dec *jsontext.Decoder) error {
	if _, err := dec.ReadToken(); err != io.EOF {
		if err == nil {
			err = errors.New("more than one JSON value")
		}
		return fmt.Errorf("after the value: %w", err)
	}
	return nil
}

// at returns the value whose bytes raw (read by a decoder, in its own buffer) end at offset end
// of src: a container refers to its bytes in src, a scalar is decoded at once.
func at(src []byte, raw jsontext.Value, end int64) value {
	k := raw.Kind()
	switch k {
	case '{', '[':
		return value{kind: k, c: &container{raw: src[end-int64(len(raw)) : end]}}
	case '"':
		s, err := jsontext.AppendUnquote(nil, raw)
		if err != nil {
			panic("pipeline: a validated string does not unquote") // decodeStrict validated it
		}
		return value{kind: k, text: string(s)}
	case '0':
		return value{kind: k, text: string(raw)}
	}
	return value{kind: k}
}

// elems returns a container's children (see container), decoding them on first use; nil for
// anything else.
func (v value) elems() []value {
	if v.c == nil {
		return nil
	}
	if !v.c.decoded {
		v.c.kids, v.c.decoded = decodeChildren(v.c.raw), true
	}
	return v.c.kids
}

// decodeChildren decodes the children of a validated container, one level deep: scalars are
// decoded, containers keep their bytes for later.
func decodeChildren(raw []byte) []value {
	dec := decoderOn(raw, relaxed()...)
	open, err := dec.ReadToken()
	if err != nil {
		panic("pipeline: a validated container does not decode") // decodeStrict validated it
	}
	end := jsontext.Kind('}')
	if open.Kind() == '[' {
		end = ']'
	}
	var kids []value
	for k := dec.PeekKind(); k != end; k = dec.PeekKind() {
		if k == '{' || k == '[' {
			child, err := dec.ReadValue()
			if err != nil {
				panic("pipeline: a validated member does not decode")
			}
			kids = append(kids, at(raw, child, dec.InputOffset()))
			continue
		}
		tok, err := dec.ReadToken() // a member name, or a scalar
		if err != nil {
			panic("pipeline: a validated member does not decode")
		}
		v := value{kind: tok.Kind()}
		if v.kind == '"' || v.kind == '0' {
			v.text = tok.String()
		}
		kids = append(kids, v)
	}
	return kids
}

// get returns the member name of an object; ok is false when it is absent or null.
func (v value) get(name string) (value, bool) {
	kids := v.elems()
	for i := 0; i+1 < len(kids); i += 2 {
		if kids[i].text == name {
			m := kids[i+1]
			return m, m.kind != 'n'
		}
	}
	return value{}, false
}

// names returns an object's member names in order.
func (v value) names() []string {
	kids := v.elems()
	out := make([]string, 0, len(kids)/2)
	for i := 0; i < len(kids); i += 2 {
		out = append(out, kids[i].text)
	}
	return out
}

// plain returns v as encoding/json's generic values (map[string]any, []any, json.Number,
// string, bool or nil), decoding a container's bytes in one pass.
func (v value) plain() (any, error) {
	switch v.kind {
	case '{', '[':
		return readPlain(decoderOn(v.c.raw, relaxed()...))
	case '"':
		return v.text, nil
	case '0':
		return json.Number(v.text), nil
	case 't':
		return true, nil
	case 'f':
		return false, nil
	}
	return nil, nil
}

func readPlain(dec *jsontext.Decoder) (any, error) {
	tok, err := dec.ReadToken()
	if err != nil {
		return nil, err
	}
	switch tok.Kind() {
	case '{':
		m := map[string]any{}
		for dec.PeekKind() != '}' {
			name, err := dec.ReadToken()
			if err != nil {
				return nil, err
			}
			if m[name.String()], err = readPlain(dec); err != nil {
				return nil, err
			}
		}
		_, err := dec.ReadToken()
		return m, err
	case '[':
		a := []any{}
		for dec.PeekKind() != ']' {
			item, err := readPlain(dec)
			if err != nil {
				return nil, err
			}
			a = append(a, item)
		}
		_, err := dec.ReadToken()
		return a, err
	case '"':
		return tok.String(), nil
	case '0':
		return json.Number(tok.String()), nil
	case 't':
		return true, nil
	case 'f':
		return false, nil
	}
	return nil, nil
}

// canonical returns v's canonical JSON: objects with sorted keys, no insignificant whitespace,
// numbers as written, strings as encoding/json escapes them (without HTML escaping). Bodies
// that differ only in formatting, key order or the escaping of their strings have the same
// canonical JSON. (It is byte for byte what Sluice fingerprinted before strict parsing, so
// idempotency records stored then still match their retries.)
func (v value) canonical() ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	// Every number was validated by the decoder and every string is valid UTF-8, so this does
	// not fail; the error is returned all the same.
	p, err := v.plain()
	if err != nil {
		return nil, fmt.Errorf("canonical JSON: %w", err)
	}
	if err := enc.Encode(p); err != nil {
		return nil, fmt.Errorf("canonical JSON: %w", err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// fingerprint is the hex SHA-256 of v's canonical JSON.
func (v value) fingerprint() (string, error) {
	c, err := v.canonical()
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(c)
	return hex.EncodeToString(sum[:]), nil
}
