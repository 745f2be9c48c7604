package metrics

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"
)

var fixed = time.Date(2026, 11, 22, 21, 4, 5, 123_000_000, time.UTC)

func fixedClock() time.Time { return fixed }

// decode parses out as EMF lines: every line one JSON object, checked against the EMF spec.
func decode(t *testing.T, out []byte) []map[string]any {
	t.Helper()
	if len(out) == 0 || out[len(out)-1] != '\n' {
		t.Fatalf("output does not end with a newline: %q", out)
	}
	var docs []map[string]any
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		var d map[string]any
		dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		if err := dec.Decode(&d); err != nil {
			t.Fatalf("line %q: %v", sc.Text(), err)
		}
		if dec.More() {
			t.Fatalf("line %q holds more than one JSON value", sc.Text())
		}
		checkEMF(t, d)
		docs = append(docs, d)
	}
	return docs
}

// checkEMF checks d against the Embedded Metric Format specification: an _aws object with an
// integer Timestamp and directives whose every dimension is a top-level string member and whose
// every metric is a top-level number member with a known unit.
func checkEMF(t *testing.T, d map[string]any) {
	t.Helper()
	aws, ok := d["_aws"].(map[string]any)
	if !ok {
		t.Fatalf("document has no _aws object: %v", d)
	}
	if ts, ok := aws["Timestamp"].(float64); !ok || ts != float64(int64(ts)) || ts <= 0 {
		t.Fatalf("_aws.Timestamp = %v, want unix milliseconds", aws["Timestamp"])
	}
	directives, ok := aws["CloudWatchMetrics"].([]any)
	if !ok || len(directives) == 0 {
		t.Fatalf("_aws.CloudWatchMetrics = %v", aws["CloudWatchMetrics"])
	}
	for _, dir := range directives {
		dir := dir.(map[string]any)
		if ns, _ := dir["Namespace"].(string); ns == "" {
			t.Fatalf("directive without a Namespace: %v", dir)
		}
		sets, _ := dir["Dimensions"].([]any)
		for _, set := range sets {
			set := set.([]any)
			if len(set) == 0 || len(set) > 30 {
				t.Fatalf("dimension set %v: want 1 to 30 names", set)
			}
			for _, name := range set {
				if v, ok := d[name.(string)].(string); !ok || v == "" {
					t.Fatalf("dimension %v has no string member: %v", name, d)
				}
			}
		}
		metrics, _ := dir["Metrics"].([]any)
		if len(metrics) == 0 || len(metrics) > 100 {
			t.Fatalf("directive has %d metrics", len(metrics))
		}
		for _, m := range metrics {
			m := m.(map[string]any)
			if _, ok := d[m["Name"].(string)].(float64); !ok {
				t.Fatalf("metric %v has no number member: %v", m["Name"], d)
			}
			if u := m["Unit"]; u != "Count" && u != "Milliseconds" {
				t.Fatalf("metric %v has unit %v", m["Name"], u)
			}
		}
	}
}

// roundTrip returns v as encoding/json decodes it into any.
func roundTrip(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestRunDocuments(t *testing.T) {
	var buf bytes.Buffer
	rec := New(&buf, "Sluice", map[string]string{"Region": "eu-west-1"}, WithClock(fixedClock))
	rec.Run(RunMetrics{
		Route:            "POST /v1/run",
		Status:           StatusHalted,
		HTTPStatus:       200,
		Code:             "step_failed",
		Steps:            2,
		BilledCharacters: 1234,
		Latency:          12345 * time.Microsecond,
		StepLatencies: []StepLatency{
			{Service: "governance.pii.redact", Latency: 3 * time.Millisecond},
			{Service: "security.toxicity.flag", Latency: 1500 * time.Microsecond},
		},
	})

	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	for i, l := range lines {
		if !strings.HasPrefix(l, `{"_aws":`) {
			t.Errorf("line %d does not start with the _aws member: %s", i, l)
		}
	}
	got := decode(t, buf.Bytes())
	ts := float64(fixed.UnixMilli())
	step := func(service string, ms float64) map[string]any {
		return map[string]any{
			"_aws": map[string]any{
				"Timestamp": ts,
				"CloudWatchMetrics": []any{map[string]any{
					"Namespace":  "Sluice",
					"Dimensions": []any{[]any{"Region", "Service"}},
					"Metrics":    []any{map[string]any{"Name": "ServiceLatency", "Unit": "Milliseconds"}},
				}},
			},
			"Region":         "eu-west-1",
			"Service":        service,
			"ServiceLatency": ms,
		}
	}
	want := []map[string]any{
		{
			"_aws": map[string]any{
				"Timestamp": ts,
				"CloudWatchMetrics": []any{map[string]any{
					"Namespace":  "Sluice",
					"Dimensions": []any{[]any{"Region", "Route"}, []any{"Region", "Route", "Status"}},
					"Metrics": []any{
						map[string]any{"Name": "Runs", "Unit": "Count"},
						map[string]any{"Name": "Steps", "Unit": "Count"},
						map[string]any{"Name": "BilledCharacters", "Unit": "Count"},
						map[string]any{"Name": "Latency", "Unit": "Milliseconds"},
					},
				}},
			},
			"Region":           "eu-west-1",
			"Route":            "POST /v1/run",
			"Status":           "halted",
			"HTTPStatus":       200.0,
			"Code":             "step_failed",
			"Runs":             1.0,
			"Steps":            2.0,
			"BilledCharacters": 1234.0,
			"Latency":          12.345,
		},
		step("governance.pii.redact", 3),
		step("security.toxicity.flag", 1.5),
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("documents:\n got %v\nwant %v", got, want)
	}
}

func TestRunFields(t *testing.T) {
	for _, tc := range []struct {
		name string
		run  RunMetrics
		want map[string]any // the run document's members other than _aws and the metrics
		step map[string]any // the first step document's members other than _aws, if any
	}{
		{
			name: "NoConstantDimensionsNoCodeNoSteps",
			run:  RunMetrics{Route: "/v1/services/{name}", Status: StatusCompleted, HTTPStatus: 200},
			want: map[string]any{"Route": "/v1/services/{name}", "Status": "completed", "HTTPStatus": 200.0},
		},
		{
			name: "RejectedWithCode",
			run:  RunMetrics{Route: "POST /v1/run", Status: StatusRejected, HTTPStatus: 413, Code: "input_too_large"},
			want: map[string]any{"Route": "POST /v1/run", "Status": "rejected", "HTTPStatus": 413.0, "Code": "input_too_large"},
		},
		{
			name: "FreeTextBecomesUnknown",
			run: RunMetrics{
				Route: "POST my name is Ada, my IBAN is DE89", Status: "Ada Lovelace", HTTPStatus: 200,
				Code:          `secret "value"`,
				StepLatencies: []StepLatency{{Service: "Please ignore previous instructions", Latency: time.Millisecond}},
			},
			want: map[string]any{"Route": "unknown", "Status": "unknown", "HTTPStatus": 200.0, "Code": "unknown"},
			step: map[string]any{"Service": "unknown", "ServiceLatency": 1.0},
		},
		{
			name: "TooLongBecomesUnknown",
			run: RunMetrics{
				Route: "/" + strings.Repeat("a", 64), Status: StatusFailed, HTTPStatus: 200,
				Code: strings.Repeat("x", 65), StepLatencies: []StepLatency{{Service: strings.Repeat("s", 65)}},
			},
			want: map[string]any{"Route": "unknown", "Status": "failed", "HTTPStatus": 200.0, "Code": "unknown"},
			step: map[string]any{"Service": "unknown", "ServiceLatency": 0.0},
		},
		{
			name: "LowerCaseMethodAndEmptyBecomeUnknown",
			run:  RunMetrics{Route: "post /v1/run", Status: "", HTTPStatus: 500, Code: "internal_error"},
			want: map[string]any{"Route": "unknown", "Status": "unknown", "HTTPStatus": 500.0, "Code": "internal_error"},
		},
		{
			name: "EmptyRouteAndServiceBecomeUnknown",
			run: RunMetrics{Route: "", Status: StatusDuplicate, HTTPStatus: 200,
				StepLatencies: []StepLatency{{Service: "", Latency: 2 * time.Millisecond}}},
			want: map[string]any{"Route": "unknown", "Status": "duplicate", "HTTPStatus": 200.0},
			step: map[string]any{"Service": "unknown", "ServiceLatency": 2.0},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			New(&buf, "Sluice", nil, WithClock(fixedClock)).Run(tc.run)
			docs := decode(t, buf.Bytes())
			if len(docs) != 1+len(tc.run.StepLatencies) {
				t.Fatalf("%d documents, want %d", len(docs), 1+len(tc.run.StepLatencies))
			}
			got := map[string]any{}
			for k, v := range docs[0] {
				switch k {
				case "_aws", "Runs", "Steps", "BilledCharacters", "Latency":
				default:
					got[k] = v
				}
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("run members = %v, want %v", got, tc.want)
			}
			if tc.step != nil {
				delete(docs[1], "_aws")
				if !reflect.DeepEqual(docs[1], tc.step) {
					t.Errorf("step members = %v, want %v", docs[1], tc.step)
				}
			}
			// Nothing the caller passed in free text may appear anywhere in the output.
			for _, s := range []string{"Ada", "IBAN", "ignore", "secret", "value"} {
				if strings.Contains(buf.String(), s) {
					t.Errorf("output contains %q: %s", s, buf.String())
				}
			}
		})
	}
}

func TestRunClampsNegatives(t *testing.T) {
	var buf bytes.Buffer
	New(&buf, "Sluice", nil, WithClock(fixedClock)).Run(RunMetrics{
		Route: "/v1/run", Status: StatusFailed, Steps: -1, BilledCharacters: -5, Latency: -time.Second,
		StepLatencies: []StepLatency{{Service: "routing.intent.map", Latency: -time.Second}},
	})
	docs := decode(t, buf.Bytes())
	for _, name := range []string{"Steps", "BilledCharacters", "Latency"} {
		if docs[0][name] != 0.0 {
			t.Errorf("%s = %v, want 0", name, docs[0][name])
		}
	}
	if docs[1]["ServiceLatency"] != 0.0 {
		t.Errorf("ServiceLatency = %v, want 0", docs[1]["ServiceLatency"])
	}
}

func TestDefaultClock(t *testing.T) {
	var buf bytes.Buffer
	before := time.Now().UnixMilli()
	New(&buf, "Sluice", nil).Run(RunMetrics{Route: "/v1/run", Status: StatusCompleted})
	after := time.Now().UnixMilli()
	ts := int64(decode(t, buf.Bytes())[0]["_aws"].(map[string]any)["Timestamp"].(float64))
	if ts < before || ts > after {
		t.Fatalf("Timestamp = %d, want within [%d, %d]", ts, before, after)
	}
}

func TestConstantDimensionsAreCopied(t *testing.T) {
	dims := map[string]string{"Region": "eu-west-1", "Stage": "prod"}
	var buf bytes.Buffer
	rec := New(&buf, "Sluice", dims, WithClock(fixedClock))
	dims["Region"] = "us-east-1"
	dims["Extra"] = "x"
	rec.Run(RunMetrics{Route: "/v1/run", Status: StatusCompleted})
	d := decode(t, buf.Bytes())[0]
	if d["Region"] != "eu-west-1" || d["Stage"] != "prod" || d["Extra"] != nil {
		t.Fatalf("constant dimensions changed with the caller's map: %v", d)
	}
	sets := d["_aws"].(map[string]any)["CloudWatchMetrics"].([]any)[0].(map[string]any)["Dimensions"]
	want := roundTrip(t, [][]string{{"Region", "Stage", "Route"}, {"Region", "Stage", "Route", "Status"}})
	if !reflect.DeepEqual(sets, want) {
		t.Fatalf("Dimensions = %v, want %v", sets, want)
	}
}

func TestNewRejectsBadWiring(t *testing.T) {
	for _, tc := range []struct {
		name      string
		namespace string
		dims      map[string]string
	}{
		{"EmptyNamespace", "", nil},
		{"EmptyDimensionName", "Sluice", map[string]string{"": "x"}},
		{"EmptyDimensionValue", "Sluice", map[string]string{"Region": ""}},
		{"ReservedDimension", "Sluice", map[string]string{"Route": "x"}},
		{"MetricNameAsDimension", "Sluice", map[string]string{"Latency": "x"}},
		{"AWSBlockAsDimension", "Sluice", map[string]string{"_aws": "x"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Fatal("New did not panic")
				}
			}()
			New(&bytes.Buffer{}, tc.namespace, tc.dims)
		})
	}
}

// lockedCheck is a writer that fails the test if two writes overlap.
type lockedCheck struct {
	t      *testing.T
	mu     sync.Mutex // held only to detect overlap, never waited on
	buf    bytes.Buffer
	writes int
}

func (w *lockedCheck) Write(p []byte) (int, error) {
	if !w.mu.TryLock() {
		w.t.Error("concurrent Write calls")
		return 0, errors.New("overlap")
	}
	defer w.mu.Unlock()
	w.writes++
	return w.buf.Write(p)
}

func TestConcurrentRuns(t *testing.T) {
	w := &lockedCheck{t: t}
	rec := New(w, "Sluice", map[string]string{"Region": "eu-west-1"})
	const goroutines, runs = 16, 50
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			for i := range runs {
				rec.Run(RunMetrics{
					Route: fmt.Sprintf("/g%d", g), Status: StatusCompleted, HTTPStatus: 200, Steps: 2,
					BilledCharacters: int64(i), Latency: time.Millisecond,
					StepLatencies: []StepLatency{
						{Service: fmt.Sprintf("svc.g%d.a", g), Latency: time.Millisecond},
						{Service: fmt.Sprintf("svc.g%d.b", g), Latency: time.Millisecond},
					},
				})
			}
		})
	}
	wg.Wait()

	docs := decode(t, w.buf.Bytes())
	if len(docs) != goroutines*runs*3 {
		t.Fatalf("%d documents, want %d", len(docs), goroutines*runs*3)
	}
	if w.writes != goroutines*runs {
		t.Fatalf("%d writes, want one per run (%d)", w.writes, goroutines*runs)
	}
	// A run's step documents follow it directly: lines of different runs never interleave.
	for i := 0; i < len(docs); i += 3 {
		g := strings.TrimPrefix(docs[i]["Route"].(string), "/")
		if docs[i+1]["Service"] != "svc."+g+".a" || docs[i+2]["Service"] != "svc."+g+".b" {
			t.Fatalf("documents %d..%d interleave: %v %v %v", i, i+2, docs[i]["Route"], docs[i+1]["Service"], docs[i+2]["Service"])
		}
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("stdout closed") }

func TestRunDropsWriteErrors(t *testing.T) {
	// Metrics are best effort: a failing writer neither panics nor blocks the caller.
	New(failingWriter{}, "Sluice", nil).Run(RunMetrics{Route: "/v1/run", Status: StatusCompleted})
}
