package dynamo

import (
	"testing"

	"github.com/sluice-api/sluice/internal/store"
)

// TestDayCountedOnceWhenChargeResponseIsLost loses the answer of a keyed settlement's charge:
// the SDK's retry finds the lease's marker, so neither the month nor the day is charged twice.
func TestDayCountedOnceWhenChargeResponseIsLost(t *testing.T) {
	s, l := lossyStore(t, nil)
	ctx := t.Context()
	c := crashClaim("lease-1", crashT0)
	claimWins(t, s, c)
	l.mu.Lock()
	l.lose, l.table = map[string]int{"UpdateItem": 1}, s.t.Usage
	l.mu.Unlock()
	st := crashSettlement("lease-1", 40)
	st.Day = 22
	if _, ok, err := s.Settle(ctx, st); err != nil || !ok {
		t.Fatalf("Settle with a lost charge response = %v, %v", ok, err)
	}
	l.wantLost(t, "UpdateItem")
	u, err := s.Usage(ctx, "acct-1", crashMonth)
	if err != nil || u != (store.Usage{Characters: 40, Runs: 1}) {
		t.Fatalf("Usage = %+v, %v; want 40 characters in 1 run", u, err)
	}
	days, err := s.UsageDays(ctx, "acct-1", crashMonth)
	if err != nil || days[21] != 40 {
		t.Fatalf("UsageDays = %v, %v; want 40 on the 22nd", days, err)
	}
}
