package storetest

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/sluice-api/sluice/internal/store"
)

// The Meter port.

// window0 is the window of t0.
var window0 = t0.UTC().Truncate(time.Minute)

// noLimit is a rate limit no test reaches.
const noLimit = 1 << 40

// enter enters a request of acct in month with no rate limit in reach and leaves it when the
// test ends.
func enter(t *testing.T, s store.Store, acct, month string) store.Pass {
	t.Helper()
	p, err := s.Enter(t.Context(), store.Entry{Account: acct, Month: month, Window: window0, Limit: noLimit})
	if err != nil || !p.Admitted {
		t.Fatalf("Enter(%s, %s) = %+v, %v; want admitted", acct, month, p, err)
	}
	t.Cleanup(func() { s.Leave(p) })
	return p
}

// settlement is a settlement of a new pass of acct in month.
func settlement(t *testing.T, s store.Store, acct, month string, chars, limit int64, trace string) store.Settlement {
	t.Helper()
	return store.Settlement{Pass: enter(t, s, acct, month), Characters: chars, Limit: limit, TraceID: trace}
}

func runMeter(t *testing.T, open func(t *testing.T) store.Store) {
	in := func(t *testing.T, s store.Store, acct string, w time.Time, limit, wantCount int64, wantOK bool) store.Pass {
		t.Helper()
		p, err := s.Enter(t.Context(), store.Entry{Account: acct, Month: "2026-11", Window: w, Limit: limit})
		if err != nil {
			t.Fatalf("Enter: %v", err)
		}
		if p.Count != wantCount || p.Admitted != wantOK || p.Account != acct || p.Month != "2026-11" {
			t.Fatalf("Enter(%s, %v, %d) = %+v; want count %d, admitted %v", acct, w, limit, p, wantCount, wantOK)
		}
		s.Leave(p)
		return p
	}

	t.Run("Sequence", func(t *testing.T) {
		s := open(t)
		for i := int64(1); i <= 3; i++ {
			in(t, s, "acct-1", window0, 3, i, true)
		}
		for range 3 {
			in(t, s, "acct-1", window0, 3, 3, false)
		}
	})

	t.Run("NewWindowResets", func(t *testing.T) {
		s := open(t)
		in(t, s, "acct-1", window0, 2, 1, true)
		in(t, s, "acct-1", window0, 2, 2, true)
		in(t, s, "acct-1", window0, 2, 2, false)
		next := window0.Add(time.Minute)
		in(t, s, "acct-1", next, 2, 1, true)
		in(t, s, "acct-1", next, 2, 2, true)
		in(t, s, "acct-1", next, 2, 2, false)
		// A caller whose clock lags counts in the newer window.
		in(t, s, "acct-2", next, 3, 1, true)
		in(t, s, "acct-2", window0, 3, 2, true)
	})

	t.Run("AccountsIndependent", func(t *testing.T) {
		s := open(t)
		in(t, s, "acct-1", window0, 1, 1, true)
		in(t, s, "acct-1", window0, 1, 1, false)
		in(t, s, "acct-2", window0, 1, 1, true)
	})

	t.Run("SeesTheMonthsUsage", func(t *testing.T) {
		s := open(t)
		st := settlement(t, s, "acct-1", "2026-11", 40, 100, "sluice_t1")
		if _, ok, err := s.Settle(t.Context(), st); err != nil || !ok {
			t.Fatalf("Settle = %v, %v", ok, err)
		}
		if p := enter(t, s, "acct-1", "2026-11"); p.Usage != (store.Usage{Characters: 40, Runs: 1}) {
			t.Errorf("Enter's usage = %+v, want 40 characters in 1 run", p.Usage)
		}
		if p := enter(t, s, "acct-1", "2026-12"); p.Usage != (store.Usage{}) {
			t.Errorf("Enter's usage of another month = %+v, want none", p.Usage)
		}
		// The window does not count as usage.
		wantUsage(t, s, "acct-1", "2026-11", store.Usage{Characters: 40, Runs: 1})
	})

	t.Run("Race", func(t *testing.T) {
		s := open(t)
		EnterRace(t, []store.Store{s}, 64, 40)
	})
}

// EnterRace enters workers requests of one account in one window with the given limit from
// goroutines spread over stores, and checks that exactly limit are admitted and the count stays
// at limit. Adapters use it in their own sharing and lossy tests.
func EnterRace(t *testing.T, stores []store.Store, workers int, limit int64) {
	t.Helper()
	var wg sync.WaitGroup
	var mu sync.Mutex
	var admitted int64
	errs := make(chan error, workers)
	for i := range workers {
		s := stores[i%len(stores)]
		wg.Go(func() {
			p, err := s.Enter(context.Background(), store.Entry{Account: "acct-race", Month: "2026-11", Window: window0, Limit: limit})
			switch {
			case err != nil:
				errs <- err
				return
			case p.Count > limit:
				errs <- fmt.Errorf("count = %d, over the limit %d", p.Count, limit)
			case p.Admitted:
				mu.Lock()
				admitted++
				mu.Unlock()
			}
			s.Leave(p)
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("Enter: %v", err)
	}
	want := min(limit, int64(workers))
	if admitted != want {
		t.Errorf("admitted = %d, want %d", admitted, want)
	}
	if want < limit {
		return
	}
	p, err := stores[0].Enter(context.Background(), store.Entry{Account: "acct-race", Month: "2026-11", Window: window0, Limit: limit})
	if err != nil {
		t.Fatalf("Enter: %v", err)
	}
	if p.Admitted || p.Count != limit {
		t.Errorf("Enter after the race = %+v; want count %d, refused", p, limit)
	}
}
