// Package local runs Sluice on one machine: an HTTP server that plays API Gateway (routes, body
// limit), the authorizer (Bearer key -> account) and both handlers, on the embedded SQLite store
// with secrets kept in the data directory.
package local

import (
	"io"
	"net/http"
	"strings"

	"github.com/sluice-api/sluice/internal/api"
	"github.com/sluice-api/sluice/internal/pipeline"
)

// Gateway is the http.Handler that routes to the api.Server.
type Gateway struct {
	api *api.Server
}

// NewGateway returns the handler for srv.
func NewGateway(srv *api.Server) *Gateway { return &Gateway{api: srv} }

const servicesPrefix = "/v1/services/"

// ServeHTTP routes like API Gateway: first the route (404/405), then the authorizer (401), then
// the handler.
func (g *Gateway) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	defer func() {
		if p := recover(); p != nil {
			write(w, g.api.Internal(p))
		}
	}()
	ctx := r.Context()
	switch {
	case r.URL.Path == "/v1/run":
		if r.Method != http.MethodPost {
			write(w, g.api.MethodNotAllowed(http.MethodPost))
			return
		}
		a, deny := g.api.Authenticate(ctx, r.Header.Get(api.HeaderAuthorization))
		if deny != nil {
			write(w, *deny)
			return
		}
		body, err := io.ReadAll(io.LimitReader(r.Body, pipeline.MaxBodyBytes+1))
		if err != nil {
			body = nil // the client went away or sent a broken body: answered as invalid_json
		}
		write(w, g.api.Run(ctx, a, api.Request{Header: r.Header, Body: body}))
	case strings.HasPrefix(r.URL.Path, servicesPrefix) && len(r.URL.Path) > len(servicesPrefix) &&
		!strings.Contains(r.URL.Path[len(servicesPrefix):], "/"):
		if r.Method != http.MethodGet {
			write(w, g.api.MethodNotAllowed(http.MethodGet))
			return
		}
		a, deny := g.api.Authenticate(ctx, r.Header.Get(api.HeaderAuthorization))
		if deny != nil {
			write(w, *deny)
			return
		}
		write(w, g.api.Service(ctx, a, r.URL.Path[len(servicesPrefix):]))
	case r.URL.Path == "/v1/usage":
		if r.Method != http.MethodGet {
			write(w, g.api.MethodNotAllowed(http.MethodGet))
			return
		}
		a, deny := g.api.Authenticate(ctx, r.Header.Get(api.HeaderAuthorization))
		if deny != nil {
			write(w, *deny)
			return
		}
		write(w, g.api.Usage(ctx, a))
	default:
		write(w, g.api.NotFound())
	}
}

func write(w http.ResponseWriter, resp api.Response) {
	for k, v := range resp.Header {
		w.Header()[k] = v
	}
	w.WriteHeader(resp.Status)
	_, _ = w.Write(resp.Body)
}
