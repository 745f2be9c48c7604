package api

import (
	"context"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/sluice-api/sluice/internal/account"
	"github.com/sluice-api/sluice/internal/metering"
	"github.com/sluice-api/sluice/internal/pipeline"
	"github.com/sluice-api/sluice/internal/services"
	"github.com/sluice-api/sluice/internal/store/dynamo"
	"github.com/sluice-api/sluice/internal/testutil/dynalite"
	"github.com/sluice-api/sluice/internal/testutil/faultproxy"
)

// Round-trip budget of issue 35: sequential DynamoDB requests of an uncontended run with no
// faults, in a rate window that is live (the first request of a window costs one more).
const (
	maxRequestsWithoutKey = 2
	maxRequestsWithKey    = 4
	maxAuthorizerReads    = 1
)

// TestRunRoundTrips counts, at a proxy in front of dynalite, the DynamoDB requests of one run
// without an Idempotency-Key, one with one, and one authorizer call (the key check), and fails
// above the budget.
func TestRunRoundTrips(t *testing.T) {
	endpoint := dynalite.StartT(t)
	proxy := faultproxy.StartT(t, endpoint, faultproxy.Config{})
	c, err := dynalite.Client(t.Context(), proxy.URL())
	if err != nil {
		t.Fatal(err)
	}
	// With the copy key, as keyctl (which seals accounts) and the authorizer have it.
	st := dynamo.New(c, dynamo.TablesWithPrefix("roundtrips_"), dynamo.WithCopyKey([]byte("copy-key-copy-key-copy-key-copy-key!")))
	if err := st.CreateTables(t.Context()); err != nil {
		t.Fatal(err)
	}
	reg, err := services.NewRegistry(transform("test.echo", func(_ context.Context, r services.Request) (services.Result, error) {
		return services.Result{Payload: r.Payload}, nil
	}))
	if err != nil {
		t.Fatal(err)
	}
	engine, err := pipeline.New(reg)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 22, 21, 4, 5, 0, time.UTC)
	clock := func() time.Time { return now }
	accounts := account.NewManager(st, []byte("0123456789abcdef0123456789abcdef"), clock)
	t.Cleanup(accounts.WaitKeyUse)
	if _, err := accounts.CreateWithKey(t.Context(), account.Settings{Region: "eu-west-1", Tier: "standard", RateLimit: 1000, Allowance: 1 << 40}, testKey); err != nil {
		t.Fatal(err)
	}
	srv := NewServer(metering.New(st, engine, metering.Config{Region: "eu-west-1", TokenKey: []byte("tokenization-key-tokenization-key")}), accounts, Config{Now: clock})

	count := func(fn func()) int64 {
		t.Helper()
		before := proxy.Stats().Requests
		fn()
		return proxy.Stats().Requests - before
	}
	authorize := func() {
		if _, resp := srv.Authenticate(t.Context(), "Bearer "+testKey); resp != nil {
			t.Fatalf("authenticate: %d %s", resp.Status, resp.Body)
		}
	}
	// On AWS the run function gets the account from the authorizer's context: a run's own
	// requests are those of Server.Run.
	acct, resp := srv.Authenticate(t.Context(), "Bearer "+testKey)
	if resp != nil {
		t.Fatal(resp.Status)
	}
	run := func(key string) func() {
		return func() {
			h := http.Header{HeaderContentType: {"application/json"}}
			if key != "" {
				h.Set(HeaderIdempotencyKey, key)
			}
			if r := srv.Run(t.Context(), acct, Request{Header: h, Body: []byte(body("hello", "test.echo"))}); r.Status != 200 {
				t.Fatalf("run: %d %s", r.Status, r.Body)
			}
		}
	}
	// Warm up the key's once-a-day last-used write, which is not counted.
	authorize()
	accounts.WaitKeyUse()
	// The first run of the window rolls it over, which may cost one request more (a Store that
	// saw the account's window before tries the write that fits first); checked on its own.
	rollover := count(run(""))
	withoutKey, withKey, auth := count(run("")), count(run("order-1")), count(authorize)
	t.Logf("dynamodb requests per run: without key %d, with key %d, authorizer %d", withoutKey, withKey, auth)
	if withoutKey > maxRequestsWithoutKey || withKey > maxRequestsWithKey || auth > maxAuthorizerReads {
		t.Fatalf("over the budget of %d / %d / %d", maxRequestsWithoutKey, maxRequestsWithKey, maxAuthorizerReads)
	}
	if rollover > maxRequestsWithoutKey+1 {
		t.Fatalf("the first run of a window took %d requests, want at most %d", rollover, maxRequestsWithoutKey+1)
	}
}

// BenchmarkRunOnDynalite times runs of a service that does nothing, against dynalite on this
// machine: the time is the store's requests (docs/PERFORMANCE.md turns it into an estimate for
// DynamoDB). The rate window stays live (a fixed clock), as for a busy account.
func BenchmarkRunOnDynalite(b *testing.B) {
	endpoint := dynalite.StartT(b)
	c, err := dynalite.Client(b.Context(), endpoint)
	if err != nil {
		b.Fatal(err)
	}
	st := dynamo.New(c, dynamo.TablesWithPrefix("bench_"), dynamo.WithCopyKey([]byte("copy-key-copy-key-copy-key-copy-key!")))
	if err := st.CreateTables(b.Context()); err != nil {
		b.Fatal(err)
	}
	reg, err := services.NewRegistry(transform("test.echo", func(_ context.Context, r services.Request) (services.Result, error) {
		return services.Result{Payload: r.Payload}, nil
	}))
	if err != nil {
		b.Fatal(err)
	}
	engine, err := pipeline.New(reg)
	if err != nil {
		b.Fatal(err)
	}
	now := time.Date(2026, 11, 22, 21, 4, 5, 0, time.UTC)
	clock := func() time.Time { return now }
	accounts := account.NewManager(st, []byte("0123456789abcdef0123456789abcdef"), clock)
	acct, err := accounts.CreateWithKey(b.Context(), account.Settings{Region: "eu-west-1", Tier: "standard", RateLimit: 1 << 40, Allowance: 1 << 50}, testKey)
	if err != nil {
		b.Fatal(err)
	}
	srv := NewServer(metering.New(st, engine, metering.Config{Region: "eu-west-1", TokenKey: []byte("tokenization-key-tokenization-key")}), accounts, Config{Now: clock})
	body := []byte(body("hello", "test.echo"))
	for _, keyed := range []bool{false, true} {
		name := "WithoutKey"
		if keyed {
			name = "WithKey"
		}
		b.Run(name, func(b *testing.B) {
			i := 0
			for b.Loop() {
				h := http.Header{HeaderContentType: {"application/json"}}
				if keyed {
					i++
					h.Set(HeaderIdempotencyKey, "bench-"+strconv.Itoa(i))
				}
				if r := srv.Run(b.Context(), acct, Request{Header: h, Body: body}); r.Status != 200 {
					b.Fatalf("run: %d %s", r.Status, r.Body)
				}
			}
		})
	}
	b.Run("Authorizer", func(b *testing.B) {
		for b.Loop() {
			if _, resp := srv.Authenticate(b.Context(), "Bearer "+testKey); resp != nil {
				b.Fatal(resp.Status)
			}
		}
	})
}
