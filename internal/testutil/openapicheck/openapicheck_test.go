package openapicheck

import (
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/sluice-api/sluice/internal/errcode"
)

func TestDocumentIsValidOpenAPI31(t *testing.T) {
	c, err := New()
	if err != nil {
		t.Fatal(err)
	}
	if !c.Doc().IsOpenAPI31OrLater() {
		t.Fatalf("openapi = %q, want 3.1", c.Doc().OpenAPI)
	}
	for _, path := range []string{"/v1/run", "/v1/services", "/v1/services/{name}", "/v1/usage", "/v1/openapi.json"} {
		if c.Doc().Paths.Value(path) == nil {
			t.Errorf("path %s is not documented", path)
		}
	}
}

// TestEveryCodeDocumented keeps the document's list of error codes equal to the code table.
func TestEveryCodeDocumented(t *testing.T) {
	c, err := New()
	if err != nil {
		t.Fatal(err)
	}
	var documented []string
	for _, v := range c.Doc().Components.Schemas["Error"].Value.Properties["code"].Value.Enum {
		documented = append(documented, v.(string))
	}
	slices.Sort(documented)
	var codes []string
	for code := range errcode.Codes() {
		codes = append(codes, code)
	}
	slices.Sort(codes)
	if !slices.Equal(documented, codes) {
		t.Fatalf("documented codes %v\n  != code table %v", documented, codes)
	}
}

func TestCheck(t *testing.T) {
	c, err := New()
	if err != nil {
		t.Fatal(err)
	}
	rate := func(h http.Header) http.Header {
		h["X-RateLimit-Limit"] = []string{"600"}
		h["X-RateLimit-Remaining"] = []string{"599"}
		h["X-RateLimit-Reset"] = []string{"12"}
		h.Set("Content-Type", "application/json")
		return h
	}
	for _, tc := range []struct {
		name, method, path string
		status             int
		header             http.Header
		body               string
		ok                 bool
	}{
		{"Usage", "GET", "/v1/usage", 200, rate(http.Header{}), `{"account_id":"a","month":"2026-11","characters":0,"runs":0,"price_tier":"tier1","cost_micro_usd":0,"cost_usd":"0.000000","allowance":10,"allowance_left":10,"tier":"free","rate_limit":600,"rate_window_seconds":60}`, true},
		{"UsageMissingField", "GET", "/v1/usage", 200, rate(http.Header{}), `{"account_id":"a"}`, false},
		{"UsageWithoutRateHeaders", "GET", "/v1/usage", 200, http.Header{"Content-Type": {"application/json"}}, `{"account_id":"a","month":"2026-11","characters":0,"runs":0,"price_tier":"tier1","cost_micro_usd":0,"cost_usd":"0","allowance":10,"allowance_left":10,"tier":"free","rate_limit":600,"rate_window_seconds":60}`, false},
		{"ServiceNotFound", "GET", "/v1/services/nope", 404, rate(http.Header{}), `{"error":{"code":"service_not_found","message":"no"},"trace_id":"sluice_01JC0000000000000000000000"}`, true},
		{"UndocumentedStatus", "GET", "/v1/services/nope", 418, rate(http.Header{}), `{"error":{"code":"not_found","message":"no"}}`, false},
		{"UnknownCode", "GET", "/v1/services/nope", 404, rate(http.Header{}), `{"error":{"code":"teapot","message":"no"}}`, false},
		{"UnknownRoute", "GET", "/v2/x", 404, rate(http.Header{}), `{"error":{"code":"not_found","message":"no such route"}}`, true},
		{"UnknownRouteAnswered200", "GET", "/v2/x", 200, rate(http.Header{}), `{}`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := httptest.NewRequest(tc.method, "http://127.0.0.1:39999"+tc.path, strings.NewReader(""))
			err := c.Check(req, tc.status, tc.header, []byte(tc.body))
			if (err == nil) != tc.ok {
				t.Fatalf("Check = %v, want ok=%v", err, tc.ok)
			}
		})
	}
}
