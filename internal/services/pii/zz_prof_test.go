package pii

import (
	"context"
	"testing"

	"github.com/sluice-api/sluice/internal/services"
)

func BenchmarkProfMixed(b *testing.B) {
	r := newRedact(b)
	text := mixedText(100000, 1)
	p := services.Params{"entities": Types()}
	for b.Loop() {
		r.Run(context.Background(), textReq(text, p))
	}
}
