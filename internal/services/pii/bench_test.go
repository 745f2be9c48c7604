package pii

import (
	"context"
	"testing"

	"github.com/sluice-api/sluice/internal/services"
	"github.com/sluice-api/sluice/internal/services/servicetest"
)

// BenchmarkRedact redacts mixed text (prose in several languages with every entity type) of
// 1,000 and 100,000 code points with all entity types requested.
func BenchmarkRedact(b *testing.B) {
	r := newRedact(b)
	all := services.Params{"entities": Types()}
	for _, c := range []struct {
		name string
		n    int
	}{{"1000", 1000}, {"100000", 100_000}} {
		text := mixedText(c.n, 1)
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				if _, err := r.Run(context.Background(), textReq(text, all)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkTokenize tokenizes 100,000 code points of mixed text with all entity types.
func BenchmarkTokenize(b *testing.B) {
	s := newTokenize(b)
	all := services.Params{"entities": Types()}
	text := mixedText(100_000, 1)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		if _, err := s.Run(context.Background(), textReq(text, all)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAdversarial is the adversarial table: every hostile input of the shared suite on
// 100,000 code points, all entity types and a deny list, against ordinary prose (the Prose row).
func BenchmarkAdversarial(b *testing.B) {
	servicetest.Bench(b, newRedact(b), servicetest.Config{Params: services.Params{
		"entities": Types(), "deny": []string{"project falcon", "ACME-42"}}}, 100_000)
}
