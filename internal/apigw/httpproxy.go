package apigw

import (
	"bytes"
	"context"
	"encoding/base64"
	"net/http"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/aws/aws-lambda-go/events"

	"github.com/sluice-api/sluice/internal/apigw/authorizer"
)

// HTTPHandler serves a plain http.Handler (the dashboard) behind a REST API's Lambda proxy
// integration: each event becomes an *http.Request and the handler's answer becomes the proxy
// response, with every header value kept (a page may set several cookies).
type HTTPHandler struct {
	h http.Handler
	// prepare, when set, receives each request with the path prefix the client used before the
	// resource path (the stage, e.g. "/prod"), so the handler can build links that work.
	prepare func(r *http.Request, prefix string) *http.Request
}

// NewHTTPHandler adapts h; prepare may be nil.
func NewHTTPHandler(h http.Handler, prepare func(*http.Request, string) *http.Request) *HTTPHandler {
	return &HTTPHandler{h: h, prepare: prepare}
}

// Handle answers one proxy event.
func (a *HTTPHandler) Handle(ctx context.Context, ev events.APIGatewayProxyRequest) (events.APIGatewayProxyResponse, error) {
	r, err := Request(ctx, ev)
	if err != nil {
		return events.APIGatewayProxyResponse{
			StatusCode:        http.StatusBadRequest,
			MultiValueHeaders: map[string][]string{"Content-Type": {"text/plain; charset=utf-8"}},
			Body:              "bad request\n",
		}, nil
	}
	if a.prepare != nil {
		r = a.prepare(r, StagePrefix(ev))
	}
	w := &responseRecorder{header: http.Header{}}
	a.h.ServeHTTP(w, r)
	return w.event(), nil
}

// Request builds the *http.Request of a proxy event.
func Request(ctx context.Context, ev events.APIGatewayProxyRequest) (*http.Request, error) {
	body := []byte(ev.Body)
	if ev.IsBase64Encoded {
		var err error
		if body, err = base64.StdEncoding.DecodeString(ev.Body); err != nil {
			return nil, err
		}
	}
	u := &url.URL{Path: ev.Path}
	q := url.Values{}
	for k, vs := range ev.MultiValueQueryStringParameters {
		q[k] = append(q[k], vs...)
	}
	for k, v := range ev.QueryStringParameters {
		if _, ok := q[k]; !ok {
			q.Set(k, v)
		}
	}
	u.RawQuery = q.Encode()
	r, err := http.NewRequestWithContext(ctx, ev.HTTPMethod, u.String(), bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	r.Header = authorizer.Headers(ev.Headers, ev.MultiValueHeaders)
	r.Host = r.Header.Get("Host")
	r.RemoteAddr = ev.RequestContext.Identity.SourceIP
	r.RequestURI = u.RequestURI()
	return r, nil
}

// StagePrefix is what the client's path has before the resource path: "/prod" for
// /prod/dashboard/keys on the execute-api domain; "" when nothing precedes it.
func StagePrefix(ev events.APIGatewayProxyRequest) string {
	full := ev.RequestContext.Path
	if ev.Path == "" || !strings.HasSuffix(full, ev.Path) {
		return ""
	}
	return strings.TrimSuffix(full, ev.Path)
}

// responseRecorder collects a handler's answer.
type responseRecorder struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (w *responseRecorder) Header() http.Header { return w.header }

func (w *responseRecorder) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
}

func (w *responseRecorder) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.body.Write(b)
}

// event is the proxy response: all header values in MultiValueHeaders, a UTF-8 body as text and
// anything else base64-encoded.
func (w *responseRecorder) event() events.APIGatewayProxyResponse {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	resp := events.APIGatewayProxyResponse{StatusCode: w.status, MultiValueHeaders: map[string][]string{}}
	for k, vs := range w.header {
		resp.MultiValueHeaders[k] = append([]string(nil), vs...)
	}
	if utf8.Valid(w.body.Bytes()) {
		resp.Body = w.body.String()
	} else {
		resp.Body, resp.IsBase64Encoded = base64.StdEncoding.EncodeToString(w.body.Bytes()), true
	}
	return resp
}
