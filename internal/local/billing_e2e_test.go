package local

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sluice-api/sluice/client"
	"github.com/sluice-api/sluice/internal/account"
	"github.com/sluice-api/sluice/internal/api"
	"github.com/sluice-api/sluice/internal/metering"
	"github.com/sluice-api/sluice/internal/pipeline"
	"github.com/sluice-api/sluice/internal/services"
	"github.com/sluice-api/sluice/internal/store/dynamo"
	"github.com/sluice-api/sluice/internal/testutil/dynalite"
	"github.com/sluice-api/sluice/internal/testutil/faultproxy"
	"github.com/sluice-api/sluice/internal/testutil/openapicheck"
)

// echo is a transform that passes its text on.
type echo struct{}

func (echo) Descriptor() services.Descriptor {
	return services.Descriptor{Name: "test.echo", Kind: services.KindTransform, Version: 1,
		Accepts: []string{"text"}, Emits: "same", BillingUnit: "characters", Languages: []string{"any"},
		Params: map[string]services.Param{}, Model: services.Model{ID: "fake", License: "test"}}
}

func (echo) Run(_ context.Context, r services.Request) (services.Result, error) {
	return services.Result{Payload: r.Payload}, nil
}

// isCharge matches Settle's charge of the meter item (the write that adds a run's characters).
func isCharge(op string, body []byte) bool {
	return op == "UpdateItem" && bytes.Contains(body, []byte("ADD #ch :n, #runs :one"))
}

// TestChargeErrorBilledOnce drives issue 41 §4 end to end: the Go client against the local
// gateway over DynamoDB (dynalite), with the proxy applying the run's charge and then answering
// it, and every SDK retry of it, with a 500. One logical run is billed once: the client never
// starts it again by itself, ends in ErrDuplicate (the store tells the charge holds) or
// ErrMaybeBilled with the key to send again, and sending it again under that key after the
// lease answers duplicate. Without a key the answer is ErrMaybeBilled, not a retry.
func TestChargeErrorBilledOnce(t *testing.T) {
	endpoint := dynalite.StartT(t)
	proxy := faultproxy.StartT(t, endpoint, faultproxy.Config{})
	db, err := dynalite.Client(t.Context(), proxy.URL())
	if err != nil {
		t.Fatal(err)
	}
	st := dynamo.New(db, dynamo.TablesWithPrefix("billedonce_"))
	if err := st.CreateTables(t.Context()); err != nil {
		t.Fatal(err)
	}
	reg, err := services.NewRegistry(echo{})
	if err != nil {
		t.Fatal(err)
	}
	engine, err := pipeline.New(reg)
	if err != nil {
		t.Fatal(err)
	}
	var clock atomic.Pointer[time.Time]
	start := time.Date(2026, 11, 22, 21, 4, 5, 0, time.UTC)
	clock.Store(&start)
	now := func() time.Time { return *clock.Load() }
	accounts := account.NewManager(st, []byte("0123456789abcdef0123456789abcdef"), now)
	t.Cleanup(accounts.WaitKeyUse)
	_, err = accounts.CreateWithKey(t.Context(), account.Settings{Region: "local", Tier: account.TierStandard, RateLimit: 1000, Allowance: 1_000_000}, testKey)
	if err != nil {
		t.Fatal(err)
	}
	srv := api.NewServer(metering.New(st, engine, metering.Config{Region: "local"}), accounts, api.Config{Now: now})
	checker, err := openapicheck.New()
	if err != nil {
		t.Fatal(err)
	}
	gw := NewGateway(srv, 29*time.Second)
	var statuses sync.Map // every status answered, each checked against the OpenAPI document
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := httptest.NewRecorder()
		gw.ServeHTTP(rec, r)
		statuses.Store(rec.Code, true)
		if err := checker.Check(r, rec.Code, rec.Header(), rec.Body.Bytes()); err != nil {
			t.Errorf("%s %s answered %d against the OpenAPI document: %v", r.Method, r.URL.Path, rec.Code, err)
		}
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		w.WriteHeader(rec.Code)
		_, _ = w.Write(rec.Body.Bytes())
	}))
	t.Cleanup(hs.Close)
	// One retry, at once: billing_unconfirmed sends no Retry-After, so nothing waits.
	retry := client.WithRetry(client.RetryPolicy{MaxRetries: 1, BaseDelay: time.Millisecond, MaxDelay: time.Millisecond})
	run := client.RunRequest{Input: client.Text("hello"), Pipeline: []client.Step{{ID: "a", Service: "test.echo"}, {ID: "b", Service: "test.echo"}}}

	for _, tc := range []struct {
		name string
		opts []client.Option
	}{
		{"ClientKey", nil},
		{"WithoutKey", []client.Option{client.WithoutIdempotencyKeys()}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := client.New(testKey, append([]client.Option{client.WithBaseURL(hs.URL), retry}, tc.opts...)...)
			before, err := c.Usage(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			failedBefore := proxy.Stats().Failed
			proxy.FailWrite(isCharge)
			_, err = c.Run(t.Context(), run)
			if proxy.Stats().Failed == failedBefore {
				t.Fatal("the proxy failed no charge: the test proves nothing")
			}
			var mb *client.MaybeBilledError
			var dup *client.DuplicateError
			switch {
			case errors.As(err, &dup) && dup.Retried:
				t.Logf("the retry was a duplicate: the store told the charge holds")
			case errors.As(err, &mb):
				t.Logf("%v", err)
				if tc.opts != nil && mb.Last.Code != client.CodeBillingUnconfirmed {
					t.Fatalf("without a key: %v, want billing_unconfirmed", err)
				}
				if tc.opts == nil && mb.IdempotencyKey == "" {
					t.Fatalf("%v: no key to send again", err)
				}
				if mb.IdempotencyKey != "" {
					// After the lease the key is taken over: the charge is found, a duplicate.
					later := now().Add(metering.DefaultLeaseTTL + time.Second)
					clock.Store(&later)
					again := run
					again.IdempotencyKey = mb.IdempotencyKey
					if _, err := c.Run(t.Context(), again); !errors.Is(err, client.ErrDuplicate) {
						t.Fatalf("sent again under %s after the lease: %v, want a duplicate", mb.IdempotencyKey, err)
					}
				}
			default:
				t.Fatalf("run = %v, want ErrDuplicate or ErrMaybeBilled", err)
			}
			if _, ok := statuses.Load(http.StatusBadGateway); !ok {
				t.Fatal("no answer was 502 billing_unconfirmed")
			}
			after, err := c.Usage(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			if after.Runs-before.Runs != 1 || after.Characters-before.Characters != 10 {
				t.Fatalf("usage %d runs, %d characters -> %d, %d: want one run of 10 characters", before.Runs, before.Characters, after.Runs, after.Characters)
			}
		})
	}
}
