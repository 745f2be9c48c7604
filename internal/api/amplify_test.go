package api

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/sluice-api/sluice/internal/services/builtin"
	"github.com/sluice-api/sluice/internal/services/pii"
)

// maxAmplification bounds how many bytes of answer one byte of request can buy through a redact
// step. The payload bound (100,000 characters, output_too_large beyond) stays the backstop; what
// this bounds is the bytes per span: a two-byte word ("a ") becomes a mask of at most 16
// characters (pii's maxMaskLen) and its space. The answer's JSON spells a character in at most
// 4 bytes (a 4-byte UTF-8 character; no HTML escaping, and the mask refuses what JSON spells as
// \uXXXX), so (16×4+1)/2 = 32.5. Measured: 8.5× for ASCII (< and & included), 16.3× for " and
// \, 32.0× for 4-byte characters; before, a 64-character mask of < gave 165×.
const maxAmplification = 33

// amplifyRequest is the cheapest request for the largest answer one redact step can give: a
// text of n one-letter words, each a deny-listed span replaced by mask.
func amplifyRequest(mask string, n int) []byte {
	params, _ := json.Marshal(map[string]any{"deny": []string{"a"}, "mask": mask})
	value, _ := json.Marshal(strings.TrimSpace(strings.Repeat("a ", n)))
	return []byte(`{"input":{"type":"text","value":` + string(value) + `},"pipeline":[` +
		`{"id":"r","service":"governance.pii.redact","params":` + string(params) + `}]}`)
}

// TestRedactAmplification measures the answer's size over the request's for a mask of the longest
// length allowed, made of characters that JSON spells in 1 to 6 bytes, with as many spans as the
// payload bound lets through. The ratio stays under maxAmplification; a mask of characters
// JSON spells in six bytes is refused (the step fails, and the answer is small).
func TestRedactAmplification(t *testing.T) {
	reg, err := builtin.New()
	if err != nil {
		t.Fatal(err)
	}
	_, d, ok := reg.Lookup(pii.RedactName)
	if !ok {
		t.Fatal("no redact service")
	}
	maxMask := *d.Params["mask"].MaxLength
	srv, st, _, id := builtinServer(t)
	acct, err := st.GetAccount(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	fits := 100_000 / (maxMask + 1) // n spans give n*(maxMask+1)-1 characters: within the bound
	for _, tc := range []struct {
		name   string
		char   string
		words  int
		status string // the run's status
		code   string // the run's error code, if it failed
	}{
		{"Letters", "x", fits, "completed", ""},
		{"HTMLSpecial", "<", fits, "completed", ""},
		{"Ampersand", "&", fits, "completed", ""},
		{"Quote", `"`, fits, "completed", ""},
		{"Backslash", `\`, fits, "completed", ""},
		{"FourByteUTF8", "😀", fits, "completed", ""},
		{"LineSeparator", "\u2028", fits, "failed", "step_failed"},
		{"ParagraphSeparator", "\u2029", fits, "failed", "step_failed"},
		{"PastThePayloadBound", "<", fits + 1, "failed", "output_too_large"},
		{"Control", "\x01", fits, "failed", "step_failed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mask := strings.Repeat(tc.char, maxMask)
			req := amplifyRequest(mask, tc.words)
			resp := srv.Run(t.Context(), acct, Request{Header: http.Header{HeaderContentType: {"application/json"}}, Body: req})
			var m struct {
				Status string
				Error  struct{ Code string }
			}
			if err := json.Unmarshal(resp.Body, &m); err != nil {
				t.Fatal(err)
			}
			if resp.Status != 200 || m.Status != tc.status || m.Error.Code != tc.code {
				t.Fatalf("answer %d %q %q, want 200 %q %q", resp.Status, m.Status, m.Error.Code, tc.status, tc.code)
			}
			ratio := float64(len(resp.Body)) / float64(len(req))
			t.Logf("mask of %d %q: request %d B, answer %d B, %.1fx", maxMask, tc.char, len(req), len(resp.Body), ratio)
			if ratio > maxAmplification {
				t.Fatalf("the answer is %.1f times the request, want at most %d", ratio, maxAmplification)
			}
		})
	}
}
