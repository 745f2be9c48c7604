// Package apigw adapts Sluice's api.Server to API Gateway (REST API, Lambda proxy integration): it
// translates events to api.Request and api.Response back to events, and rebuilds the account the
// authorizer (package apigw/authorizer) put in the request context, so the handlers never check
// the key again.
package apigw

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"

	"github.com/aws/aws-lambda-go/events"

	"github.com/sluice-api/sluice/internal/api"
	"github.com/sluice-api/sluice/internal/apigw/authorizer"
	"github.com/sluice-api/sluice/internal/pipeline"
	"github.com/sluice-api/sluice/internal/routes"
	"github.com/sluice-api/sluice/internal/store"
)

// AccountFromContext rebuilds the account the authorizer put in the request context.
func AccountFromContext(values map[string]any) (store.Account, error) {
	id, _ := values[authorizer.CtxAccountID].(string)
	region, _ := values[authorizer.CtxRegion].(string)
	tier, _ := values[authorizer.CtxTier].(string)
	rate, err1 := number(values[authorizer.CtxRateLimit])
	allowance, err2 := number(values[authorizer.CtxAllowance])
	if id == "" || region == "" || err1 != nil || err2 != nil {
		return store.Account{}, errors.New("apigw: authorizer context is incomplete")
	}
	return store.Account{ID: id, Region: region, Tier: tier, RateLimit: rate, Allowance: allowance}, nil
}

// number reads a context value: API Gateway passes context values to the integration as strings,
// while a direct invocation may carry JSON numbers.
func number(v any) (int64, error) {
	switch n := v.(type) {
	case float64:
		return int64(n), nil
	case int64:
		return n, nil
	case int:
		return int64(n), nil
	case string:
		return strconv.ParseInt(n, 10, 64)
	default:
		return 0, fmt.Errorf("apigw: not a number: %T", v)
	}
}

// Handlers serves the two proxy routes.
type Handlers struct {
	api *api.Server
}

// NewHandlers returns the proxy handlers over srv.
func NewHandlers(srv *api.Server) *Handlers { return &Handlers{api: srv} }

// Run handles POST /v1/run.
func (h *Handlers) Run(ctx context.Context, req events.APIGatewayProxyRequest) (events.APIGatewayProxyResponse, error) {
	acct, err := AccountFromContext(req.RequestContext.Authorizer)
	if err != nil {
		return toEvent(h.api.Internal(err)), nil
	}
	return toEvent(h.api.Run(ctx, acct, api.Request{Header: authorizer.Headers(req.Headers, req.MultiValueHeaders), Body: eventBody(req)})), nil
}

// eventBody returns the body of a proxy event as api.Request wants it: the body, or its first
// pipeline.MaxBodyBytes+1 bytes when it is larger (answered 413 body_too_large). A base64 body
// (API Gateway encodes binary media types) is decoded no further than that; one that is not
// valid base64 is answered invalid_json.
func eventBody(req events.APIGatewayProxyRequest) []byte {
	const keep = pipeline.MaxBodyBytes + 1
	if !req.IsBase64Encoded {
		return []byte(req.Body[:min(len(req.Body), keep)])
	}
	s := req.Body
	if limit := base64.StdEncoding.EncodedLen(keep); len(s) > limit {
		s = s[:limit] // whole groups of four characters: at least keep bytes decode from them
	}
	body, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return nil
	}
	return body
}

// Service handles GET /v1/services/{name}.
func (h *Handlers) Service(ctx context.Context, req events.APIGatewayProxyRequest) (events.APIGatewayProxyResponse, error) {
	acct, err := AccountFromContext(req.RequestContext.Authorizer)
	if err != nil {
		return toEvent(h.api.Internal(err)), nil
	}
	return toEvent(h.api.Service(ctx, acct, req.PathParameters["name"])), nil
}

// Usage handles GET /v1/usage.
func (h *Handlers) Usage(ctx context.Context, req events.APIGatewayProxyRequest) (events.APIGatewayProxyResponse, error) {
	return h.authorized(ctx, req, h.api.Usage)
}

// Read routes the read-only function's resources (routes.FunctionServices' routes in the
// API's route table) by the event's resource path.
func (h *Handlers) Read(ctx context.Context, req events.APIGatewayProxyRequest) (events.APIGatewayProxyResponse, error) {
	rt, _ := routes.ByResource(req.Resource)
	switch rt.ID {
	case routes.Usage:
		return h.Usage(ctx, req)
	case routes.Services:
		return h.authorized(ctx, req, h.api.Services)
	case routes.OpenAPI:
		return h.authorized(ctx, req, h.api.OpenAPI)
	case routes.Service:
		return h.Service(ctx, req)
	default: // the stack sends this function no other resource
		return toEvent(h.api.NotFound()), nil
	}
}

// authorized answers a route that needs only the account the authorizer resolved.
func (h *Handlers) authorized(ctx context.Context, req events.APIGatewayProxyRequest, handle func(context.Context, store.Account) api.Response) (events.APIGatewayProxyResponse, error) {
	acct, err := AccountFromContext(req.RequestContext.Authorizer)
	if err != nil {
		return toEvent(h.api.Internal(err)), nil
	}
	return toEvent(handle(ctx, acct)), nil
}

func toEvent(r api.Response) events.APIGatewayProxyResponse {
	single := make(map[string]string, len(r.Header))
	for k, v := range r.Header {
		if len(v) > 0 {
			single[k] = v[0]
		}
	}
	return events.APIGatewayProxyResponse{StatusCode: r.Status, Headers: single, MultiValueHeaders: r.Header, Body: string(r.Body)}
}
