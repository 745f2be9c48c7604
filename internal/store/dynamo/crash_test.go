package dynamo

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/sluice-api/sluice/internal/store"
	"github.com/sluice-api/sluice/internal/store/storetest"
)

// The crash tests stop a settlement after one of its steps (by calling the steps directly),
// let a retry claim the key once the lease has expired, and check what the retry gets, what
// the stopped run can still do when it wakes up, and that usage holds exactly one charge.

var (
	crashT0 = time.Date(2026, 11, 22, 21, 4, 5, 0, time.UTC)
	// afterLease is when the first run's lease (one minute) has expired.
	afterLease = crashT0.Add(time.Minute)
)

const crashMonth = "2026-11"

func crashClaim(lease string, now time.Time) store.Claim {
	return store.Claim{
		Account: "acct-1", Key: "idem-1", Fingerprint: "fp", Lease: lease, TraceID: "sluice_claim-" + lease,
		Now: now, TTL: 24 * time.Hour, LeaseTTL: time.Minute,
	}
}

func crashSettlement(lease string, chars int64) store.Settlement {
	return store.Settlement{
		Account: "acct-1", Month: crashMonth, Characters: chars, Limit: 100,
		Idem: &store.IdemCompletion{Key: "idem-1", Lease: lease, TraceID: "sluice_run-" + lease},
	}
}

// claimWins claims c and expects to win.
func claimWins(t *testing.T, s *Store, c store.Claim) {
	t.Helper()
	existing, err := s.Claim(t.Context(), c)
	if err != nil {
		t.Fatalf("Claim(%s at %v): %v", c.Lease, c.Now, err)
	}
	if existing != nil {
		t.Fatalf("Claim(%s at %v) found %+v, want to win", c.Lease, c.Now, existing)
	}
}

// claimFinds claims c and expects an existing record of lease in state with trace.
func claimFinds(t *testing.T, s *Store, c store.Claim, state, lease, trace string) {
	t.Helper()
	existing, err := s.Claim(t.Context(), c)
	if err != nil {
		t.Fatalf("Claim(%s at %v): %v", c.Lease, c.Now, err)
	}
	if existing == nil {
		t.Fatalf("Claim(%s at %v) won, want the %s record of %s", c.Lease, c.Now, state, lease)
	}
	if existing.State != state || existing.Lease != lease || existing.TraceID != trace {
		t.Fatalf("Claim(%s at %v) found state %s, lease %s, trace %s; want %s, %s, %s",
			c.Lease, c.Now, existing.State, existing.Lease, existing.TraceID, state, lease, trace)
	}
}

func usageIs(t *testing.T, s *Store, want store.Usage) {
	t.Helper()
	got, err := s.Usage(t.Context(), "acct-1", crashMonth)
	if err != nil {
		t.Fatalf("Usage: %v", err)
	}
	if got != want {
		t.Fatalf("usage = %+v, want %+v", got, want)
	}
}

func mustStep(t *testing.T, what string, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// charge runs step 2 and expects res.
func charge(t *testing.T, s *Store, st store.Settlement, want chargeResult) {
	t.Helper()
	_, res, err := s.settleCharge(t.Context(), st, st.Idem.Lease)
	if err != nil {
		t.Fatalf("settleCharge(%s): %v", st.Idem.Lease, err)
	}
	if res != want {
		t.Fatalf("settleCharge(%s) = %d, want %d", st.Idem.Lease, res, want)
	}
}

// settleLost expects Settle of st to lose its lease.
func settleLost(t *testing.T, s *Store, st store.Settlement) {
	t.Helper()
	_, ok, err := s.Settle(t.Context(), st)
	if !errors.Is(err, store.ErrLeaseLost) || ok {
		t.Fatalf("Settle(%s) = %v, %v; want ErrLeaseLost", st.Idem.Lease, ok, err)
	}
}

func settleAdmitted(t *testing.T, s *Store, st store.Settlement, want store.Usage) {
	t.Helper()
	got, ok, err := s.Settle(t.Context(), st)
	if err != nil || !ok || got != want {
		t.Fatalf("Settle(%s) = %+v, %v, %v; want %+v, admitted", st.Idem.Lease, got, ok, err, want)
	}
}

func TestSettleCrashPoints(t *testing.T) {
	first, retry := crashSettlement("lease-1", 10), crashSettlement("lease-2", 10)
	for _, tc := range []struct {
		name string
		// crash runs the first run's steps up to the crash.
		crash func(t *testing.T, s *Store)
		// after checks what a retry (lease-2, after the first lease) and the woken first run get.
		after func(t *testing.T, s *Store)
	}{
		{"BeforeBegin", func(*testing.T, *Store) {}, func(t *testing.T, s *Store) {
			claimWins(t, s, crashClaim("lease-2", afterLease))
			settleLost(t, s, first)
			settleAdmitted(t, s, retry, store.Usage{Characters: 10, Runs: 1})
		}},
		{"AfterBegin", func(t *testing.T, s *Store) {
			mustStep(t, "settleBegin", s.settleBegin(t.Context(), first))
		}, func(t *testing.T, s *Store) {
			// Within the lease the settling record is in flight, with the claim's trace.
			claimFinds(t, s, crashClaim("lease-2", crashT0.Add(30*time.Second)), store.IdemInFlight, "lease-1", "sluice_claim-lease-1")
			// After it the retry fences the first lease and takes over.
			claimWins(t, s, crashClaim("lease-2", afterLease))
			charge(t, s, first, fenced) // the first run wakes up: it may not charge
			settleLost(t, s, first)
			usageIs(t, s, store.Usage{})
			settleAdmitted(t, s, retry, store.Usage{Characters: 10, Runs: 1})
			claimFinds(t, s, crashClaim("lease-3", afterLease.Add(time.Hour)), store.IdemDone, "lease-2", "sluice_run-lease-2")
		}},
		{"AfterRefusedCharge", func(t *testing.T, s *Store) {
			over := crashSettlement("lease-1", 101)
			mustStep(t, "settleBegin", s.settleBegin(t.Context(), over))
			charge(t, s, over, refused)
		}, func(t *testing.T, s *Store) {
			claimWins(t, s, crashClaim("lease-2", afterLease))
			if err := s.settleRevert(t.Context(), crashSettlement("lease-1", 101)); !errors.Is(err, store.ErrLeaseLost) {
				t.Fatalf("settleRevert by the first run after the takeover = %v, want ErrLeaseLost", err)
			}
			settleAdmitted(t, s, retry, store.Usage{Characters: 10, Runs: 1})
		}},
		{"AfterCharge", func(t *testing.T, s *Store) {
			mustStep(t, "settleBegin", s.settleBegin(t.Context(), first))
			charge(t, s, first, charged)
		}, func(t *testing.T, s *Store) {
			claimFinds(t, s, crashClaim("lease-2", crashT0.Add(30*time.Second)), store.IdemInFlight, "lease-1", "sluice_claim-lease-1")
			// After the lease the retry repairs the record: a duplicate of the first run.
			claimFinds(t, s, crashClaim("lease-2", afterLease), store.IdemDone, "lease-1", "sluice_run-lease-1")
			usageIs(t, s, store.Usage{Characters: 10, Runs: 1})
			// The first run wakes up and finishes: nothing changes.
			mustStep(t, "settleFinish", s.settleFinish(t.Context(), first))
			mustStep(t, "clean-up", s.removeMarker(t.Context(), s.t.Usage, usageKey(first.Account, first.Month), pendingPrefix+first.Idem.Lease))
			claimFinds(t, s, crashClaim("lease-3", afterLease.Add(time.Hour)), store.IdemDone, "lease-1", "sluice_run-lease-1")
			settleLost(t, s, retry)
			settleLost(t, s, first)
			usageIs(t, s, store.Usage{Characters: 10, Runs: 1})
		}},
		{"AfterFinish", func(t *testing.T, s *Store) {
			mustStep(t, "settleBegin", s.settleBegin(t.Context(), first))
			charge(t, s, first, charged)
			mustStep(t, "settleFinish", s.settleFinish(t.Context(), first))
		}, func(t *testing.T, s *Store) {
			claimFinds(t, s, crashClaim("lease-2", crashT0.Add(30*time.Second)), store.IdemDone, "lease-1", "sluice_run-lease-1")
			claimFinds(t, s, crashClaim("lease-2", afterLease), store.IdemDone, "lease-1", "sluice_run-lease-1")
			// The marker is left behind; it changes nothing.
			_, mark, err := s.readUsage(t.Context(), "acct-1", crashMonth, "lease-1")
			if err != nil || mark != markCharged {
				t.Fatalf("marker of lease-1 = %q, %v; want %q", mark, err, markCharged)
			}
			settleLost(t, s, first)
			usageIs(t, s, store.Usage{Characters: 10, Runs: 1})
		}},
		{"RetriedSettleAfterCharge", func(t *testing.T, s *Store) {
			// The call's response was lost after step 2; the same run calls Settle again.
			mustStep(t, "settleBegin", s.settleBegin(t.Context(), first))
			charge(t, s, first, charged)
		}, func(t *testing.T, s *Store) {
			settleAdmitted(t, s, first, store.Usage{Characters: 10, Runs: 1})
			_, mark, err := s.readUsage(t.Context(), "acct-1", crashMonth, "lease-1")
			if err != nil || mark != "" {
				t.Fatalf("marker of lease-1 after a finished settlement = %q, %v; want none", mark, err)
			}
			claimFinds(t, s, crashClaim("lease-2", afterLease), store.IdemDone, "lease-1", "sluice_run-lease-1")
		}},
		{"RetriedSettleAfterBegin", func(t *testing.T, s *Store) {
			mustStep(t, "settleBegin", s.settleBegin(t.Context(), first))
		}, func(t *testing.T, s *Store) {
			settleAdmitted(t, s, first, store.Usage{Characters: 10, Runs: 1})
			claimFinds(t, s, crashClaim("lease-2", afterLease), store.IdemDone, "lease-1", "sluice_run-lease-1")
		}},
		{"RetriedSettleOtherMonth", func(t *testing.T, s *Store) {
			mustStep(t, "settleBegin", s.settleBegin(t.Context(), first))
			charge(t, s, first, charged)
		}, func(t *testing.T, s *Store) {
			// A settlement begun in one month never charges another.
			next := first
			next.Month = "2026-12"
			settleLost(t, s, next)
			got, err := s.Usage(t.Context(), "acct-1", "2026-12")
			if err != nil || got != (store.Usage{}) {
				t.Fatalf("usage of 2026-12 = %+v, %v; want zero", got, err)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := open(t)
			claimWins(t, s, crashClaim("lease-1", crashT0))
			tc.crash(t, s)
			tc.after(t, s)
		})
	}
}

// TestRepairRacesCharge lets the stopped run's charge (step 2) race a retry's Claim after the
// lease, many times: exactly one of them wins, and the usage and the record match the winner.
// Every third round runs the charge first and every third the claim first, so both orders
// occur whatever the scheduler does; the others run them at once.
func TestRepairRacesCharge(t *testing.T) {
	tables := freshTables(t)
	runner, claimer := New(client(t), tables), New(client(t), tables)
	var charges, takeovers int
	for i := range 20 {
		acct := fmt.Sprintf("acct-%d", i)
		c1 := crashClaim("lease-1", crashT0)
		c1.Account = acct
		claimWins(t, runner, c1)
		st := crashSettlement("lease-1", 10)
		st.Account = acct
		mustStep(t, "settleBegin", runner.settleBegin(t.Context(), st))

		var wg sync.WaitGroup
		var res chargeResult
		var chargeErr, claimErr error
		var existing *store.IdemRecord
		c2 := crashClaim("lease-2", afterLease)
		c2.Account = acct
		charge := func() { _, res, chargeErr = runner.settleCharge(t.Context(), st, st.Idem.Lease) }
		claim := func() { existing, claimErr = claimer.Claim(t.Context(), c2) }
		switch i % 3 {
		case 0:
			charge()
			claim()
		case 1:
			claim()
			charge()
		default:
			wg.Go(charge)
			wg.Go(claim)
			wg.Wait()
		}
		if chargeErr != nil || claimErr != nil {
			t.Fatalf("round %d: settleCharge: %v; Claim: %v", i, chargeErr, claimErr)
		}
		u, err := runner.Usage(t.Context(), acct, crashMonth)
		if err != nil {
			t.Fatalf("Usage: %v", err)
		}
		switch res {
		case charged:
			charges++
			if existing == nil || existing.State != store.IdemDone || existing.TraceID != "sluice_run-lease-1" {
				t.Fatalf("round %d: the run charged, but Claim got %+v; want its done record", i, existing)
			}
			if u != (store.Usage{Characters: 10, Runs: 1}) {
				t.Fatalf("round %d: usage = %+v, want one charge", i, u)
			}
		case fenced:
			takeovers++
			if existing != nil {
				t.Fatalf("round %d: the run was fenced, but Claim found %+v; want a takeover", i, existing)
			}
			if u != (store.Usage{}) {
				t.Fatalf("round %d: usage = %+v, want none", i, u)
			}
		default:
			t.Fatalf("round %d: settleCharge = %d, want charged or fenced", i, res)
		}
	}
	t.Logf("charges first: %d, takeovers first: %d", charges, takeovers)
}

// TestRepairRace lets many claimers, on two stores, find one settling record whose lease has
// expired: exactly one takes it over.
func TestRepairRace(t *testing.T) {
	tables := freshTables(t)
	a, b := New(client(t), tables), New(client(t), tables)
	// A run claimed the race key long before the suite's clock, with a long TTL and a short
	// lease, and stopped after step 1.
	old := store.Claim{
		Account: "acct-race", Key: "idem-race", Fingerprint: "fp", Lease: "lease-old", TraceID: "sluice_old",
		Now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), TTL: 2 * 365 * 24 * time.Hour, LeaseTTL: time.Minute,
	}
	claimWins(t, a, old)
	st := store.Settlement{Account: "acct-race", Month: crashMonth, Characters: 5, Limit: 100,
		Idem: &store.IdemCompletion{Key: "idem-race", Lease: "lease-old", TraceID: "sluice_old-run"}}
	mustStep(t, "settleBegin", a.settleBegin(t.Context(), st))

	storetest.ClaimRace(t, []store.Store{a, b}, 32)
	charge(t, a, st, fenced)
	got, err := a.Usage(t.Context(), "acct-race", crashMonth)
	if err != nil || got != (store.Usage{}) {
		t.Fatalf("usage = %+v, %v; want none", got, err)
	}
}
