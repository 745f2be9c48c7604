package apigw

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/aws-lambda-go/events"

	"github.com/sluice-api/sluice/internal/account"
	"github.com/sluice-api/sluice/internal/api"
	"github.com/sluice-api/sluice/internal/errcode"
	"github.com/sluice-api/sluice/internal/pipeline"
	"github.com/sluice-api/sluice/internal/services"
	"github.com/sluice-api/sluice/internal/store"
	"github.com/sluice-api/sluice/internal/store/sqlite"
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

func fixture(t *testing.T, name string, v any) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "..", "events", name))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
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
			resp, err := NewAuthorizer(tc.auth, slog.New(slog.NewJSONHandler(&logs, nil))).Handle(t.Context(), req)
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

// TestAuthorizerTwoKeys: a request with two Authorization headers is Unauthorized even when both
// carry a valid key (API Gateway passes every value in multiValueHeaders).
func TestAuthorizerTwoKeys(t *testing.T) {
	var req events.APIGatewayCustomAuthorizerRequestTypeRequest
	fixture(t, "authorizer-allow.json", &req)
	one := req.Headers["Authorization"]
	if one == "" {
		t.Fatalf("fixture has no Authorization header: %v", req.Headers)
	}
	req.MultiValueHeaders = map[string][]string{"Authorization": {one, one}}
	auth := keyAuth{key: one, acct: store.Account{ID: "acct_1", Region: "eu-west-1"}}
	authorizer := NewAuthorizer(auth, slog.New(slog.DiscardHandler))
	if _, err := authorizer.Handle(t.Context(), req); err != ErrUnauthorized {
		t.Fatalf("two Authorization headers: err = %v, want Unauthorized", err)
	}
	req.MultiValueHeaders = map[string][]string{"Authorization": {one}}
	if _, err := authorizer.Handle(t.Context(), req); err != nil {
		t.Fatalf("one Authorization header: err = %v", err)
	}
}

// keyAuth accepts exactly one header value, as account.Manager does for one valid key.
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

func TestAccountFromContext(t *testing.T) {
	var req events.APIGatewayProxyRequest
	fixture(t, "run.json", &req)
	a, err := AccountFromContext(req.RequestContext.Authorizer)
	if err != nil || a.ID != "acct_FIXTURE" || a.Region != "eu-west-1" || a.RateLimit != 600 || a.Allowance != 10_000_000 {
		t.Fatalf("account = %+v, %v", a, err)
	}
	for _, tc := range []struct {
		name string
		ctx  map[string]any
	}{
		{"Empty", map[string]any{}},
		{"NoRegion", map[string]any{CtxAccountID: "a", CtxRateLimit: "1", CtxAllowance: "1"}},
		{"BadNumber", map[string]any{CtxAccountID: "a", CtxRegion: "r", CtxRateLimit: "x", CtxAllowance: "1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := AccountFromContext(tc.ctx); err == nil {
				t.Fatal("incomplete context accepted")
			}
		})
	}
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
	h := headers(map[string]string{"idempotency-key": "a", "X-Only-Single": "s"}, map[string][]string{"Idempotency-Key": {"a", "b"}})
	if got := h.Values("Idempotency-Key"); len(got) != 2 || h.Get("X-Only-Single") != "s" {
		t.Fatalf("headers = %v", h)
	}
}

type echoSvc struct{}

func (echoSvc) Descriptor() services.Descriptor {
	return services.Descriptor{Name: "test.echo", Kind: services.KindTransform, Version: 1, Accepts: []string{"text"},
		Emits: "same", BillingUnit: "characters", Languages: []string{"any"}, Params: map[string]services.Param{},
		Model: services.Model{ID: "fake", License: "test"}}
}

func (echoSvc) Run(_ context.Context, r services.Request) (services.Result, error) {
	return services.Result{Payload: r.Payload}, nil
}

// TestRunBodySizes: the run function answers 413 body_too_large for every body over 1 MiB that
// reaches it, as API Gateway passes it or base64-encoded (binary media types), and decodes a
// base64 body that fits.
func TestRunBodySizes(t *testing.T) {
	reg, err := services.NewRegistry(echoSvc{})
	if err != nil {
		t.Fatal(err)
	}
	engine, err := pipeline.New(reg)
	if err != nil {
		t.Fatal(err)
	}
	st, err := sqlite.Open(filepath.Join(t.TempDir(), "apigw.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	srv := api.NewServer(engine, st, account.NewManager(st, []byte("0123456789abcdef0123456789abcdef"), nil),
		[]byte("tokenization-key-tokenization-key"), api.Config{Region: "eu-west-1"})
	h := NewHandlers(srv)

	var base events.APIGatewayProxyRequest
	fixture(t, "run-rejected.json", &base)
	valid := `{"input":{"type":"text","value":"hello"},"pipeline":[{"id":"a","service":"test.echo"}]}`
	huge := `{"input":{"type":"text","value":"` + strings.Repeat("a", 3<<20) + `"},"pipeline":[{"id":"a","service":"test.echo"}]}`
	justOver := `{"input":{"type":"text","value":"` + strings.Repeat("a", pipeline.MaxBodyBytes-len(`{"input":{"type":"text","value":""}}`)+1) + `"}}`
	b64 := base64.StdEncoding.EncodeToString
	for _, tc := range []struct {
		name   string
		body   string
		base64 bool
		status int
		code   string
	}{
		{"Small", valid, false, 200, ""},
		{"SmallBase64", b64([]byte(valid)), true, 200, ""},
		{"JustOver", justOver, false, 413, "body_too_large"},
		{"JustOverBase64", b64([]byte(justOver)), true, 413, "body_too_large"},
		{"ThreeMB", huge, false, 413, "body_too_large"},
		{"ThreeMBBase64", b64([]byte(huge)), true, 413, "body_too_large"},
		// Its size decides before its encoding: a large body is 413 even when it is not
		// all valid base64 (it was invalid_json when the whole body was decoded first).
		{"ThreeMBBase64Truncated", b64([]byte(huge))[:3<<20+1], true, 413, "body_too_large"},
		{"NotBase64", "%%%not base64%%%", true, 400, "invalid_json"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := base
			req.Body, req.IsBase64Encoded = tc.body, tc.base64
			resp, err := h.Run(t.Context(), req)
			if err != nil {
				t.Fatal(err)
			}
			var m map[string]any
			if err := json.Unmarshal([]byte(resp.Body), &m); err != nil {
				t.Fatalf("body %q", resp.Body)
			}
			e, _ := m["error"].(map[string]any)
			if resp.StatusCode != tc.status || (tc.code != "" && e["code"] != tc.code) {
				t.Fatalf("got %d %v, want %d %s", resp.StatusCode, e, tc.status, tc.code)
			}
		})
	}
}
