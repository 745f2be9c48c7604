package metering_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/sluice-api/sluice/internal/metering"
	"github.com/sluice-api/sluice/internal/pipeline"
	"github.com/sluice-api/sluice/internal/services"
	"github.com/sluice-api/sluice/internal/store"
	"github.com/sluice-api/sluice/internal/store/sqlite"
)

// upper is a transform that changes nothing but bills like any step.
type upper struct{}

func (upper) Descriptor() services.Descriptor {
	return services.Descriptor{Name: "example.upper", Kind: services.KindTransform, Version: 1, Accepts: []string{"text"},
		Emits: "same", BillingUnit: "characters", Languages: []string{"any"}, Params: map[string]services.Param{},
		Model: services.Model{ID: "none", License: "none"}}
}

func (upper) Run(_ context.Context, r services.Request) (services.Result, error) {
	return services.Result{Payload: r.Payload}, nil
}

// A run is two calls: Enter before anything else (the region and the rate window; a request
// that runs nothing closes its gate), and Run (the body's checks, the Idempotency-Key,
// the allowance, the steps and their charge, once).
func Example() {
	dir, _ := os.MkdirTemp("", "metering-example")
	defer os.RemoveAll(dir)
	st, _ := sqlite.Open(filepath.Join(dir, "sluice.db"))
	defer st.Close()
	reg, _ := services.NewRegistry(upper{})
	engine, _ := pipeline.New(reg)

	ctx, now := context.Background(), time.Date(2026, 11, 28, 9, 0, 0, 0, time.UTC)
	acct := store.Account{ID: "acct_example", Region: "eu-west-1", RateLimit: 600, Allowance: 1_000}
	runner := metering.New(st, engine, metering.Config{Region: "eu-west-1"})

	gate, e := runner.Enter(ctx, acct, now)
	if e != nil {
		fmt.Println(e) // wrong_region, rate_limited, or the store is down
		return
	}
	res := gate.Run(ctx, []byte(`{"input":{"type":"text","value":"hello"},"pipeline":[{"id":"a","service":"example.upper"},{"id":"b","service":"example.upper"}]}`), nil)
	if res.Err != nil {
		fmt.Println(res.Err) // invalid_request, allowance_exhausted, an idempotency answer, ...
		return
	}
	u, _ := st.Usage(ctx, acct.ID, "2026-11")
	fmt.Printf("%s, billed %d characters; the month: %d characters in %d run\n", res.Outcome.Status, res.Outcome.Characters(), u.Characters, u.Runs)
	// Output: completed, billed 10 characters; the month: 10 characters in 1 run
}
