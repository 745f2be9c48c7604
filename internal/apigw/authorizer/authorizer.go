// Package authorizer is Sluice's API Gateway REQUEST authorizer: it checks the Bearer key of
// every request and hands the account to the handlers in flat context values. It links only the
// key check (accounts and the store), no engine, model or service code, so its function starts
// fast and stays small.
package authorizer

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strings"

	"github.com/aws/aws-lambda-go/events"

	"github.com/sluice-api/sluice/internal/account"
	"github.com/sluice-api/sluice/internal/errcode"
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

// New returns an authorizer over auth that logs each decision (never the key).
func New(auth Authenticator, log *slog.Logger) *Authorizer {
	return &Authorizer{auth: auth, log: log}
}

// Handle authorizes one request. A bad key returns ErrUnauthorized; a store failure returns another
// error, which API Gateway answers with a 500 (mapped to Sluice's envelope by a gateway response).
func (a *Authorizer) Handle(ctx context.Context, req events.APIGatewayCustomAuthorizerRequestTypeRequest) (events.APIGatewayCustomAuthorizerResponse, error) {
	// Exactly one Authorization header: a repeated one is refused like a missing one.
	acct, err := a.auth.Authenticate(ctx, account.AuthorizationHeader(Headers(req.Headers, req.MultiValueHeaders)))
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

// Headers merges the single- and multi-value header maps into canonical form.
func Headers(single map[string]string, multi map[string][]string) http.Header {
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
