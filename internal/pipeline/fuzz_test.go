package pipeline

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/sluice-api/sluice/internal/errcode"
)

// FuzzParse feeds any bytes to Parse. Each body gets a valid plan or a coded rejection, never a
// panic, and the fingerprint agrees with the parse:
//
//   - a body Parse refuses for its JSON (syntax, a repeated member, invalid UTF-8) has no
//     fingerprint, and Parse's answer is the decoder's;
//   - a body that decodes has a fingerprint, the SHA-256 of its canonical JSON, and the plan's
//     fingerprint is that one;
//   - an accepted body means the same to encoding/json (an independent decoder) as to Parse;
//   - the canonical JSON parses to the same plan with the same fingerprint.
//
// The seed corpus is testdata/fuzz/FuzzParse; `make test` runs it, `make fuzz` explores.
func FuzzParse(f *testing.F) {
	e := testEngine(f)
	codes := errcode.Codes()
	f.Fuzz(func(t *testing.T, body []byte) {
		p, perr := e.Parse(body)
		if (p == nil) == (perr == nil) {
			t.Fatalf("Parse returned plan %v and error %v; want exactly one", p != nil, perr)
		}
		if perr != nil {
			checkRejection(t, codes, perr)
		}
		again, id, aerr := e.Check(body)
		if (again == nil) != (p == nil) || (aerr != nil && *aerr != *perr) {
			t.Fatalf("Parse and Check disagree: %v then %v", perr, aerr)
		}
		if p != nil && id != p.RequestID {
			t.Fatalf("Check echoes request_id %q, the plan has %q", id, p.RequestID)
		}
		if !utf8.ValidString(id) || utf8.RuneCountInString(id) > MaxRequestIDLen {
			t.Fatalf("Check echoes request_id %q", id)
		}
		if len(body) > MaxBodyBytes {
			return
		}

		doc, derr := decodeBody(body)
		fp, ferr := Fingerprint(body)
		if derr != nil {
			if perr == nil || *perr != *derr {
				t.Fatalf("the body does not decode (%v) but Parse answered %v", derr, perr)
			}
			if ferr == nil {
				t.Fatalf("a body that does not decode has fingerprint %s", fp)
			}
			return
		}
		canon, cerr := doc.canonical()
		if cerr != nil || ferr != nil {
			t.Fatalf("a decoded body has no canonical JSON (%v) or fingerprint (%v)", cerr, ferr)
		}
		if sum := sha256.Sum256(canon); hex.EncodeToString(sum[:]) != fp {
			t.Fatalf("fingerprint %s is not the SHA-256 of the canonical JSON %q", fp, canon)
		}
		if !utf8.Valid(canon) {
			t.Fatalf("canonical JSON is not UTF-8: %q", canon)
		}
		if perr != nil {
			return
		}

		if pfp, err := p.Fingerprint(); err != nil || pfp != fp {
			t.Fatalf("plan fingerprint %s (%v), body fingerprint %s", pfp, err, fp)
		}
		// encoding/json agrees on what the accepted body says.
		dec := json.NewDecoder(bytes.NewReader(body))
		dec.UseNumber()
		var independent any
		if err := dec.Decode(&independent); err != nil {
			t.Fatalf("Parse accepted a body encoding/json refuses: %v", err)
		}
		if mine, err := doc.plain(); err != nil || !reflect.DeepEqual(independent, mine) {
			t.Fatalf("encoding/json reads %#v, Parse read %#v (%v)", independent, mine, err)
		}
		// The canonical JSON is the same request.
		q, qerr := e.Parse(canon)
		if qerr != nil {
			t.Fatalf("the canonical JSON %q of an accepted body is refused: %v", canon, qerr)
		}
		if qfp, _ := q.Fingerprint(); qfp != fp {
			t.Fatalf("the canonical JSON has fingerprint %s, the body %s", qfp, fp)
		}
		samePlan(t, p, q)
	})
}

// checkRejection checks that a refusal is one a client can branch on.
func checkRejection(t *testing.T, codes map[string]int, e *errcode.Error) {
	t.Helper()
	status, ok := codes[e.Code]
	if !ok || (status != 400 && status != 413) {
		t.Fatalf("Parse answered code %q (status %d); want a documented 400 or 413 code", e.Code, status)
	}
	if e.Message == "" || !utf8.ValidString(e.Message) || !utf8.ValidString(e.Param) {
		t.Fatalf("rejection %+v has an empty or invalid message or param", e)
	}
	if e.Param != "" && !strings.HasPrefix(e.Param, "/") {
		t.Fatalf("param %q is not a JSON pointer", e.Param)
	}
}

// samePlan compares what two plans would run.
func samePlan(t *testing.T, p, q *Plan) {
	t.Helper()
	if p.RequestID != q.RequestID || p.Input != q.Input || p.InputChars != q.InputChars || len(p.Steps) != len(q.Steps) {
		t.Fatalf("plans differ: %+v vs %+v", p, q)
	}
	for i := range p.Steps {
		a, b := p.Steps[i], q.Steps[i]
		if a.ID != b.ID || a.Descriptor.Name != b.Descriptor.Name || !reflect.DeepEqual(a.Params, b.Params) || !reflect.DeepEqual(a.StopIf, b.StopIf) {
			t.Fatalf("step %d differs: %+v vs %+v", i, a, b)
		}
	}
}
