package builtin

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/sluice-api/sluice/internal/pipeline"
	"github.com/sluice-api/sluice/internal/services"
	"github.com/sluice-api/sluice/internal/services/servicetest"
)

// benchParams are the params each service runs with in the benchmarks: PII with every entity
// type, intent on its default catalog, everything else on its defaults.
var benchParams = map[string]services.Params{
	"governance.pii.redact":   {"entities": []string{"name", "email", "iban", "id", "phone", "card", "ip"}},
	"governance.pii.tokenize": {"entities": []string{"name", "email", "iban", "id", "phone", "card", "ip"}},
}

// sixSteps is the full pipeline: every service once, in the order a client would chain them.
const sixSteps = `[{"id":"lang","service":"routing.language.detect"},` +
	`{"id":"shield","service":"security.jailbreak.shield"},` +
	`{"id":"pii","service":"governance.pii.redact","params":{"entities":["name","email","iban","id","phone","card","ip"]}},` +
	`{"id":"tok","service":"governance.pii.tokenize","params":{"entities":["name","email","iban","id","phone","card","ip"]}},` +
	`{"id":"tox","service":"security.toxicity.flag"},` +
	`{"id":"intent","service":"routing.intent.map"}]`

func registry(b *testing.B) *services.Registry {
	b.Helper()
	reg, err := New()
	if err != nil {
		b.Fatal(err)
	}
	return reg
}

// BenchmarkService runs each service on 1,000 characters of ordinary mixed-language prose.
func BenchmarkService(b *testing.B) {
	reg := registry(b)
	for _, name := range reg.Names() {
		svc, d, _ := reg.Lookup(name)
		req := servicetest.Config{Params: benchParams[name]}.Request(d, servicetest.Prose(1000))
		b.Run(name+"/1000", func(b *testing.B) {
			for b.Loop() {
				if _, err := svc.Run(context.Background(), req); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkSteps runs the six services of sixSteps one after another on 1,000 characters of
// prose, each on what the one before left, as a pipeline does but without the engine, and
// reports each one's time: in a run a service finds the CPU caches filled by the others, so it
// takes longer than alone in BenchmarkService.
func BenchmarkSteps(b *testing.B) {
	reg := registry(b)
	order := []string{"routing.language.detect", "security.jailbreak.shield", "governance.pii.redact",
		"governance.pii.tokenize", "security.toxicity.flag", "routing.intent.map"}
	text := servicetest.Prose(1000)
	per := make([]time.Duration, len(order))
	for b.Loop() {
		in := text
		for i, name := range order {
			svc, d, _ := reg.Lookup(name)
			req := servicetest.Config{Params: benchParams[name]}.Request(d, in)
			start := time.Now()
			res, err := svc.Run(context.Background(), req)
			per[i] += time.Since(start)
			if err != nil {
				b.Fatal(err)
			}
			if d.Kind == services.KindTransform {
				in = res.Payload.Value
			}
		}
	}
	for i, name := range order {
		b.ReportMetric(float64(per[i].Nanoseconds())/float64(b.N), name[strings.LastIndex(name, ".")+1:]+"-ns/op")
	}
}

// BenchmarkPipeline runs the six-step pipeline through the engine (parse, execute, render) on
// prose of 1,000, 10,000 and 100,000 characters, and on the hostile inputs of the same sizes.
func BenchmarkPipeline(b *testing.B) {
	e, err := pipeline.New(registry(b))
	if err != nil {
		b.Fatal(err)
	}
	cases := append([]servicetest.Case{{Name: "Prose", Make: servicetest.Prose}}, servicetest.Hostile()...)
	for _, n := range []int{1000, 10_000, 100_000} {
		for _, c := range cases {
			if c.Name != "Prose" && n != 100_000 {
				continue // hostile inputs are measured at the largest size, where they hurt most
			}
			value, _ := json.Marshal(c.Make(n))
			body := []byte(`{"input":{"type":"text","value":` + string(value) + `},"pipeline":` + sixSteps + `}`)
			b.Run(fmt.Sprintf("six-steps/%s/%d", c.Name, n), func(b *testing.B) {
				b.SetBytes(int64(len(body)))
				for b.Loop() {
					plan, perr := e.Parse(body)
					if perr != nil {
						b.Fatal(perr)
					}
					o := e.Execute(context.Background(), plan, pipeline.Env{
						TraceID: "sluice_bench", Account: "acct_bench", Region: "local",
						TokenKey: []byte("bench-token-key"), ReceivedAt: time.Now(), Budget: 1 << 40,
					})
					if o.Status != pipeline.StatusCompleted {
						b.Fatalf("status %s: %v", o.Status, o.Error)
					}
					if _, err := json.Marshal(o.Render("", time.Millisecond)); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
