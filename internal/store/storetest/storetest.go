// Package storetest is the conformance suite of the store ports: every adapter runs Run from its
// own tests, so all adapters behave alike.
package storetest

import (
	"errors"
	"testing"
	"time"

	"github.com/sluice-api/sluice/internal/store"
)

// Run exercises an implementation of store.Store. open returns a fresh, empty store and
// registers its own cleanup; every subtest opens its own.
func Run(t *testing.T, open func(t *testing.T) store.Store) {
	t.Run("Accounts", func(t *testing.T) { runAccounts(t, open) })
	t.Run("RateWindow", func(t *testing.T) { runRateWindow(t, open) })
	t.Run("Meter", func(t *testing.T) { runMeter(t, open) })
	t.Run("Idempotency", func(t *testing.T) { runIdempotency(t, open) })
	t.Run("Ledger", func(t *testing.T) { runLedger(t, open) })
	t.Run("Dashboard", func(t *testing.T) { runDashboard(t, open) })
}

// t0 has a sub-millisecond part and a non-UTC zone on purpose: stores keep milliseconds, UTC.
var t0 = time.Date(2026, 11, 22, 21, 4, 5, 123_456_789, time.FixedZone("CET", 3600))

// ms is how a stored time is expected to come back.
func ms(t time.Time) time.Time { return t.UTC().Truncate(time.Millisecond) }

func sameTime(t *testing.T, what string, got, want time.Time) {
	t.Helper()
	if want.IsZero() {
		if !got.IsZero() {
			t.Errorf("%s = %v, want zero", what, got)
		}
		return
	}
	if !got.Equal(ms(want)) {
		t.Errorf("%s = %v, want %v", what, got, ms(want))
	}
}

func account(id string) store.Account {
	return store.Account{
		ID:           id,
		Region:       "eu-central-1",
		Tier:         "standard",
		RateLimit:    600,
		Allowance:    10_000_000,
		UsagePlanKey: "upk-" + id,
		CreatedAt:    t0,
	}
}

func key(id, acct string, created time.Time) store.Key {
	return store.Key{
		ID:        id,
		Account:   acct,
		Hash:      "hash-" + id,
		Prefix:    "sluice_live_" + id[:1],
		Last4:     "wxyz",
		CreatedAt: created,
	}
}

func sameAccount(t *testing.T, got, want store.Account) {
	t.Helper()
	sameTime(t, "CreatedAt", got.CreatedAt, want.CreatedAt)
	got.CreatedAt, want.CreatedAt = time.Time{}, time.Time{}
	if got != want {
		t.Errorf("account = %+v, want %+v", got, want)
	}
}

func sameKey(t *testing.T, got, want store.Key) {
	t.Helper()
	sameTime(t, "key "+want.ID+" CreatedAt", got.CreatedAt, want.CreatedAt)
	sameTime(t, "key "+want.ID+" RevokedAt", got.RevokedAt, want.RevokedAt)
	got.CreatedAt, want.CreatedAt, got.RevokedAt, want.RevokedAt = time.Time{}, time.Time{}, time.Time{}, time.Time{}
	if got != want {
		t.Errorf("key = %+v, want %+v", got, want)
	}
}

func mustCreate(t *testing.T, s store.Store, a store.Account, k store.Key) {
	t.Helper()
	if err := s.CreateAccount(t.Context(), a, k); err != nil {
		t.Fatalf("CreateAccount(%s): %v", a.ID, err)
	}
}

func wantErr(t *testing.T, what string, err, want error) {
	t.Helper()
	if !errors.Is(err, want) {
		t.Errorf("%s: err = %v, want %v", what, err, want)
	}
}
