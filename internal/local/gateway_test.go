package local

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sluice-api/sluice/internal/account"
	"github.com/sluice-api/sluice/internal/api"
	"github.com/sluice-api/sluice/internal/metering"
	"github.com/sluice-api/sluice/internal/pipeline"
	"github.com/sluice-api/sluice/internal/routes"
	"github.com/sluice-api/sluice/internal/services"
	"github.com/sluice-api/sluice/internal/store/sqlite"
)

const testKey = "sluice_live_0123456789abcdefghijABCDEFGHIJ01"

// deadlineLeft is a transform whose output is how long its context has left, in whole seconds.
type deadlineLeft struct{}

func (deadlineLeft) Descriptor() services.Descriptor {
	return services.Descriptor{Name: "test.deadline", Kind: services.KindTransform, Version: 1,
		Accepts: []string{"text"}, Emits: "same", BillingUnit: "characters", Languages: []string{"any"},
		Params: map[string]services.Param{}, Model: services.Model{ID: "fake", License: "test"}}
}

func (deadlineLeft) Run(ctx context.Context, r services.Request) (services.Result, error) {
	left := "none"
	if d, ok := ctx.Deadline(); ok {
		left = time.Until(d).Round(time.Second).String()
	}
	return services.Result{Payload: services.Payload{Type: "text", Value: left}}, nil
}

// syncBuffer is a log sink for concurrent writers.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// newTestGateway returns a gateway over a fresh SQLite store with one account (key testKey,
// rate limit 100), its server's log, and the api server.
func newTestGateway(t *testing.T, timeout time.Duration) (*Gateway, *syncBuffer) {
	t.Helper()
	logs := &syncBuffer{}
	log := slog.New(slog.NewJSONHandler(logs, nil))
	reg, err := services.NewRegistry(deadlineLeft{})
	if err != nil {
		t.Fatal(err)
	}
	engine, err := pipeline.New(reg, pipeline.WithLogger(log), pipeline.WithStepTimeout(24*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	st, err := sqlite.Open(filepath.Join(t.TempDir(), "local.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	accounts := account.NewManager(st, []byte("0123456789abcdef0123456789abcdef"), nil)
	if _, err := accounts.CreateWithKey(t.Context(), account.Settings{Region: "local", Tier: account.TierStandard, RateLimit: 100, Allowance: 1_000_000}, testKey); err != nil {
		t.Fatal(err)
	}
	srv := api.NewServer(metering.New(st, engine, metering.Config{Region: "local", TokenKey: []byte("tokenization-key-tokenization-key"), Log: log}), accounts, api.Config{Log: log})
	return NewGateway(srv, timeout), logs
}

const runBody = `{"input":{"type":"text","value":"hello"},"pipeline":[{"id":"d","service":"test.deadline"}]}`

// TestSlowBodyIs408: a client that sends its headers and part of a declared body, then nothing,
// is answered 408 request_timeout when the read timeout passes (no 503, no ERROR line), the
// answer counts in its rate window, and the connection is closed. The test's own waiting is on
// the server's answer; the read timeout is what ends it.
func TestSlowBodyIs408(t *testing.T) {
	g, logs := newTestGateway(t, 29*time.Second)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := newHTTPServer(g, Config{ReadTimeout: 300 * time.Millisecond, Log: slog.New(slog.NewJSONHandler(logs, nil))})
	go func() { _ = hs.Serve(ln) }()
	t.Cleanup(func() { hs.Close() })

	conn, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	partial := runBody[:20]
	head := "POST /v1/run HTTP/1.1\r\nHost: sluice\r\nAuthorization: Bearer " + testKey +
		"\r\nContent-Type: application/json\r\nContent-Length: " + itoa(len(runBody)) + "\r\n\r\n"
	if _, err := io.WriteString(conn, head+partial); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatalf("no answer to a late body: %v", err)
	}
	raw, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("body %q: %v", raw, err)
	}
	e, _ := m["error"].(map[string]any)
	if resp.StatusCode != http.StatusRequestTimeout || e["code"] != "request_timeout" || m["status"] != "failed" {
		t.Fatalf("late body = %d %s, want 408 request_timeout in the run shape", resp.StatusCode, raw)
	}
	if resp.Header.Get("X-RateLimit-Limit") != "100" || resp.Header.Get("X-RateLimit-Remaining") != "99" {
		t.Fatalf("rate headers %v, want the account's window with this request counted", resp.Header)
	}
	if !resp.Close {
		t.Error("the connection is kept open after a late body")
	}
	if _, err := br.ReadByte(); err == nil {
		t.Error("the server sent more after the 408")
	}
	out := logs.String()
	if !strings.Contains(out, `"level":"INFO","msg":"request"`) || !strings.Contains(out, `"code":"request_timeout"`) || !strings.Contains(out, `"status":408`) {
		t.Errorf("no INFO request line with code request_timeout:\n%s", out)
	}
	if strings.Contains(out, `"level":"ERROR"`) || strings.Contains(out, "hello") {
		t.Errorf("a late body is logged as an error or with its text:\n%s", out)
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// slowBody is a request body whose reading takes an hour on the gateway's clock.
type slowBody struct {
	r       io.Reader
	advance func()
}

func (b *slowBody) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	if err == io.EOF {
		b.advance()
	}
	return n, err
}

// TestDeadlineStartsAfterBody: the request's deadline (and with it every step's budget) is
// counted from the moment the body has been read, not from the first byte of the request. The
// gateway's clock moves an hour while the body is read; the step still has the whole timeout.
func TestDeadlineStartsAfterBody(t *testing.T) {
	g, _ := newTestGateway(t, 2*time.Hour)
	var offset atomic.Int64
	g.now = func() time.Time { return time.Now().Add(time.Duration(offset.Load())) }
	body := &slowBody{r: strings.NewReader(runBody), advance: func() { offset.Store(int64(time.Hour)) }}
	req := httptest.NewRequest(http.MethodPost, "/v1/run", body)
	req.Header.Set("Authorization", "Bearer "+testKey)
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	g.ServeHTTP(rec, req)
	var m map[string]any
	if err := json.Unmarshal(rec.Body.Bytes(), &m); err != nil || rec.Code != 200 {
		t.Fatalf("run = %d %s", rec.Code, rec.Body)
	}
	left := m["output"].(map[string]any)["value"].(string)
	d, err := time.ParseDuration(left)
	if err != nil {
		t.Fatalf("step saw deadline %q", left)
	}
	// The gateway's clock is an hour ahead once the body is in: a deadline taken before the
	// body would leave the step about 2h - 1h; taken after it, about 2h + 1h of real time.
	if d < 2*time.Hour+30*time.Minute {
		t.Fatalf("the step had %v left; the deadline started before the body was read", d)
	}
}

// TestOneAuthorizationHeader: two Authorization headers are refused even when both carry the
// account's key.
func TestOneAuthorizationHeader(t *testing.T) {
	g, _ := newTestGateway(t, time.Minute)
	for _, tc := range []struct {
		name   string
		keys   []string
		status int
	}{
		{"One", []string{testKey}, 200},
		{"TwoSame", []string{testKey, testKey}, 401},
		{"TwoDifferent", []string{testKey, "sluice_live_ZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZ"}, 401},
		{"None", nil, 401},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, path := range []string{"/v1/run", "/v1/usage"} {
				method := http.MethodGet
				if path == "/v1/run" {
					method = http.MethodPost
				}
				req := httptest.NewRequest(method, path, strings.NewReader(runBody))
				for _, k := range tc.keys {
					req.Header.Add("Authorization", "Bearer "+k)
				}
				req.Header.Set("Content-Type", "application/json")
				rec := httptest.NewRecorder()
				g.ServeHTTP(rec, req)
				if rec.Code != tc.status {
					t.Fatalf("%s %s = %d %s, want %d", method, path, rec.Code, rec.Body, tc.status)
				}
				if tc.status == 401 && !strings.Contains(rec.Body.String(), `"invalid_api_key"`) {
					t.Fatalf("%s: %s", path, rec.Body)
				}
			}
		})
	}
}

// TestRoutesByTable: the gateway routes as API Gateway does, by the route table: each route
// answers its own method (200 with the key), another method with 405 and Allow, and any other
// path with 404, whose message lists the routes.
func TestRoutesByTable(t *testing.T) {
	g, _ := newTestGateway(t, time.Minute)
	type call struct {
		method, path string
		status       int
		code, allow  string
	}
	var calls []call
	for _, r := range routes.All() {
		path := strings.ReplaceAll(r.Path, "{name}", "test.deadline")
		calls = append(calls, call{r.Method, path, 200, "", ""})
		other := http.MethodGet
		if r.Method == http.MethodGet {
			other = http.MethodDelete
		}
		calls = append(calls, call{other, path, 405, "method_not_allowed", r.Method})
	}
	for _, path := range []string{"/", "/v1", "/v1/services/", "/v1/services/a/b", "/v1/run/", "/v2/run"} {
		calls = append(calls, call{http.MethodGet, path, 404, "not_found", ""})
	}
	for _, c := range calls {
		t.Run(c.method+" "+c.path, func(t *testing.T) {
			req := httptest.NewRequest(c.method, c.path, strings.NewReader(runBody))
			req.Header.Set("Authorization", "Bearer "+testKey)
			req.Header.Set("Content-Type", "application/json")
			rec := httptest.NewRecorder()
			g.ServeHTTP(rec, req)
			var m struct {
				Error struct{ Code, Message string }
			}
			if err := json.Unmarshal(rec.Body.Bytes(), &m); err != nil {
				t.Fatalf("body %q", rec.Body)
			}
			if rec.Code != c.status || m.Error.Code != c.code || rec.Header().Get("Allow") != c.allow {
				t.Fatalf("%d %s (Allow %q), want %d %q (Allow %q)", rec.Code, rec.Body, rec.Header().Get("Allow"), c.status, c.code, c.allow)
			}
			if c.status == 404 && !strings.Contains(m.Error.Message, routes.Summary()) {
				t.Fatalf("404 message %q does not list the routes", m.Error.Message)
			}
		})
	}
}
