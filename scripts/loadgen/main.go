// Command loadgen drives a Sluice endpoint from a second process with a fixed number of
// concurrent clients, bounded in requests and in time, and reports throughput and latency
// percentiles. make bench uses it against the local server on loopback.
//
//	go run ./scripts/loadgen -url http://127.0.0.1:8080/v1/run -key $SLUICE_KEY -body run.json -c 8 -n 20000 -max 30s
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"sort"
	"sync"
	"sync/atomic"
	"time"
)

// Result is what one load run measured.
type Result struct {
	Requests   int64   `json:"requests"`
	Errors     int64   `json:"errors"` // transport errors and statuses other than want
	Seconds    float64 `json:"seconds"`
	PerSecond  float64 `json:"per_second"`
	P50Millis  float64 `json:"p50_ms"`
	P99Millis  float64 `json:"p99_ms"`
	MaxMillis  float64 `json:"max_ms"`
	Concurrent int     `json:"concurrency"`
}

// Config says what to send.
type Config struct {
	URL, Method, Key string
	Body             []byte
	Concurrency      int
	Requests         int64         // stop after this many requests
	MaxDuration      time.Duration // or after this long, whichever comes first
	Warmup           int64         // requests sent and not measured
	WantStatus       int
}

func main() {
	var cfg Config
	var bodyFile string
	flag.StringVar(&cfg.URL, "url", "", "endpoint URL")
	flag.StringVar(&cfg.Method, "method", "", "HTTP method (default POST with -body, else GET)")
	flag.StringVar(&cfg.Key, "key", os.Getenv("SLUICE_KEY"), "API key (default $SLUICE_KEY)")
	flag.StringVar(&bodyFile, "body", "", "file holding the request body")
	flag.IntVar(&cfg.Concurrency, "c", 8, "concurrent clients")
	flag.Int64Var(&cfg.Requests, "n", 10000, "requests to measure")
	flag.DurationVar(&cfg.MaxDuration, "max", 30*time.Second, "stop after this long even if -n is not reached")
	flag.Int64Var(&cfg.Warmup, "warmup", 200, "requests sent first and not measured")
	flag.IntVar(&cfg.WantStatus, "status", 200, "expected HTTP status; others count as errors")
	asJSON := flag.Bool("json", false, "print the result as JSON")
	flag.Parse()
	if cfg.URL == "" {
		fmt.Fprintln(os.Stderr, "loadgen: -url is required")
		os.Exit(2)
	}
	if bodyFile != "" {
		b, err := os.ReadFile(bodyFile)
		if err != nil {
			fmt.Fprintln(os.Stderr, "loadgen:", err)
			os.Exit(2)
		}
		cfg.Body = b
	}
	res, err := Run(context.Background(), cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, "loadgen:", err)
		os.Exit(1)
	}
	if *asJSON {
		_ = json.NewEncoder(os.Stdout).Encode(res)
		return
	}
	fmt.Printf("%d requests in %.2fs with %d clients: %.0f/s, p50 %.2f ms, p99 %.2f ms, max %.2f ms, %d errors\n",
		res.Requests, res.Seconds, res.Concurrent, res.PerSecond, res.P50Millis, res.P99Millis, res.MaxMillis, res.Errors)
}

// Run sends the load and measures it.
func Run(ctx context.Context, cfg Config) (Result, error) {
	if cfg.Method == "" {
		cfg.Method = http.MethodGet
		if cfg.Body != nil {
			cfg.Method = http.MethodPost
		}
	}
	if cfg.Concurrency < 1 {
		cfg.Concurrency = 1
	}
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: cfg.Concurrency, MaxConnsPerHost: cfg.Concurrency}}
	send := func() (time.Duration, bool) {
		req, err := http.NewRequestWithContext(ctx, cfg.Method, cfg.URL, bytes.NewReader(cfg.Body))
		if err != nil {
			return 0, false
		}
		req.Header.Set("Authorization", "Bearer "+cfg.Key)
		if cfg.Body != nil {
			req.Header.Set("Content-Type", "application/json")
		}
		start := time.Now()
		resp, err := client.Do(req)
		if err != nil {
			return time.Since(start), false
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return time.Since(start), resp.StatusCode == cfg.WantStatus
	}
	for i := int64(0); i < cfg.Warmup; i++ {
		if _, ok := send(); !ok {
			return Result{}, fmt.Errorf("warm-up request %d did not answer %d", i, cfg.WantStatus)
		}
	}
	var next, errs atomic.Int64
	lat := make([][]time.Duration, cfg.Concurrency)
	deadline := time.Now().Add(cfg.MaxDuration)
	start := time.Now()
	var wg sync.WaitGroup
	for w := range cfg.Concurrency {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for next.Add(1) <= cfg.Requests && time.Now().Before(deadline) {
				d, ok := send()
				if !ok {
					errs.Add(1)
				}
				lat[w] = append(lat[w], d)
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	var all []time.Duration
	for _, l := range lat {
		all = append(all, l...)
	}
	if len(all) == 0 {
		return Result{}, fmt.Errorf("no request completed")
	}
	sort.Slice(all, func(i, j int) bool { return all[i] < all[j] })
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	return Result{
		Requests: int64(len(all)), Errors: errs.Load(), Seconds: elapsed.Seconds(),
		PerSecond: float64(len(all)) / elapsed.Seconds(), P50Millis: ms(all[len(all)/2]),
		P99Millis: ms(all[len(all)*99/100]), MaxMillis: ms(all[len(all)-1]), Concurrent: cfg.Concurrency,
	}, nil
}
