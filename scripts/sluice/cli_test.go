package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/sluice-api/sluice/client"
	"github.com/sluice-api/sluice/internal/testutil/localserver"
)

func TestParseStep(t *testing.T) {
	half := 0.5
	for _, tc := range []struct {
		spec string
		want client.Step
		err  string
	}{
		{spec: "governance.pii.redact", want: client.Step{Service: "governance.pii.redact"}},
		{spec: `governance.pii.redact:entities=["name","email"]`,
			want: client.Step{Service: "governance.pii.redact", Params: map[string]any{"entities": []any{"name", "email"}}}},
		// A value may hold commas, colons and equals signs: it is read as one JSON value.
		{spec: `pii=governance.pii.redact:mask="a:b,c=d",deny=["x,y"]`,
			want: client.Step{ID: "pii", Service: "governance.pii.redact", Params: map[string]any{"mask": "a:b,c=d", "deny": []any{"x,y"}}}},
		{spec: `guard=security.jailbreak.shield:threshold=0.5, stop_if={"score_gte":0.5}`,
			want: client.Step{ID: "guard", Service: "security.jailbreak.shield", Params: map[string]any{"threshold": json.Number("0.5")}, StopIf: &client.StopIf{ScoreGTE: &half}}},
		{spec: `security.toxicity.flag:stop_if={"verdict":"flag"}`,
			want: client.Step{Service: "security.toxicity.flag", StopIf: &client.StopIf{Verdict: "flag"}}},
		{spec: "", err: "no service name"},
		{spec: "=governance.pii.redact", err: "empty step id"},
		{spec: "governance.pii.redact:", err: "want PARAM=JSON"},
		{spec: "governance.pii.redact:mask=#", err: "strings need their quotes"},
		{spec: `governance.pii.redact:mask="#"x`, err: "want ',' or the end"},
		{spec: `governance.pii.redact:mask="#",mask="*"`, err: "given twice"},
		{spec: `security.toxicity.flag:stop_if={"verdikt":"flag"}`, err: "unknown field"},
	} {
		t.Run(tc.spec, func(t *testing.T) {
			got, err := parseStep(tc.spec)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want one containing %q", err, tc.err)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("parseStep = %+v, %v; want %+v", got, err, tc.want)
			}
		})
	}
}

func TestInputText(t *testing.T) {
	for _, tc := range []struct {
		name  string
		args  []string
		stdin string
		exact bool
		want  string
	}{
		{name: "StdinNewline", stdin: "hello\n", want: "hello"},
		{name: "StdinCRLF", args: []string{"-"}, stdin: "hello\r\n", want: "hello"},
		{name: "StdinOnlyOne", stdin: "hello\n\n", want: "hello\n"},
		{name: "StdinLoneCR", stdin: "hello\r", want: "hello\r"},
		{name: "StdinNone", stdin: "hello", want: "hello"},
		{name: "StdinEmptyLine", stdin: "\n", want: ""},
		{name: "StdinExact", stdin: "hello\r\n", exact: true, want: "hello\r\n"},
		{name: "ArgumentAsGiven", args: []string{"hello\n"}, stdin: "ignored\n", want: "hello\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := inputText(tc.args, strings.NewReader(tc.stdin), tc.exact)
			if err != nil || got != tc.want {
				t.Fatalf("inputText = %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}

func TestStepIDs(t *testing.T) {
	steps, err := parseSteps([]string{"governance.pii.redact", "x=routing.language.detect", "governance.pii.redact", "security.toxicity.flag"})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, s := range steps {
		ids = append(ids, s.ID)
	}
	if want := []string{"redact", "x", "redact-2", "flag"}; !reflect.DeepEqual(ids, want) {
		t.Fatalf("ids = %q, want %q", ids, want)
	}
}

func TestParsePipeline(t *testing.T) {
	want := []client.Step{{ID: "a", Service: "governance.pii.redact", Params: map[string]any{"entities": []any{"email"}}}}
	for _, in := range []string{
		`[{"id":"a","service":"governance.pii.redact","params":{"entities":["email"]}}]`,
		` {"pipeline":[{"id":"a","service":"governance.pii.redact","params":{"entities":["email"]}}]}`,
	} {
		got, err := parsePipeline([]byte(in))
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("parsePipeline(%s) = %+v, %v", in, got, err)
		}
	}
	for _, in := range []string{`[]`, `{}`, `[{"id":1}]`, `nope`} {
		if _, err := parsePipeline([]byte(in)); err == nil {
			t.Fatalf("parsePipeline(%s) accepted it", in)
		}
	}
}

// TestCommands drives the command against the real local server, as a shell would.
func TestCommands(t *testing.T) {
	const key = "sluice_live_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
	bin, err := localserver.Build(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	s := localserver.Run(t, bin, localserver.Options{SeedKeys: []string{key}})
	pipeline := filepath.Join(t.TempDir(), "pipeline.json")
	if err := os.WriteFile(pipeline, []byte(`{"pipeline":[{"id":"tok","service":"governance.pii.tokenize","params":{"entities":["email"]}}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"SLUICE_KEY": key, "SLUICE_URL": s.Base}
	traces := map[string]string{} // idempotency key -> the trace id of the run made under it
	firstRun := func(key string) func(*testing.T, []byte) {
		return func(t *testing.T, out []byte) {
			var r client.RunResponse
			if err := json.Unmarshal(out, &r); err != nil || r.Status != client.StatusCompleted || r.TraceID == "" {
				t.Fatalf("answer %s (%v)", out, err)
			}
			traces[key] = r.TraceID
		}
	}
	duplicate := func(key, requestID string) func(*testing.T, []byte) {
		return func(t *testing.T, out []byte) {
			want := map[string]any{"trace_id": traces[key], "status": "duplicate"}
			if requestID != "" {
				want["request_id"] = requestID
			}
			var got map[string]any
			if err := json.Unmarshal(out, &got); err != nil || traces[key] == "" || !reflect.DeepEqual(got, want) {
				t.Fatalf("answer %s (%v); want %v", out, err, want)
			}
		}
	}
	for _, tc := range []struct {
		name    string
		args    []string
		stdin   string
		env     map[string]string
		code    int
		stdout  []string // substrings
		stderr  string
		checkFn func(t *testing.T, out []byte)
	}{
		{name: "RunSteps", args: []string{"run", "--request-id", "cli-1", "--step", `governance.pii.redact:entities=["name","email"]`, "Hi, I am Jane Doe, mail me at jane@example.com"},
			checkFn: func(t *testing.T, out []byte) {
				var r client.RunResponse
				if err := json.Unmarshal(out, &r); err != nil || r.Status != client.StatusCompleted || r.RequestID != "cli-1" ||
					r.Output.Value != "Hi, I am [REDACTED], mail me at [REDACTED]" || r.Results["redact"].Transform.Changes != 2 {
					t.Fatalf("answer %s (%v)", out, err)
				}
			}},
		{name: "RunStdinPipelineFile", args: []string{"run", "--pipeline", pipeline}, stdin: "mail jane@example.com",
			checkFn: func(t *testing.T, out []byte) {
				var r client.RunResponse
				if err := json.Unmarshal(out, &r); err != nil || r.Results["tok"].Transform == nil || len(r.Results["tok"].Transform.Map) != 1 || r.Usage.Characters() != 21 {
					t.Fatalf("answer %s (%v)", out, err)
				}
			}},
		// One trailing newline of standard input (echo's) is not sent, billed or printed back;
		// --exact keeps it.
		{name: "RunStdinNewline", args: []string{"run", "--step", "governance.pii.redact"}, stdin: "mail jane@example.com\n",
			checkFn: func(t *testing.T, out []byte) {
				var r client.RunResponse
				if err := json.Unmarshal(out, &r); err != nil || r.Output == nil || r.Output.Value != "mail [REDACTED]" || r.Usage.Characters() != 21 {
					t.Fatalf("answer %s (%v)", out, err)
				}
			}},
		{name: "RunStdinExact", args: []string{"run", "--exact", "--step", "governance.pii.redact"}, stdin: "mail jane@example.com\n",
			checkFn: func(t *testing.T, out []byte) {
				var r client.RunResponse
				if err := json.Unmarshal(out, &r); err != nil || r.Output == nil || r.Output.Value != "mail [REDACTED]\n" || r.Usage.Characters() != 22 {
					t.Fatalf("answer %s (%v)", out, err)
				}
			}},
		{name: "RunHalted", args: []string{"run", "--step", `g=security.toxicity.flag:stop_if={"score_gte":0}`, "--step", "governance.pii.redact", "-"}, stdin: "hello",
			stdout: []string{`"status": "halted"`, `"halted_at": "g"`}},
		{name: "RunRejected", args: []string{"run", "--step", `governance.pii.redact:entities=["ssn"]`, "x"}, code: exitError,
			stderr: "400 invalid_params"},
		// A duplicate prints what Sluice sent for it (the first run's trace id, the status and
		// the request id when there was one), not a RunResponse's zero values.
		{name: "RunDuplicate", args: []string{"run", "--request-id", "cli-2", "--idempotency-key", "cli-dup", "--step", "routing.language.detect", "hello"},
			checkFn: firstRun("cli-dup")},
		{name: "RunDuplicateAgain", args: []string{"run", "--request-id", "cli-2", "--idempotency-key", "cli-dup", "--step", "routing.language.detect", "hello"},
			code: exitError, stderr: "use a new --idempotency-key", checkFn: duplicate("cli-dup", "cli-2")},
		{name: "RunDuplicateNoRequestID", args: []string{"run", "--idempotency-key", "cli-dup-3", "--step", "routing.language.detect", "hello"},
			checkFn: firstRun("cli-dup-3")},
		{name: "RunDuplicateNoRequestIDAgain", args: []string{"run", "--idempotency-key", "cli-dup-3", "--step", "routing.language.detect", "hello"},
			code: exitError, stderr: "use a new --idempotency-key", checkFn: duplicate("cli-dup-3", "")},
		{name: "Services", args: []string{"services"}, stdout: []string{"governance.pii.redact", "transform", "allow, deny, entities, mask"}},
		{name: "Service", args: []string{"services", "security.toxicity.flag"}, stdout: []string{`"kind": "classify"`, `"labels"`}},
		{name: "UnknownService", args: []string{"services", "nope"}, code: exitError, stderr: "404 service_not_found"},
		{name: "Usage", args: []string{"usage"}, stdout: []string{`"runs": 7`, `"rate_limit": 600`}},
		// The mask makes each "a" 15 characters (the longest mask): the text would pass 100,000
		// characters, so the run fails; the language step before it is billed and its result
		// printed.
		{name: "RunFailed", args: []string{"run", "--step", "routing.language.detect", "--step", `governance.pii.redact:deny=["a"],mask="` + strings.Repeat("a ", 7) + `a"`, strings.Repeat("a ", 7000)},
			code: exitError, stdout: []string{`"status": "failed"`, `"code": "output_too_large"`, `"detect": {`}, stderr: "run failed: output_too_large"},
		{name: "BadKey", args: []string{"usage"}, env: map[string]string{"SLUICE_KEY": "sluice_live_BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB", "SLUICE_URL": s.Base},
			code: exitError, stderr: "401 invalid_api_key"},
		{name: "NoKey", args: []string{"usage"}, env: map[string]string{}, code: exitUsage, stderr: "set SLUICE_KEY"},
		{name: "NoPipeline", args: []string{"run", "x"}, code: exitUsage, stderr: "run needs a pipeline"},
		{name: "BadStep", args: []string{"run", "--step", "governance.pii.redact:mask=#", "x"}, code: exitUsage, stderr: "strings need their quotes"},
		{name: "UnknownCommand", args: []string{"walk"}, code: exitUsage, stderr: `unknown command "walk"`},
		{name: "Help", args: []string{"-h"}, env: map[string]string{}, stdout: []string{"usage: sluice", "--exact"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := env
			if tc.env != nil {
				e = tc.env
			}
			var stdout, stderr bytes.Buffer
			code := run(t.Context(), tc.args, strings.NewReader(tc.stdin), &stdout, &stderr, func(k string) string { return e[k] })
			if code != tc.code || !strings.Contains(stderr.String(), tc.stderr) {
				t.Fatalf("exit %d, stderr %q; want %d and %q", code, stderr.String(), tc.code, tc.stderr)
			}
			for _, want := range tc.stdout {
				if !strings.Contains(stdout.String(), want) {
					t.Fatalf("stdout lacks %q:\n%s", want, stdout.String())
				}
			}
			if tc.checkFn != nil {
				tc.checkFn(t, stdout.Bytes())
			}
		})
	}
}
