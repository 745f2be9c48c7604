// Package local runs Sluice on one machine: an HTTP server that plays API Gateway (routes, body
// limit), the authorizer (Bearer key -> account) and both handlers, on the embedded SQLite store
// with secrets kept in the data directory.
package local

import (
	"context"
	"io"
	"net/http"
	"strings"

	"github.com/sluice-api/sluice/internal/api"
	"github.com/sluice-api/sluice/internal/pipeline"
	"github.com/sluice-api/sluice/internal/store"
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
	path := r.URL.Path
	switch {
	case path == "/v1/run":
		g.route(w, r, http.MethodPost, func(ctx context.Context, a store.Account) api.Response {
			body, err := io.ReadAll(io.LimitReader(r.Body, pipeline.MaxBodyBytes+1))
			if err != nil {
				body = nil // the client went away or sent a broken body: answered as invalid_json
			}
			return g.api.Run(ctx, a, api.Request{Header: r.Header, Body: body})
		})
	case strings.HasPrefix(path, servicesPrefix) && len(path) > len(servicesPrefix) &&
		!strings.Contains(path[len(servicesPrefix):], "/"):
		g.route(w, r, http.MethodGet, func(ctx context.Context, a store.Account) api.Response {
			return g.api.Service(ctx, a, path[len(servicesPrefix):])
		})
	case path == "/v1/services":
		g.route(w, r, http.MethodGet, g.api.Services)
	case path == "/v1/usage":
		g.route(w, r, http.MethodGet, g.api.Usage)
	case path == "/v1/openapi.json":
		g.route(w, r, http.MethodGet, g.api.OpenAPI)
	default:
		write(w, g.api.NotFound())
	}
}

// route answers a known route: the method, then the key, then the handler.
func (g *Gateway) route(w http.ResponseWriter, r *http.Request, method string, handle func(context.Context, store.Account) api.Response) {
	if r.Method != method {
		write(w, g.api.MethodNotAllowed(method))
		return
	}
	a, deny := g.api.Authenticate(r.Context(), r.Header.Get(api.HeaderAuthorization))
	if deny != nil {
		write(w, *deny)
		return
	}
	write(w, handle(r.Context(), a))
}

func write(w http.ResponseWriter, resp api.Response) {
	for k, v := range resp.Header {
		w.Header()[k] = v
	}
	w.WriteHeader(resp.Status)
	_, _ = w.Write(resp.Body)
}
