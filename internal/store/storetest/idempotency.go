package storetest

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/sluice-api/sluice/internal/store"
)

// The Idempotency port.

// claim is a Claim at t0 with a 24 h TTL and a 1 min lease.
func claim(acct, k, lease string) store.Claim {
	return store.Claim{
		Account: acct, Key: k, Fingerprint: "fp-" + lease, Lease: lease, TraceID: "sluice_trace-" + lease,
		Now: t0, TTL: 24 * time.Hour, LeaseTTL: time.Minute,
	}
}

// mustClaim claims c with a new pass (of c.Account in 2026-11) and expects to win; it returns c
// with that pass, which the run's Settle uses.
func mustClaim(t *testing.T, s store.Store, c store.Claim) store.Claim {
	t.Helper()
	c.Pass = enter(t, s, c.Account, "2026-11")
	existing, err := s.Claim(t.Context(), c)
	if err != nil {
		t.Fatalf("Claim(%s/%s, %s): %v", c.Account, c.Key, c.Lease, err)
	}
	if existing != nil {
		t.Fatalf("Claim(%s/%s, %s) found %+v, want a new record", c.Account, c.Key, c.Lease, existing)
	}
	return c
}

// wantRecord claims c (with a new pass) and expects to find the record of claim from in state.
func wantRecord(t *testing.T, s store.Store, c store.Claim, from store.Claim, state, trace string) {
	t.Helper()
	c.Pass = enter(t, s, c.Account, "2026-11")
	got, err := s.Claim(t.Context(), c)
	if err != nil {
		t.Fatalf("Claim: %v", err)
	}
	if got == nil {
		t.Fatalf("Claim(%s/%s, %s) won; want the existing record of lease %s", c.Account, c.Key, c.Lease, from.Lease)
	}
	want := store.IdemRecord{
		Account: from.Account, Key: from.Key, Fingerprint: from.Fingerprint, State: state,
		Lease: from.Lease, TraceID: trace,
	}
	sameTime(t, "LeaseExpires", got.LeaseExpires, from.Now.Add(from.LeaseTTL))
	sameTime(t, "Expires", got.Expires, from.Now.Add(from.TTL))
	g := *got
	g.LeaseExpires, g.Expires = time.Time{}, time.Time{}
	g.Ref = "" // the adapter's own
	if g != want {
		t.Errorf("existing = %+v, want %+v", g, want)
	}
}

func runIdempotency(t *testing.T, open func(t *testing.T) store.Store) {
	t.Run("ClaimOnce", func(t *testing.T) {
		s := open(t)
		first := mustClaim(t, s, claim("acct-1", "idem-1", "lease-1"))
		second := claim("acct-1", "idem-1", "lease-2")
		second.Now = t0.Add(30 * time.Second) // within the first lease
		wantRecord(t, s, second, first, store.IdemInFlight, first.TraceID)
		// Nothing changed: the first lease still settles.
		_, ok, err := s.Settle(t.Context(), store.Settlement{
			Pass: first.Pass, Characters: 1, Limit: 10, TraceID: first.TraceID,
			Idem: &store.IdemCompletion{Key: "idem-1", Lease: "lease-1", TraceID: first.TraceID},
		})
		if err != nil || !ok {
			t.Fatalf("Settle by the first lease = %v, %v; want admitted", ok, err)
		}
	})

	t.Run("ChargedOnlyWhenCharged", func(t *testing.T) {
		s := open(t)
		first := mustClaim(t, s, claim("acct-1", "idem-1", "lease-1"))
		again := claim("acct-1", "idem-1", "lease-2")
		again.Now = t0.Add(30 * time.Second) // within the first lease
		charged := func(want bool) {
			t.Helper()
			again.Pass = enter(t, s, "acct-1", "2026-11")
			rec, err := s.Claim(t.Context(), again)
			if err != nil || rec == nil {
				t.Fatalf("Claim within the lease = %+v, %v; want the record of lease-1", rec, err)
			}
			got, err := s.Charged(t.Context(), *rec)
			if err != nil || got != want {
				t.Fatalf("Charged(%s record) = %v, %v; want %v", rec.State, got, err, want)
			}
		}
		// In flight, its run not charged: a retry is "in use".
		charged(false)
		// Settled: the record is done, and Charged is false for a done record.
		settle(t, s, first, "sluice_trace-done")
		charged(false)
	})

	t.Run("ClaimRace", func(t *testing.T) {
		s := open(t)
		won := ClaimRace(t, []store.Store{s}, 32)
		late := claim("acct-race", "idem-race", "lease-late")
		late.Now = t0.Add(time.Second)
		wantRecord(t, s, late, claim("acct-race", "idem-race", won), store.IdemInFlight, "sluice_trace-"+won)
	})

	t.Run("PerAccount", func(t *testing.T) {
		s := open(t)
		mustClaim(t, s, claim("acct-1", "idem-1", "lease-1"))
		mustClaim(t, s, claim("acct-2", "idem-1", "lease-2"))
		mustClaim(t, s, claim("acct-1", "idem-2", "lease-3"))
	})

	t.Run("ExpiredRecordIsAbsent", func(t *testing.T) {
		s := open(t)
		first := mustClaim(t, s, claim("acct-1", "idem-1", "lease-1"))
		settle(t, s, first, "sluice_trace-done")
		// Just before Expires the done record is live.
		before := claim("acct-1", "idem-1", "lease-2")
		before.Now = t0.Add(24*time.Hour - time.Millisecond)
		wantRecord(t, s, before, first, store.IdemDone, "sluice_trace-done")
		// From Expires on it is absent.
		later := claim("acct-1", "idem-1", "lease-3")
		later.Now = t0.Add(24 * time.Hour)
		later = mustClaim(t, s, later)
		again := claim("acct-1", "idem-1", "lease-4")
		again.Now = later.Now.Add(time.Second)
		wantRecord(t, s, again, later, store.IdemInFlight, later.TraceID)
	})

	t.Run("LeaseTakeover", func(t *testing.T) {
		s := open(t)
		old := mustClaim(t, s, claim("acct-1", "idem-1", "lease-1"))
		late := claim("acct-1", "idem-1", "lease-2")
		late.Now = t0.Add(time.Minute) // the first lease has expired: its run crashed
		late = mustClaim(t, s, late)
		probe := claim("acct-1", "idem-1", "lease-3")
		probe.Now = late.Now.Add(time.Second)
		wantRecord(t, s, probe, late, store.IdemInFlight, late.TraceID)

		before, err := s.Usage(t.Context(), "acct-1", "2026-11")
		if err != nil {
			t.Fatalf("Usage: %v", err)
		}
		_, ok, err := s.Settle(t.Context(), store.Settlement{
			Pass: old.Pass, Characters: 5, Limit: 100, TraceID: "sluice_trace-old",
			Idem: &store.IdemCompletion{Key: "idem-1", Lease: "lease-1", TraceID: "sluice_trace-old"},
		})
		wantErr(t, "Settle by the old lease", err, store.ErrLeaseLost)
		if ok {
			t.Error("Settle by the old lease admitted")
		}
		after, err := s.Usage(t.Context(), "acct-1", "2026-11")
		if err != nil {
			t.Fatalf("Usage: %v", err)
		}
		if after != before {
			t.Errorf("usage after a lost lease = %+v, want %+v", after, before)
		}
		settle(t, s, late, late.TraceID)
	})

	t.Run("ReleaseByLease", func(t *testing.T) {
		s := open(t)
		mustClaim(t, s, claim("acct-1", "idem-1", "lease-1"))
		if err := s.Release(t.Context(), "acct-1", "idem-1", "lease-1"); err != nil {
			t.Fatalf("Release: %v", err)
		}
		mustClaim(t, s, claim("acct-1", "idem-1", "lease-2"))
	})

	t.Run("ReleaseChangesNothing", func(t *testing.T) {
		for _, tc := range []struct {
			name    string
			done    bool
			account string
			lease   string
		}{
			{"WrongLease", false, "acct-1", "lease-other"},
			{"WrongAccount", false, "acct-2", "lease-1"},
			{"DoneRecord", true, "acct-1", "lease-1"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				s := open(t)
				first := mustClaim(t, s, claim("acct-1", "idem-1", "lease-1"))
				state, trace := store.IdemInFlight, first.TraceID
				if tc.done {
					settle(t, s, first, "sluice_trace-done")
					state, trace = store.IdemDone, "sluice_trace-done"
				}
				if err := s.Release(t.Context(), tc.account, "idem-1", tc.lease); err != nil {
					t.Fatalf("Release: %v", err)
				}
				wantRecord(t, s, claim("acct-1", "idem-1", "lease-2"), first, state, trace)
			})
		}
	})
}

// ClaimRace claims one key from workers goroutines spread over stores, checks that exactly one
// wins and that every other one finds the in-flight record, and returns the winner's lease.
// Adapters use it in their own sharing tests.
func ClaimRace(t *testing.T, stores []store.Store, workers int) (winner string) {
	t.Helper()
	var wg sync.WaitGroup
	var mu sync.Mutex
	var winners []string
	errs := make(chan error, workers)
	for i := range workers {
		s := stores[i%len(stores)]
		wg.Go(func() {
			lease := fmt.Sprintf("lease-%d", i)
			c := claim("acct-race", "idem-race", lease)
			p, err := s.Enter(context.Background(), store.Entry{Account: "acct-race", Month: "2026-11", Window: window0, Limit: noLimit})
			if err != nil {
				errs <- err
				return
			}
			defer s.Leave(p)
			c.Pass = p
			existing, err := s.Claim(context.Background(), c)
			switch {
			case err != nil:
				errs <- err
			case existing == nil:
				mu.Lock()
				winners = append(winners, lease)
				mu.Unlock()
			case existing.State != store.IdemInFlight || existing.Lease == lease:
				errs <- fmt.Errorf("lease %s found %+v, want another lease's in-flight record", lease, existing)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("Claim: %v", err)
	}
	if len(winners) != 1 {
		t.Fatalf("winners = %v, want exactly one", winners)
	}
	return winners[0]
}
