// Package local runs Sluice on one machine: an HTTP server that plays API Gateway (routes, body
// limit, read and integration timeouts), the authorizer (Bearer key -> account) and both
// handlers, on the embedded SQLite store with secrets kept in the data directory.
package local

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"time"

	"github.com/sluice-api/sluice/internal/api"
	"github.com/sluice-api/sluice/internal/pipeline"
	"github.com/sluice-api/sluice/internal/routes"
	"github.com/sluice-api/sluice/internal/store"
)

// Gateway is the http.Handler that routes to the api.Server.
type Gateway struct {
	api *api.Server
	// timeout plays API Gateway's integration timeout: the handler's deadline, which starts once
	// the request has been read (0: no deadline).
	timeout time.Duration
	now     func() time.Time
}

// NewGateway returns the handler for srv; every handler runs with a deadline of timeout from
// the moment its request (the body included) has been read.
func NewGateway(srv *api.Server, timeout time.Duration) *Gateway {
	return &Gateway{api: srv, timeout: timeout, now: time.Now}
}

// ServeHTTP routes like API Gateway, by the API's route table: first the route (404/405), then
// the authorizer (401), then the body, then the handler under its deadline.
func (g *Gateway) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	defer func() {
		if p := recover(); p != nil {
			write(w, g.api.Internal(p))
		}
	}()
	rt, params, ok := routes.Match(r.URL.Path)
	if !ok {
		write(w, g.api.NotFound())
		return
	}
	switch rt.ID {
	case routes.Run:
		g.route(w, r, rt.Method, func(a store.Account) api.Response {
			body, err := io.ReadAll(io.LimitReader(r.Body, pipeline.MaxBodyBytes+1))
			if timedOut(err) {
				// The body did not arrive within the server's read timeout. net/http has
				// cancelled the request's context on that read error; the answer still goes out.
				ctx, cancel := g.deadline(context.WithoutCancel(r.Context()))
				defer cancel()
				return g.api.RequestTimeout(ctx, a)
			}
			ctx, cancel := g.deadline(r.Context())
			defer cancel()
			if err != nil {
				body = nil // the client went away or sent a broken body: answered as invalid_json
			}
			return g.api.Run(ctx, a, api.Request{Header: r.Header, Body: body})
		})
	case routes.Service:
		g.route(w, r, rt.Method, g.read(r, func(ctx context.Context, a store.Account) api.Response {
			return g.api.Service(ctx, a, params["name"])
		}))
	case routes.Services:
		g.route(w, r, rt.Method, g.read(r, g.api.Services))
	case routes.Usage:
		g.route(w, r, rt.Method, g.read(r, g.api.Usage))
	case routes.OpenAPI:
		g.route(w, r, rt.Method, g.read(r, g.api.OpenAPI))
	default: // a route added to the table and not here
		write(w, g.api.Internal(fmt.Errorf("local: no handler for route %s", rt.ID)))
	}
}

// read adapts a read-only handler: it runs under the handler deadline, which starts now.
func (g *Gateway) read(r *http.Request, handle func(context.Context, store.Account) api.Response) func(store.Account) api.Response {
	return func(a store.Account) api.Response {
		ctx, cancel := g.deadline(r.Context())
		defer cancel()
		return handle(ctx, a)
	}
}

// deadline bounds a handler from now on.
func (g *Gateway) deadline(ctx context.Context) (context.Context, context.CancelFunc) {
	if g.timeout <= 0 {
		return context.WithCancel(ctx)
	}
	return context.WithDeadline(ctx, g.now().Add(g.timeout))
}

// timedOut reports a read that failed on the connection's read deadline.
func timedOut(err error) bool {
	var ne net.Error
	return errors.Is(err, os.ErrDeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout())
}

// route answers a known route: the method, then the key (exactly one Authorization header),
// then the handler.
func (g *Gateway) route(w http.ResponseWriter, r *http.Request, method string, handle func(store.Account) api.Response) {
	if r.Method != method {
		write(w, g.api.MethodNotAllowed(method))
		return
	}
	actx, cancel := g.deadline(r.Context())
	a, deny := g.api.Authenticate(actx, api.Authorization(r.Header))
	cancel()
	if deny != nil {
		write(w, *deny)
		return
	}
	resp := handle(a)
	if resp.Status == http.StatusRequestTimeout {
		// The rest of a late body may still come; this connection is done.
		w.Header().Set("Connection", "close")
	}
	write(w, resp)
}

func write(w http.ResponseWriter, resp api.Response) {
	for k, v := range resp.Header {
		w.Header()[k] = v
	}
	// The body is complete: say how long it is rather than streaming it in chunks.
	w.Header().Set("Content-Length", strconv.Itoa(len(resp.Body)))
	w.WriteHeader(resp.Status)
	_, _ = w.Write(resp.Body)
}
