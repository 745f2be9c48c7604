package builtin

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/sluice-api/sluice/internal/services"
	"github.com/sluice-api/sluice/internal/services/servicetest"
)

func BenchmarkTmpSequence(b *testing.B) {
	reg := registry(b)
	order := []string{"routing.language.detect", "security.jailbreak.shield", "governance.pii.redact", "governance.pii.tokenize", "security.toxicity.flag", "routing.intent.map"}
	text := servicetest.Prose(1000)
	per := make([]time.Duration, len(order))
	defer func() {
		for i, n := range order {
			b.ReportMetric(float64(per[i].Nanoseconds())/float64(b.N), n[strings.LastIndex(n, ".")+1:]+"-ns")
		}
	}()
	for b.Loop() {
		in := services.Payload{Type: "text", Value: text}
		for i, name := range order {
			t0 := time.Now()
			svc, d, _ := reg.Lookup(name)
			req := servicetest.Config{Params: benchParams[name]}.Request(d, in.Value)
			res, err := svc.Run(context.Background(), req)
			if err != nil {
				b.Fatal(err)
			}
			per[i] += time.Since(t0)
			if res.Payload.Value != "" {
				in = res.Payload
			}
		}
	}
}
