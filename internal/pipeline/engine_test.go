package pipeline

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"log/slog"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sluice-api/sluice/internal/errcode"
	"github.com/sluice-api/sluice/internal/services"
)

const secretText = "bad secret words here"

func plan(t *testing.T, e *Engine, value, steps string) *Plan {
	t.Helper()
	in, _ := json.Marshal(value)
	p, err := e.Parse([]byte(`{"request_id":"rq","input":{"type":"text","value":` + string(in) + `},"pipeline":` + steps + `}`))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	return p
}

func env() Env {
	return Env{TraceID: "sluice_TEST", Account: "acct_1", Region: "eu-west-1", TokenKey: []byte("k"),
		ReceivedAt: time.Date(2026, 11, 22, 21, 4, 5, 123_000_000, time.UTC), Budget: math.MaxInt64}
}

func render(t *testing.T, o *Outcome) map[string]any {
	t.Helper()
	raw, err := json.Marshal(o.Render("rq", 7*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func sha(s string) string { h := sha256.Sum256([]byte(s)); return hex.EncodeToString(h[:]) }

func billed(t *testing.T, m map[string]any) []string {
	t.Helper()
	var out []string
	for _, l := range m["usage"].(map[string]any)["billed"].([]any) {
		line := l.(map[string]any)
		out = append(out, line["steps"].([]any)[0].(string)+"="+jsonNum(line["quantity"]))
	}
	return out
}

func jsonNum(v any) string { b, _ := json.Marshal(v); return string(b) }

func TestExecute(t *testing.T) {
	e := testEngine(t)
	for _, tc := range []struct {
		name, value, steps string
		budget             int64
		status, haltedAt   string
		haltReason         string
		output             string
		errCode            string
		results            []string // step ids in results
		billed             []string
	}{
		{"Completed", "ab", `[{"id":"u","service":"test.upper"},{"id":"c","service":"test.count"}]`, 0,
			StatusCompleted, "", "", "AB", "", []string{"u", "c"}, []string{"u=2", "c=2"}},
		{"BillingAfterTransform", "abc", `[{"id":"d","service":"test.double"},{"id":"d2","service":"test.double"},{"id":"c","service":"test.count"}]`, 0,
			StatusCompleted, "", "", "abcabcabcabc", "", []string{"d", "d2", "c"}, []string{"d=3", "d2=6", "c=12"}},
		{"StopIfVerdictHalts", "bad bad", `[{"id":"b","service":"test.bad","stop_if":{"verdict":"flag"}},{"id":"u","service":"test.upper"}]`, 0,
			StatusHalted, "b", HaltStopIf, "bad bad", "", []string{"b"}, []string{"b=7"}},
		{"StopIfScoreDoesNotFire", "good", `[{"id":"b","service":"test.bad","stop_if":{"score_gte":0.1}},{"id":"u","service":"test.upper"}]`, 0,
			StatusCompleted, "", "", "GOOD", "", []string{"b", "u"}, []string{"b=4", "u=4"}},
		{"StopIfScoreLTEHalts", "good", `[{"id":"b","service":"test.bad","stop_if":{"score_lte":0.2}},{"id":"u","service":"test.upper"}]`, 0,
			StatusHalted, "b", HaltStopIf, "good", "", []string{"b"}, []string{"b=4"}},
		{"FailureKeepsCompleted", "x", `[{"id":"u","service":"test.upper"},{"id":"f","service":"test.fail"},{"id":"c","service":"test.count"}]`, 0,
			StatusFailed, "", "", "", errcode.StepFailed, []string{"u"}, []string{"u=1"}},
		{"PanicIsStepFailed", "x", `[{"id":"p","service":"test.panic"}]`, 0,
			StatusFailed, "", "", "", errcode.StepFailed, []string{}, nil},
		{"OutputInvalid", "x", `[{"id":"c","service":"test.count"},{"id":"b","service":"test.broken"}]`, 0,
			StatusFailed, "", "", "", errcode.OutputInvalid, []string{"c"}, []string{"c=1"}},
		{"AllowanceHaltsBeforeCrossingStep", "abcd", `[{"id":"d","service":"test.double"},{"id":"c","service":"test.count"}]`, 10,
			StatusHalted, "d", HaltAllowance, "abcdabcd", "", []string{"d"}, []string{"d=4"}},
		{"AllowanceExactlyReached", "abcd", `[{"id":"d","service":"test.double"},{"id":"c","service":"test.count"}]`, 12,
			StatusCompleted, "", "", "abcdabcd", "", []string{"d", "c"}, []string{"d=4", "c=8"}},
		{"ChainAcrossTypes", "a b c", `[{"id":"t","service":"test.tokens"},{"id":"k","service":"test.tokensonly"}]`, 0,
			StatusCompleted, "", "", "a|b|c", "", []string{"t", "k"}, []string{"t=5", "k=5"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			en := env()
			if tc.budget > 0 {
				en.Budget = tc.budget
			}
			o := e.Execute(t.Context(), plan(t, e, tc.value, tc.steps), en)
			m := render(t, o)
			if m["status"] != tc.status || m["halt_reason"] != nilIfEmpty(tc.haltReason) {
				t.Fatalf("status = %v (%v), want %s (%s)", m["status"], m["halt_reason"], tc.status, tc.haltReason)
			}
			if m["halted_at"] != nilIfEmpty(tc.haltedAt) {
				t.Fatalf("halted_at = %v, want %q", m["halted_at"], tc.haltedAt)
			}
			if tc.errCode != "" {
				errObj, _ := m["error"].(map[string]any)
				if errObj == nil || errObj["code"] != tc.errCode || m["output"] != nil {
					t.Fatalf("error = %v, output = %v; want code %s and no output", m["error"], m["output"], tc.errCode)
				}
				if msg := errObj["message"].(string); strings.Contains(msg, "exploded") || strings.Contains(msg, "nil map") {
					t.Fatalf("internal error text reached the client: %q", msg)
				}
			} else if out := m["output"].(map[string]any); out["value"] != tc.output || out["type"] != "text" && out["type"] != "tokens" {
				t.Fatalf("output = %v, want %q", out, tc.output)
			}
			results := m["results"].(map[string]any)
			if len(results) != len(tc.results) {
				t.Fatalf("results = %v, want ids %v", results, tc.results)
			}
			for _, id := range tc.results {
				if r, ok := results[id].(map[string]any); !ok || r["status"] != StepOK {
					t.Fatalf("results[%s] = %v", id, results[id])
				}
			}
			if got := billed(t, m); strings.Join(got, ",") != strings.Join(tc.billed, ",") {
				t.Fatalf("billed = %v, want %v", got, tc.billed)
			}
		})
	}
}

func nilIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func TestExecuteAllowanceFirstStepExhausted(t *testing.T) {
	e := testEngine(t)
	for _, budget := range []int64{0, 3} {
		en := env()
		en.Budget = budget
		if o := e.Execute(t.Context(), plan(t, e, "abcd", `[{"id":"c","service":"test.count"}]`), en); !o.Exhausted || len(o.Steps) != 0 {
			t.Fatalf("budget %d: outcome = %+v, want exhausted with no steps", budget, o)
		}
	}
}

func TestOutcomeWithin(t *testing.T) {
	e := testEngine(t)
	o := e.Execute(t.Context(), plan(t, e, "ab", `[{"id":"d","service":"test.double"},{"id":"u","service":"test.upper"},{"id":"c","service":"test.count"}]`), env())
	if o.Characters() != 2+4+4 {
		t.Fatalf("characters = %d", o.Characters())
	}
	for _, tc := range []struct {
		name     string
		budget   int64
		ok       bool
		status   string
		haltedAt string
		output   string
	}{
		{"Fits", 10, true, StatusCompleted, "", "ABAB"},
		{"CutAfterSecond", 9, true, StatusHalted, "u", "ABAB"},
		{"CutAfterFirst", 5, true, StatusHalted, "d", "abab"},
		{"NothingFits", 1, false, "", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cut, ok := o.Within(tc.budget)
			if ok != tc.ok {
				t.Fatalf("ok = %v", ok)
			}
			if !ok {
				return
			}
			if cut.Status != tc.status || cut.HaltedAt != tc.haltedAt || cut.Output.Value != tc.output || cut.Characters() > tc.budget {
				t.Fatalf("cut = %s at %q output %q chars %d", cut.Status, cut.HaltedAt, cut.Output.Value, cut.Characters())
			}
			if tc.haltedAt != "" && cut.HaltReason != HaltAllowance {
				t.Fatalf("halt reason = %q", cut.HaltReason)
			}
		})
	}
}

func TestExecuteStepTimeout(t *testing.T) {
	e := testEngine(t, WithStepTimeout(50*time.Millisecond))
	o := e.Execute(t.Context(), plan(t, e, "ab", `[{"id":"u","service":"test.upper"},{"id":"s","service":"test.slow"}]`), env())
	if o.Status != StatusFailed || o.Error.Code != errcode.StepTimeout || o.Characters() != 2 {
		t.Fatalf("outcome = %s %v chars=%d", o.Status, o.Error, o.Characters())
	}
	// The completed step bills and shows its result; the step that timed out does neither.
	m := render(t, o)
	if got := billed(t, m); len(got) != 1 || got[0] != "u=2" {
		t.Fatalf("a run that timed out in its second step billed %v, want u: 2", got)
	}
	if res := m["results"].(map[string]any); len(res) != 1 || res["u"] == nil {
		t.Fatalf("results = %v, want only u", res)
	}
	steps := m["audit"].(map[string]any)["steps"].([]any)
	if len(steps) != 2 || steps[1].(map[string]any)["status"] != StepTimeout {
		t.Fatalf("audit steps = %v", steps)
	}

	// The request's own deadline bounds the step too.
	e = testEngine(t)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Millisecond)
	defer cancel()
	if o := e.Execute(ctx, plan(t, e, "ab", `[{"id":"s","service":"test.slow"}]`), env()); o.Error == nil || o.Error.Code != errcode.StepTimeout {
		t.Fatalf("deadline: outcome = %+v", o)
	}
}

// TestPayloadBound: no payload between steps, and no output, exceeds MaxInputChars, whether the
// service stops itself (test.grow returns ErrOutputTooLarge) or not (test.double, caught by the
// engine); the step fails the run with output_too_large and the steps before it bill. The step
// results together stay within MaxResultBytes the same way.
func TestPayloadBound(t *testing.T) {
	e := testEngine(t)
	for _, tc := range []struct {
		name, steps string
		chars       int
		failedAt    string
		billed      []string
	}{
		{"GrowFirstStep", `[{"id":"g","service":"test.grow"}]`, 50_001, "g", nil},
		{"GrowExactlyToLimit", `[{"id":"g","service":"test.grow"}]`, 50_000, "", []string{"g=50000"}},
		{"GrowSecondStep", `[{"id":"u","service":"test.upper"},{"id":"g","service":"test.grow"},{"id":"h","service":"test.grow"}]`, 30_000, "h", []string{"u=30000", "g=30000"}},
		{"DoubleIgnoresBound", `[{"id":"u","service":"test.upper"},{"id":"d","service":"test.double"}]`, 60_000, "d", []string{"u=60000"}},
		{"ResultsTooLarge", `[{"id":"a","service":"test.bigmap"},{"id":"b","service":"test.bigmap"},{"id":"c","service":"test.bigmap"},{"id":"d","service":"test.bigmap"}]`, 100_000, "c", []string{"a=100000", "b=100000"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := e.Execute(t.Context(), plan(t, e, strings.Repeat("x", tc.chars), tc.steps), env())
			m := render(t, o)
			if got := billed(t, m); !slices.Equal(got, tc.billed) {
				t.Fatalf("billed %v, want %v", got, tc.billed)
			}
			if tc.failedAt == "" {
				if o.Status != StatusCompleted {
					t.Fatalf("status %s (%v), want completed", o.Status, o.Error)
				}
				return
			}
			last := o.Steps[len(o.Steps)-1]
			if o.Status != StatusFailed || o.Error.Code != errcode.OutputTooLarge || last.Step.ID != tc.failedAt || last.Status != StepFailed {
				t.Fatalf("outcome %s %v, last step %s %s; want failed output_too_large at %s", o.Status, o.Error, last.Step.ID, last.Status, tc.failedAt)
			}
			if res := m["results"].(map[string]any); len(res) != len(tc.billed) {
				t.Fatalf("%d results for %d billed steps", len(res), len(tc.billed))
			}
			if b, _ := json.Marshal(m); len(b) > MaxResultBytes+1<<20 {
				t.Fatalf("the answer is %d bytes", len(b))
			}
		})
	}
}

// TestLateSuccessIsTimeout: a step that ignores its cancelled context and returns a result
// after its budget ran out is a step_timeout, not a success, and it is logged as a step that
// ignored its context.
func TestLateSuccessIsTimeout(t *testing.T) {
	stubborn := desc("test.stubborn", services.KindTransform, []string{"text"}, "same")
	reg, err := services.NewRegistry(&fake{stubborn, func(ctx context.Context, r services.Request) (services.Result, error) {
		<-ctx.Done()
		// Work on past the deadline, as a step that never looks at its context would.
		for end := time.Now().Add(slowStop + 20*time.Millisecond); time.Now().Before(end); {
		}
		return services.Result{Payload: r.Payload}, nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	e, err := New(reg, WithStepTimeout(10*time.Millisecond), WithLogger(slog.New(slog.NewJSONHandler(&logs, nil))))
	if err != nil {
		t.Fatal(err)
	}
	o := e.Execute(t.Context(), plan(t, e, "ab", `[{"id":"s","service":"test.stubborn"}]`), env())
	if o.Status != StatusFailed || o.Error == nil || o.Error.Code != errcode.StepTimeout || o.Characters() != 0 {
		t.Fatalf("outcome = %s %v chars=%d", o.Status, o.Error, o.Characters())
	}
	if !bytes.Contains(logs.Bytes(), []byte("ignored its cancelled context")) {
		t.Fatalf("the late step was not logged: %s", logs.String())
	}
}

func TestAuditTrace(t *testing.T) {
	var logs bytes.Buffer
	e := testEngine(t, WithLogger(slog.New(slog.NewJSONHandler(&logs, nil))))
	value := "bad café \u00e9 " + secretText + " \r\n " // exact bytes, no trimming
	o := e.Execute(t.Context(), plan(t, e, value, `[{"id":"b","service":"test.bad"},{"id":"u","service":"test.upper"},{"id":"c","service":"test.count"},{"id":"f","service":"test.fail"}]`), env())
	raw, _ := json.Marshal(o.Render("rq", 12*time.Millisecond))
	var run Run
	if err := json.Unmarshal(raw, &run); err != nil {
		t.Fatal(err)
	}
	a := run.Audit
	if a.Region != "eu-west-1" || a.Retention != "none" || a.ReceivedAt != "2026-11-22T21:04:05.123Z" || a.TotalMs != 12 {
		t.Fatalf("audit header = %+v", a)
	}
	if len(a.Steps) != 4 {
		t.Fatalf("audit steps = %d, want 4 (three ok and the failed one)", len(a.Steps))
	}
	upper := strings.ToUpper(value)
	want := []AuditStep{
		{ID: "b", Service: "test.bad", Version: 3, Model: "fake-test.bad", Status: StepOK, InputType: "text", OutputType: "text", InputSHA256: sha(value), OutputSHA256: sha(value), Verdict: "pass"},
		{ID: "u", Service: "test.upper", Version: 3, Model: "fake-test.upper", Status: StepOK, InputType: "text", OutputType: "text", InputSHA256: sha(value), OutputSHA256: sha(upper)},
		{ID: "c", Service: "test.count", Version: 3, Model: "fake-test.count", Status: StepOK, InputType: "text", OutputType: "text", InputSHA256: sha(upper), OutputSHA256: sha(upper)},
		{ID: "f", Service: "test.fail", Version: 3, Model: "fake-test.fail", Status: StepFailed, InputType: "text", InputSHA256: sha(upper)},
	}
	for i, w := range want {
		g := a.Steps[i]
		if g.ID != w.ID || g.Service != w.Service || g.Version != w.Version || g.Model != w.Model || g.Status != w.Status ||
			g.InputType != w.InputType || g.OutputType != w.OutputType || g.InputSHA256 != w.InputSHA256 ||
			g.OutputSHA256 != w.OutputSHA256 || g.Verdict != w.Verdict {
			t.Errorf("step %d = %+v\nwant %+v", i, g, w)
		}
		if g.InputSize != int64(len([]rune(value))) {
			t.Errorf("step %d input_size = %d", i, g.InputSize)
		}
	}
	if a.Steps[1].Changes == nil || *a.Steps[1].Changes != 1 || a.Steps[0].Changes != nil {
		t.Errorf("changes: transform must carry it, classify must not")
	}
	if a.Steps[3].OutputSize != nil {
		t.Errorf("failed step has an output size")
	}
	auditJSON, _ := json.Marshal(run.Audit)
	for _, leak := range []string{secretText, "secret", "café", strings.ToUpper(secretText)} {
		if bytes.Contains(auditJSON, []byte(leak)) {
			t.Fatalf("audit contains request text %q", leak)
		}
		if bytes.Contains(logs.Bytes(), []byte(leak)) {
			t.Fatalf("log contains request text %q", leak)
		}
	}
	if !bytes.Contains(logs.Bytes(), []byte(`"step":"f"`)) {
		t.Fatalf("the failed step was not logged: %s", logs.String())
	}
}

// TestTimedOutStepHasReturned shows that a step whose budget ran out is not left running: by
// the time Execute answers step_timeout, the step has returned. (Steps once ran on goroutines
// of their own, and runStep answered on the timer while the step kept burning CPU.)
func TestTimedOutStepHasReturned(t *testing.T) {
	exited := make(chan struct{})
	busy := desc("test.busy", services.KindTransform, []string{"text"}, "same")
	reg, err := services.NewRegistry(&fake{busy, func(ctx context.Context, r services.Request) (services.Result, error) {
		defer close(exited)
		for n := 0; ; n++ { // CPU-bound work that checks its context every few thousand steps
			if n%4096 == 0 && ctx.Err() != nil {
				// The last chunk of work before the check still takes a while to finish.
				for end := time.Now().Add(20 * time.Millisecond); time.Now().Before(end); {
				}
				return services.Result{}, ctx.Err()
			}
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	e, err := New(reg, WithStepTimeout(20*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	o := e.Execute(t.Context(), plan(t, e, "ab", `[{"id":"b","service":"test.busy"}]`), env())
	if o.Error == nil || o.Error.Code != errcode.StepTimeout {
		t.Fatalf("outcome = %s %v, want step_timeout", o.Status, o.Error)
	}
	select {
	case <-exited:
	default:
		t.Fatal("Execute answered while the timed-out step was still running")
	}
}
