package apigw

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/aws-lambda-go/events"

	"github.com/sluice-api/sluice/internal/account"
	"github.com/sluice-api/sluice/internal/api"
	"github.com/sluice-api/sluice/internal/apigw/authorizer"
	"github.com/sluice-api/sluice/internal/metering"
	"github.com/sluice-api/sluice/internal/pipeline"
	"github.com/sluice-api/sluice/internal/services"
	"github.com/sluice-api/sluice/internal/store/sqlite"
)

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

// TestAuthorizerTwoKeys: a request with two Authorization headers is Unauthorized even when both
// carry a valid key (API Gateway passes every value in multiValueHeaders).
// keyAuth accepts exactly one header value, as account.Manager does for one valid key.
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
		{"NoRegion", map[string]any{authorizer.CtxAccountID: "a", authorizer.CtxRateLimit: "1", authorizer.CtxAllowance: "1"}},
		{"BadNumber", map[string]any{authorizer.CtxAccountID: "a", authorizer.CtxRegion: "r", authorizer.CtxRateLimit: "x", authorizer.CtxAllowance: "1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := AccountFromContext(tc.ctx); err == nil {
				t.Fatal("incomplete context accepted")
			}
		})
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

// testHandlers returns the handlers over a server with the echo service and an SQLite store.
func testHandlers(t *testing.T) *Handlers {
	t.Helper()
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
	srv := api.NewServer(metering.New(st, engine, metering.Config{Region: "eu-west-1", TokenKey: []byte("tokenization-key-tokenization-key")}),
		account.NewManager(st, []byte("0123456789abcdef0123456789abcdef"), nil), api.Config{})
	return NewHandlers(srv)
}

// TestReadRoutesByResource: the read-only function answers each of its resources (the
// events/ fixtures) by the route table, and a resource that is not its own with not_found.
func TestReadRoutesByResource(t *testing.T) {
	h := testHandlers(t)
	for _, tc := range []struct {
		event    string
		resource string // replaces the event's, when set
		status   int
		member   string // a member of the answer that only this route has, or the error code
	}{
		{"services.json", "", 200, "services"},
		{"service.json", "", 404, "service_not_found"}, // the fixture's service is not the echo server's
		{"usage.json", "", 200, "characters"},
		{"openapi.json", "", 200, "openapi"},
		{"services.json", "/v1/run", 404, "not_found"},
		{"services.json", "/v1/nothing", 404, "not_found"},
	} {
		t.Run(tc.event+tc.resource, func(t *testing.T) {
			var req events.APIGatewayProxyRequest
			fixture(t, tc.event, &req)
			if tc.resource != "" {
				req.Resource = tc.resource
			}
			resp, err := h.Read(t.Context(), req)
			if err != nil {
				t.Fatal(err)
			}
			var m map[string]any
			if err := json.Unmarshal([]byte(resp.Body), &m); err != nil {
				t.Fatalf("body %q", resp.Body)
			}
			_, ok := m[tc.member]
			if e, isErr := m["error"].(map[string]any); isErr {
				ok = e["code"] == tc.member
			}
			if resp.StatusCode != tc.status || !ok {
				t.Fatalf("got %d %s, want %d with %q", resp.StatusCode, resp.Body, tc.status, tc.member)
			}
		})
	}
}

// TestRunBodySizes: the run function answers 413 body_too_large for every body over 1 MiB that
// reaches it, as API Gateway passes it or base64-encoded (binary media types), and decodes a
// base64 body that fits.
func TestRunBodySizes(t *testing.T) {
	h := testHandlers(t)
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
