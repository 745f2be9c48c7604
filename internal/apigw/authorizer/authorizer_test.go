package authorizer

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"github.com/aws/aws-lambda-go/events"

	"github.com/sluice-api/sluice/internal/errcode"
	"github.com/sluice-api/sluice/internal/store"
)

type fakeAuth struct {
	acct store.Account
	err  error
	got  string
}

func (f *fakeAuth) Authenticate(_ context.Context, h string) (store.Account, error) {
	f.got = h
	return f.acct, f.err
}

func TestAuthorizer(t *testing.T) {
	acct := store.Account{ID: "acct_1", Region: "eu-west-1", Tier: "standard", RateLimit: 600, Allowance: 10_000_000, UsagePlanKey: "apikey-123"}
	for _, tc := range []struct {
		name    string
		fixture string
		auth    *fakeAuth
		wantErr error
		allow   bool
	}{
		{"Allow", "authorizer-allow.json", &fakeAuth{acct: acct}, nil, true},
		{"DenyBadKey", "authorizer-deny.json", &fakeAuth{err: errcode.New(errcode.InvalidAPIKey, "no")}, ErrUnauthorized, false},
		{"StoreDown", "authorizer-allow.json", &fakeAuth{err: errors.New("dynamodb: timeout")}, nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var req events.APIGatewayCustomAuthorizerRequestTypeRequest
			fixture(t, tc.fixture, &req)
			var logs bytes.Buffer
			resp, err := New(tc.auth, slog.New(slog.NewJSONHandler(&logs, nil))).Handle(t.Context(), req)
			if tc.auth.got == "" || tc.auth.got[:7] != "Bearer " {
				t.Fatalf("Authorization header not passed on (case-insensitive lookup): %q", tc.auth.got)
			}
			if bytes.Contains(logs.Bytes(), []byte("sluice_live_")) {
				t.Fatalf("the key reached the log: %s", logs.String())
			}
			if !tc.allow {
				if err == nil || (tc.wantErr != nil && err != tc.wantErr) || (tc.wantErr == nil && err == ErrUnauthorized) {
					t.Fatalf("err = %v, want %v", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			st := resp.PolicyDocument.Statement
			if resp.PrincipalID != "acct_1" || len(st) != 1 || st[0].Effect != "Allow" ||
				st[0].Resource[0] != "arn:aws:execute-api:eu-west-1:123456789012:abcdef1234/v1/*/*" {
				t.Fatalf("policy = %+v", resp)
			}
			if resp.UsageIdentifierKey != "apikey-123" || resp.Context[CtxAccountID] != "acct_1" || resp.Context[CtxRateLimit] != int64(600) {
				t.Fatalf("context = %+v", resp.Context)
			}
			for k, v := range resp.Context {
				switch v.(type) {
				case string, int64, bool:
				default:
					t.Fatalf("context %s is %T: API Gateway takes flat strings, numbers and booleans only", k, v)
				}
			}
		})
	}
}

func TestAuthorizerTwoKeys(t *testing.T) {
	var req events.APIGatewayCustomAuthorizerRequestTypeRequest
	fixture(t, "authorizer-allow.json", &req)
	one := req.Headers["Authorization"]
	if one == "" {
		t.Fatalf("fixture has no Authorization header: %v", req.Headers)
	}
	req.MultiValueHeaders = map[string][]string{"Authorization": {one, one}}
	auth := keyAuth{key: one, acct: store.Account{ID: "acct_1", Region: "eu-west-1"}}
	authorizer := New(auth, slog.New(slog.DiscardHandler))
	if _, err := authorizer.Handle(t.Context(), req); err != ErrUnauthorized {
		t.Fatalf("two Authorization headers: err = %v, want Unauthorized", err)
	}
	req.MultiValueHeaders = map[string][]string{"Authorization": {one}}
	if _, err := authorizer.Handle(t.Context(), req); err != nil {
		t.Fatalf("one Authorization header: err = %v", err)
	}
}

type keyAuth struct {
	key  string
	acct store.Account
}

func (k keyAuth) Authenticate(_ context.Context, h string) (store.Account, error) {
	if h != k.key {
		return store.Account{}, errcode.New(errcode.InvalidAPIKey, "no")
	}
	return k.acct, nil
}

func TestStageWildcard(t *testing.T) {
	for in, want := range map[string]string{
		"arn:aws:execute-api:eu-west-1:1:api/v1/GET/v1/services/x": "arn:aws:execute-api:eu-west-1:1:api/v1/*/*",
		"arn:aws:execute-api:eu-west-1:1:api/prod/POST/v1/run":     "arn:aws:execute-api:eu-west-1:1:api/prod/*/*",
		"garbage": "garbage",
	} {
		if got := StageWildcard(in); got != want {
			t.Errorf("StageWildcard(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestHeadersMerge(t *testing.T) {
	h := Headers(map[string]string{"idempotency-key": "a", "X-Only-Single": "s"}, map[string][]string{"Idempotency-Key": {"a", "b"}})
	if got := h.Values("Idempotency-Key"); len(got) != 2 || h.Get("X-Only-Single") != "s" {
		t.Fatalf("headers = %v", h)
	}
}

func fixture(t *testing.T, name string, v any) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "..", "..", "events", name))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
}
