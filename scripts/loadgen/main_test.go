package main

import (
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"
)

func TestRunCountsRequestsAndErrors(t *testing.T) {
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer k" {
			w.WriteHeader(401)
			return
		}
		if n.Add(1)%10 == 0 {
			w.WriteHeader(503)
			return
		}
		_, _ = w.Write([]byte("{}\n"))
	}))
	defer srv.Close()
	res, err := Run(t.Context(), Config{URL: srv.URL, Key: "k", Concurrency: 4, Requests: 200, MaxDuration: time.Minute, WantStatus: 200})
	if err != nil {
		t.Fatal(err)
	}
	if res.Requests != 200 || res.Errors != 20 || res.P50Millis > res.P99Millis || res.PerSecond <= 0 {
		t.Fatalf("result = %+v, want 200 requests with 20 errors", res)
	}
	if _, err := Run(t.Context(), Config{URL: srv.URL, Key: "wrong", Requests: 1, Warmup: 1, MaxDuration: time.Minute, WantStatus: 200}); err == nil {
		t.Fatal("a failing warm-up was not reported")
	}
}
