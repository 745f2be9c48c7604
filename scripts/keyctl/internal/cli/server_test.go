package cli_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/sluice-api/sluice/internal/testutil/localserver"
)

// startServer runs the local server on the backend's store and data directory until the test
// ends, and returns its base URL.
func startServer(t *testing.T, b *backend) string {
	t.Helper()
	return localserver.Start(t, serverBinary, b.data, b.server...).Base
}

// call sends method path with key and returns the status and the decoded body.
func call(t *testing.T, method, url, key, body string) (int, map[string]any) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatalf("%s %s: not JSON: %q", method, url, raw)
	}
	return resp.StatusCode, doc
}

// TestWhileServerRuns manages keys with keyctl on the store of a running local server: the
// server sees every change on its very next request.
func TestWhileServerRuns(t *testing.T) { eachBackend(t, testWhileServerRuns) }

func testWhileServerRuns(t *testing.T, b *backend) {
	base := startServer(t, b)
	descriptor := base + "/v1/services/routing.language.detect"
	acct, oldKey := created(t, b.ok(t, "account", "create"))
	if status, body := call(t, http.MethodGet, descriptor, oldKey, ""); status != 200 {
		t.Fatalf("new account's key: %d %v", status, body)
	}
	newKey := newKey(t, b.ok(t, "key", "rotate", acct))
	if status, body := call(t, http.MethodGet, descriptor, oldKey, ""); status != 401 || body["error"].(map[string]any)["code"] != "invalid_api_key" {
		t.Fatalf("old key right after rotate: %d %v, want 401 invalid_api_key", status, body)
	}
	if status, body := call(t, http.MethodGet, descriptor, newKey, ""); status != 200 {
		t.Fatalf("new key: %d %v", status, body)
	}

	// keyctl usage shows what GET /v1/usage shows.
	run := `{"input":{"type":"text","value":"Hello there, how are you today?"},"pipeline":[{"id":"lang","service":"routing.language.detect"}]}`
	if status, body := call(t, http.MethodPost, base+"/v1/run", newKey, run); status != 200 || body["status"] != "completed" {
		t.Fatalf("run: %d %v", status, body)
	}
	status, api := call(t, http.MethodGet, base+"/v1/usage", newKey, "")
	if status != 200 {
		t.Fatalf("GET /v1/usage: %d %v", status, api)
	}
	var fromKeyctl map[string]any
	if err := json.Unmarshal([]byte(b.ok(t, "-json", "usage", acct).stdout), &fromKeyctl); err != nil {
		t.Fatal(err)
	}
	if api["characters"] != 31.0 || mustJSON(api) != mustJSON(fromKeyctl) {
		t.Fatalf("GET /v1/usage = %s\nkeyctl usage = %s", mustJSON(api), mustJSON(fromKeyctl))
	}

	// Revoking and disabling work on the next request too.
	third := newKeyOf(t, b, acct)
	if status, _ := call(t, http.MethodGet, descriptor, third, ""); status != 200 {
		t.Fatalf("key create: %d", status)
	}
	b.ok(t, "account", "disable", acct)
	for _, k := range []string{newKey, third} {
		if status, _ := call(t, http.MethodGet, descriptor, k, ""); status != 401 {
			t.Fatalf("key of a disabled account: %d, want 401", status)
		}
	}
}

func newKeyOf(t *testing.T, b *backend, acct string) string {
	t.Helper()
	return newKey(t, b.ok(t, "key", "create", acct))
}
