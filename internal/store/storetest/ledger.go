package storetest

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/sluice-api/sluice/internal/store"
)

// The Ledger port, and Settle's completion of idempotency records.

// settle completes the record claimed by c (with c's pass) with a 1-character charge and
// expects admission.
func settle(t *testing.T, s store.Store, c store.Claim, trace string) {
	t.Helper()
	_, ok, err := s.Settle(t.Context(), store.Settlement{
		Pass: c.Pass, Characters: 1, Limit: 1 << 40, TraceID: trace,
		Idem: &store.IdemCompletion{Key: c.Key, Lease: c.Lease, TraceID: trace},
	})
	if err != nil || !ok {
		t.Fatalf("Settle(%s/%s, %s) = %v, %v; want admitted", c.Account, c.Key, c.Lease, ok, err)
	}
}

func wantUsage(t *testing.T, s store.Store, acct, month string, want store.Usage) {
	t.Helper()
	got, err := s.Usage(t.Context(), acct, month)
	if err != nil {
		t.Fatalf("Usage: %v", err)
	}
	if got != want {
		t.Errorf("Usage(%s, %s) = %+v, want %+v", acct, month, got, want)
	}
}

func runLedger(t *testing.T, open func(t *testing.T) store.Store) {
	type step struct {
		month      string
		characters int64
		limit      int64
		want       store.Usage
		admitted   bool
	}
	for _, tc := range []struct {
		name  string
		steps []step
		final map[string]store.Usage // month -> usage
	}{
		{"NothingCharged", nil, map[string]store.Usage{"2026-11": {}}},
		{"AddsCharactersAndRun", []step{
			{"2026-11", 10, 100, store.Usage{Characters: 10, Runs: 1}, true},
			{"2026-11", 15, 100, store.Usage{Characters: 25, Runs: 2}, true},
		}, map[string]store.Usage{"2026-11": {Characters: 25, Runs: 2}}},
		{"ZeroCharactersCountsRun", []step{
			{"2026-11", 0, 100, store.Usage{Characters: 0, Runs: 1}, true},
			{"2026-11", 0, 100, store.Usage{Characters: 0, Runs: 2}, true},
		}, map[string]store.Usage{"2026-11": {Runs: 2}}},
		{"RefusedOverLimit", []step{
			{"2026-11", 90, 100, store.Usage{Characters: 90, Runs: 1}, true},
			{"2026-11", 11, 100, store.Usage{Characters: 90, Runs: 1}, false},
			{"2026-11", 5, 100, store.Usage{Characters: 95, Runs: 2}, true},
		}, map[string]store.Usage{"2026-11": {Characters: 95, Runs: 2}}},
		{"RefusedFirstCharge", []step{
			{"2026-11", 101, 100, store.Usage{}, false},
		}, map[string]store.Usage{"2026-11": {}}},
		{"ExactlyReachingLimit", []step{
			{"2026-11", 60, 100, store.Usage{Characters: 60, Runs: 1}, true},
			{"2026-11", 40, 100, store.Usage{Characters: 100, Runs: 2}, true},
			{"2026-11", 1, 100, store.Usage{Characters: 100, Runs: 2}, false},
			{"2026-11", 0, 100, store.Usage{Characters: 100, Runs: 3}, true},
		}, map[string]store.Usage{"2026-11": {Characters: 100, Runs: 3}}},
		{"MonthsSeparate", []step{
			{"2026-11", 100, 100, store.Usage{Characters: 100, Runs: 1}, true},
			{"2026-12", 70, 100, store.Usage{Characters: 70, Runs: 1}, true},
			{"2026-11", 1, 100, store.Usage{Characters: 100, Runs: 1}, false},
		}, map[string]store.Usage{
			"2026-11": {Characters: 100, Runs: 1},
			"2026-12": {Characters: 70, Runs: 1},
			"2027-01": {},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := open(t)
			for i, st := range tc.steps {
				got, ok, err := s.Settle(t.Context(), settlement(t, s, "acct-1", st.month, st.characters, st.limit, fmt.Sprintf("sluice_run-%d", i)))
				if err != nil {
					t.Fatalf("step %d: Settle: %v", i, err)
				}
				if got != st.want || ok != st.admitted {
					t.Fatalf("step %d: Settle(%s, %d, limit %d) = %+v, %v; want %+v, %v",
						i, st.month, st.characters, st.limit, got, ok, st.want, st.admitted)
				}
			}
			for month, want := range tc.final {
				wantUsage(t, s, "acct-1", month, want)
			}
			wantUsage(t, s, "acct-2", "2026-11", store.Usage{})
		})
	}

	t.Run("CompletesIdempotency", func(t *testing.T) {
		s := open(t)
		first := mustClaim(t, s, claim("acct-1", "idem-1", "lease-1"))
		got, ok, err := s.Settle(t.Context(), store.Settlement{
			Pass: first.Pass, Characters: 42, Limit: 100, TraceID: "sluice_trace-final",
			Idem: &store.IdemCompletion{Key: "idem-1", Lease: "lease-1", TraceID: "sluice_trace-final"},
		})
		if err != nil || !ok || got != (store.Usage{Characters: 42, Runs: 1}) {
			t.Fatalf("Settle = %+v, %v, %v; want {42 1}, true, nil", got, ok, err)
		}
		later := claim("acct-1", "idem-1", "lease-2")
		later.Now = t0.Add(time.Hour) // long after the lease: a done record stays live
		wantRecord(t, s, later, first, store.IdemDone, "sluice_trace-final")
		wantUsage(t, s, "acct-1", "2026-11", store.Usage{Characters: 42, Runs: 1})
	})

	t.Run("RefusedLeavesRecordInFlight", func(t *testing.T) {
		s := open(t)
		first := mustClaim(t, s, claim("acct-1", "idem-1", "lease-1"))
		got, ok, err := s.Settle(t.Context(), store.Settlement{
			Pass: first.Pass, Characters: 101, Limit: 100, TraceID: "sluice_trace-final",
			Idem: &store.IdemCompletion{Key: "idem-1", Lease: "lease-1", TraceID: "sluice_trace-final"},
		})
		if err != nil || ok || got != (store.Usage{}) {
			t.Fatalf("Settle = %+v, %v, %v; want {0 0}, false, nil", got, ok, err)
		}
		probe := claim("acct-1", "idem-1", "lease-2")
		probe.Now = t0.Add(time.Second)
		wantRecord(t, s, probe, first, store.IdemInFlight, first.TraceID)
	})

	t.Run("LeaseLost", func(t *testing.T) {
		// A run that outlived its lease was taken over by a claimer: its Settle charges
		// nothing, whether it comes before or after the new run's.
		for _, newFirst := range []bool{false, true} {
			t.Run(fmt.Sprint("NewRunSettledFirst=", newFirst), func(t *testing.T) {
				s := open(t)
				settleOK := func(st store.Settlement) {
					t.Helper()
					if _, ok, err := s.Settle(t.Context(), st); err != nil || !ok {
						t.Fatalf("Settle = %v, %v", ok, err)
					}
				}
				settleOK(settlement(t, s, "acct-1", "2026-11", 7, 100, "sluice_run-before"))
				old := mustClaim(t, s, claim("acct-1", "idem-1", "lease-1"))
				taker := claim("acct-1", "idem-1", "lease-2")
				taker.Now = t0.Add(time.Minute)
				taker = mustClaim(t, s, taker)
				if newFirst {
					settle(t, s, taker, "sluice_trace-new")
				}
				_, ok, err := s.Settle(t.Context(), store.Settlement{
					Pass: old.Pass, Characters: 10, Limit: 100, TraceID: "sluice_run-old",
					Idem: &store.IdemCompletion{Key: "idem-1", Lease: "lease-1", TraceID: "sluice_run-old"},
				})
				wantErr(t, "Settle by the old lease", err, store.ErrLeaseLost)
				if ok {
					t.Error("Settle by the old lease admitted")
				}
				if !newFirst {
					settle(t, s, taker, "sluice_trace-new")
				}
				wantUsage(t, s, "acct-1", "2026-11", store.Usage{Characters: 8, Runs: 2})
			})
		}
	})

	t.Run("AllowanceNeverExceeded", func(t *testing.T) {
		s := open(t)
		AllowanceRace(t, []store.Store{s}, 50, 30, 1000)
	})
}

// AllowanceRace settles workers runs of chars characters each against limit, spread over
// stores (which may share one database), and checks that exactly limit/chars are admitted and
// the final usage holds exactly those. Adapters use it in their own sharing tests.
func AllowanceRace(t *testing.T, stores []store.Store, workers int, chars, limit int64) {
	t.Helper()
	var wg sync.WaitGroup
	var mu sync.Mutex
	var admitted int64
	errs := make(chan error, workers)
	for i := range workers {
		s := stores[i%len(stores)]
		wg.Go(func() {
			p, err := s.Enter(context.Background(), store.Entry{Account: "acct-race", Month: "2026-11", Window: window0, Limit: noLimit})
			if err != nil {
				errs <- err
				return
			}
			defer s.Leave(p)
			after, ok, err := s.Settle(context.Background(), store.Settlement{
				Pass: p, Characters: chars, Limit: limit, TraceID: fmt.Sprintf("sluice_race-%d", i),
			})
			if err != nil {
				errs <- err
				return
			}
			if after.Characters > limit {
				errs <- fmt.Errorf("usage after Settle = %d characters, over the limit %d", after.Characters, limit)
			}
			if ok {
				mu.Lock()
				admitted++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("Settle: %v", err)
	}
	want := min(limit/chars, int64(workers))
	if admitted != want {
		t.Errorf("admitted = %d, want %d", admitted, want)
	}
	wantUsage(t, stores[0], "acct-race", "2026-11", store.Usage{Characters: want * chars, Runs: want})
}
