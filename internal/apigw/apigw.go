// Package apigw adapts Sluice's api.Server to API Gateway (REST API, Lambda proxy integration) and
// implements the REQUEST authorizer: it translates events to api.Request and api.Response back to
// events, and carries the authenticated account from the authorizer to the handlers in the
// authorizer context, so the handlers never check the key again.
package apigw

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"strings"

	"github.com/aws/aws-lambda-go/events"

	"github.com/sluice-api/sluice/internal/api"
	"github.com/sluice-api/sluice/internal/errcode"
	"github.com/sluice-api/sluice/internal/pipeline"
	"github.com/sluice-api/sluice/internal/store"
)

// Authorizer context keys. Values are flat strings and numbers, as API Gateway requires.
const (
	CtxAccountID = "account_id"
	CtxRegion    = "region"
	CtxTier      = "tier"
	CtxRateLimit = "rate_limit"
	CtxAllowance = "allowance"
)

// ErrUnauthorized is the authorizer's answer to any bad key: API Gateway turns exactly this
// (capitalised) message into its UNAUTHORIZED (401) gateway response.
var ErrUnauthorized = errors.New("Unauthorized")

// Authenticator resolves an Authorization header to an account (account.Manager). A bad key is
// an *errcode.Error with code invalid_api_key; anything else is a dependency failure.
type Authenticator interface {
	Authenticate(ctx context.Context, authorization string) (store.Account, error)
}

// Authorizer is the Lambda REQUEST authorizer.
type Authorizer struct {
	auth Authenticator
	log  *slog.Logger
}

// NewAuthorizer returns an authorizer over auth that logs each decision (never the key).
func NewAuthorizer(auth Authenticator, log *slog.Logger) *Authorizer {
	return &Authorizer{auth: auth, log: log}
}

// Handle authorizes one request. A bad key returns ErrUnauthorized; a store failure returns another
// error, which API Gateway answers with a 500 (mapped to Sluice's envelope by a gateway response).
func (a *Authorizer) Handle(ctx context.Context, req events.APIGatewayCustomAuthorizerRequestTypeRequest) (events.APIGatewayCustomAuthorizerResponse, error) {
	// Exactly one Authorization header: a repeated one is refused like a missing one.
	acct, err := a.auth.Authenticate(ctx, api.Authorization(headers(req.Headers, req.MultiValueHeaders)))
	if err != nil {
		var e *errcode.Error
		if errors.As(err, &e) && e.Code == errcode.InvalidAPIKey {
			a.log.InfoContext(ctx, "authorize", "decision", "deny", "code", e.Code)
			return events.APIGatewayCustomAuthorizerResponse{}, ErrUnauthorized
		}
		a.log.ErrorContext(ctx, "authorize", "decision", "error", "error", err.Error())
		return events.APIGatewayCustomAuthorizerResponse{}, errors.New("authorizer: a dependency is unavailable")
	}
	a.log.InfoContext(ctx, "authorize", "decision", "allow", "account_id", acct.ID)
	return events.APIGatewayCustomAuthorizerResponse{
		PrincipalID: acct.ID,
		PolicyDocument: events.APIGatewayCustomAuthorizerPolicy{
			Version: "2012-10-17",
			Statement: []events.IAMPolicyStatement{{
				Action:   []string{"execute-api:Invoke"},
				Effect:   "Allow",
				Resource: []string{StageWildcard(req.MethodArn)},
			}},
		},
		Context: map[string]any{
			CtxAccountID: acct.ID,
			CtxRegion:    acct.Region,
			CtxTier:      acct.Tier,
			CtxRateLimit: acct.RateLimit,
			CtxAllowance: acct.Allowance,
		},
		UsageIdentifierKey: acct.UsagePlanKey,
	}, nil
}

// StageWildcard turns a method ARN (arn:aws:execute-api:region:acct:api/stage/METHOD/path...) into
// one that allows every method and path of the stage (.../stage/*/*). An Allow for the exact
// method ARN would be wrong once API Gateway caches the policy for another route.
func StageWildcard(methodARN string) string {
	parts := strings.SplitN(methodARN, "/", 3)
	if len(parts) < 2 {
		return methodARN
	}
	return parts[0] + "/" + parts[1] + "/*/*"
}

// AccountFromContext rebuilds the account the authorizer put in the request context.
func AccountFromContext(authorizer map[string]any) (store.Account, error) {
	id, _ := authorizer[CtxAccountID].(string)
	region, _ := authorizer[CtxRegion].(string)
	tier, _ := authorizer[CtxTier].(string)
	rate, err1 := number(authorizer[CtxRateLimit])
	allowance, err2 := number(authorizer[CtxAllowance])
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
	return toEvent(h.api.Run(ctx, acct, api.Request{Header: headers(req.Headers, req.MultiValueHeaders), Body: eventBody(req)})), nil
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

// Read routes the read-only function's resources: GET /v1/services, /v1/services/{name},
// /v1/usage and /v1/openapi.json.
func (h *Handlers) Read(ctx context.Context, req events.APIGatewayProxyRequest) (events.APIGatewayProxyResponse, error) {
	switch req.Resource {
	case "/v1/usage":
		return h.Usage(ctx, req)
	case "/v1/services":
		return h.authorized(ctx, req, h.api.Services)
	case "/v1/openapi.json":
		return h.authorized(ctx, req, h.api.OpenAPI)
	default:
		return h.Service(ctx, req)
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

// headers merges the single- and multi-value header maps into canonical form.
func headers(single map[string]string, multi map[string][]string) http.Header {
	h := http.Header{}
	for k, vs := range multi {
		for _, v := range vs {
			h.Add(k, v)
		}
	}
	for k, v := range single {
		if _, ok := h[http.CanonicalHeaderKey(k)]; !ok {
			h.Set(k, v)
		}
	}
	return h
}
