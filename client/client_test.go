package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sluice-api/sluice/client"
)

// These tests drive the client against a scripted HTTP server, for the paths the real server
// cannot be made to take on demand (a 503, a 500 with HTML, a 409); e2e_test.go drives it
// against the real local server.

// clock records the waits the client asks for and never sleeps.
type clock struct {
	mu    sync.Mutex
	waits []time.Duration
	// onSleep, when set, runs inside each wait (e.g. to cancel the context).
	onSleep func()
}

func (c *clock) sleep(ctx context.Context, d time.Duration) error {
	c.mu.Lock()
	c.waits = append(c.waits, d)
	f := c.onSleep
	c.mu.Unlock()
	if f != nil {
		f()
	}
	return ctx.Err()
}

func (c *clock) recorded() []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]time.Duration(nil), c.waits...)
}

// noJitter makes the random part of every wait zero.
func noJitter(int64) int64 { return 0 }

// seen is one request the scripted server received.
type seen struct {
	method, path string
	header       http.Header
	body         string
}

// scripted is a server that answers the n-th request with script[n] (the last one repeats).
type scripted struct {
	*httptest.Server
	mu   sync.Mutex
	reqs []seen
}

// reply writes a JSON answer with the rate-limit headers and extra headers (name, value, ...).
func reply(status int, body string, headers ...string) func(http.ResponseWriter, *http.Request) {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("X-RateLimit-Limit", "600")
		w.Header().Set("X-RateLimit-Remaining", "599")
		w.Header().Set("X-RateLimit-Reset", "42")
		w.Header().Set("X-Sluice-Trace-Id", "sluice_01KAQ3ZQ6Y5M2V8B8W3J3K6NHD")
		for i := 0; i+1 < len(headers); i += 2 {
			w.Header().Set(headers[i], headers[i+1])
		}
		w.WriteHeader(status)
		_, _ = io.WriteString(w, body)
	}
}

// drop closes the connection without an answer, as a network that lost it would.
func drop(w http.ResponseWriter, _ *http.Request) {
	conn, _, err := w.(http.Hijacker).Hijack()
	if err == nil {
		conn.Close()
	}
}

func newScripted(t *testing.T, script ...func(http.ResponseWriter, *http.Request)) *scripted {
	t.Helper()
	s := &scripted{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		n := len(s.reqs)
		s.reqs = append(s.reqs, seen{r.Method, r.URL.EscapedPath(), r.Header.Clone(), string(b)})
		s.mu.Unlock()
		script[min(n, len(script)-1)](w, r)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *scripted) requests() []seen {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]seen(nil), s.reqs...)
}

func newClient(s *scripted, c *clock, opts ...client.Option) *client.Client {
	// No keep-alive: each attempt opens its own connection, so a dropped one is never reused
	// and net/http's own replay of idempotent requests on reused connections stays out of the
	// count.
	hc := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	return client.New("sluice_live_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", append([]client.Option{
		client.WithBaseURL(s.URL + "/"), client.WithHTTPClient(hc), client.WithClock(c.sleep, noJitter),
	}, opts...)...)
}

var pii = client.RunRequest{
	RequestID: "r-1",
	Input:     client.Text("mail jane@example.com"),
	Pipeline:  []client.Step{{ID: "pii", Service: "governance.pii.redact"}},
}

const completed = `{"request_id":"r-1","trace_id":"sluice_01KAQ3ZQ6Y5M2V8B8W3J3K6N1D","status":"completed","halted_at":null,
 "output":{"type":"text","value":"mail [REDACTED]"},"results":{"pii":{"kind":"transform","status":"ok","changes":1}},
 "usage":{"billed":[{"unit":"characters","quantity":21,"steps":["pii"]}]},
 "audit":{"region":"local","retention":"none","received_at":"2026-11-22T21:04:05.123Z","total_ms":1,"steps":[]}}`

const duplicate = `{"request_id":"r-1","trace_id":"sluice_01KAQ3ZQ6Y5M2V8B8W3J3K6N1D","status":"duplicate"}`

func errorBody(code string) string {
	return `{"error":{"code":"` + code + `","message":"m"},"trace_id":"sluice_01KAQ3ZQ6Y5M2V8B8W3J3K6NXX"}`
}

func TestRunDecodesEveryKind(t *testing.T) {
	s := newScripted(t, reply(200, `{"trace_id":"sluice_01KAQ3ZQ6Y5M2V8B8W3J3K6N1D","status":"halted","halted_at":"tox","halt_reason":"stop_if",
 "output":{"type":"text","value":"mail [EMAIL_2e9a1d76]"},
 "results":{"t":{"kind":"transform","status":"ok","changes":1,"map":{"[EMAIL_2e9a1d76]":"jane@example.com"}},
  "tox":{"kind":"classify","status":"ok","verdict":"flag","score":0.91,"labels":["insult"]},
  "lang":{"kind":"extract","status":"ok","data":{"language":"en","confidence":0.99}},
  "new":{"kind":"someday","status":"ok"}},
 "usage":{"billed":[{"unit":"characters","quantity":21,"steps":["t"]},{"unit":"characters","quantity":21,"steps":["tox"]}]},
 "audit":{"region":"local","retention":"none","received_at":"2026-11-22T21:04:05.123Z","total_ms":3,
  "steps":[{"id":"t","service":"governance.pii.tokenize","version":2,"model":"m","status":"ok","input_type":"text","output_type":"text",
   "input_size":21,"output_size":21,"input_sha256":"a","output_sha256":"b","changes":1,"duration_ms":0}]}}`))
	c := &clock{}
	resp, err := newClient(s, c).Run(t.Context(), pii)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Status != client.StatusHalted || resp.HaltedAt != "tox" || resp.HaltReason != client.HaltStopIf || resp.Output.Value != "mail [EMAIL_2e9a1d76]" {
		t.Fatalf("run = %+v", resp)
	}
	if tr := resp.Results["t"].Transform; tr == nil || tr.Changes != 1 || tr.Map["[EMAIL_2e9a1d76]"] != "jane@example.com" {
		t.Fatalf("transform = %+v", resp.Results["t"])
	}
	if cl := resp.Results["tox"].Classify; cl == nil || cl.Verdict != client.VerdictFlag || cl.Score != 0.91 || !reflect.DeepEqual(cl.Labels, []string{"insult"}) {
		t.Fatalf("classify = %+v", resp.Results["tox"])
	}
	var lang struct {
		Language   string  `json:"language"`
		Confidence float64 `json:"confidence"`
	}
	if ex := resp.Results["lang"].Extract; ex == nil || ex.Decode(&lang) != nil || lang.Language != "en" {
		t.Fatalf("extract = %+v", resp.Results["lang"])
	}
	if r := resp.Results["new"]; r.Kind != "someday" || r.Transform != nil || r.Classify != nil || r.Extract != nil {
		t.Fatalf("unknown kind = %+v", r)
	}
	if resp.Usage.Characters() != 42 || len(resp.Audit.Steps) != 1 || resp.Audit.Steps[0].InputSize != 21 ||
		!resp.Audit.ReceivedAt.Equal(time.Date(2026, 11, 22, 21, 4, 5, 123e6, time.UTC)) {
		t.Fatalf("usage/audit = %+v %+v", resp.Usage, resp.Audit)
	}
	if want := (client.RateLimit{Limit: 600, Remaining: 599, Reset: 42 * time.Second}); resp.RateLimit != want {
		t.Fatalf("rate limit = %+v, want %+v", resp.RateLimit, want)
	}
	// The results encode back to what Sluice sent, the unknown kind included.
	b, err := json.Marshal(resp.Results)
	if err != nil {
		t.Fatal(err)
	}
	var back map[string]map[string]any
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if back["t"]["map"].(map[string]any)["[EMAIL_2e9a1d76]"] != "jane@example.com" || back["new"]["kind"] != "someday" || back["tox"]["verdict"] != "flag" {
		t.Fatalf("re-encoded results = %s", b)
	}
}

func TestRunSendsTheRequest(t *testing.T) {
	s := newScripted(t, reply(200, completed))
	c := &clock{}
	req := pii
	req.Pipeline = []client.Step{{ID: "guard", Service: "security.jailbreak.shield", StopIf: client.StopIfScoreAtLeast(0)},
		{ID: "pii", Service: "governance.pii.redact", Params: map[string]any{"entities": []string{"email"}}}}
	if _, err := newClient(s, c, client.WithUserAgent("checkout/1.4")).Run(t.Context(), req); err != nil {
		t.Fatal(err)
	}
	r := s.requests()[0]
	if r.method != http.MethodPost || r.path != "/v1/run" || r.header.Get("Content-Type") != "application/json" ||
		r.header.Get("Authorization") != "Bearer sluice_live_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA" ||
		!strings.HasPrefix(r.header.Get("User-Agent"), "checkout/1.4 sluice-go/"+client.Version+" ") {
		t.Fatalf("request = %+v", r)
	}
	want := `{"request_id":"r-1","input":{"type":"text","value":"mail jane@example.com"},"pipeline":[` +
		`{"id":"guard","service":"security.jailbreak.shield","stop_if":{"score_gte":0}},` +
		`{"id":"pii","service":"governance.pii.redact","params":{"entities":["email"]}}]}`
	if r.body != want {
		t.Fatalf("body\n got %s\nwant %s", r.body, want)
	}
}

func TestFailedRunReturnsResponseAndError(t *testing.T) {
	s := newScripted(t, reply(200, `{"trace_id":"sluice_01KAQ3ZQ6Y5M2V8B8W3J3K6N1D","status":"failed","halted_at":null,
 "error":{"code":"output_too_large","message":"step \"x\" would emit more than 100000 characters"},
 "results":{"lang":{"kind":"extract","status":"ok","data":{"language":"en"}}},
 "usage":{"billed":[{"unit":"characters","quantity":5,"steps":["lang"]}]},
 "audit":{"region":"local","retention":"none","received_at":"2026-11-22T21:04:05.123Z","total_ms":1,"steps":[]}}`))
	c := &clock{}
	resp, err := newClient(s, c).Run(t.Context(), pii)
	var e *client.Error
	if !errors.As(err, &e) || resp == nil {
		t.Fatalf("failed run = %v, %v; want a response and an *Error", resp, err)
	}
	if e.HTTPStatus != 200 || e.Code != client.CodeOutputTooLarge || e.TraceID != resp.TraceID || e != resp.Error || e.RateLimit.Limit != 600 {
		t.Fatalf("error = %+v", e)
	}
	if resp.Results["lang"].Extract == nil || resp.Usage.Characters() != 5 || resp.Output != nil {
		t.Fatalf("response = %+v", resp)
	}
	if len(s.requests()) != 1 || len(c.recorded()) != 0 {
		t.Fatalf("a failed run was retried: %d requests", len(s.requests()))
	}
	if got := err.Error(); !strings.Contains(got, "run failed: output_too_large") || !strings.Contains(got, resp.TraceID) {
		t.Fatalf("message = %q", got)
	}
}

func TestRejectionIsAnError(t *testing.T) {
	s := newScripted(t, reply(400, `{"request_id":"r-1","trace_id":"sluice_01KAQ3ZQ6Y5M2V8B8W3J3K6NXX","status":"failed","halted_at":null,
 "error":{"code":"invalid_params","message":"entities: \"ssn\" is not allowed","param":"/pipeline/0/params/entities"},
 "results":{},"usage":{"billed":[]},"audit":{"region":"local","retention":"none","received_at":"2026-11-22T21:04:05.123Z","total_ms":0,"steps":[]}}`))
	c := &clock{}
	resp, err := newClient(s, c).Run(t.Context(), pii)
	var e *client.Error
	if resp != nil || !errors.As(err, &e) {
		t.Fatalf("rejection = %v, %v", resp, err)
	}
	want := client.Error{HTTPStatus: 400, Code: client.CodeInvalidParams, Message: `entities: "ssn" is not allowed`,
		Param: "/pipeline/0/params/entities", TraceID: "sluice_01KAQ3ZQ6Y5M2V8B8W3J3K6NXX",
		RateLimit: client.RateLimit{Limit: 600, Remaining: 599, Reset: 42 * time.Second}}
	if *e != want {
		t.Fatalf("error = %+v\nwant %+v", *e, want)
	}
	if len(s.requests()) != 1 {
		t.Fatalf("a 400 was retried")
	}
	if got := e.Error(); got != `sluice: 400 invalid_params: entities: "ssn" is not allowed (/pipeline/0/params/entities) [trace sluice_01KAQ3ZQ6Y5M2V8B8W3J3K6NXX]` {
		t.Fatalf("message = %q", got)
	}
}

func TestRetries(t *testing.T) {
	html502 := func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(502)
		_, _ = io.WriteString(w, "<html>Bad Gateway</html>")
	}
	for _, tc := range []struct {
		name   string
		opts   []client.Option
		key    string // RunRequest.IdempotencyKey
		script []func(http.ResponseWriter, *http.Request)
		// want: requests sent, waits asked for, the final error's code ("" = success; "conn" =
		// a connection error; "duplicate" = a *DuplicateError)
		requests int
		waits    []time.Duration
		code     string
	}{
		{name: "503ThenOK", script: fns(reply(503, errorBody("service_unavailable"), "Retry-After", "1"), reply(200, completed)),
			requests: 2, waits: []time.Duration{time.Second}},
		{name: "500ThenOK", script: fns(reply(500, errorBody("internal_error")), reply(200, completed)),
			requests: 2, waits: []time.Duration{250 * time.Millisecond}},
		{name: "HTML502Twice", script: fns(html502, html502, reply(200, completed)),
			requests: 3, waits: []time.Duration{250 * time.Millisecond, 500 * time.Millisecond}},
		{name: "409InUseThenDuplicate", script: fns(reply(409, errorBody("idempotency_key_in_use"), "Retry-After", "2"), reply(200, duplicate, "Idempotent-Replayed", "true")),
			requests: 2, waits: []time.Duration{2 * time.Second}, code: "duplicate"},
		{name: "429Exhausted", script: fns(reply(429, errorBody("rate_limited"), "Retry-After", "7")),
			requests: 4, waits: []time.Duration{7 * time.Second, 7 * time.Second, 7 * time.Second}, code: "rate_limited"},
		{name: "BackoffCapped", opts: []client.Option{client.WithRetry(client.RetryPolicy{MaxRetries: 4, BaseDelay: time.Second, MaxDelay: 3 * time.Second})},
			script:   fns(reply(503, errorBody("service_unavailable"))),
			requests: 5, waits: []time.Duration{500 * time.Millisecond, time.Second, 1500 * time.Millisecond, 1500 * time.Millisecond}, code: "service_unavailable"},
		{name: "NoRetries", opts: []client.Option{client.WithRetry(client.RetryPolicy{})}, script: fns(reply(503, errorBody("service_unavailable"))),
			requests: 1, code: "service_unavailable"},
		{name: "400NotRetried", script: fns(reply(400, errorBody("invalid_request"))), requests: 1, code: "invalid_request"},
		{name: "409ReusedNotRetried", script: fns(reply(422, errorBody("idempotency_key_reused"))), requests: 1, code: "idempotency_key_reused"},
		{name: "DroppedThenOK", script: fns(drop, reply(200, completed)), requests: 2, waits: []time.Duration{250 * time.Millisecond}},
		{name: "DroppedThenDuplicate", script: fns(drop, reply(200, duplicate, "Idempotent-Replayed", "true")),
			requests: 2, waits: []time.Duration{250 * time.Millisecond}, code: "duplicate"},
		{name: "CallerKeyDroppedThenOK", key: "order-7731", script: fns(drop, reply(200, completed)), requests: 2, waits: []time.Duration{250 * time.Millisecond}},
		// Without a key a run that may have reached Sluice is never sent again; a 429 is.
		{name: "NoKeyDropped", opts: []client.Option{client.WithoutIdempotencyKeys()}, script: fns(drop, reply(200, completed)), requests: 1, code: "conn"},
		{name: "NoKey503", opts: []client.Option{client.WithoutIdempotencyKeys()}, script: fns(reply(503, errorBody("service_unavailable")), reply(200, completed)),
			requests: 1, code: "service_unavailable"},
		{name: "NoKey429", opts: []client.Option{client.WithoutIdempotencyKeys()}, script: fns(reply(429, errorBody("rate_limited"), "Retry-After", "3"), reply(200, completed)),
			requests: 2, waits: []time.Duration{3 * time.Second}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newScripted(t, tc.script...)
			c := &clock{}
			req := pii
			req.IdempotencyKey = tc.key
			resp, err := newClient(s, c, tc.opts...).Run(t.Context(), req)
			reqs := s.requests()
			if len(reqs) != tc.requests || !reflect.DeepEqual(c.recorded(), tc.waits) {
				t.Fatalf("%d requests, waits %v; want %d, %v (err %v)", len(reqs), c.recorded(), tc.requests, tc.waits, err)
			}
			checkOutcome(t, resp, err, tc.code)
			// Every attempt of one call carries the same key: the caller's, or one the client
			// made; none without keys.
			key := reqs[0].header.Get("Idempotency-Key")
			switch {
			case tc.key != "" && key != tc.key,
				tc.key == "" && tc.opts == nil && !strings.HasPrefix(key, "sluice-go-"),
				len(tc.opts) > 0 && tc.name[:5] == "NoKey" && key != "":
				t.Fatalf("Idempotency-Key = %q", key)
			}
			for _, r := range reqs[1:] {
				if r.header.Get("Idempotency-Key") != key || r.body != reqs[0].body {
					t.Fatalf("a retry changed the key or the body: %q %q", r.header.Get("Idempotency-Key"), key)
				}
			}
		})
	}
}

func fns(f ...func(http.ResponseWriter, *http.Request)) []func(http.ResponseWriter, *http.Request) {
	return f
}

// checkOutcome checks Run's result against want: "" (success), "conn", "duplicate" or a code.
func checkOutcome(t *testing.T, resp *client.RunResponse, err error, want string) {
	t.Helper()
	var e *client.Error
	var d *client.DuplicateError
	switch want {
	case "":
		if err != nil || resp.Status != client.StatusCompleted {
			t.Fatalf("run = %+v, %v", resp, err)
		}
	case "duplicate":
		if !errors.Is(err, client.ErrDuplicate) || !errors.As(err, &d) || d.TraceID != "sluice_01KAQ3ZQ6Y5M2V8B8W3J3K6N1D" ||
			!d.Retried || d.RequestID != "r-1" || resp.TraceID != d.TraceID || resp.Status != client.StatusDuplicate {
			t.Fatalf("run = %+v, %v; want a duplicate of the first attempt", resp, err)
		}
	case "conn":
		if err == nil || errors.As(err, &e) || resp != nil {
			t.Fatalf("run = %+v, %v; want a connection error", resp, err)
		}
	default:
		if !errors.As(err, &e) || e.Code != want || resp != nil {
			t.Fatalf("run = %+v, %v; want %s", resp, err, want)
		}
	}
}

func TestContextDeadlineWins(t *testing.T) {
	t.Run("WaitPastDeadlineNotStarted", func(t *testing.T) {
		s := newScripted(t, reply(429, errorBody("rate_limited"), "Retry-After", "30"))
		c := &clock{}
		ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
		defer cancel()
		_, err := newClient(s, c).Usage(ctx)
		var e *client.Error
		if !errors.As(err, &e) || e.Code != client.CodeRateLimited || e.RetryAfter != 30*time.Second || len(c.recorded()) != 0 || len(s.requests()) != 1 {
			t.Fatalf("err %v, waits %v, %d requests; want the 429 at once", err, c.recorded(), len(s.requests()))
		}
	})
	t.Run("ContextEndsDuringWait", func(t *testing.T) {
		s := newScripted(t, reply(503, errorBody("service_unavailable")))
		ctx, cancel := context.WithCancel(t.Context())
		c := &clock{onSleep: cancel}
		_, err := newClient(s, c).Services(ctx)
		var e *client.Error
		if !errors.Is(err, context.Canceled) || !errors.As(err, &e) || e.Code != client.CodeServiceUnavailable || len(s.requests()) != 1 {
			t.Fatalf("err %v after %d requests; want context.Canceled wrapping the 503", err, len(s.requests()))
		}
	})
	t.Run("ContextEndsDuringAttempt", func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		s := newScripted(t, func(w http.ResponseWriter, r *http.Request) { cancel(); <-r.Context().Done() })
		c := &clock{}
		_, err := newClient(s, c).Run(ctx, pii)
		if !errors.Is(err, context.Canceled) || len(c.recorded()) != 0 {
			t.Fatalf("err %v, waits %v; want context.Canceled and no retry", err, c.recorded())
		}
	})
}

func TestReads(t *testing.T) {
	s := newScripted(t,
		reply(200, `{"name":"governance.pii.redact","kind":"transform","version":2,"description":"d","accepts":["text"],"emits":"same",
 "billing_unit":"characters","languages":["any"],"params":{"mask":{"type":"string","default":"[REDACTED]","max_length":64,"description":"m"}},
 "model":{"id":"sluice-pii-v2","license":"proprietary"}}`),
		reply(200, `{"services":[{"name":"a","kind":"classify","version":1,"description":"d","accepts":["text"],"emits":"same","billing_unit":"characters",
 "languages":["en"],"params":{},"labels":["x"],"model":{"id":"m","license":"l"}}]}`),
		reply(200, `{"account_id":"acct_1","month":"2026-11","characters":1500000,"runs":812,"price_tier":"tier2","cost_micro_usd":26000000,
 "cost_usd":"26.000000","allowance":10000000,"allowance_left":8500000,"tier":"standard","rate_limit":600,"rate_window_seconds":60}`),
		reply(404, errorBody("service_not_found")))
	c := newClient(s, &clock{})
	d, err := c.Service(t.Context(), "governance.pii.redact")
	if err != nil || d.Kind != client.KindTransform || *d.Params["mask"].MaxLength != 64 || string(d.Params["mask"].Default) != `"[REDACTED]"` || d.RateLimit.Remaining != 599 {
		t.Fatalf("descriptor = %+v, %v", d, err)
	}
	l, err := c.Services(t.Context())
	if err != nil || len(l.Services) != 1 || l.Services[0].Labels[0] != "x" || l.RateLimit.Limit != 600 {
		t.Fatalf("services = %+v, %v", l, err)
	}
	u, err := c.Usage(t.Context())
	if err != nil || u.Characters != 1500000 || u.CostMicroUSD != 26000000 || u.RequestsPerWindow != 600 || u.WindowSeconds != 60 || u.RateLimit.Reset != 42*time.Second {
		t.Fatalf("usage = %+v, %v", u, err)
	}
	_, err = c.Service(t.Context(), "no such/service")
	var e *client.Error
	if !errors.As(err, &e) || e.HTTPStatus != 404 || e.Code != client.CodeServiceNotFound {
		t.Fatalf("unknown service = %v", err)
	}
	paths := []string{}
	for _, r := range s.requests() {
		if r.method != http.MethodGet || r.header.Get("Content-Type") != "" || r.header.Get("Idempotency-Key") != "" {
			t.Fatalf("read request = %+v", r)
		}
		paths = append(paths, r.path)
	}
	if want := []string{"/v1/services/governance.pii.redact", "/v1/services", "/v1/usage", "/v1/services/no%20such%2Fservice"}; !reflect.DeepEqual(paths, want) {
		t.Fatalf("paths = %q, want %q", paths, want)
	}
}

func TestConnectionRefusedIsRetriedWithoutKey(t *testing.T) {
	// A port nobody listens on: the request never left, so even a run without a key may be
	// retried.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	c := &clock{}
	cl := client.New("k", client.WithBaseURL("http://"+addr), client.WithClock(c.sleep, noJitter), client.WithoutIdempotencyKeys())
	_, err = cl.Run(t.Context(), pii)
	var op *net.OpError
	if !errors.As(err, &op) || op.Op != "dial" || len(c.recorded()) != 3 {
		t.Fatalf("err %v after waits %v; want a dial error after 3 retries", err, c.recorded())
	}
}

func TestBadBaseURL(t *testing.T) {
	for _, u := range []string{"", "127.0.0.1:8080", "ftp://x", "http://"} {
		c := &clock{}
		_, err := client.New("k", client.WithBaseURL(u), client.WithClock(c.sleep, noJitter)).Usage(t.Context())
		if err == nil || !strings.Contains(err.Error(), "base URL") || len(c.recorded()) != 0 {
			t.Fatalf("base URL %q: %v after waits %v; want the base URL's error at once", u, err, c.recorded())
		}
	}
}

func TestDuplicateOfAnEarlierCall(t *testing.T) {
	// The caller's key already ran in an earlier call: a duplicate on the first attempt.
	s := newScripted(t, reply(200, duplicate, "Idempotent-Replayed", "true"))
	req := pii
	req.IdempotencyKey = "order-7731"
	resp, err := newClient(s, &clock{}).Run(t.Context(), req)
	var d *client.DuplicateError
	if !errors.As(err, &d) || d.Retried || d.IdempotencyKey != "order-7731" || resp.Status != client.StatusDuplicate ||
		!strings.Contains(err.Error(), "order-7731 already ran") {
		t.Fatalf("run = %+v, %v", resp, err)
	}
}

func TestBackoffJitterBounds(t *testing.T) {
	// With the largest jitter, each wait stays below twice its floor, and a Retry-After below
	// itself plus the base delay.
	s := newScripted(t, reply(503, errorBody("service_unavailable")), reply(503, errorBody("service_unavailable")),
		reply(429, errorBody("rate_limited"), "Retry-After", "2"), reply(200, completed))
	c := &clock{}
	cl := client.New("k", client.WithBaseURL(s.URL), client.WithClock(c.sleep, func(n int64) int64 { return n - 1 }))
	if _, err := cl.Run(t.Context(), pii); err != nil {
		t.Fatal(err)
	}
	want := []time.Duration{500*time.Millisecond - 1, time.Second - 1, 2*time.Second + 500*time.Millisecond - 1}
	if !reflect.DeepEqual(c.recorded(), want) {
		t.Fatalf("waits %v, want %v", c.recorded(), want)
	}
}

// TestMaybeBilled: a run that may have been billed without Sluice confirming it ends in a
// *MaybeBilledError (ErrMaybeBilled) carrying the key to send it again under, never a bare 409
// that invites a new call (and a second bill); a 409 that no attempt of this call caused stays
// an *Error.
func TestMaybeBilled(t *testing.T) {
	unconfirmed := reply(502, errorBody("billing_unconfirmed"))
	inUse := reply(409, errorBody("idempotency_key_in_use"), "Retry-After", "1")
	for _, tc := range []struct {
		name     string
		opts     []client.Option
		key      string
		script   []func(http.ResponseWriter, *http.Request)
		requests int
		want     string // "duplicate", "maybe" (a *MaybeBilledError) or an *Error's code
		last     string // the *MaybeBilledError's last code
	}{
		{name: "UnconfirmedThenDuplicate", script: fns(unconfirmed, reply(200, duplicate, "Idempotent-Replayed", "true")), requests: 2, want: "duplicate"},
		{name: "UnconfirmedThenInUse", script: fns(unconfirmed, inUse), requests: 4, want: "maybe", last: "idempotency_key_in_use"},
		{name: "DroppedThenInUse", key: "order-7731", script: fns(drop, inUse), requests: 4, want: "maybe", last: "idempotency_key_in_use"},
		{name: "UnconfirmedEveryTime", script: fns(unconfirmed), requests: 4, want: "maybe", last: "billing_unconfirmed"},
		{name: "NoKeyUnconfirmed", opts: []client.Option{client.WithoutIdempotencyKeys()}, script: fns(unconfirmed, reply(200, completed)), requests: 1, want: "maybe", last: "billing_unconfirmed"},
		{name: "InUseByAnotherCall", key: "order-7731", script: fns(inUse), requests: 4, want: "idempotency_key_in_use"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newScripted(t, tc.script...)
			req := pii
			req.IdempotencyKey = tc.key
			resp, err := newClient(s, &clock{}, tc.opts...).Run(t.Context(), req)
			reqs := s.requests()
			if len(reqs) != tc.requests {
				t.Fatalf("%d requests, want %d (err %v)", len(reqs), tc.requests, err)
			}
			var mb *client.MaybeBilledError
			var e *client.Error
			switch tc.want {
			case "duplicate":
				checkOutcome(t, resp, err, "duplicate")
			case "maybe":
				if !errors.Is(err, client.ErrMaybeBilled) || !errors.As(err, &mb) || mb.Last.Code != tc.last || resp != nil ||
					mb.IdempotencyKey != reqs[0].header.Get("Idempotency-Key") || !errors.As(err, &e) {
					t.Fatalf("run = %+v, %v; want a MaybeBilledError after %s", resp, err, tc.last)
				}
			default:
				if errors.Is(err, client.ErrMaybeBilled) || !errors.As(err, &e) || e.Code != tc.want {
					t.Fatalf("run = %+v, %v; want a bare %s", resp, err, tc.want)
				}
			}
		})
	}
}
