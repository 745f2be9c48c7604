package storetest

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/sluice-api/sluice/internal/store"
)

func wantDays(t *testing.T, s store.Store, acct, month string, want map[int]int64) {
	t.Helper()
	got, err := s.UsageDays(t.Context(), acct, month)
	if err != nil {
		t.Fatalf("UsageDays: %v", err)
	}
	var w store.Days
	for d, n := range want {
		w[d-1] = n
	}
	if got != w {
		t.Errorf("UsageDays(%s, %s) = %v, want %v", acct, month, got, w)
	}
}

// at is st with a new pass of acct in month.
func at(t *testing.T, s store.Store, acct, month string, st store.Settlement) store.Settlement {
	t.Helper()
	st.Pass = enter(t, s, acct, month)
	return st
}

func runUsageDays(t *testing.T, open func(t *testing.T) store.Store) {
	charge := func(t *testing.T, s store.Store, st store.Settlement, admitted bool) {
		t.Helper()
		_, ok, err := s.Settle(t.Context(), st)
		if err != nil || ok != admitted {
			t.Fatalf("Settle(%+v) = %v, %v; want admitted %v", st, ok, err, admitted)
		}
	}
	t.Run("SameWriteAsMonth", func(t *testing.T) {
		s := open(t)
		charge(t, s, at(t, s, "acct-1", "2026-11", store.Settlement{Day: 5, Characters: 10, Limit: 100, TraceID: "sluice_t1"}), true)
		charge(t, s, at(t, s, "acct-1", "2026-11", store.Settlement{Day: 5, Characters: 15, Limit: 100, TraceID: "sluice_t2"}), true)
		charge(t, s, at(t, s, "acct-1", "2026-11", store.Settlement{Day: 30, Characters: 70, Limit: 100, TraceID: "sluice_t3"}), true)
		charge(t, s, at(t, s, "acct-1", "2026-11", store.Settlement{Day: 30, Characters: 6, Limit: 100, TraceID: "sluice_t4"}), false) // refused: no day either
		charge(t, s, at(t, s, "acct-1", "2026-11", store.Settlement{Day: 0, Characters: 1, Limit: 100, TraceID: "sluice_t5"}), true)   // no day
		charge(t, s, at(t, s, "acct-1", "2026-12", store.Settlement{Day: 1, Characters: 4, Limit: 100, TraceID: "sluice_t6"}), true)
		charge(t, s, at(t, s, "acct-2", "2026-11", store.Settlement{Day: 31, Characters: 9, Limit: 100, TraceID: "sluice_t7"}), true)
		wantDays(t, s, "acct-1", "2026-11", map[int]int64{5: 25, 30: 70})
		wantUsage(t, s, "acct-1", "2026-11", store.Usage{Characters: 96, Runs: 4})
		wantDays(t, s, "acct-1", "2026-12", map[int]int64{1: 4})
		wantDays(t, s, "acct-2", "2026-11", map[int]int64{31: 9})
		wantDays(t, s, "acct-3", "2026-11", nil)
	})
	t.Run("BadDayChargesNothing", func(t *testing.T) {
		s := open(t)
		for _, day := range []int{-1, 32} {
			if _, _, err := s.Settle(t.Context(), at(t, s, "acct-1", "2026-11", store.Settlement{Day: day, Characters: 1, Limit: 100, TraceID: "sluice_t8"})); err == nil {
				t.Errorf("Settle with day %d succeeded", day)
			}
		}
		wantUsage(t, s, "acct-1", "2026-11", store.Usage{})
	})
	t.Run("WithIdempotencyOnce", func(t *testing.T) {
		s := open(t)
		c := mustClaim(t, s, claim("acct-1", "idem-1", "lease-1"))
		st := store.Settlement{Pass: c.Pass, Day: 22, Characters: 12, Limit: 100, TraceID: "t1",
			Idem: &store.IdemCompletion{Key: "idem-1", Lease: "lease-1", TraceID: "t1"}}
		charge(t, s, st, true)
		wantDays(t, s, "acct-1", "2026-11", map[int]int64{22: 12})
		wantUsage(t, s, "acct-1", "2026-11", store.Usage{Characters: 12, Runs: 1})
	})
	t.Run("RaceDaysSumToMonth", func(t *testing.T) {
		s := open(t)
		const workers = 24
		var wg sync.WaitGroup
		errs := make(chan error, workers)
		for i := range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				day := 1 + i%3
				p, err := s.Enter(context.Background(), store.Entry{Account: "acct-1", Month: "2026-11", Window: window0, Limit: noLimit})
				if err != nil {
					errs <- err
					return
				}
				defer s.Leave(p)
				if _, _, err := s.Settle(context.Background(), store.Settlement{Pass: p, Day: day, Characters: 30, Limit: 500, TraceID: fmt.Sprintf("sluice_race-%d", i)}); err != nil {
					errs <- err
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatalf("Settle: %v", err)
		}
		u, err := s.Usage(t.Context(), "acct-1", "2026-11")
		if err != nil {
			t.Fatal(err)
		}
		days, err := s.UsageDays(t.Context(), "acct-1", "2026-11")
		if err != nil {
			t.Fatal(err)
		}
		var sum int64
		for _, n := range days {
			sum += n
		}
		if u.Characters != 480 || sum != u.Characters {
			t.Errorf("month %d characters, days sum to %d (%v); want 480 both", u.Characters, sum, days)
		}
	})
}
