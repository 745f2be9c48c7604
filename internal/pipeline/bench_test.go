package pipeline

import (
	"encoding/json"
	"strings"
	"testing"
)

// BenchmarkParse measures the strict decoding and validation of a run request, and the
// fingerprint a keyed request adds, on a body with a 100,000-character input (the largest
// allowed) and on one of 1 MiB made of many small params (the most values a body can hold).
func BenchmarkParse(b *testing.B) {
	e := testEngine(b)
	value, _ := json.Marshal(strings.Repeat("Ordinary prose, with names like Jane Doe and numbers like 4111 1111. ", 100_000/70))
	large := []byte(`{"request_id":"bench","input":{"type":"text","value":` + string(value) + `},"pipeline":[{"id":"a","service":"test.upper","params":{"mode":"b"}},{"id":"b","service":"test.bad","stop_if":{"score_gte":0.5}}]}`)
	var many strings.Builder
	many.WriteString(`{"input":{"type":"text","value":"x"},"pipeline":[{"id":"a","service":"test.upper","params":{"entities":[`)
	for many.Len() < MaxBodyBytes-100 {
		many.WriteString(`"x",`)
	}
	many.WriteString(`"y"]}}]}`)
	var junk strings.Builder
	junk.WriteString(`{"input":{"type":"text","value":"x"},"pipeline":[{"id":"a","service":"test.upper"}],"junk":[`)
	for junk.Len() < MaxBodyBytes-100 {
		junk.WriteString(`0,`)
	}
	junk.WriteString(`0]}`)
	b.Run("UnknownField1MiB/Refused", func(b *testing.B) {
		body := []byte(junk.String())
		b.SetBytes(int64(len(body)))
		b.ReportAllocs()
		for b.Loop() {
			if _, err := e.Parse(body); err == nil || err.Param != "/junk" {
				b.Fatalf("Parse = %v, want the unknown field refused", err)
			}
		}
	})
	for _, bc := range []struct {
		name string
		body []byte
	}{{"Input100k", large}, {"ManyValues1MiB", []byte(many.String())}} {
		b.Run(bc.name+"/Parse", func(b *testing.B) {
			b.SetBytes(int64(len(bc.body)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := e.Parse(bc.body); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(bc.name+"/ParseAndFingerprint", func(b *testing.B) {
			b.SetBytes(int64(len(bc.body)))
			b.ReportAllocs()
			for b.Loop() {
				p, err := e.Parse(bc.body)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := p.Fingerprint(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
