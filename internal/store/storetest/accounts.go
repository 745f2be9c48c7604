package storetest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/sluice-api/sluice/internal/store"
)

// The Accounts port: accounts, keys, rotation.

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

	t.Run("RepeatedCalls", func(t *testing.T) {
		// A call repeating one that succeeded (a retry after a lost answer) succeeds and
		// changes nothing.
		s := open(t)
		a, k1 := account("acct-1"), key("key-1", "acct-1", t0)
		mustCreate(t, s, a, k1)
		mustCreate(t, s, a, k1)
		k2 := key("key-2", "acct-1", t0.Add(time.Second))
		for range 2 {
			if err := s.AddKey(t.Context(), k2); err != nil {
				t.Fatalf("AddKey(%s): %v", k2.ID, err)
			}
		}
		at := t0.Add(time.Hour)
		if err := s.RevokeKey(t.Context(), k2.ID, at); err != nil {
			t.Fatalf("RevokeKey: %v", err)
		}
		if err := s.AddKey(t.Context(), k2); err != nil {
			t.Fatalf("AddKey of a revoked key, repeated: %v", err)
		}
		got, err := s.GetAccount(t.Context(), "acct-1")
		if err != nil {
			t.Fatalf("GetAccount: %v", err)
		}
		sameAccount(t, got, a)
		keys, err := s.ListKeys(t.Context(), "acct-1")
		if err != nil {
			t.Fatalf("ListKeys: %v", err)
		}
		if len(keys) != 2 {
			t.Fatalf("ListKeys = %+v, want key-1 and key-2", keys)
		}
		sameKey(t, keys[0], k1)
		k2.RevokedAt = at
		sameKey(t, keys[1], k2)
		// Not a repeat: the same key id or hash with anything else is still refused.
		other := k2
		other.Account = "acct-2"
		mustCreate(t, s, account("acct-2"), key("key-3", "acct-2", t0))
		wantErr(t, "AddKey of another account's key id", s.AddKey(t.Context(), other), store.ErrExists)
		sameHash := key("key-4", "acct-1", t0)
		sameHash.Hash = k1.Hash
		wantErr(t, "AddKey with a used hash", s.AddKey(t.Context(), sameHash), store.ErrExists)
		wantErr(t, "CreateAccount with an existing id and another key", s.CreateAccount(t.Context(), a, key("key-5", "acct-1", t0)), store.ErrExists)
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

	t.Run("KeyAccount", func(t *testing.T) {
		// KeyAccount answers the key with its account as it stands: after an update, every key
		// of the account (the first, one added, one rotated in) sees the new settings.
		s := open(t)
		a := account("acct-1")
		mustCreate(t, s, a, key("key-1", "acct-1", t0))
		mustCreate(t, s, account("acct-2"), key("key-2", "acct-2", t0))
		if err := s.AddKey(t.Context(), key("key-3", "acct-1", t0.Add(time.Second))); err != nil {
			t.Fatalf("AddKey: %v", err)
		}
		check := func(id string, want store.Account, revoked bool) {
			t.Helper()
			k, got, err := s.KeyAccount(t.Context(), "hash-"+id)
			if err != nil {
				t.Fatalf("KeyAccount(%s): %v", id, err)
			}
			if k.ID != id || k.Account != want.ID || k.Active() == revoked {
				t.Errorf("KeyAccount(%s) key = %+v", id, k)
			}
			sameAccount(t, got, want)
		}
		check("key-1", a, false)
		check("key-3", a, false)
		u := a
		u.RateLimit, u.Allowance, u.Disabled, u.Tier = 7, 70, true, "free"
		if err := s.UpdateAccount(t.Context(), u); err != nil {
			t.Fatalf("UpdateAccount: %v", err)
		}
		check("key-1", u, false)
		check("key-3", u, false)
		check("key-2", account("acct-2"), false)
		u.Disabled, u.UsagePlanKey = false, ""
		if err := s.RotateKey(t.Context(), key("key-4", "acct-1", t0.Add(2*time.Second)), t0.Add(3*time.Second)); err != nil {
			t.Fatalf("RotateKey: %v", err)
		}
		if err := s.UpdateAccount(t.Context(), u); err != nil {
			t.Fatalf("UpdateAccount: %v", err)
		}
		check("key-1", u, true)
		check("key-4", u, false)
		if _, _, err := s.KeyAccount(t.Context(), "hash-none"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("KeyAccount of an unknown hash: %v, want ErrNotFound", err)
		}
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
