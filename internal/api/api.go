// Package api is Sluice's request/response layer, shared by the Lambda handlers and the local
// server: it authenticates keys, counts rate windows, runs pipelines under idempotency and the
// allowance, serves descriptors, and shapes every answer (error envelope, run shape, rate-limit
// headers, Retry-After, Idempotent-Replayed). It knows nothing of net/http servers or Lambda
// events: callers translate to and from Request and Response.
package api

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/sluice-api/sluice/internal/account"
	"github.com/sluice-api/sluice/internal/errcode"
	"github.com/sluice-api/sluice/internal/metering"
	"github.com/sluice-api/sluice/internal/routes"
	"github.com/sluice-api/sluice/internal/services"
	"github.com/sluice-api/sluice/internal/store"
)

// openAPIDocument is the OpenAPI 3.1 description of the whole API, served at
// GET /v1/openapi.json. Tests validate real responses against it, so it cannot drift.
//
//go:embed openapi.json
var openAPIDocument []byte

// OpenAPIDocument returns the OpenAPI 3.1 document of the API.
func OpenAPIDocument() []byte { return openAPIDocument }

// Headers Sluice reads or writes.
const (
	HeaderAuthorization  = "Authorization"
	HeaderContentType    = "Content-Type"
	HeaderIdempotencyKey = "Idempotency-Key"
	HeaderReplayed       = "Idempotent-Replayed"
	HeaderRateLimit      = "X-RateLimit-Limit"
	HeaderRateRemaining  = "X-RateLimit-Remaining"
	HeaderRateReset      = "X-RateLimit-Reset"
	HeaderRetryAfter     = "Retry-After"
	HeaderTraceID        = "X-Sluice-Trace-Id"
	// MaxIdempotencyKeyChars is the longest Idempotency-Key.
	MaxIdempotencyKeyChars = metering.MaxIdempotencyKeyChars
)

// Request is an HTTP request as the handlers need it.
type Request struct {
	Header http.Header
	// Body holds the body, or its first pipeline.MaxBodyBytes+1 bytes when it is larger.
	Body []byte
}

// Response is an HTTP response.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
}

// Config holds the server's settings; the run's own (region, idempotency, settle reserve) are
// metering.Config's.
type Config struct {
	Now func() time.Time
	Log *slog.Logger
	// Observe, when set, receives every request's observation (for metrics).
	Observe func(Observation)
}

// Observation is what one request leaves behind for logs and metrics: ids, statuses, counts and
// durations. It has no field that could hold request text.
type Observation struct {
	TraceID          string
	AccountID        string
	Route            string // "run", "service", "services", "usage", "openapi" or "auth"
	HTTPStatus       int
	Code             string // error code, if any
	RunStatus        string // completed, halted, failed, duplicate; empty when rejected
	HaltReason       string
	Steps            []StepObservation
	BilledCharacters int64
	Duration         time.Duration
}

// StepObservation is one executed step.
type StepObservation struct {
	Service  string
	Status   string
	Duration time.Duration
}

// Server answers Sluice's API: it translates HTTP to the metering use case and back.
type Server struct {
	runner   *metering.Runner
	accounts *account.Manager
	cfg      Config
}

// NewServer returns a server that runs pipelines with runner and authenticates with accounts.
func NewServer(runner *metering.Runner, accounts *account.Manager, cfg Config) *Server {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	return &Server{runner: runner, accounts: accounts, cfg: cfg}
}

// Authorization returns the request's Authorization header: "" when it is missing or sent more
// than once (two keys are as bad as none: 401 invalid_api_key, whichever of them is valid).
func Authorization(h http.Header) string { return account.AuthorizationHeader(h) }

// jsonBody reports whether h declares a JSON body: exactly one Content-Type, the media type
// application/json (any case), with well-formed parameters of which charset, if given, is
// UTF-8 (JSON is always UTF-8).
func jsonBody(h http.Header) bool {
	v := h.Values(HeaderContentType)
	if len(v) != 1 {
		return false
	}
	mt, params, err := mime.ParseMediaType(v[0])
	if err != nil || mt != "application/json" {
		return false
	}
	cs, ok := params["charset"]
	return !ok || strings.EqualFold(cs, "utf-8")
}

// Authenticate resolves an Authorization header to an account. On failure it returns the
// response to send: 401 invalid_api_key (rate-limit headers all 0) or 503.
func (s *Server) Authenticate(ctx context.Context, authorization string) (store.Account, *Response) {
	a, err := s.accounts.Authenticate(ctx, authorization)
	if err == nil {
		return a, nil
	}
	traceID := account.NewID("sluice", s.cfg.Now())
	e := s.failure(traceID, err)
	resp := envelope(traceID, e, account.NoQuota)
	s.record(ctx, Observation{TraceID: traceID, Route: "auth", HTTPStatus: resp.Status, Code: e.Code})
	return store.Account{}, &resp
}

// NotFound answers a request for an unknown route.
func (s *Server) NotFound() Response {
	traceID := account.NewID("sluice", s.cfg.Now())
	return envelope(traceID, errcode.New(errcode.NotFound, "no such route; the API has %s", routes.Summary()), account.NoQuota)
}

// Internal answers a request whose handling panicked: internal_error with the trace id; the cause
// goes to the log only.
func (s *Server) Internal(cause any) Response {
	traceID := account.NewID("sluice", s.cfg.Now())
	s.cfg.Log.Error("handler panicked", "trace_id", traceID, "panic_type", fmt.Sprintf("%T", cause))
	return envelope(traceID, errcode.As(nil), account.NoQuota)
}

// MethodNotAllowed answers a known route called with the wrong method.
func (s *Server) MethodNotAllowed(allow string) Response {
	traceID := account.NewID("sluice", s.cfg.Now())
	r := envelope(traceID, errcode.New(errcode.MethodNotAllowed, "this route accepts %s only", allow), account.NoQuota)
	r.Header.Set("Allow", allow)
	return r
}

// Service answers GET /v1/services/{name} for an authenticated account.
func (s *Server) Service(ctx context.Context, a store.Account, name string) Response {
	return s.read(ctx, a, "service", func(*metering.Gate) (any, error) {
		if _, d, ok := s.runner.Registry().Lookup(name); ok {
			return d, nil
		}
		return nil, errcode.At(errcode.ServiceNotFound, "", "service %q does not exist; GET /v1/services lists them", name)
	})
}

// ServiceList is the body of GET /v1/services.
type ServiceList struct {
	Services []services.Descriptor `json:"services"`
}

// Services answers GET /v1/services (an extension of the interface): every descriptor, sorted
// by name.
func (s *Server) Services(ctx context.Context, a store.Account) Response {
	return s.read(ctx, a, "services", func(*metering.Gate) (any, error) {
		reg := s.runner.Registry()
		list := ServiceList{Services: make([]services.Descriptor, 0, len(reg.Names()))}
		for _, name := range reg.Names() {
			_, d, _ := reg.Lookup(name)
			list.Services = append(list.Services, d)
		}
		return list, nil
	})
}

// OpenAPI answers GET /v1/openapi.json: the OpenAPI 3.1 document of the whole API.
func (s *Server) OpenAPI(ctx context.Context, a store.Account) Response {
	return s.read(ctx, a, "openapi", func(*metering.Gate) (any, error) { return json.RawMessage(openAPIDocument), nil })
}

// Usage answers GET /v1/usage: the calling account's month so far, the same figures as
// keyctl usage (characters, runs, price tier, cost, allowance left, rate-limit policy). The
// usage is the one the request's rate window read with it: no second store request.
func (s *Server) Usage(ctx context.Context, a store.Account) Response {
	return s.read(ctx, a, "usage", func(g *metering.Gate) (any, error) {
		return account.Report(a, g.Month(), g.Usage()), nil
	})
}

// read answers a read-only route: the region and the rate window, then body; an error from body
// becomes the error envelope (an internal one as service_unavailable, logged).
func (s *Server) read(ctx context.Context, a store.Account, route string, body func(*metering.Gate) (any, error)) Response {
	start := s.cfg.Now()
	g, e := s.runner.Enter(ctx, a, start)
	defer g.Close()
	if e == nil {
		v, err := body(g)
		if err == nil {
			resp := jsonResponse(http.StatusOK, g.TraceID, v, g.Quota)
			s.record(ctx, Observation{TraceID: g.TraceID, AccountID: a.ID, Route: route, HTTPStatus: resp.Status, Duration: s.cfg.Now().Sub(start)})
			return resp
		}
		e = s.failure(g.TraceID, err)
	}
	resp := envelope(g.TraceID, e, g.Quota)
	s.record(ctx, Observation{TraceID: g.TraceID, AccountID: a.ID, Route: route, HTTPStatus: resp.Status, Code: e.Code, Duration: s.cfg.Now().Sub(start)})
	return resp
}

// failure maps an error to what a client may see, logging anything internal.
func (s *Server) failure(traceID string, err error) *errcode.Error {
	var e *errcode.Error
	if errors.As(err, &e) {
		return e
	}
	s.cfg.Log.Error("dependency failed", "trace_id", traceID, "error", err.Error())
	return errcode.New(errcode.ServiceUnavailable, "a dependency is unavailable; retry shortly")
}

// record writes one log line per request and hands the observation to the observer. Never any
// request text: an Observation cannot hold it.
func (s *Server) record(ctx context.Context, o Observation) {
	args := []any{
		"trace_id", o.TraceID, "account_id", o.AccountID, "route", o.Route, "status", o.HTTPStatus,
		"duration_ms", o.Duration.Milliseconds(),
	}
	if o.Code != "" {
		args = append(args, "code", o.Code)
	}
	if o.RunStatus != "" {
		args = append(args, "run_status", o.RunStatus, "steps", len(o.Steps), "billed_characters", o.BilledCharacters)
	}
	if o.HaltReason != "" {
		args = append(args, "halt_reason", o.HaltReason)
	}
	s.cfg.Log.InfoContext(ctx, "request", args...)
	if s.cfg.Observe != nil {
		s.cfg.Observe(o)
	}
}

// errorBody is the error envelope, with the trace id so support can find the log line.
type errorBody struct {
	Error   *errcode.Error `json:"error"`
	TraceID string         `json:"trace_id,omitempty"`
}

func envelope(traceID string, e *errcode.Error, q account.Quota) Response {
	return jsonResponse(errcode.Status(e.Code), traceID, errorBody{Error: e, TraceID: traceID}, q)
}

// JSONSafetyHeaders returns the headers sent with every JSON answer of the API (API Gateway's
// own answers carry them too, see infra).
func JSONSafetyHeaders() map[string]string {
	return map[string]string{"X-Content-Type-Options": "nosniff", "Cache-Control": "no-store"}
}

func jsonResponse(status int, traceID string, v any, q account.Quota) Response {
	// No HTML escaping: the answer is JSON (nosniff, below), never HTML, and escaping spells each
	// < > & in six bytes, which let a short request buy a long answer. Encode ends with '\n'.
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	body := []byte(`{"error":{"code":"internal_error","message":"internal error"}}` + "\n")
	if err := enc.Encode(v); err == nil {
		body = buf.Bytes()
	} else { // only our own types are marshalled; this is a bug
		status = http.StatusInternalServerError
	}
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	// Every answer is one account's, about one request: no cache may keep it, and no browser
	// may read it as anything but JSON.
	for k, v := range JSONSafetyHeaders() {
		h.Set(k, v)
	}
	// The interface spells these X-RateLimit-*; http.Header.Set would write Go's canonical
	// X-Ratelimit-*, so they are stored under their exact names (SetExact).
	SetExact(h, HeaderRateLimit, strconv.FormatInt(q.Limit, 10))
	SetExact(h, HeaderRateRemaining, strconv.FormatInt(q.Remaining, 10))
	SetExact(h, HeaderRateReset, strconv.FormatInt(q.Reset, 10))
	if traceID != "" {
		h.Set(HeaderTraceID, traceID)
	}
	switch status {
	case http.StatusTooManyRequests:
		h.Set(HeaderRetryAfter, strconv.FormatInt(max(q.Reset, 1), 10))
	case http.StatusConflict, http.StatusServiceUnavailable:
		h.Set(HeaderRetryAfter, "1")
	}
	return Response{Status: status, Header: h, Body: body}
}

// SetExact sets header name to value under exactly that spelling, replacing any other spelling
// of the same name. HTTP header names are case-insensitive, but clients and the interface
// contract show them as written, and API Gateway passes them through unchanged.
func SetExact(h http.Header, name, value string) {
	h.Del(name)
	h[name] = []string{value}
}
