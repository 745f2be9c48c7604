// Package storetest is the conformance suite of the store ports: every adapter runs Run from its
// own tests, so all adapters behave alike.
package storetest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/sluice-api/sluice/internal/store"
)

// Run exercises an implementation of store.Store. open returns a fresh, empty store and
// registers its own cleanup; every subtest opens its own.
func Run(t *testing.T, open func(t *testing.T) store.Store) {
	t.Run("Accounts", func(t *testing.T) { runAccounts(t, open) })
	t.Run("RateWindow", func(t *testing.T) { runRateWindow(t, open) })
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

func runAccounts(t *testing.T, open func(t *testing.T) store.Store) {
	t.Run("RoundTrip", func(t *testing.T) {
		s := open(t)
		a := account("acct-1")
		a.Disabled = true
		k := key("key-1", "acct-1", t0.Add(time.Second))
		mustCreate(t, s, a, k)
		got, err := s.GetAccount(t.Context(), "acct-1")
		if err != nil {
			t.Fatalf("GetAccount: %v", err)
		}
		sameAccount(t, got, a)
		gk, err := s.KeyByHash(t.Context(), k.Hash)
		if err != nil {
			t.Fatalf("KeyByHash: %v", err)
		}
		sameKey(t, gk, k)
		if !gk.Active() {
			t.Error("new key is not active")
		}
	})

	t.Run("CreateExists", func(t *testing.T) {
		for _, tc := range []struct {
			name string
			a    store.Account
			k    store.Key
		}{
			{"DuplicateAccountID", account("acct-1"), key("key-2", "acct-1", t0)},
			{"DuplicateKeyHash", account("acct-2"), func() store.Key {
				k := key("key-2", "acct-2", t0)
				k.Hash = "hash-key-1"
				return k
			}()},
			{"DuplicateKeyID", account("acct-2"), key("key-1", "acct-2", t0)},
		} {
			t.Run(tc.name, func(t *testing.T) {
				s := open(t)
				mustCreate(t, s, account("acct-1"), key("key-1", "acct-1", t0))
				wantErr(t, "CreateAccount", s.CreateAccount(t.Context(), tc.a, tc.k), store.ErrExists)
				if tc.a.ID != "acct-1" {
					// Nothing of a refused creation is stored.
					_, err := s.GetAccount(t.Context(), tc.a.ID)
					wantErr(t, "GetAccount after refused create", err, store.ErrNotFound)
				}
				keys, err := s.ListKeys(t.Context(), "acct-1")
				if err != nil {
					t.Fatalf("ListKeys: %v", err)
				}
				if len(keys) != 1 || keys[0].ID != "key-1" || keys[0].Hash != "hash-key-1" {
					t.Errorf("keys of acct-1 = %+v, want only key-1 unchanged", keys)
				}
			})
		}
	})

	t.Run("NotFound", func(t *testing.T) {
		for _, tc := range []struct {
			name string
			call func(ctx context.Context, s store.Store) error
		}{
			{"GetAccount", func(ctx context.Context, s store.Store) error {
				_, err := s.GetAccount(ctx, "nobody")
				return err
			}},
			{"UpdateAccount", func(ctx context.Context, s store.Store) error {
				return s.UpdateAccount(ctx, account("nobody"))
			}},
			{"KeyByHash", func(ctx context.Context, s store.Store) error {
				_, err := s.KeyByHash(ctx, "hash-nothing")
				return err
			}},
			{"RevokeKey", func(ctx context.Context, s store.Store) error {
				return s.RevokeKey(ctx, "key-nothing", t0)
			}},
			{"AddKeyUnknownAccount", func(ctx context.Context, s store.Store) error {
				return s.AddKey(ctx, key("key-9", "nobody", t0))
			}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				s := open(t)
				mustCreate(t, s, account("acct-1"), key("key-1", "acct-1", t0))
				wantErr(t, tc.name, tc.call(t.Context(), s), store.ErrNotFound)
			})
		}
	})

	t.Run("UpdateAccount", func(t *testing.T) {
		s := open(t)
		mustCreate(t, s, account("acct-1"), key("key-1", "acct-1", t0))
		mustCreate(t, s, account("acct-2"), key("key-2", "acct-2", t0))
		u := store.Account{
			ID: "acct-1", Region: "us-east-1", Tier: "enterprise", RateLimit: 6000,
			Allowance: 99, Disabled: true, UsagePlanKey: "upk-new", CreatedAt: t0,
		}
		if err := s.UpdateAccount(t.Context(), u); err != nil {
			t.Fatalf("UpdateAccount: %v", err)
		}
		got, err := s.GetAccount(t.Context(), "acct-1")
		if err != nil {
			t.Fatalf("GetAccount: %v", err)
		}
		sameAccount(t, got, u)
		other, err := s.GetAccount(t.Context(), "acct-2")
		if err != nil {
			t.Fatalf("GetAccount(acct-2): %v", err)
		}
		sameAccount(t, other, account("acct-2"))
	})

	t.Run("HasAccounts", func(t *testing.T) {
		s := open(t)
		if has, err := s.HasAccounts(t.Context()); err != nil || has {
			t.Fatalf("HasAccounts on empty store = %v, %v; want false, nil", has, err)
		}
		mustCreate(t, s, account("acct-1"), key("key-1", "acct-1", t0))
		if has, err := s.HasAccounts(t.Context()); err != nil || !has {
			t.Fatalf("HasAccounts after create = %v, %v; want true, nil", has, err)
		}
	})

	t.Run("AddKeyListKeys", func(t *testing.T) {
		s := open(t)
		first := key("key-b", "acct-1", t0.Add(2*time.Minute))
		mustCreate(t, s, account("acct-1"), first)
		mustCreate(t, s, account("acct-2"), key("key-x", "acct-2", t0))
		// Added out of time order: ListKeys orders by creation time, not by insertion.
		older := key("key-c", "acct-1", t0.Add(time.Minute))
		newer := key("key-a", "acct-1", t0.Add(3*time.Minute))
		for _, k := range []store.Key{newer, older} {
			if err := s.AddKey(t.Context(), k); err != nil {
				t.Fatalf("AddKey(%s): %v", k.ID, err)
			}
		}
		dup := key("key-d", "acct-1", t0)
		dup.Hash = newer.Hash
		wantErr(t, "AddKey with a duplicate hash", s.AddKey(t.Context(), dup), store.ErrExists)
		wantErr(t, "AddKey with a duplicate id", s.AddKey(t.Context(), key("key-x", "acct-1", t0)), store.ErrExists)

		keys, err := s.ListKeys(t.Context(), "acct-1")
		if err != nil {
			t.Fatalf("ListKeys: %v", err)
		}
		want := []store.Key{older, first, newer}
		if len(keys) != len(want) {
			t.Fatalf("ListKeys = %d keys %+v, want %d", len(keys), keys, len(want))
		}
		for i := range want {
			sameKey(t, keys[i], want[i])
		}
	})

	t.Run("KeyByHashRevoked", func(t *testing.T) {
		s := open(t)
		k := key("key-1", "acct-1", t0)
		mustCreate(t, s, account("acct-1"), k)
		at := t0.Add(time.Hour)
		if err := s.RevokeKey(t.Context(), k.ID, at); err != nil {
			t.Fatalf("RevokeKey: %v", err)
		}
		got, err := s.KeyByHash(t.Context(), k.Hash)
		if err != nil {
			t.Fatalf("KeyByHash of a revoked key: %v", err)
		}
		k.RevokedAt = at
		sameKey(t, got, k)
		if got.Active() {
			t.Error("revoked key is active")
		}
	})

	t.Run("RevokeKeepsFirstTime", func(t *testing.T) {
		s := open(t)
		k := key("key-1", "acct-1", t0)
		mustCreate(t, s, account("acct-1"), k)
		first := t0.Add(time.Hour)
		for _, at := range []time.Time{first, first.Add(time.Hour), first.Add(-time.Minute)} {
			if err := s.RevokeKey(t.Context(), k.ID, at); err != nil {
				t.Fatalf("RevokeKey(%v): %v", at, err)
			}
		}
		got, err := s.KeyByHash(t.Context(), k.Hash)
		if err != nil {
			t.Fatalf("KeyByHash: %v", err)
		}
		sameTime(t, "RevokedAt", got.RevokedAt, first)
	})

	t.Run("RotateKey", func(t *testing.T) {
		s := open(t)
		k1 := key("key-1", "acct-1", t0)
		k2 := key("key-2", "acct-1", t0.Add(time.Minute))
		old := key("key-0", "acct-1", t0.Add(-time.Minute))
		other := key("key-o", "acct-2", t0)
		mustCreate(t, s, account("acct-1"), k1)
		mustCreate(t, s, account("acct-2"), other)
		for _, k := range []store.Key{k2, old} {
			if err := s.AddKey(t.Context(), k); err != nil {
				t.Fatalf("AddKey(%s): %v", k.ID, err)
			}
		}
		// Refused additions to acct-1 that name acct-2's key (by id, then by hash) must not make
		// the rotation of acct-1 touch it.
		wantErr(t, "AddKey with another account's key id", s.AddKey(t.Context(), key(other.ID, "acct-1", t0)), store.ErrExists)
		sameHash := key("key-h", "acct-1", t0)
		sameHash.Hash = other.Hash
		wantErr(t, "AddKey with another account's key hash", s.AddKey(t.Context(), sameHash), store.ErrExists)
		oldRevoked := t0.Add(10 * time.Minute)
		if err := s.RevokeKey(t.Context(), old.ID, oldRevoked); err != nil {
			t.Fatalf("RevokeKey: %v", err)
		}
		at := t0.Add(time.Hour)
		k3 := key("key-3", "acct-1", at)
		if err := s.RotateKey(t.Context(), k3, at); err != nil {
			t.Fatalf("RotateKey: %v", err)
		}
		for _, tc := range []struct {
			k       store.Key
			revoked time.Time
		}{
			{old, oldRevoked}, // already revoked: keeps its time
			{k1, at},
			{k2, at},
			{k3, time.Time{}},    // the new key stays active
			{other, time.Time{}}, // another account is untouched
		} {
			got, err := s.KeyByHash(t.Context(), tc.k.Hash)
			if err != nil {
				t.Fatalf("KeyByHash(%s): %v", tc.k.ID, err)
			}
			want := tc.k
			want.RevokedAt = tc.revoked
			sameKey(t, got, want)
		}
		wantErr(t, "RotateKey with a duplicate hash", s.RotateKey(t.Context(), key("key-1", "acct-1", at), at), store.ErrExists)
	})
}

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

	t.Run("Sequence", func(t *testing.T) {
		s := open(t)
		for i := int64(1); i <= 3; i++ {
			hit(t, s, "acct-1", start, 3, i, true)
		}
		for range 3 {
			hit(t, s, "acct-1", start, 3, 3, false)
		}
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

// claim is a Claim at t0 with a 24 h TTL and a 1 min lease.
func claim(acct, k, lease string) store.Claim {
	return store.Claim{
		Account: acct, Key: k, Fingerprint: "fp-" + lease, Lease: lease, TraceID: "sluice_trace-" + lease,
		Now: t0, TTL: 24 * time.Hour, LeaseTTL: time.Minute,
	}
}

func mustClaim(t *testing.T, s store.Store, c store.Claim) {
	t.Helper()
	existing, err := s.Claim(t.Context(), c)
	if err != nil {
		t.Fatalf("Claim(%s/%s, %s): %v", c.Account, c.Key, c.Lease, err)
	}
	if existing != nil {
		t.Fatalf("Claim(%s/%s, %s) found %+v, want a new record", c.Account, c.Key, c.Lease, existing)
	}
}

// wantRecord claims c and expects to find the record of claim from in state.
func wantRecord(t *testing.T, s store.Store, c store.Claim, from store.Claim, state, trace string) {
	t.Helper()
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
	if g != want {
		t.Errorf("existing = %+v, want %+v", g, want)
	}
}

func runIdempotency(t *testing.T, open func(t *testing.T) store.Store) {
	t.Run("ClaimOnce", func(t *testing.T) {
		s := open(t)
		first := claim("acct-1", "idem-1", "lease-1")
		mustClaim(t, s, first)
		second := claim("acct-1", "idem-1", "lease-2")
		second.Now = t0.Add(30 * time.Second) // within the first lease
		wantRecord(t, s, second, first, store.IdemInFlight, first.TraceID)
		// Nothing changed: the first lease still settles.
		_, ok, err := s.Settle(t.Context(), store.Settlement{
			Account: "acct-1", Month: "2026-11", Characters: 1, Limit: 10,
			Idem: &store.IdemCompletion{Key: "idem-1", Lease: "lease-1", TraceID: first.TraceID},
		})
		if err != nil || !ok {
			t.Fatalf("Settle by the first lease = %v, %v; want admitted", ok, err)
		}
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
		first := claim("acct-1", "idem-1", "lease-1")
		mustClaim(t, s, first)
		settle(t, s, "acct-1", "idem-1", "lease-1", "sluice_trace-done")
		// Just before Expires the done record is live.
		before := claim("acct-1", "idem-1", "lease-2")
		before.Now = t0.Add(24*time.Hour - time.Millisecond)
		wantRecord(t, s, before, first, store.IdemDone, "sluice_trace-done")
		// From Expires on it is absent.
		later := claim("acct-1", "idem-1", "lease-3")
		later.Now = t0.Add(24 * time.Hour)
		mustClaim(t, s, later)
		again := claim("acct-1", "idem-1", "lease-4")
		again.Now = later.Now.Add(time.Second)
		wantRecord(t, s, again, later, store.IdemInFlight, later.TraceID)
	})

	t.Run("LeaseTakeover", func(t *testing.T) {
		s := open(t)
		mustClaim(t, s, claim("acct-1", "idem-1", "lease-1"))
		late := claim("acct-1", "idem-1", "lease-2")
		late.Now = t0.Add(time.Minute) // the first lease has expired: its run crashed
		mustClaim(t, s, late)
		probe := claim("acct-1", "idem-1", "lease-3")
		probe.Now = late.Now.Add(time.Second)
		wantRecord(t, s, probe, late, store.IdemInFlight, late.TraceID)

		before, err := s.Usage(t.Context(), "acct-1", "2026-11")
		if err != nil {
			t.Fatalf("Usage: %v", err)
		}
		_, ok, err := s.Settle(t.Context(), store.Settlement{
			Account: "acct-1", Month: "2026-11", Characters: 5, Limit: 100,
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
		settle(t, s, "acct-1", "idem-1", "lease-2", late.TraceID)
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
				first := claim("acct-1", "idem-1", "lease-1")
				mustClaim(t, s, first)
				state, trace := store.IdemInFlight, first.TraceID
				if tc.done {
					settle(t, s, "acct-1", "idem-1", "lease-1", "sluice_trace-done")
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

// settle completes key's record held by lease with a 1-character charge and expects admission.
func settle(t *testing.T, s store.Store, acct, k, lease, trace string) {
	t.Helper()
	_, ok, err := s.Settle(t.Context(), store.Settlement{
		Account: acct, Month: "2026-11", Characters: 1, Limit: 1 << 40,
		Idem: &store.IdemCompletion{Key: k, Lease: lease, TraceID: trace},
	})
	if err != nil || !ok {
		t.Fatalf("Settle(%s/%s, %s) = %v, %v; want admitted", acct, k, lease, ok, err)
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
				got, ok, err := s.Settle(t.Context(), store.Settlement{
					Account: "acct-1", Month: st.month, Characters: st.characters, Limit: st.limit,
				})
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
		first := claim("acct-1", "idem-1", "lease-1")
		mustClaim(t, s, first)
		got, ok, err := s.Settle(t.Context(), store.Settlement{
			Account: "acct-1", Month: "2026-11", Characters: 42, Limit: 100,
			Idem: &store.IdemCompletion{Key: "idem-1", Lease: "lease-1", TraceID: "sluice_trace-final"},
		})
		if err != nil || !ok || got != (store.Usage{Characters: 42, Runs: 1}) {
			t.Fatalf("Settle = %+v, %v, %v; want {42 1}, true, nil", got, ok, err)
		}
		later := claim("acct-1", "idem-1", "lease-2")
		later.Now = t0.Add(time.Hour) // long after the lease: a done record stays live
		wantRecord(t, s, later, first, store.IdemDone, "sluice_trace-final")
		// A done record cannot be completed (and charged) again.
		_, ok, err = s.Settle(t.Context(), store.Settlement{
			Account: "acct-1", Month: "2026-11", Characters: 1, Limit: 100,
			Idem: &store.IdemCompletion{Key: "idem-1", Lease: "lease-1", TraceID: "sluice_trace-again"},
		})
		wantErr(t, "second Settle", err, store.ErrLeaseLost)
		if ok {
			t.Error("second Settle admitted")
		}
		wantUsage(t, s, "acct-1", "2026-11", store.Usage{Characters: 42, Runs: 1})
	})

	t.Run("RefusedLeavesRecordInFlight", func(t *testing.T) {
		s := open(t)
		first := claim("acct-1", "idem-1", "lease-1")
		mustClaim(t, s, first)
		got, ok, err := s.Settle(t.Context(), store.Settlement{
			Account: "acct-1", Month: "2026-11", Characters: 101, Limit: 100,
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
		for _, tc := range []struct {
			name    string
			prepare func(t *testing.T, s store.Store)
			idem    store.IdemCompletion
		}{
			{"WrongLease", func(t *testing.T, s store.Store) {
				mustClaim(t, s, claim("acct-1", "idem-1", "lease-1"))
			}, store.IdemCompletion{Key: "idem-1", Lease: "lease-other"}},
			{"NoRecord", func(*testing.T, store.Store) {}, store.IdemCompletion{Key: "idem-1", Lease: "lease-1"}},
			{"OtherAccountsRecord", func(t *testing.T, s store.Store) {
				mustClaim(t, s, claim("acct-2", "idem-1", "lease-1"))
			}, store.IdemCompletion{Key: "idem-1", Lease: "lease-1"}},
			{"Released", func(t *testing.T, s store.Store) {
				mustClaim(t, s, claim("acct-1", "idem-1", "lease-1"))
				if err := s.Release(t.Context(), "acct-1", "idem-1", "lease-1"); err != nil {
					t.Fatalf("Release: %v", err)
				}
			}, store.IdemCompletion{Key: "idem-1", Lease: "lease-1"}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				s := open(t)
				if _, ok, err := s.Settle(t.Context(), store.Settlement{Account: "acct-1", Month: "2026-11", Characters: 7, Limit: 100}); err != nil || !ok {
					t.Fatalf("Settle without key = %v, %v", ok, err)
				}
				tc.prepare(t, s)
				idem := tc.idem
				_, ok, err := s.Settle(t.Context(), store.Settlement{
					Account: "acct-1", Month: "2026-11", Characters: 10, Limit: 100, Idem: &idem,
				})
				wantErr(t, "Settle", err, store.ErrLeaseLost)
				if ok {
					t.Error("Settle admitted")
				}
				wantUsage(t, s, "acct-1", "2026-11", store.Usage{Characters: 7, Runs: 1})
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
			after, ok, err := s.Settle(context.Background(), store.Settlement{
				Account: "acct-race", Month: "2026-11", Characters: chars, Limit: limit,
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
			existing, err := s.Claim(context.Background(), claim("acct-race", "idem-race", lease))
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
