package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sluice-api/sluice/internal/account"
	"github.com/sluice-api/sluice/internal/errcode"
	"github.com/sluice-api/sluice/internal/metering"
	"github.com/sluice-api/sluice/internal/pipeline"
	"github.com/sluice-api/sluice/internal/services"
	"github.com/sluice-api/sluice/internal/store"
	"github.com/sluice-api/sluice/internal/store/sqlite"
	"github.com/sluice-api/sluice/internal/timing"
)

const secret = "Zanzibar-confidential-7781"

type fakeSvc struct {
	d  services.Descriptor
	fn func(ctx context.Context, r services.Request) (services.Result, error)
}

func (f *fakeSvc) Descriptor() services.Descriptor { return f.d }
func (f *fakeSvc) Run(ctx context.Context, r services.Request) (services.Result, error) {
	return f.fn(ctx, r)
}

func transform(name string, fn func(ctx context.Context, r services.Request) (services.Result, error)) *fakeSvc {
	return &fakeSvc{services.Descriptor{Name: name, Kind: services.KindTransform, Version: 1, Accepts: []string{"text"},
		Emits: "same", BillingUnit: "characters", Languages: []string{"any"}, Params: map[string]services.Param{},
		Model: services.Model{ID: "fake", License: "test"}}, fn}
}

type fixture struct {
	srv     *Server
	store   store.Store
	acct    store.Account
	gate    chan struct{} // test.wait blocks until it is closed
	entered chan struct{} // test.wait signals here when it starts
	logs    *bytes.Buffer
	mu      *sync.Mutex
}

type lockedWriter struct {
	mu *sync.Mutex
	b  *bytes.Buffer
}

func (w lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

// newFixture returns a server over an SQLite store with one account and the test services;
// opts come after the fixture's own engine options (a 2 s step timeout) and so override them.
func newFixture(t *testing.T, allowance int64, wrap func(store.Store) store.Store, opts ...pipeline.Option) *fixture {
	t.Helper()
	f := &fixture{gate: make(chan struct{}), entered: make(chan struct{}, 64), logs: &bytes.Buffer{}, mu: &sync.Mutex{}}
	reg, err := services.NewRegistry(
		transform("test.echo", func(_ context.Context, r services.Request) (services.Result, error) {
			return services.Result{Payload: r.Payload}, nil
		}),
		transform("test.double", func(_ context.Context, r services.Request) (services.Result, error) {
			return services.Result{Payload: services.Payload{Type: "text", Value: r.Payload.Value + r.Payload.Value}, Changes: 1}, nil
		}),
		transform("test.fail", func(context.Context, services.Request) (services.Result, error) {
			return services.Result{}, errors.New("backend exploded at /var/lib/secret/path")
		}),
		transform("test.wait", func(ctx context.Context, r services.Request) (services.Result, error) {
			select {
			case f.entered <- struct{}{}:
			default:
			}
			select {
			case <-f.gate:
				return services.Result{Payload: r.Payload}, nil
			case <-ctx.Done():
				return services.Result{}, ctx.Err()
			}
		}),
	)
	if err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.NewJSONHandler(lockedWriter{f.mu, f.logs}, nil))
	engine, err := pipeline.New(reg, append([]pipeline.Option{pipeline.WithLogger(log), pipeline.WithStepTimeout(2 * time.Second)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	st, err := sqlite.Open(filepath.Join(t.TempDir(), "api.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	f.store = st
	var s store.Store = st
	if wrap != nil {
		s = wrap(st)
	}
	pepper := []byte("0123456789abcdef0123456789abcdef")
	accounts := account.NewManager(s, pepper, nil)
	f.acct, err = accounts.CreateWithKey(t.Context(), account.Settings{Region: "eu-west-1", Tier: "standard", RateLimit: 1000, Allowance: allowance}, testKey)
	if err != nil {
		t.Fatal(err)
	}
	f.srv = NewServer(metering.New(s, engine, metering.Config{Region: "eu-west-1", TokenKey: []byte("tokenization-key-tokenization-key"), Log: log}), accounts, Config{Log: log})
	return f
}

const testKey = "sluice_live_0123456789abcdefghijABCDEFGHIJ01"

type answer struct {
	Response
	m map[string]any
}

func (a answer) code() string {
	e, _ := a.m["error"].(map[string]any)
	c, _ := e["code"].(string)
	return c
}

// run answers a run request; the test fails when the answer is not JSON. Call it from the
// test's goroutine only; other goroutines call try.
func (f *fixture) run(t *testing.T, body string, headers ...string) answer {
	t.Helper()
	a, err := f.try(body, headers...)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// try is run for any goroutine: it returns what went wrong instead of failing the test.
func (f *fixture) try(body string, headers ...string) (answer, error) {
	return f.tryCtx(context.Background(), body, headers...)
}

// tryCtx is try under ctx (a deadline, a cancellation).
func (f *fixture) tryCtx(ctx context.Context, body string, headers ...string) (answer, error) {
	h := http.Header{HeaderContentType: {"application/json"}}
	for i := 0; i+1 < len(headers); i += 2 {
		h.Set(headers[i], headers[i+1])
	}
	resp := f.srv.Run(ctx, f.acct, Request{Header: h, Body: []byte(body)})
	var m map[string]any
	if err := json.Unmarshal(resp.Body, &m); err != nil {
		return answer{}, fmt.Errorf("body is not JSON: %q", resp.Body)
	}
	return answer{resp, m}, nil
}

func body(value, service string) string {
	v, _ := json.Marshal(value)
	return `{"request_id":"r-7","input":{"type":"text","value":` + string(v) + `},"pipeline":[{"id":"s1","service":"` + service + `"}]}`
}

func (f *fixture) usage(t *testing.T) store.Usage {
	t.Helper()
	u, err := f.store.Usage(context.Background(), f.acct.ID, account.Month(time.Now()))
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func TestRunCompletedHeadersAndShape(t *testing.T) {
	f := newFixture(t, 1_000_000, nil)
	a := f.run(t, body(secret, "test.double"))
	if a.Status != 200 || a.m["status"] != "completed" || a.m["request_id"] != "r-7" {
		t.Fatalf("answer = %d %s", a.Status, a.Body)
	}
	for _, h := range []string{HeaderRateLimit, HeaderRateRemaining, HeaderRateReset} {
		if exact(a.Header, h) == "" {
			t.Errorf("missing %s", h)
		}
	}
	if exact(a.Header, HeaderRateLimit) != "1000" || exact(a.Header, HeaderRateRemaining) != "999" {
		t.Errorf("rate headers = %v", a.Header)
	}
	if a.Header.Get("X-Content-Type-Options") != "nosniff" || a.Header.Get("Cache-Control") != "no-store" {
		t.Errorf("a JSON answer without nosniff and no-store: %v", a.Header)
	}
	if !strings.HasPrefix(a.m["trace_id"].(string), "sluice_") || len(a.m["trace_id"].(string)) != len("sluice_")+26 {
		t.Errorf("trace id = %v", a.m["trace_id"])
	}
	if u := f.usage(t); u.Characters != int64(len(secret)) || u.Runs != 1 {
		t.Errorf("usage = %+v", u)
	}
}

func TestRejectedRequests(t *testing.T) {
	f := newFixture(t, 1_000_000, nil)
	for _, tc := range []struct {
		name    string
		body    string
		headers []string
		code    string
		status  int
	}{
		{"InvalidJSON", `{`, nil, errcode.InvalidJSON, 400},
		{"InvalidRequest", `{"input":{"type":"text","value":"x"}}`, nil, errcode.InvalidRequest, 400},
		{"UnknownService", body("x", "nope"), nil, errcode.UnknownService, 400},
		{"EmptyIdempotencyKey", body("x", "test.echo"), []string{HeaderIdempotencyKey, ""}, errcode.InvalidIdempotencyKey, 400},
		{"LongIdempotencyKey", body("x", "test.echo"), []string{HeaderIdempotencyKey, strings.Repeat("k", 256)}, errcode.InvalidIdempotencyKey, 400},
		{"BodyTooLarge", `{"input":{"type":"text","value":"` + strings.Repeat("a", pipeline.MaxBodyBytes) + `"}}`, nil, errcode.BodyTooLarge, 413},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := http.Header{HeaderContentType: {"application/json"}}
			if tc.headers != nil {
				h[http.CanonicalHeaderKey(tc.headers[0])] = []string{tc.headers[1]}
			}
			resp := f.srv.Run(t.Context(), f.acct, Request{Header: h, Body: []byte(tc.body)})
			if resp.Header.Get("X-Content-Type-Options") != "nosniff" || resp.Header.Get("Cache-Control") != "no-store" {
				t.Errorf("a rejection without nosniff and no-store: %v", resp.Header)
			}
			var m map[string]any
			if err := json.Unmarshal(resp.Body, &m); err != nil {
				t.Fatal(err)
			}
			e, _ := m["error"].(map[string]any)
			if resp.Status != tc.status || e["code"] != tc.code {
				t.Fatalf("got %d %v, want %d %s", resp.Status, e["code"], tc.status, tc.code)
			}
			// The run shape is filled so a client parses one shape.
			if m["status"] != "failed" || m["halted_at"] != nil || m["results"] == nil || m["audit"] == nil || m["usage"] == nil {
				t.Fatalf("rejected body lacks the run fields: %s", resp.Body)
			}
		})
	}
	if u := f.usage(t); u.Characters != 0 || u.Runs != 0 {
		t.Fatalf("rejected requests were billed: %+v", u)
	}
}

func TestIdempotency(t *testing.T) {
	f := newFixture(t, 1_000_000, nil)
	key := []string{HeaderIdempotencyKey, "order-42"}

	// A rejected request stores nothing: the same key works once the body is fixed.
	if a := f.run(t, body("x", "nope"), key...); a.Status != 400 {
		t.Fatalf("bad body: %d", a.Status)
	}
	first := f.run(t, body("hello", "test.echo"), key...)
	if first.Status != 200 || first.m["status"] != "completed" {
		t.Fatalf("first = %d %s", first.Status, first.Body)
	}
	// Same body, reformatted: duplicate with the original trace id, nothing billed.
	dup := f.run(t, strings.ReplaceAll(body("hello", "test.echo"), ",", ", "), key...)
	if dup.Status != 200 || dup.m["status"] != "duplicate" || dup.m["trace_id"] != first.m["trace_id"] ||
		dup.Header.Get(HeaderReplayed) != "true" || dup.m["request_id"] != "r-7" {
		t.Fatalf("dup = %d %v %s", dup.Status, dup.Header, dup.Body)
	}
	if len(dup.m) != 3 {
		t.Fatalf("duplicate carries more than request_id, trace_id and status: %s", dup.Body)
	}
	// A different body under the same key.
	if a := f.run(t, body("other", "test.echo"), key...); a.Status != 422 || a.code() != errcode.IdempotencyKeyReused {
		t.Fatalf("reused = %d %s", a.Status, a.Body)
	}
	// Keys are per account: another account may use the same key.
	if u := f.usage(t); u.Characters != 5 || u.Runs != 1 {
		t.Fatalf("usage = %+v, want one run of 5", u)
	}
}

func TestIdempotencyInFlight(t *testing.T) {
	f := newFixture(t, 1_000_000, nil)
	key := []string{HeaderIdempotencyKey, "slow-1"}
	type result struct {
		a   answer
		err error
	}
	done := make(chan result)
	go func() {
		a, err := f.try(body("abc", "test.wait"), key...)
		done <- result{a, err}
	}()
	<-f.entered // the first run holds the key and is running
	a := f.run(t, body("abc", "test.wait"), key...)
	if a.Status != 409 || a.code() != errcode.IdempotencyKeyInUse || a.Header.Get(HeaderRetryAfter) == "" {
		t.Fatalf("in flight = %d %v %s", a.Status, a.Header, a.Body)
	}
	close(f.gate)
	if first := <-done; first.err != nil || first.a.m["status"] != "completed" {
		t.Fatalf("first = %v %s", first.err, first.a.Body)
	}
	if a := f.run(t, body("abc", "test.wait"), key...); a.m["status"] != "duplicate" {
		t.Fatalf("after = %s", a.Body)
	}
}

func TestIdempotencyConcurrentIdentical(t *testing.T) {
	f := newFixture(t, 1_000_000, nil)
	close(f.gate)
	const n = 16
	var wg sync.WaitGroup
	answers := make([]answer, n)
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() { answers[i], errs[i] = f.try(body("same body", "test.wait"), HeaderIdempotencyKey, "race") })
	}
	wg.Wait()
	runs, traces := 0, map[any]bool{}
	for i, a := range answers {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		switch {
		case a.Status == 200 && a.m["status"] == "completed":
			runs++
			traces[a.m["trace_id"]] = true
		case a.Status == 200 && a.m["status"] == "duplicate":
			traces[a.m["trace_id"]] = true
		case a.Status == 409:
		default:
			t.Fatalf("unexpected answer %d %s", a.Status, a.Body)
		}
	}
	if runs != 1 || len(traces) != 1 {
		t.Fatalf("runs = %d, distinct trace ids = %d; want exactly one run", runs, len(traces))
	}
	if u := f.usage(t); u.Runs != 1 || u.Characters != int64(len("same body")) {
		t.Fatalf("usage = %+v", u)
	}
}

func TestStepTimeoutReleasesKey(t *testing.T) {
	f := newFixture(t, 1_000_000, nil)
	key := []string{HeaderIdempotencyKey, "timeout-1"}
	a := f.run(t, body("abc", "test.wait"), key...) // gate closed never: the step times out
	if a.Status != 200 || a.m["status"] != "failed" || a.code() != errcode.StepTimeout {
		t.Fatalf("timeout = %d %s", a.Status, a.Body)
	}
	if u := f.usage(t); u.Characters != 0 || u.Runs != 0 {
		t.Fatalf("a timed-out run was billed: %+v", u)
	}
	close(f.gate)
	if a := f.run(t, body("abc", "test.wait"), key...); a.m["status"] != "completed" {
		t.Fatalf("retry after timeout = %s", a.Body)
	}
}

// TestFailedRunBillsCompletedSteps: a run that fails part-way, whatever ended it (a step error, a
// step's time budget, the function's deadline, a client that went away), bills every completed
// step and returns their results; the failed step bills nothing. The usage grows by exactly what
// the answer bills, and the Idempotency-Key is kept: a repeat is a duplicate, not a free run.
func TestFailedRunBillsCompletedSteps(t *testing.T) {
	pipe := func(services ...string) string {
		var steps []string
		for i, s := range services {
			steps = append(steps, fmt.Sprintf(`{"id":"s%d","service":%q}`, i+1, s))
		}
		return `{"input":{"type":"text","value":"abc"},"pipeline":[` + strings.Join(steps, ",") + `]}`
	}
	for _, tc := range []struct {
		name string
		body string
		// call runs the request; f.gate stays closed, so test.wait waits for its context.
		call   func(t *testing.T, f *fixture, body string, headers ...string) answer
		code   string
		billed map[string]float64 // step id -> characters
	}{
		{"StepError", pipe("test.double", "test.echo", "test.fail", "test.echo"), callPlain, errcode.StepFailed,
			map[string]float64{"s1": 3, "s2": 6}},
		{"StepTimeout", pipe("test.double", "test.wait", "test.echo"), callPlain, errcode.StepTimeout,
			map[string]float64{"s1": 3}},
		{"FunctionDeadline", pipe("test.echo", "test.double", "test.wait"), func(t *testing.T, f *fixture, body string, headers ...string) answer {
			ctx, cancel := context.WithTimeout(t.Context(), timing.SettleReserve+50*time.Millisecond) // 50 ms for the steps, less than their own budget
			defer cancel()
			a, err := f.tryCtx(ctx, body, headers...)
			if err != nil {
				t.Fatal(err)
			}
			return a
		}, errcode.StepTimeout, map[string]float64{"s1": 3, "s2": 3}},
		{"ClientWentAway", pipe("test.double", "test.echo", "test.wait"), func(t *testing.T, f *fixture, body string, headers ...string) answer {
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			go func() { <-f.entered; cancel() }() // the client hangs up while the last step runs
			a, err := f.tryCtx(ctx, body, headers...)
			if err != nil {
				t.Fatal(err)
			}
			return a
		}, errcode.StepTimeout, map[string]float64{"s1": 3, "s2": 6}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, 1_000_000, nil, pipeline.WithStepTimeout(100*time.Millisecond))
			key := []string{HeaderIdempotencyKey, "fail-" + tc.name}
			a := tc.call(t, f, tc.body, key...)
			if a.Status != 200 || a.m["status"] != "failed" || a.code() != tc.code || a.m["output"] != nil {
				t.Fatalf("answer = %d %s", a.Status, a.Body)
			}
			if bytes.Contains(a.Body, []byte("exploded")) {
				t.Fatalf("the service's error text reached the client: %s", a.Body)
			}
			got, total := map[string]float64{}, 0.0
			for _, l := range a.m["usage"].(map[string]any)["billed"].([]any) {
				line := l.(map[string]any)
				got[line["steps"].([]any)[0].(string)] = line["quantity"].(float64)
				total += line["quantity"].(float64)
			}
			if !maps.Equal(got, tc.billed) {
				t.Fatalf("billed %v, want %v", got, tc.billed)
			}
			results := a.m["results"].(map[string]any)
			if len(results) != len(tc.billed) {
				t.Fatalf("results %v, want one per billed step %v", results, tc.billed)
			}
			for id := range tc.billed {
				if r, _ := results[id].(map[string]any); r == nil || r["status"] != "ok" {
					t.Fatalf("no result for billed step %s: %v", id, results)
				}
			}
			if u := f.usage(t); u.Characters != int64(total) || u.Runs != 1 {
				t.Fatalf("usage = %+v, want %v characters in one run", u, total)
			}
			// The billed failed run keeps its key: a repeat runs nothing and bills nothing.
			close(f.gate)
			if dup := f.run(t, tc.body, key...); dup.m["status"] != "duplicate" || dup.m["trace_id"] != a.m["trace_id"] {
				t.Fatalf("repeat = %s, want a duplicate of %v", dup.Body, a.m["trace_id"])
			}
			if u := f.usage(t); u.Characters != int64(total) || u.Runs != 1 {
				t.Fatalf("usage after the repeat = %+v", u)
			}
		})
	}

	// A run whose first step fails bills nothing, returns no result and releases its key.
	f := newFixture(t, 1_000_000, nil)
	key := []string{HeaderIdempotencyKey, "fail-first"}
	a := f.run(t, pipe("test.fail", "test.echo"), key...)
	if a.m["status"] != "failed" || a.code() != errcode.StepFailed || len(a.m["results"].(map[string]any)) != 0 ||
		len(a.m["usage"].(map[string]any)["billed"].([]any)) != 0 {
		t.Fatalf("first step failed: %s", a.Body)
	}
	if u := f.usage(t); u.Characters != 0 || u.Runs != 0 {
		t.Fatalf("usage = %+v, want nothing", u)
	}
	if again := f.run(t, pipe("test.fail", "test.echo"), key...); again.m["status"] != "failed" || again.m["trace_id"] == a.m["trace_id"] {
		t.Fatalf("the key was not released: %s", again.Body)
	}
}

func callPlain(t *testing.T, f *fixture, body string, headers ...string) answer {
	t.Helper()
	return f.run(t, body, headers...)
}

func TestAllowance(t *testing.T) {
	t.Run("HaltBeforeCrossing", func(t *testing.T) {
		f := newFixture(t, 10, nil)
		b := `{"input":{"type":"text","value":"abcd"},"pipeline":[{"id":"d","service":"test.double"},{"id":"e","service":"test.echo"}]}`
		a := f.run(t, b)
		if a.m["status"] != "halted" || a.m["halt_reason"] != "allowance" || a.m["halted_at"] != "d" {
			t.Fatalf("answer = %s", a.Body)
		}
		if u := f.usage(t); u.Characters != 4 {
			t.Fatalf("usage = %+v", u)
		}
		// 6 left: an 8-character first step cannot run.
		if a := f.run(t, body("abcdefgh", "test.echo")); a.Status != 402 || a.code() != errcode.AllowanceExhausted {
			t.Fatalf("exhausted = %d %s", a.Status, a.Body)
		}
	})
	t.Run("ExhaustedReleasesKey", func(t *testing.T) {
		f := newFixture(t, 3, nil)
		if a := f.run(t, body("abcd", "test.echo"), HeaderIdempotencyKey, "k"); a.Status != 402 {
			t.Fatalf("answer = %d %s", a.Status, a.Body)
		}
		if a := f.run(t, body("abc", "test.echo"), HeaderIdempotencyKey, "k"); a.m["status"] != "completed" {
			t.Fatalf("same key after 402 = %d %s", a.Status, a.Body)
		}
	})
	t.Run("NeverExceededUnderConcurrency", func(t *testing.T) {
		const limit, size, n = 100, 7, 40
		f := newFixture(t, limit, nil)
		close(f.gate)
		var wg sync.WaitGroup
		var mu sync.Mutex
		billed, ok := int64(0), 0
		for range n {
			wg.Go(func() {
				b := `{"input":{"type":"text","value":"1234567"},"pipeline":[{"id":"w","service":"test.wait"},{"id":"e","service":"test.echo"}]}`
				a, err := f.try(b)
				mu.Lock()
				defer mu.Unlock()
				if err != nil {
					t.Error(err) // Error, unlike Fatal, may be called from any goroutine
					return
				}
				switch a.Status {
				case 200:
					ok++
					for _, l := range a.m["usage"].(map[string]any)["billed"].([]any) {
						billed += int64(l.(map[string]any)["quantity"].(float64))
					}
				case 402:
				default:
					t.Errorf("unexpected %d %s", a.Status, a.Body)
				}
			})
		}
		wg.Wait()
		u := f.usage(t)
		if u.Characters > limit || u.Characters != billed {
			t.Fatalf("usage %d, billed in responses %d, limit %d", u.Characters, billed, limit)
		}
		if u.Characters < limit-size || int(u.Runs) != ok {
			t.Fatalf("usage %+v after %d successful runs; the allowance should be (nearly) used", u, ok)
		}
	})
}

// failingStore fails the charge after the steps, as a store that went down during the run
// would (without charging anything).
type failingStore struct{ store.Store }

func (failingStore) Settle(context.Context, store.Settlement) (store.Usage, bool, error) {
	return store.Usage{}, false, errors.New("disk I/O error at /var/lib/secret/path")
}

func TestStoreDownIs503AndReleasesKey(t *testing.T) {
	f := newFixture(t, 1000, func(s store.Store) store.Store { return failingStore{s} })
	a := f.run(t, body("abc", "test.echo"), HeaderIdempotencyKey, "k1")
	if a.Status != 503 || a.code() != errcode.ServiceUnavailable || a.Header.Get(HeaderRetryAfter) == "" {
		t.Fatalf("answer = %d %v %s", a.Status, a.Header, a.Body)
	}
	if bytes.Contains(a.Body, []byte("disk")) || bytes.Contains(a.Body, []byte("/var/lib")) {
		t.Fatalf("internal error text reached the client: %s", a.Body)
	}
	// The key was released: a claim with a new lease succeeds at once.
	existing, err := f.store.Claim(t.Context(), store.Claim{Account: f.acct.ID, Key: "k1", Fingerprint: "x", Lease: "l2",
		Now: time.Now(), TTL: time.Hour, LeaseTTL: time.Minute})
	if err != nil || existing != nil {
		t.Fatalf("key still held after 503: %+v %v", existing, err)
	}
}

func TestAuthenticateRegionAndRate(t *testing.T) {
	f := newFixture(t, 1000, nil)
	for _, h := range []string{"", "Bearer", "Basic " + testKey, "Bearer sluice_live_short", "Bearer " + strings.Replace(testKey, "0", "1", 1)} {
		_, deny := f.srv.Authenticate(t.Context(), h)
		if deny == nil || deny.Status != 401 || !bytes.Contains(deny.Body, []byte(errcode.InvalidAPIKey)) {
			t.Fatalf("header %q: %+v", h, deny)
		}
		for _, name := range []string{HeaderRateLimit, HeaderRateRemaining, HeaderRateReset} {
			if exact(deny.Header, name) != "0" {
				t.Fatalf("401 %s = %q, want 0", name, exact(deny.Header, name))
			}
		}
	}
	a, deny := f.srv.Authenticate(t.Context(), "Bearer "+testKey)
	if deny != nil || a.ID != f.acct.ID {
		t.Fatalf("good key refused: %+v", deny)
	}

	other := f.acct
	other.Region = "us-east-1"
	resp := f.srv.Run(t.Context(), other, Request{Body: []byte(body("x", "test.echo"))})
	if resp.Status != 421 || !bytes.Contains(resp.Body, []byte("us-east-1")) {
		t.Fatalf("wrong region = %d %s", resp.Status, resp.Body)
	}

	limited := f.acct
	limited.RateLimit = 2
	limited.ID = "acct_limited"
	var last Response
	for range 3 {
		last = f.srv.Service(t.Context(), limited, "test.echo")
	}
	if last.Status != 429 || last.Header.Get(HeaderRetryAfter) == "" || exact(last.Header, HeaderRateRemaining) != "0" || exact(last.Header, HeaderRateLimit) != "2" {
		t.Fatalf("rate limited = %d %v %s", last.Status, last.Header, last.Body)
	}
}

func TestServiceDescriptor(t *testing.T) {
	f := newFixture(t, 1000, nil)
	resp := f.srv.Service(t.Context(), f.acct, "test.echo")
	var d services.Descriptor
	if err := json.Unmarshal(resp.Body, &d); err != nil || resp.Status != 200 || d.Name != "test.echo" || d.Kind != "transform" {
		t.Fatalf("descriptor = %d %s", resp.Status, resp.Body)
	}
	resp = f.srv.Service(t.Context(), f.acct, "nope")
	if resp.Status != 404 || !bytes.Contains(resp.Body, []byte(errcode.ServiceNotFound)) {
		t.Fatalf("unknown = %d %s", resp.Status, resp.Body)
	}
	if nf := f.srv.NotFound(); nf.Status != 404 || !bytes.Contains(nf.Body, []byte(errcode.NotFound)) {
		t.Fatalf("not found = %d %s", nf.Status, nf.Body)
	}
	if na := f.srv.MethodNotAllowed("POST"); na.Status != 405 || na.Header.Get("Allow") != "POST" {
		t.Fatalf("method = %d %v", na.Status, na.Header)
	}
}

func TestLogsCarryNoText(t *testing.T) {
	f := newFixture(t, 1000, nil)
	f.run(t, body(secret, "test.double"))
	f.run(t, body(secret, "nope"))
	f.run(t, `{"input":{"type":"text","value":"`+secret+`"`)
	f.mu.Lock()
	logs := f.logs.String()
	f.mu.Unlock()
	if strings.Contains(logs, secret) || strings.Contains(logs, "Zanzibar") {
		t.Fatalf("logs contain request text:\n%s", logs)
	}
	if !strings.Contains(logs, `"account_id":"`+f.acct.ID+`"`) || !strings.Contains(logs, `"trace_id":"sluice_`) {
		t.Fatalf("logs lack ids:\n%s", logs)
	}
}

func TestUsageEndpoint(t *testing.T) {
	f := newFixture(t, 1000, nil)
	f.run(t, body("hello world", "test.double")) // bills 11
	resp := f.srv.Usage(t.Context(), f.acct)
	var r account.UsageReport
	if err := json.Unmarshal(resp.Body, &r); err != nil || resp.Status != 200 {
		t.Fatalf("usage = %d %s", resp.Status, resp.Body)
	}
	if r.Characters != 11 || r.Runs != 1 || r.AllowanceLeft != 989 || r.CostMicroUSD != 220 || r.CostUSD != "0.000220" || r.PriceTier != "tier1" || r.RateLimit != 1000 {
		t.Fatalf("report = %+v", r)
	}
	if exact(resp.Header, HeaderRateLimit) != "1000" {
		t.Fatalf("usage lacks rate headers: %v", resp.Header)
	}
}

// exact returns header name only when it is stored under exactly that spelling, as it goes on
// the wire (X-RateLimit-Limit, not Go's canonical X-Ratelimit-Limit).
func exact(h http.Header, name string) string {
	if v := h[name]; len(v) > 0 {
		return v[0]
	}
	return ""
}

func TestBodiesEndWithANewline(t *testing.T) {
	f := newFixture(t, 1_000_000, nil)
	a := f.run(t, body(secret, "test.double"))
	if !bytes.HasSuffix(a.Body, []byte("}\n")) {
		t.Fatalf("run body ends with %q", a.Body[max(len(a.Body)-3, 0):])
	}
	if nf := f.srv.NotFound(); !bytes.HasSuffix(nf.Body, []byte("}\n")) {
		t.Fatalf("error body ends with %q", nf.Body[max(len(nf.Body)-3, 0):])
	}
}

// TestStrictBodies: a body the parser would once run and the fingerprint could not read
// (non-JSON whitespace around it) answered 503 on every retry with an Idempotency-Key; a
// repeated member let the last one win; escaped lone surrogates became U+FFFD. Each is now
// refused the same way with or without a key, and nothing is billed.
func TestStrictBodies(t *testing.T) {
	f := newFixture(t, 1_000_000, nil)
	good := body("x", "test.echo")
	for _, tc := range []struct {
		name, body, code, param string
	}{
		{"LeadingVerticalTab", "\v" + good, errcode.InvalidJSON, ""},
		{"LeadingFormFeed", "\f" + good, errcode.InvalidJSON, ""},
		{"LeadingNoBreakSpace", "\u00a0" + good, errcode.InvalidJSON, ""},
		{"LeadingLineSeparator", "\u2028" + good, errcode.InvalidJSON, ""},
		{"LeadingIdeographicSpace", "\u3000" + good, errcode.InvalidJSON, ""},
		{"RepeatedInput", `{"input":{"type":"text","value":"x"},"input":{"type":"text","value":"y"},"pipeline":[{"id":"s1","service":"test.echo"}]}`, errcode.InvalidJSON, "/input"},
		{"LoneSurrogate", `{"input":{"type":"text","value":"\ud800"},"pipeline":[{"id":"s1","service":"test.echo"}]}`, errcode.InvalidRequest, "/input/value"},
		{"SurrogateThenLetter", `{"input":{"type":"text","value":"a\udbffb"},"pipeline":[{"id":"s1","service":"test.echo"}]}`, errcode.InvalidRequest, "/input/value"},
	} {
		for _, key := range []string{"", "strict-" + tc.name} {
			t.Run(tc.name+map[bool]string{true: "/Keyed", false: "/Unkeyed"}[key != ""], func(t *testing.T) {
				var headers []string
				if key != "" {
					headers = []string{HeaderIdempotencyKey, key}
				}
				for attempt := range 2 { // a retry gets the same answer
					a := f.run(t, tc.body, headers...)
					e, _ := a.m["error"].(map[string]any)
					if a.Status != 400 || a.code() != tc.code || (tc.param != "" && e["param"] != tc.param) {
						t.Fatalf("attempt %d: %d %s, want 400 %s at %q", attempt, a.Status, a.Body, tc.code, tc.param)
					}
				}
			})
		}
	}
	if u := f.usage(t); u.Characters != 0 || u.Runs != 0 {
		t.Fatalf("refused bodies were billed: %+v", u)
	}
}

// TestContentType: POST /v1/run takes application/json only (parameters allowed, a charset
// only if UTF-8), checked after the key and the rate window and before the body.
func TestContentType(t *testing.T) {
	f := newFixture(t, 1_000_000, nil)
	for _, tc := range []struct {
		name  string
		types []string // Content-Type values; nil: none
		ok    bool
	}{
		{"JSON", []string{"application/json"}, true},
		{"JSONCharset", []string{"application/json; charset=utf-8"}, true},
		{"JSONCharsetUpper", []string{"Application/JSON;Charset=\"UTF-8\""}, true},
		{"JSONOtherParameter", []string{"application/json; profile=x"}, true},
		{"Missing", nil, false},
		{"Empty", []string{""}, false},
		{"TextPlain", []string{"text/plain"}, false},
		{"FormEncoded", []string{"application/x-www-form-urlencoded"}, false},
		{"JSONSuffix", []string{"application/problem+json"}, false},
		{"JSONLatin1", []string{"application/json; charset=iso-8859-1"}, false},
		{"Malformed", []string{"application/json; charset"}, false},
		{"Twice", []string{"application/json", "application/json"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := http.Header{}
			for _, v := range tc.types {
				h.Add(HeaderContentType, v)
			}
			resp := f.srv.Run(t.Context(), f.acct, Request{Header: h, Body: []byte(body("x", "test.echo"))})
			var m map[string]any
			if err := json.Unmarshal(resp.Body, &m); err != nil {
				t.Fatal(err)
			}
			e, _ := m["error"].(map[string]any)
			if tc.ok && (resp.Status != 200 || m["status"] != "completed") {
				t.Fatalf("got %d %s, want a completed run", resp.Status, resp.Body)
			}
			if !tc.ok && (resp.Status != 415 || e["code"] != errcode.UnsupportedMediaType || m["status"] != "failed" || exact(resp.Header, HeaderRateLimit) != "1000") {
				t.Fatalf("got %d %v %s, want 415 unsupported_media_type with the run shape and rate headers", resp.Status, resp.Header, resp.Body)
			}
		})
	}
	// The key and the rate window come first.
	other := f.acct
	other.Region = "us-east-1"
	if resp := f.srv.Run(t.Context(), other, Request{Header: http.Header{}, Body: []byte("{")}); resp.Status != 421 {
		t.Fatalf("wrong region without Content-Type = %d, want 421", resp.Status)
	}
	limited := f.acct
	limited.ID, limited.RateLimit = "acct_ct_limited", 1
	f.srv.Run(t.Context(), limited, Request{Header: http.Header{}, Body: []byte("{")})
	if resp := f.srv.Run(t.Context(), limited, Request{Header: http.Header{}, Body: []byte("{")}); resp.Status != 429 {
		t.Fatalf("full rate window without Content-Type = %d, want 429", resp.Status)
	}
	// The body's size comes first: anything over 1 MiB is 413, whatever its type.
	big := []byte(`{"input":{"type":"text","value":"` + strings.Repeat("a", pipeline.MaxBodyBytes) + `"}}`)
	if resp := f.srv.Run(t.Context(), f.acct, Request{Header: http.Header{HeaderContentType: {"text/plain"}}, Body: big}); resp.Status != 413 {
		t.Fatalf("over 1 MiB with text/plain = %d, want 413", resp.Status)
	}
	// And it comes before the body: a non-JSON body with a wrong type is 415, not 400.
	if resp := f.srv.Run(t.Context(), f.acct, Request{Header: http.Header{HeaderContentType: {"text/plain"}}, Body: []byte("{")}); resp.Status != 415 {
		t.Fatalf("bad body with text/plain = %d, want 415", resp.Status)
	}
}

func TestAuthorizationHeader(t *testing.T) {
	for _, tc := range []struct {
		name   string
		values []string
		want   string
	}{
		{"None", nil, ""},
		{"One", []string{"Bearer " + testKey}, "Bearer " + testKey},
		{"Two", []string{"Bearer " + testKey, "Bearer " + testKey}, ""},
		{"TwoDifferent", []string{"Bearer " + testKey, "Bearer sluice_live_other"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := http.Header{}
			for _, v := range tc.values {
				h.Add("authorization", v)
			}
			if got := Authorization(h); got != tc.want {
				t.Fatalf("Authorization = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestHeaderSentTwice: a header the run reads once, sent more than once, keeps its code but is
// answered with a message that says so (issue 45), and a single bad value keeps its own message.
func TestHeaderSentTwice(t *testing.T) {
	f := newFixture(t, 1_000_000, nil)
	for _, tc := range []struct {
		name    string
		header  string
		values  []string
		status  int
		code    string
		message string
	}{
		{"IdempotencyKeyTwice", HeaderIdempotencyKey, []string{"k-1", "k-1"}, 400, errcode.InvalidIdempotencyKey, "Idempotency-Key was sent more than once"},
		{"IdempotencyKeyTwoValues", HeaderIdempotencyKey, []string{"k-1", "k-2"}, 400, errcode.InvalidIdempotencyKey, "Idempotency-Key was sent more than once"},
		{"IdempotencyKeyEmpty", HeaderIdempotencyKey, []string{""}, 400, errcode.InvalidIdempotencyKey, "must be 1 to 255 characters"},
		{"ContentTypeTwice", HeaderContentType, []string{"application/json", "application/json"}, 415, errcode.UnsupportedMediaType, "Content-Type was sent more than once"},
		{"ContentTypeTwoValues", HeaderContentType, []string{"application/json", "text/plain"}, 415, errcode.UnsupportedMediaType, "Content-Type was sent more than once"},
		{"ContentTypeWrong", HeaderContentType, []string{"text/plain"}, 415, errcode.UnsupportedMediaType, "send Content-Type: application/json"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := http.Header{HeaderContentType: {"application/json"}}
			h.Del(tc.header)
			for _, v := range tc.values {
				h.Add(tc.header, v)
			}
			resp := f.srv.Run(t.Context(), f.acct, Request{Header: h, Body: []byte(body("x", "test.echo"))})
			var m struct {
				Status string
				Error  struct{ Code, Message string }
			}
			if err := json.Unmarshal(resp.Body, &m); err != nil {
				t.Fatal(err)
			}
			if resp.Status != tc.status || m.Status != "failed" || m.Error.Code != tc.code || !strings.Contains(m.Error.Message, tc.message) {
				t.Fatalf("got %d %s, want %d %s saying %q", resp.Status, resp.Body, tc.status, tc.code, tc.message)
			}
		})
	}
}

// chargedStore charges a keyed run but leaves its record in flight and answers store.ErrCharged,
// as the DynamoDB store does when the record's completion fails after the charge; proofStore
// adds Charged (metering.Charges).
type chargedStore struct {
	store.Store
	mu      sync.Mutex
	charged map[string]bool // leases
}

func (s *chargedStore) Settle(ctx context.Context, st store.Settlement) (store.Usage, bool, error) {
	idem := st.Idem
	st.Idem = nil
	u, ok, err := s.Store.Settle(ctx, st)
	if err != nil || !ok || idem == nil {
		return u, ok, err
	}
	s.mu.Lock()
	s.charged[idem.Lease] = true
	s.mu.Unlock()
	return store.Usage{}, false, fmt.Errorf("complete record: timeout at /var/lib/secret/path: %w", store.ErrCharged)
}

// proofStore is a chargedStore that can tell whether an in-flight record's charge holds.
type proofStore struct{ *chargedStore }

func (s proofStore) Charged(_ context.Context, rec store.IdemRecord) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return rec.State == store.IdemInFlight && s.charged[rec.Lease], nil
}

// TestChargeNotConfirmed: a run that may have been charged is never answered "retry shortly"
// with nothing billed: billing_unconfirmed (502, no Retry-After) with the lines it may have
// billed and no result; a retry under its key inside the lease is a duplicate when the store can
// tell that the charge holds, else 409; usage counts the run once.
func TestChargeNotConfirmed(t *testing.T) {
	for _, tc := range []struct {
		name   string
		wrap   func(store.Store) store.Store
		key    string
		retry  int   // the status of a retry under the same key; 0: no retry
		billed int64 // the run's characters in the usage
	}{
		{"WithoutKey", func(s store.Store) store.Store { return failingStore{s} }, "", 0, 0},
		{"KeyedProofHolds", func(s store.Store) store.Store {
			return proofStore{&chargedStore{Store: s, charged: map[string]bool{}}}
		}, "k-proof", 200, 9},
		{"KeyedNoProof", func(s store.Store) store.Store { return &chargedStore{Store: s, charged: map[string]bool{}} }, "k-noproof", 409, 9},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, 1000, tc.wrap)
			var hdr []string
			if tc.key != "" {
				hdr = []string{HeaderIdempotencyKey, tc.key}
			}
			runBody := `{"input":{"type":"text","value":"abc"},"pipeline":[{"id":"s1","service":"test.double"},{"id":"s2","service":"test.echo"}]}`
			a := f.run(t, runBody, hdr...)
			if a.Status != 502 || a.code() != errcode.BillingUnconfirmed || a.Header.Get(HeaderRetryAfter) != "" || a.m["status"] != "failed" || a.m["output"] != nil {
				t.Fatalf("answer = %d %v %s", a.Status, a.Header, a.Body)
			}
			if bytes.Contains(a.Body, []byte("/var/lib")) || len(a.m["results"].(map[string]any)) != 0 {
				t.Fatalf("internal text or a result on an unconfirmed charge: %s", a.Body)
			}
			if lines := a.m["usage"].(map[string]any)["billed"].([]any); len(lines) != 2 {
				t.Fatalf("billed = %v, want the two lines the run may have been charged", lines)
			}
			if u := f.usage(t); u.Characters != tc.billed {
				t.Fatalf("usage %+v, want %d characters", u, tc.billed)
			}
			if tc.retry == 0 {
				return
			}
			again := f.run(t, runBody, hdr...)
			if again.Status != tc.retry {
				t.Fatalf("retry = %d %s, want %d", again.Status, again.Body, tc.retry)
			}
			if tc.retry == 200 && (again.m["status"] != "duplicate" || again.m["trace_id"] != a.m["trace_id"] || again.Header.Get(HeaderReplayed) != "true") {
				t.Fatalf("retry = %s, want a duplicate of %v", again.Body, a.m["trace_id"])
			}
			if u := f.usage(t); u.Characters != tc.billed || u.Runs != 1 {
				t.Fatalf("usage after the retry %+v, want %d characters in one run", u, tc.billed)
			}
		})
	}
}
