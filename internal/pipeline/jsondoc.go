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

// value is one JSON value of a request body, decoded once by decodeBody. Everything else (the
// plan, the fingerprint, the echoed request_id) reads this tree, so no two parts of Sluice can
// read one body differently.
type value struct {
	kind jsontext.Kind // 'n', 'f', 't', '"', '0', '{' or '['
	// text is a string's value or a number as written.
	text string
	// kids are an array's items, or an object's members as name, value, name, value, ...: the
	// names are string values, unique within the object.
	kids []value
}

// decodeBody decodes body as exactly one JSON value surrounded by nothing but JSON whitespace
// (space, tab, LF, CR), strictly: a member name repeated in any object, and a string that is
// not valid UTF-8 (raw bytes, or an escaped lone surrogate such as "\ud800"), are errors. The
// answer to a failure: invalid_json naming the repeated member, invalid_request when the body
// is well-formed JSON apart from the UTF-8 of its strings, invalid_json for anything else.
func decodeBody(body []byte) (value, *errcode.Error) {
	v, err := decodeStrict(body, false)
	if err == nil {
		return v, nil
	}
	if e := duplicateName(err); e != nil {
		return value{}, e
	}
	// Is the body well-formed once strings may hold invalid UTF-8? Then that was its only fault.
	if _, lerr := decodeStrict(body, true); lerr == nil {
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

// decodeStrict decodes one JSON value and requires the end of input after it.
func decodeStrict(body []byte, allowInvalidUTF8 bool) (value, error) {
	dec := jsontext.NewDecoder(bytes.NewReader(body), jsontext.AllowInvalidUTF8(allowInvalidUTF8))
	v, err := readValue(dec)
	if err != nil {
		return value{}, err
	}
	if _, err := dec.ReadToken(); err != io.EOF {
		if err == nil {
			err = errors.New("more than one JSON value")
		}
		return value{}, fmt.Errorf("after the value: %w", err)
	}
	return v, nil
}

// readValue reads the next value from dec. Nesting is bounded by the decoder (10,000 levels).
func readValue(dec *jsontext.Decoder) (value, error) {
	tok, err := dec.ReadToken()
	if err != nil {
		return value{}, err
	}
	v := value{kind: tok.Kind()}
	switch v.kind {
	case '"', '0':
		v.text = tok.String()
	case '{', '[':
		end := jsontext.Kind('}')
		if v.kind == '[' {
			end = ']'
		}
		for dec.PeekKind() != end {
			kid, err := readValue(dec) // a member name (the decoder allows strings only) or an item
			if err != nil {
				return value{}, err
			}
			v.kids = append(v.kids, kid)
		}
		if _, err := dec.ReadToken(); err != nil {
			return value{}, err
		}
	}
	return v, nil
}

// get returns the member name of an object; ok is false when it is absent or null.
func (v value) get(name string) (value, bool) {
	for i := 0; i+1 < len(v.kids); i += 2 {
		if v.kids[i].text == name {
			m := v.kids[i+1]
			return m, m.kind != 'n'
		}
	}
	return value{}, false
}

// names returns an object's member names in order.
func (v value) names() []string {
	out := make([]string, 0, len(v.kids)/2)
	for i := 0; i < len(v.kids); i += 2 {
		out = append(out, v.kids[i].text)
	}
	return out
}

// plain returns v as encoding/json's generic values: map[string]any, []any, json.Number,
// string, bool or nil.
func (v value) plain() any {
	switch v.kind {
	case '{':
		m := make(map[string]any, len(v.kids)/2)
		for i := 0; i+1 < len(v.kids); i += 2 {
			m[v.kids[i].text] = v.kids[i+1].plain()
		}
		return m
	case '[':
		a := make([]any, len(v.kids))
		for i, k := range v.kids {
			a[i] = k.plain()
		}
		return a
	case '"':
		return v.text
	case '0':
		return json.Number(v.text)
	case 't':
		return true
	case 'f':
		return false
	}
	return nil
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
	if err := enc.Encode(v.plain()); err != nil {
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
