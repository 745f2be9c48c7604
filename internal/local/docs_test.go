package local

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// apiDocBlock returns the first ```json block of docs/api.md after the line containing marker.
func apiDocBlock(t *testing.T, marker string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "api.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	i := strings.Index(doc, marker)
	if i < 0 {
		t.Fatalf("docs/api.md has no %q", marker)
	}
	_, rest, ok := strings.Cut(doc[i:], "```json\n")
	block, _, closed := strings.Cut(rest, "```")
	if !ok || !closed {
		t.Fatalf("docs/api.md has no JSON block after %q", marker)
	}
	return block
}

// TestDocs401Example: the 401 example in docs/api.md is what the server answers for a missing,
// malformed, unknown or doubled key (the trace id aside).
func TestDocs401Example(t *testing.T) {
	type answer struct {
		Error struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	var doc answer
	if err := json.Unmarshal([]byte(apiDocBlock(t, "header answers `401`:")), &doc); err != nil {
		t.Fatalf("docs/api.md's 401 example is not JSON: %v", err)
	}
	g, _ := newTestGateway(t, time.Minute)
	for name, auth := range map[string][]string{
		"None":      nil,
		"Malformed": {"Bearer nope"},
		"Unknown":   {"Bearer sluice_live_ZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZ"},
		"NoBearer":  {testKey},
		"Twice":     {"Bearer " + testKey, "Bearer " + testKey},
	} {
		t.Run(name, func(t *testing.T) {
			req := httptest.NewRequest(http.MethodGet, "/v1/usage", nil)
			for _, v := range auth {
				req.Header.Add("Authorization", v)
			}
			rec := httptest.NewRecorder()
			g.ServeHTTP(rec, req)
			var got answer
			if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil || rec.Code != http.StatusUnauthorized {
				t.Fatalf("answer %d %s (%v)", rec.Code, rec.Body, err)
			}
			if got != doc {
				t.Errorf("the server answers %+v; docs/api.md's example says %+v", got.Error, doc.Error)
			}
		})
	}
}
