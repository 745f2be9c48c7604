package functions_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
)

// BenchmarkColdStart measures the run function as Lambda starts it: from exec of the built
// bootstrap to its first response through the Runtime API (init, models loaded, one run of the
// fixture pipeline), and the peak resident memory after that first request. Each iteration is a
// new process; make bench runs it with -benchtime 10x and reports the median.
func BenchmarkColdStart(b *testing.B) {
	e := setup(b)
	var ev events.APIGatewayProxyRequest
	if err := json.Unmarshal(readEvent(b, "run.json"), &ev); err != nil {
		b.Fatal(err)
	}
	build(b) // compile outside the measured time
	var times, warm []time.Duration
	var peak float64
	i := 0
	for b.Loop() {
		i++
		key := fmt.Sprintf("cold-%d-%d", time.Now().UnixNano(), i) // every start really runs
		ev.Headers["Idempotency-Key"] = key
		ev.MultiValueHeaders["Idempotency-Key"] = []string{key}
		payload, _ := json.Marshal(ev)
		start := time.Now()
		f := e.start(b, "run")
		resp, body := proxyResponse(b, f.invoke(b, payload, 20*time.Second))
		times = append(times, time.Since(start))
		if resp.StatusCode != 200 || body["status"] == nil {
			b.Fatalf("first response = %d %s", resp.StatusCode, resp.Body)
		}
		if rss, err := peakRSS(f.pid); err == nil && rss > peak {
			peak = rss
		}
		// The same request again, with a new key, on the now warm function: what the store
		// round trips and the steps cost without the start.
		key += "-warm"
		ev.Headers["Idempotency-Key"] = key
		ev.MultiValueHeaders["Idempotency-Key"] = []string{key}
		payload, _ = json.Marshal(ev)
		start = time.Now()
		if resp, _ := proxyResponse(b, f.invoke(b, payload, 20*time.Second)); resp.StatusCode != 200 {
			b.Fatalf("warm response = %d %s", resp.StatusCode, resp.Body)
		}
		warm = append(warm, time.Since(start))
	}
	slices.Sort(times)
	slices.Sort(warm)
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	b.ReportMetric(ms(times[len(times)/2]), "median-ms")
	b.ReportMetric(ms(times[len(times)*9/10]), "p90-ms")
	b.ReportMetric(peak, "peak-rss-MB")
	b.ReportMetric(ms(warm[len(warm)/2]), "warm-median-ms")
	if st, err := os.Stat(filepath.Join(build(b), "run", "bootstrap")); err == nil {
		b.ReportMetric(float64(st.Size())/1e6, "binary-MB")
	}
}

// peakRSS reads a process's peak resident set (VmHWM) in MB.
func peakRSS(pid int) (float64, error) {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmHWM:" {
			kb, err := strconv.ParseFloat(f[1], 64)
			return kb / 1024, err
		}
	}
	return 0, fmt.Errorf("no VmHWM for pid %d", pid)
}
