package storetest

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/sluice-api/sluice/internal/store"
)

// The RateWindows port.

func runRateWindow(t *testing.T, open func(t *testing.T) store.Store) {
	start := time.Date(2026, 11, 22, 21, 4, 0, 0, time.UTC)

	hit := func(t *testing.T, s store.Store, acct string, start time.Time, limit, wantCount int64, wantOK bool) {
		t.Helper()
		count, ok, err := s.Hit(t.Context(), acct, start, limit)
		if err != nil {
			t.Fatalf("Hit: %v", err)
		}
		if count != wantCount || ok != wantOK {
			t.Fatalf("Hit(%s, %v, %d) = %d, %v; want %d, %v", acct, start, limit, count, ok, wantCount, wantOK)
		}
	}

	count := func(t *testing.T, s store.Store, acct string, start time.Time, want int64) {
		t.Helper()
		if got, err := s.Count(t.Context(), acct, start); err != nil || got != want {
			t.Fatalf("Count(%s, %v) = %d, %v; want %d", acct, start, got, err, want)
		}
	}

	t.Run("Sequence", func(t *testing.T) {
		s := open(t)
		count(t, s, "acct-1", start, 0)
		for i := int64(1); i <= 3; i++ {
			hit(t, s, "acct-1", start, 3, i, true)
			count(t, s, "acct-1", start, i)
		}
		for range 3 {
			hit(t, s, "acct-1", start, 3, 3, false)
		}
		count(t, s, "acct-1", start, 3)
		count(t, s, "acct-1", start.Add(time.Minute), 0)
		count(t, s, "acct-2", start, 0)
	})

	t.Run("NewWindowResets", func(t *testing.T) {
		s := open(t)
		hit(t, s, "acct-1", start, 2, 1, true)
		hit(t, s, "acct-1", start, 2, 2, true)
		hit(t, s, "acct-1", start, 2, 2, false)
		next := start.Add(time.Minute)
		hit(t, s, "acct-1", next, 2, 1, true)
		hit(t, s, "acct-1", next, 2, 2, true)
		hit(t, s, "acct-1", next, 2, 2, false)
	})

	t.Run("AccountsIndependent", func(t *testing.T) {
		s := open(t)
		hit(t, s, "acct-1", start, 1, 1, true)
		hit(t, s, "acct-1", start, 1, 1, false)
		hit(t, s, "acct-2", start, 1, 1, true)
		hit(t, s, "acct-2", start, 1, 1, false)
	})

	t.Run("Race", func(t *testing.T) {
		s := open(t)
		HitRace(t, []store.Store{s}, 64, 40)
	})
}

// HitRace hits one rate window with the given limit from workers goroutines spread over stores
// and checks that exactly limit are admitted and the count stays at limit. Adapters use it in
// their own sharing tests.
func HitRace(t *testing.T, stores []store.Store, workers int, limit int64) {
	t.Helper()
	start := time.Date(2026, 11, 22, 21, 4, 0, 0, time.UTC)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var admitted int64
	errs := make(chan error, workers)
	for i := range workers {
		s := stores[i%len(stores)]
		wg.Go(func() {
			count, ok, err := s.Hit(context.Background(), "acct-race", start, limit)
			switch {
			case err != nil:
				errs <- err
			case count > limit:
				errs <- fmt.Errorf("count = %d, over the limit %d", count, limit)
			case ok:
				mu.Lock()
				admitted++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("Hit: %v", err)
	}
	want := min(limit, int64(workers))
	if admitted != want {
		t.Errorf("admitted = %d, want %d", admitted, want)
	}
	if want < limit {
		return
	}
	count, ok, err := stores[0].Hit(context.Background(), "acct-race", start, limit)
	if err != nil {
		t.Fatalf("Hit: %v", err)
	}
	if ok || count != limit {
		t.Errorf("Hit after the race = %d, %v; want %d, false", count, ok, limit)
	}
}
