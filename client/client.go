package client

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	mrand "math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// Version is this client's version, sent in the User-Agent header.
const Version = "0.1.0"

// DefaultBaseURL is the local server that `make run` starts. On AWS, use your region's API URL,
// e.g. https://abc123.execute-api.eu-west-1.amazonaws.com/prod.
const DefaultBaseURL = "http://127.0.0.1:8080"

// maxAnswerBytes bounds how much of an answer is read. Sluice's largest answer (100,000
// characters of output, every step's result and a full tokenize map) is a few MB.
const maxAnswerBytes = 32 << 20

// Client calls the Sluice API. It is safe for concurrent use; make one and reuse it.
type Client struct {
	// key is a pointer to a string so that a Client inside another value, which fmt prints
	// field by field without this type's Format, shows an address, never the key (format.go).
	key       *secretKey
	base      string
	http      *http.Client
	retry     RetryPolicy
	userAgent string
	autoKeys  bool
	sleep     func(ctx context.Context, d time.Duration) error
	jitter    func(n int64) int64 // uniform in [0, n)
	// baseErr says why the base URL cannot be used; every call returns it.
	baseErr error
}

// Option configures a Client.
type Option func(*Client)

// WithBaseURL sets where the API is, e.g. "https://abc123.execute-api.eu-west-1.amazonaws.com/prod"
// (default DefaultBaseURL). A trailing slash is ignored.
func WithBaseURL(u string) Option {
	return func(c *Client) { c.base = strings.TrimRight(u, "/") }
}

// WithHTTPClient sets the HTTP client the requests go through (default: one with a 60-second
// timeout per attempt). Its timeout bounds one attempt; the context bounds the whole call.
func WithHTTPClient(h *http.Client) Option {
	return func(c *Client) { c.http = h }
}

// WithRetry sets the retry policy (default DefaultRetryPolicy). WithRetry(RetryPolicy{}) turns
// retries off.
func WithRetry(p RetryPolicy) Option {
	return func(c *Client) { c.retry = p }
}

// WithUserAgent puts product (e.g. "checkout-service/1.4") in front of the client's own
// User-Agent, so your calls can be told apart in Sluice's logs.
func WithUserAgent(product string) Option {
	return func(c *Client) { c.userAgent = strings.TrimSpace(product + " " + defaultUserAgent()) }
}

// WithoutIdempotencyKeys stops the client from making an Idempotency-Key for a Run whose
// RunRequest.IdempotencyKey is empty. Such a run is then never sent twice: it is retried only
// on answers that say it did not run (429) and on connections that could not be opened, so a
// lost answer is an error rather than a retry that could bill twice.
func WithoutIdempotencyKeys() Option {
	return func(c *Client) { c.autoKeys = false }
}

func defaultUserAgent() string {
	return "sluice-go/" + Version + " (" + runtime.Version() + ")"
}

// New returns a client that authenticates with apiKey (sluice_live_…). Keep the key on your
// servers: it is the billing identity of every character processed.
func New(apiKey string, opts ...Option) *Client {
	c := &Client{
		key:       newSecretKey(apiKey),
		base:      DefaultBaseURL,
		http:      &http.Client{Timeout: 60 * time.Second},
		retry:     DefaultRetryPolicy(),
		userAgent: defaultUserAgent(),
		autoKeys:  true,
		sleep:     sleepContext,
		jitter:    mrand.Int64N,
	}
	for _, o := range opts {
		o(c)
	}
	if u, err := url.Parse(c.base); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		c.baseErr = fmt.Errorf("sluice: the base URL %q is not http(s)://host[/path]", c.base)
	}
	return c
}

// Run runs req's pipeline over its input (POST /v1/run).
//
// It returns a *RunResponse for every run Sluice answered: completed, halted or failed. A failed
// run (status failed) also returns its *Error: the steps that completed before the failure are
// billed and their results are in the response. A duplicate (a repeat of an Idempotency-Key)
// returns the response, whose TraceID is the original run's, and a *DuplicateError. A request
// Sluice rejected returns a nil response and an *Error; nothing ran and nothing was billed.
//
// Run sends the request under an Idempotency-Key (RunRequest.IdempotencyKey, or a random one),
// so it can retry after a dropped connection, a 5xx, a 429 or a 409 without running it twice.
// When the run may have been billed but Sluice could not confirm it, Run returns a
// *MaybeBilledError (errors.Is(err, ErrMaybeBilled)) with the key to send it again under.
func (c *Client) Run(ctx context.Context, req RunRequest) (*RunResponse, error) {
	body, err := json.Marshal(req)
	if err != nil {
		return nil, fmt.Errorf("sluice: encode the run: %w", err)
	}
	key := req.IdempotencyKey
	if key == "" && c.autoKeys {
		key = newIdempotencyKey()
	}
	ans, err := c.call(ctx, request{method: http.MethodPost, path: "/v1/run", body: body, idempotencyKey: key})
	if err != nil {
		return nil, err
	}
	var resp RunResponse
	if err := json.Unmarshal(ans.body, &resp); err != nil {
		return nil, fmt.Errorf("sluice: decode the run's answer (trace %s): %w", ans.traceID, err)
	}
	resp.RateLimit = ans.rate
	switch resp.Status {
	case StatusFailed:
		if resp.Error == nil {
			resp.Error = &Error{Code: CodeStepFailed}
		}
		resp.Error.HTTPStatus = ans.status
		resp.Error.TraceID = resp.TraceID
		resp.Error.RateLimit = ans.rate
		return &resp, resp.Error
	case StatusDuplicate:
		// A key the client made for this call is new: only this call's own earlier attempt can
		// have used it (net/http may also resend a request under an Idempotency-Key by itself).
		return &resp, &DuplicateError{
			TraceID: resp.TraceID, RequestID: resp.RequestID, IdempotencyKey: key,
			Retried: ans.sentBefore || req.IdempotencyKey == "", RateLimit: ans.rate,
		}
	}
	return &resp, nil
}

// Service returns one service's descriptor (GET /v1/services/{name}); an unknown name is an
// *Error with CodeServiceNotFound.
func (c *Client) Service(ctx context.Context, name string) (*Descriptor, error) {
	var d Descriptor
	rate, err := c.get(ctx, "/v1/services/"+url.PathEscape(name), &d)
	if err != nil {
		return nil, err
	}
	d.RateLimit = rate
	return &d, nil
}

// Services returns every service's descriptor, sorted by name (GET /v1/services).
func (c *Client) Services(ctx context.Context) (*ServiceList, error) {
	var l ServiceList
	rate, err := c.get(ctx, "/v1/services", &l)
	if err != nil {
		return nil, err
	}
	l.RateLimit = rate
	return &l, nil
}

// Usage returns the calling account's month to date (GET /v1/usage).
func (c *Client) Usage(ctx context.Context) (*UsageReport, error) {
	var u UsageReport
	rate, err := c.get(ctx, "/v1/usage", &u)
	if err != nil {
		return nil, err
	}
	u.RateLimit = rate
	return &u, nil
}

func (c *Client) get(ctx context.Context, path string, out any) (RateLimit, error) {
	ans, err := c.call(ctx, request{method: http.MethodGet, path: path})
	if err != nil {
		return RateLimit{}, err
	}
	if err := json.Unmarshal(ans.body, out); err != nil {
		return RateLimit{}, fmt.Errorf("sluice: decode GET %s (trace %s): %w", path, ans.traceID, err)
	}
	return ans.rate, nil
}

// request is one API call.
type request struct {
	method, path   string
	body           []byte // nil: none
	idempotencyKey string
}

// replayable reports whether the request may be sent again after it may have reached Sluice:
// reads always, a run only under an Idempotency-Key.
func (r request) replayable() bool {
	return r.method == http.MethodGet || r.idempotencyKey != ""
}

// answer is a 2xx answer.
type answer struct {
	status  int
	body    []byte
	rate    RateLimit
	traceID string
	// sentBefore is true when an earlier attempt of the call may have reached Sluice.
	sentBefore bool
}

// call sends r, retrying under the client's policy, and returns the 2xx answer or the error.
//
// The rules: a retry waits a jittered, exponentially growing delay, or at least the Retry-After
// Sluice sent; the context's deadline always wins (a wait that would end past it is not started,
// and a wait in progress ends with the context); a request that may have reached Sluice is sent
// again only when it is replayable (see request.replayable).
func (c *Client) call(ctx context.Context, r request) (*answer, error) {
	if c.baseErr != nil {
		return nil, c.baseErr
	}
	// mayHaveRun: an earlier attempt may have started a run (it may hold the key).
	sentBefore, mayHaveRun := false, false
	for attempt := 0; ; attempt++ {
		ans, err := c.attempt(ctx, r)
		if err == nil {
			ans.sentBefore = sentBefore
			return ans, nil
		}
		if ctx.Err() != nil {
			return nil, err // the attempt's error already says the context ended
		}
		retry, wait := c.retryable(r, err)
		if !retry || attempt >= c.retry.MaxRetries {
			return nil, maybeBilled(r, err, mayHaveRun)
		}
		sentBefore = sentBefore || !notSent(err)
		mayHaveRun = mayHaveRun || mayHaveStarted(err)
		wait = c.retry.delay(attempt, wait, c.jitter)
		if dl, ok := ctx.Deadline(); ok && time.Until(dl) < wait {
			return nil, fmt.Errorf("sluice: not retrying: the next attempt (in %s) would start past the context's deadline: %w", wait.Round(time.Millisecond), err)
		}
		if serr := c.sleep(ctx, wait); serr != nil {
			return nil, fmt.Errorf("sluice: %w while waiting to retry, after: %w", serr, err)
		}
	}
}

// retryable reports whether err may be retried for r, and the wait Sluice asked for.
func (c *Client) retryable(r request, err error) (bool, time.Duration) {
	var e *Error
	if !errors.As(err, &e) {
		// No answer: a connection error. A request that was certainly not sent is always safe.
		return r.replayable() || notSent(err), 0
	}
	switch {
	case e.HTTPStatus == http.StatusTooManyRequests:
		// The rate window is checked before anything runs: safe even without a key.
		return true, e.RetryAfter
	case e.HTTPStatus == http.StatusConflict && e.Code == CodeIdempotencyKeyInUse,
		e.HTTPStatus == http.StatusRequestTimeout,
		e.HTTPStatus >= 500:
		return r.replayable(), e.RetryAfter
	}
	return false, 0
}

// maybeBilled is the final error of a call: a *MaybeBilledError when the run may have been
// billed, that is when Sluice answered billing_unconfirmed, or idempotency_key_in_use after an
// earlier attempt of this call may have started the run that holds the key (mayHaveRun).
func maybeBilled(r request, err error, mayHaveRun bool) error {
	var e *Error
	if !errors.As(err, &e) {
		return err
	}
	if e.Code == CodeBillingUnconfirmed || (mayHaveRun && e.Code == CodeIdempotencyKeyInUse) {
		return &MaybeBilledError{IdempotencyKey: r.idempotencyKey, Last: e}
	}
	return err
}

// mayHaveStarted reports whether the attempt that failed with err may have started a run: its
// answer was lost after the request left, or Sluice answered a 5xx (a 4xx, 408, 409 and 429
// included, is answered before anything runs).
func mayHaveStarted(err error) bool {
	var e *Error
	if errors.As(err, &e) {
		return e.HTTPStatus >= 500
	}
	return !notSent(err)
}

// notSent reports whether err happened before the request could leave: the connection could
// not be opened.
func notSent(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial"
}

// attempt sends r once. It returns the 2xx answer, an *Error for any other answer, or the
// connection's error.
func (c *Client) attempt(ctx context.Context, r request) (*answer, error) {
	var body io.Reader
	if r.body != nil {
		body = bytes.NewReader(r.body)
	}
	req, err := http.NewRequestWithContext(ctx, r.method, c.base+r.path, body)
	if err != nil {
		return nil, fmt.Errorf("sluice: %w", err)
	}
	req.Header.Set("Authorization", "Bearer "+string(*c.key))
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", c.userAgent)
	if r.body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if r.idempotencyKey != "" {
		req.Header.Set("Idempotency-Key", r.idempotencyKey)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, fmt.Errorf("sluice: %w", err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswerBytes+1))
	if err != nil {
		return nil, fmt.Errorf("sluice: %s %s: read the answer: %w", r.method, r.path, err)
	}
	if len(raw) > maxAnswerBytes {
		return nil, fmt.Errorf("sluice: %s %s: the answer is larger than %d bytes", r.method, r.path, maxAnswerBytes)
	}
	ans := &answer{status: resp.StatusCode, body: raw, rate: rateLimit(resp.Header), traceID: resp.Header.Get("X-Sluice-Trace-Id")}
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		return ans, nil
	}
	return nil, errorFrom(ans, resp.Header)
}

// errorFrom turns a non-2xx answer into an *Error. Sluice's envelope is
// {"error": {"code", "message", "param"?}, "trace_id"}; an answer that is not one (a proxy's
// HTML page, say) keeps its status with an empty code.
func errorFrom(a *answer, h http.Header) *Error {
	var env struct {
		Error   *Error `json:"error"`
		TraceID string `json:"trace_id"`
	}
	e := &Error{}
	if json.Unmarshal(a.body, &env) == nil && env.Error != nil {
		e = env.Error
	} else {
		e.Message = http.StatusText(a.status)
	}
	e.HTTPStatus = a.status
	e.TraceID = env.TraceID
	if e.TraceID == "" {
		e.TraceID = a.traceID
	}
	e.RateLimit = a.rate
	e.RetryAfter = retryAfter(h.Get("Retry-After"), time.Now())
	return e
}

// rateLimit reads the X-RateLimit-* headers.
func rateLimit(h http.Header) RateLimit {
	n := func(name string) int {
		v, _ := strconv.Atoi(h.Get(name))
		return v
	}
	return RateLimit{
		Limit:     n("X-RateLimit-Limit"),
		Remaining: n("X-RateLimit-Remaining"),
		Reset:     time.Duration(n("X-RateLimit-Reset")) * time.Second,
	}
}

// retryAfter reads a Retry-After value: seconds, or an HTTP date.
func retryAfter(v string, now time.Time) time.Duration {
	if v == "" {
		return 0
	}
	if s, err := strconv.Atoi(v); err == nil {
		return time.Duration(max(s, 0)) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0)
	}
	return 0
}

// newIdempotencyKey returns a random key: 128 bits, hex.
func newIdempotencyKey() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go 1.24+)
	return "sluice-go-" + hex.EncodeToString(b[:])
}

func sleepContext(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
