package apiapp

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"testing"
	"time"

	"github.com/sluice-api/sluice/internal/account"
	"github.com/sluice-api/sluice/internal/api"
	"github.com/sluice-api/sluice/internal/lambdaapp"
	"github.com/sluice-api/sluice/internal/secrets"
	"github.com/sluice-api/sluice/internal/services"
	"github.com/sluice-api/sluice/internal/store/dynamo"
	"github.com/sluice-api/sluice/internal/testutil/dynalite"
	"github.com/sluice-api/sluice/internal/timing"
)

// deadlineSvc records the deadline of the context its step runs under.
type deadlineSvc struct{ seen chan time.Time }

func (deadlineSvc) Descriptor() services.Descriptor {
	return services.Descriptor{Name: "test.deadline", Kind: services.KindTransform, Version: 1, Accepts: []string{"text"},
		Emits: "same", BillingUnit: "characters", Languages: []string{"any"}, Params: map[string]services.Param{},
		Model: services.Model{ID: "none", License: "none"}}
}

func (s deadlineSvc) Run(ctx context.Context, r services.Request) (services.Result, error) {
	d, _ := ctx.Deadline()
	s.seen <- d
	return services.Result{Payload: r.Payload}, nil
}

// TestStepDeadlineKeepsSettleReserve: on the server the run function builds, a step's deadline
// is the request's deadline less timing.SettleReserve, the reserve the run function's timeout
// is computed with (issue 41: api.NewServer once dropped it, leaving 0.5 s).
func TestStepDeadlineKeepsSettleReserve(t *testing.T) {
	c, err := dynalite.Client(t.Context(), dynalite.StartT(t))
	if err != nil {
		t.Fatal(err)
	}
	st := dynamo.New(c, dynamo.TablesWithPrefix("apiapp_"))
	if err := st.CreateTables(t.Context()); err != nil {
		t.Fatal(err)
	}
	pepper := []byte("0123456789abcdef0123456789abcdef")
	base := &lambdaapp.Base{
		Config:  lambdaapp.Config{Region: "eu-west-1", Namespace: "Sluice", Function: "run"},
		Store:   st,
		Secrets: secrets.Secrets{Pepper: pepper, TokenKey: []byte("tokenization-key-tokenization-key")},
		// The key-use writes go to their own goroutine; this test authenticates nothing.
		Accounts: account.NewManager(st, pepper, nil),
		Log:      slog.New(slog.DiscardHandler),
	}
	svc := deadlineSvc{seen: make(chan time.Time, 1)}
	reg, err := services.NewRegistry(svc)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := New(base, reg, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	acct, _, err := base.Accounts.Create(t.Context(), account.Settings{Region: "eu-west-1", Tier: account.TierStandard, RateLimit: 600, Allowance: 1_000_000})
	if err != nil {
		t.Fatal(err)
	}
	body := []byte(`{"input":{"type":"text","value":"hello"},"pipeline":[{"id":"s1","service":"test.deadline"}]}`)
	for _, tc := range []struct {
		name string
		left time.Duration // the request's time left; under the engine's 10 s step bound
	}{
		{"Short", 2 * time.Second},
		{"Long", 8 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			deadline := time.Now().Add(tc.left)
			ctx, cancel := context.WithDeadline(t.Context(), deadline)
			defer cancel()
			resp := srv.Run(ctx, acct, api.Request{Header: http.Header{"Content-Type": {"application/json"}}, Body: body})
			var run struct{ Status string }
			if err := json.Unmarshal(resp.Body, &run); err != nil || resp.Status != http.StatusOK || run.Status != "completed" {
				t.Fatalf("answer %d %s", resp.Status, resp.Body)
			}
			if got, want := <-svc.seen, deadline.Add(-timing.SettleReserve); !got.Equal(want) {
				t.Fatalf("step deadline %v before the request's, want timing.SettleReserve (%v)", deadline.Sub(got), timing.SettleReserve)
			}
		})
	}
}
