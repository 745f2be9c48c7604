package api

import (
	"context"
	"encoding/json"
	"net/http"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/sluice-api/sluice/internal/account"
	"github.com/sluice-api/sluice/internal/errcode"
	"github.com/sluice-api/sluice/internal/metering"
	"github.com/sluice-api/sluice/internal/pipeline"
	"github.com/sluice-api/sluice/internal/services/builtin"
	"github.com/sluice-api/sluice/internal/store/sqlite"
)

// growthAttack is issue 31's payload blow-up: 100,000 characters of "a a a …", the toxicity and
// shield steps, tokenize, then three redact steps that replace every "a" with a 15-character
// mask of 8 words "a", the longest mask allowed (the text would grow about 8 times a step).
func growthAttack() []byte {
	mask := strings.TrimSpace(strings.Repeat("a ", 8))
	redact, _ := json.Marshal(map[string]any{"deny": []string{"a"}, "mask": mask})
	value := strings.Repeat("a ", 50_000)[:100_000]
	v, _ := json.Marshal(value)
	return []byte(`{"input":{"type":"text","value":` + string(v) + `},"pipeline":[` +
		`{"id":"tox","service":"security.toxicity.flag"},{"id":"guard","service":"security.jailbreak.shield"},` +
		`{"id":"tok","service":"governance.pii.tokenize"},` +
		`{"id":"r1","service":"governance.pii.redact","params":` + string(redact) + `},` +
		`{"id":"r2","service":"governance.pii.redact","params":` + string(redact) + `},` +
		`{"id":"r3","service":"governance.pii.redact","params":` + string(redact) + `}]}`)
}

// builtinServer is a server over the built-in services and an SQLite store, with one account.
func builtinServer(tb testing.TB) (*Server, *sqlite.Store, account.Settings, string) {
	tb.Helper()
	reg, err := builtin.New()
	if err != nil {
		tb.Fatal(err)
	}
	engine, err := pipeline.New(reg)
	if err != nil {
		tb.Fatal(err)
	}
	st, err := sqlite.Open(filepath.Join(tb.TempDir(), "attack.db"))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { st.Close() })
	accounts := account.NewManager(st, []byte("0123456789abcdef0123456789abcdef"), nil)
	settings := account.Settings{Region: "eu-west-1", Tier: "standard", RateLimit: 1 << 40, Allowance: 1 << 50}
	a, err := accounts.CreateWithKey(context.Background(), settings, testKey)
	if err != nil {
		tb.Fatal(err)
	}
	return NewServer(metering.New(st, engine, metering.Config{Region: "eu-west-1", TokenKey: []byte("tokenization-key-tokenization-key")}), accounts, Config{}), st, settings, a.ID
}

// TestGrowthAttackIsOutputTooLarge: the attack fails at the first redact step with
// output_too_large, in an answer under 1 MB; the three steps before it bill (300,000
// characters) and the account's usage grows by exactly that.
func TestGrowthAttackIsOutputTooLarge(t *testing.T) {
	srv, st, _, id := builtinServer(t)
	acct, err := st.GetAccount(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	resp := srv.Run(t.Context(), acct, Request{Header: http.Header{HeaderContentType: {"application/json"}}, Body: growthAttack()})
	runtime.ReadMemStats(&after)
	if len(resp.Body) >= 1<<20 {
		t.Fatalf("the answer is %d bytes, want under 1 MB", len(resp.Body))
	}
	var m struct {
		Status string
		Error  *errcode.Error
		Usage  struct{ Billed []struct{ Quantity int64 } }
	}
	if err := json.Unmarshal(resp.Body, &m); err != nil {
		t.Fatal(err)
	}
	if resp.Status != 200 || m.Status != "failed" || m.Error == nil || m.Error.Code != errcode.OutputTooLarge {
		t.Fatalf("answer = %d %s %v", resp.Status, m.Status, m.Error)
	}
	var billed int64
	for _, l := range m.Usage.Billed {
		billed += l.Quantity
	}
	u, err := st.Usage(t.Context(), id, account.Month(time.Now()))
	if err != nil {
		t.Fatal(err)
	}
	if billed != 300_000 || u.Characters != billed {
		t.Fatalf("billed %d, usage %d; want 300000 both", billed, u.Characters)
	}
	// Bytes allocated by the whole request (BenchmarkGrowthAttack reports the same per run);
	// an unbounded redact step took 2.1 GB.
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 50<<20 {
		t.Errorf("the request allocated %d MB, want at most 50", alloc>>20)
	}
}

// BenchmarkGrowthAttack reports the time and the bytes allocated per request of the attack.
func BenchmarkGrowthAttack(b *testing.B) {
	srv, st, _, id := builtinServer(b)
	acct, err := st.GetAccount(b.Context(), id)
	if err != nil {
		b.Fatal(err)
	}
	body := growthAttack()
	h := http.Header{HeaderContentType: {"application/json"}}
	b.ReportAllocs()
	for b.Loop() {
		if resp := srv.Run(b.Context(), acct, Request{Header: h, Body: body}); resp.Status != 200 {
			b.Fatalf("status %d", resp.Status)
		}
	}
}
