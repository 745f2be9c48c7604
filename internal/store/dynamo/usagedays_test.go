package dynamo

import (
	"testing"

	"github.com/sluice-api/sluice/internal/store"
)

// TestDayCountedOnceWhenChargeResponseIsLost loses the answer of a keyed settlement's charge:
// the SDK's retry finds the charge in the run's writer slot, so neither the month nor the day
// is charged twice.
func TestDayCountedOnceWhenChargeResponseIsLost(t *testing.T) {
	s, p := lossy(t)
	ctx := t.Context()
	run := newCrashRun(t, s, "acct-1", "lease-1", crashT0, 40)
	claimWins(t, s, run.claim)
	lose(p, 0) // the charge
	st := run.st
	st.Day = 22
	if _, ok, err := s.Settle(ctx, st); err != nil || !ok {
		t.Fatalf("Settle with a lost charge response = %v, %v", ok, err)
	}
	lostOnce(t, p, "UpdateItem")
	u, err := s.Usage(ctx, "acct-1", crashMonth)
	if err != nil || u != (store.Usage{Characters: 40, Runs: 1}) {
		t.Fatalf("Usage = %+v, %v; want 40 characters in 1 run", u, err)
	}
	days, err := s.UsageDays(ctx, "acct-1", crashMonth)
	if err != nil || days[21] != 40 {
		t.Fatalf("UsageDays = %v, %v; want 40 on the 22nd", days, err)
	}
}

// TestUnkeyedDayCountedOnceWhenChargeResponseIsLost: a run without an idempotency key is charged
// in its writer slot too, so a lost answer is not counted twice in the month nor the day.
func TestUnkeyedDayCountedOnceWhenChargeResponseIsLost(t *testing.T) {
	s, p := lossy(t)
	st := store.Settlement{Pass: crashEnter(t, s, "acct-1", crashT0), Day: 5, Characters: 7, Limit: 100, TraceID: "sluice_run-1"}
	lose(p, 0)
	if _, ok, err := s.Settle(t.Context(), st); err != nil || !ok {
		t.Fatalf("Settle with a lost answer = %v, %v", ok, err)
	}
	lostOnce(t, p, "UpdateItem")
	days, err := s.UsageDays(t.Context(), "acct-1", crashMonth)
	if err != nil || days[4] != 7 {
		t.Fatalf("UsageDays = %v, %v; want 7 on the 5th", days, err)
	}
	if u, _ := s.Usage(t.Context(), "acct-1", crashMonth); u != (store.Usage{Characters: 7, Runs: 1}) {
		t.Fatalf("Usage = %+v, want 7 characters in 1 run", u)
	}
}
