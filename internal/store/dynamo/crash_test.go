package dynamo

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/sluice-api/sluice/internal/store"
	"github.com/sluice-api/sluice/internal/store/storetest"
)

// The crash tests stop a keyed run after one of the writes of its settlement (by calling the
// charge directly, or by failing the record's completion), let a retry claim the key once the
// lease has expired, and check what the retry gets, what the stopped run can still do when it
// wakes up, and that usage holds exactly one charge.

var (
	crashT0 = time.Date(2026, 11, 22, 21, 4, 5, 0, time.UTC)
	// afterLease is when the first run's lease (one minute) has expired.
	afterLease = crashT0.Add(time.Minute)
)

const crashMonth = "2026-11"

// crashEnter enters a request of acct at now.
func crashEnter(t *testing.T, s *Store, acct string, now time.Time) store.Pass {
	t.Helper()
	p, err := s.Enter(t.Context(), store.Entry{Account: acct, Month: crashMonth, Window: now.Truncate(time.Minute), Limit: 1 << 40})
	if err != nil || !p.Admitted {
		t.Fatalf("Enter = %+v, %v", p, err)
	}
	return p
}

// crashRun is a keyed run of acct: its pass, claim and settlement.
type crashRun struct {
	claim store.Claim
	st    store.Settlement
}

func newCrashRun(t *testing.T, s *Store, acct, lease string, now time.Time, chars int64) crashRun {
	t.Helper()
	p := crashEnter(t, s, acct, now)
	return crashRun{
		claim: store.Claim{
			Account: acct, Key: "idem-1", Fingerprint: "fp", Lease: lease, TraceID: "sluice_claim-" + lease,
			Now: now, TTL: 24 * time.Hour, LeaseTTL: time.Minute, Pass: p,
		},
		st: store.Settlement{
			Pass: p, Characters: chars, Limit: 100, TraceID: "sluice_run-" + lease,
			Idem: &store.IdemCompletion{Key: "idem-1", Lease: lease, TraceID: "sluice_run-" + lease},
		},
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

func usageIs(t *testing.T, s *Store, acct string, want store.Usage) {
	t.Helper()
	got, err := s.Usage(t.Context(), acct, crashMonth)
	if err != nil {
		t.Fatalf("Usage: %v", err)
	}
	if got != want {
		t.Fatalf("usage = %+v, want %+v", got, want)
	}
}

// chargeOnly runs a settlement's first write (the charge) and expects res.
func chargeOnly(t *testing.T, s *Store, st store.Settlement, want chargeResult) {
	t.Helper()
	slot, admission, err := parseRef(st.Pass.Ref)
	if err != nil {
		t.Fatal(err)
	}
	_, res, err := s.charge(t.Context(), st, slot, admission)
	if err != nil {
		t.Fatalf("charge(%s): %v", st.Idem.Lease, err)
	}
	if res != want {
		t.Fatalf("charge(%s) = %d, want %d", st.Idem.Lease, res, want)
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
		t.Fatalf("Settle(%s) = %+v, %v, %v; want %+v, admitted", st.TraceID, got, ok, err, want)
	}
}

// brokenRecords is s with an idempotency table that does not exist: every write to a record
// fails, as when DynamoDB cannot be reached after the charge.
func brokenRecords(s *Store) *Store {
	b := *s
	b.t.Idempotency = "no-such-table"
	return &b
}

func TestSettleCrashPoints(t *testing.T) {
	for _, tc := range []struct {
		name string
		// crash runs the first run's settlement up to the crash.
		crash func(t *testing.T, s *Store, first crashRun)
		// after checks what a retry (lease-2, after the first lease) and the woken first run get.
		after func(t *testing.T, s *Store, first crashRun)
	}{
		{"BeforeCharge", func(*testing.T, *Store, crashRun) {}, func(t *testing.T, s *Store, first crashRun) {
			retry := newCrashRun(t, s, "acct-1", "lease-2", afterLease, 10)
			claimWins(t, s, retry.claim) // it fences the first run's slot
			settleLost(t, s, first.st)   // the first run wakes up: it may not charge
			usageIs(t, s, "acct-1", store.Usage{})
			settleAdmitted(t, s, retry.st, store.Usage{Characters: 10, Runs: 1})
			claimFinds(t, s, newCrashRun(t, s, "acct-1", "lease-3", afterLease.Add(time.Hour), 1).claim, store.IdemDone, "lease-2", "sluice_run-lease-2")
		}},
		{"AfterRefusedCharge", func(t *testing.T, s *Store, first crashRun) {
			over := first.st
			over.Characters = 101
			chargeOnly(t, s, over, refused)
		}, func(t *testing.T, s *Store, first crashRun) {
			retry := newCrashRun(t, s, "acct-1", "lease-2", afterLease, 10)
			claimWins(t, s, retry.claim)
			settleLost(t, s, first.st)
			settleAdmitted(t, s, retry.st, store.Usage{Characters: 10, Runs: 1})
		}},
		{"AfterCharge", func(t *testing.T, s *Store, first crashRun) {
			chargeOnly(t, s, first.st, charged)
		}, func(t *testing.T, s *Store, first crashRun) {
			// Within the lease the record is in flight, with the claim's trace.
			claimFinds(t, s, newCrashRun(t, s, "acct-1", "lease-2", crashT0.Add(30*time.Second), 10).claim, store.IdemInFlight, "lease-1", "sluice_claim-lease-1")
			// After it the retry finds the charge and completes the record: a duplicate.
			claimFinds(t, s, newCrashRun(t, s, "acct-1", "lease-2", afterLease, 10).claim, store.IdemDone, "lease-1", "sluice_claim-lease-1")
			usageIs(t, s, "acct-1", store.Usage{Characters: 10, Runs: 1})
			// The first run wakes up and finishes: nothing more is charged (its trace id, the
			// same run's as the claim's in a real run, is kept on the record).
			settleAdmitted(t, s, first.st, store.Usage{Characters: 10, Runs: 1})
			usageIs(t, s, "acct-1", store.Usage{Characters: 10, Runs: 1})
			claimFinds(t, s, newCrashRun(t, s, "acct-1", "lease-3", afterLease.Add(time.Hour), 10).claim, store.IdemDone, "lease-1", "sluice_run-lease-1")
		}},
		{"CompletionFailed", func(t *testing.T, s *Store, first crashRun) {
			// The charge went through and the record's completion failed: ErrCharged, and the
			// slot, the charge's proof, is retired.
			_, ok, err := brokenRecords(s).Settle(t.Context(), first.st)
			if !errors.Is(err, store.ErrCharged) || ok {
				t.Fatalf("Settle with the records unreachable = %v, %v; want ErrCharged", ok, err)
			}
			slot, _, _ := parseRef(first.st.Pass.Ref)
			s.Leave(first.st.Pass)
			for range 4 {
				p := crashEnter(t, s, "acct-2", crashT0)
				if other, _, _ := parseRef(p.Ref); other == slot {
					t.Fatal("a retired slot was handed out again")
				}
			}
		}, func(t *testing.T, s *Store, first crashRun) {
			claimFinds(t, s, newCrashRun(t, s, "acct-1", "lease-2", afterLease, 10).claim, store.IdemDone, "lease-1", "sluice_claim-lease-1")
			usageIs(t, s, "acct-1", store.Usage{Characters: 10, Runs: 1})
		}},
		{"AfterCompletion", func(t *testing.T, s *Store, first crashRun) {
			settleAdmitted(t, s, first.st, store.Usage{Characters: 10, Runs: 1})
		}, func(t *testing.T, s *Store, first crashRun) {
			claimFinds(t, s, newCrashRun(t, s, "acct-1", "lease-2", crashT0.Add(30*time.Second), 10).claim, store.IdemDone, "lease-1", "sluice_run-lease-1")
			claimFinds(t, s, newCrashRun(t, s, "acct-1", "lease-2", afterLease, 10).claim, store.IdemDone, "lease-1", "sluice_run-lease-1")
			usageIs(t, s, "acct-1", store.Usage{Characters: 10, Runs: 1})
		}},
		{"RetriedSettleAfterCharge", func(t *testing.T, s *Store, first crashRun) {
			// The charge's answer was lost; the run calls Settle again with its pass.
			chargeOnly(t, s, first.st, charged)
		}, func(t *testing.T, s *Store, first crashRun) {
			settleAdmitted(t, s, first.st, store.Usage{Characters: 10, Runs: 1})
			claimFinds(t, s, newCrashRun(t, s, "acct-1", "lease-2", afterLease, 10).claim, store.IdemDone, "lease-1", "sluice_run-lease-1")
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := open(t)
			first := newCrashRun(t, s, "acct-1", "lease-1", crashT0, 10)
			claimWins(t, s, first.claim)
			tc.crash(t, s, first)
			tc.after(t, s, first)
		})
	}
}

// TestTakeOverRacesCharge lets the stopped run's charge race a retry's Claim after the lease,
// many times: exactly one of them wins, and the usage and the record match the winner. Every
// third round runs the charge first and every third the claim first, so both orders occur
// whatever the scheduler does; the others run them at once.
func TestTakeOverRacesCharge(t *testing.T) {
	tables := freshTables(t)
	runner, claimer := New(client(t), tables), New(client(t), tables)
	var charges, takeovers int
	for i := range 20 {
		acct := fmt.Sprintf("acct-%d", i)
		first := newCrashRun(t, runner, acct, "lease-1", crashT0, 10)
		claimWins(t, runner, first.claim)
		retry := newCrashRun(t, claimer, acct, "lease-2", afterLease, 10)

		var wg sync.WaitGroup
		var res chargeResult
		var chargeErr, claimErr error
		var existing *store.IdemRecord
		slot, admission, _ := parseRef(first.st.Pass.Ref)
		charge := func() { _, res, chargeErr = runner.charge(t.Context(), first.st, slot, admission) }
		claim := func() { existing, claimErr = claimer.Claim(t.Context(), retry.claim) }
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
			t.Fatalf("round %d: charge: %v; Claim: %v", i, chargeErr, claimErr)
		}
		u, err := runner.Usage(t.Context(), acct, crashMonth)
		if err != nil {
			t.Fatalf("Usage: %v", err)
		}
		switch res {
		case charged:
			charges++
			if existing == nil || existing.State != store.IdemDone || existing.Lease != "lease-1" {
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
			t.Fatalf("round %d: charge = %d, want charged or fenced", i, res)
		}
	}
	t.Logf("charges first: %d, takeovers first: %d", charges, takeovers)
}

// TestTakeOverRace lets many claimers, on two stores, find one in-flight record whose lease has
// expired: exactly one takes it over, and its run can no longer charge.
func TestTakeOverRace(t *testing.T) {
	tables := freshTables(t)
	a, b := New(client(t), tables), New(client(t), tables)
	// A run claimed the race key long before the suite's clock, with a long TTL and a short
	// lease, and stopped before its charge.
	p := crashEnter(t, a, "acct-race", crashT0)
	old := store.Claim{
		Account: "acct-race", Key: "idem-race", Fingerprint: "fp", Lease: "lease-old", TraceID: "sluice_old",
		Now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), TTL: 2 * 365 * 24 * time.Hour, LeaseTTL: time.Minute, Pass: p,
	}
	claimWins(t, a, old)
	storetest.ClaimRace(t, []store.Store{a, b}, 32)
	st := store.Settlement{Pass: p, Characters: 5, Limit: 100,
		Idem: &store.IdemCompletion{Key: "idem-race", Lease: "lease-old", TraceID: "sluice_old-run"}}
	settleLost(t, a, st)
	got, err := a.Usage(t.Context(), "acct-race", crashMonth)
	if err != nil || got != (store.Usage{}) {
		t.Fatalf("usage = %+v, %v; want none", got, err)
	}
}

// TestLegacySettlingRecord: a record left "settling" by the store before the meter (its run
// stopped between that Settle's first and third steps) is repaired by a Claim as before: with
// its marker "pending:<lease>" = "charged" on the usage item it becomes a duplicate; without
// one the lease is fenced and taken over.
func TestLegacySettlingRecord(t *testing.T) {
	for _, charged := range []bool{true, false} {
		t.Run(fmt.Sprint("Charged=", charged), func(t *testing.T) {
			s := open(t)
			item := idemKey("acct-1", "idem-1")
			item[attrFingerprint] = attrS("fp")
			item[attrState] = attrS(stateSettling)
			item[attrLease] = attrS("lease-old")
			item[attrTrace] = attrS("sluice_claim-old")
			item[attrLeaseExpMS] = attrN(ms(crashT0.Add(time.Minute)))
			item[attrExpMS] = attrN(ms(crashT0.Add(24 * time.Hour)))
			item[attrSettleMonth] = attrS(crashMonth)
			item[attrSettleTrace] = attrS("sluice_run-old")
			item[attrSettleChars] = attrN(10)
			if _, err := s.db.PutItem(t.Context(), &dynamodb.PutItemInput{TableName: aws.String(s.t.Idempotency), Item: item}); err != nil {
				t.Fatal(err)
			}
			if charged {
				u := usageKey("acct-1", crashMonth)
				u[attrCharacters], u[attrRuns], u[pendingPrefix+"lease-old"] = attrN(10), attrN(1), attrS(markCharged)
				if _, err := s.db.PutItem(t.Context(), &dynamodb.PutItemInput{TableName: aws.String(s.t.Usage), Item: u}); err != nil {
					t.Fatal(err)
				}
			}
			retry := newCrashRun(t, s, "acct-1", "lease-2", afterLease, 10)
			if charged {
				claimFinds(t, s, retry.claim, store.IdemDone, "lease-old", "sluice_run-old")
				usageIs(t, s, "acct-1", store.Usage{Characters: 10, Runs: 1})
				return
			}
			claimWins(t, s, retry.claim)
			settleAdmitted(t, s, retry.st, store.Usage{Characters: 10, Runs: 1})
		})
	}
}

// TestMigrationKeepsUsage: a deployment's usage items written before the meter (characters,
// runs, day counters and leftover "pending:" markers of the previous protocol) go on counting
// under the meter: the same items, read by Enter and charged by Settle, with nothing to convert.
func TestMigrationKeepsUsage(t *testing.T) {
	s := open(t)
	old := usageKey("acct-1", crashMonth)
	old[attrCharacters], old[attrRuns], old[dayAttr(3)] = attrN(1234), attrN(7), attrN(1234)
	old[pendingPrefix+"lease-gone"] = attrS(markCharged)
	if _, err := s.db.PutItem(t.Context(), &dynamodb.PutItemInput{TableName: aws.String(s.t.Usage), Item: old}); err != nil {
		t.Fatal(err)
	}
	p := crashEnter(t, s, "acct-1", crashT0)
	if p.Usage != (store.Usage{Characters: 1234, Runs: 7}) {
		t.Fatalf("Enter's usage of a migrated month = %+v, want 1234 characters in 7 runs", p.Usage)
	}
	settleAdmitted(t, s, store.Settlement{Pass: p, Characters: 6, Limit: 2000, Day: 22, TraceID: "sluice_after"},
		store.Usage{Characters: 1240, Runs: 8})
	days, err := s.UsageDays(t.Context(), "acct-1", crashMonth)
	if err != nil || days[2] != 1234 || days[21] != 6 {
		t.Fatalf("days = %v, %v", days, err)
	}
}
