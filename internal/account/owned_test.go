package account

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sluice-api/sluice/internal/store"
)

func TestOwnedKeys(t *testing.T) {
	m, _ := newManager(t)
	ctx := t.Context()
	a, keyA, err := m.Create(ctx, settings)
	if err != nil {
		t.Fatal(err)
	}
	secondA, _, err := m.CreateKey(ctx, a.ID)
	if err != nil {
		t.Fatal(err)
	}
	b, keyB, err := m.Create(ctx, settings)
	if err != nil {
		t.Fatal(err)
	}
	keysOf := func(id string) []store.Key {
		t.Helper()
		keys, err := m.ListKeys(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		return keys
	}
	works := func(key string) bool {
		_, err := m.Authenticate(ctx, "Bearer "+key)
		return err == nil
	}
	bKey := keysOf(b.ID)[0]

	t.Run("OtherAccountsKeyIsNotFound", func(t *testing.T) {
		if _, err := m.KeyOf(ctx, a.ID, bKey.ID); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("KeyOf: %v, want ErrNotFound", err)
		}
		if err := m.RevokeKeyOf(ctx, a.ID, bKey.ID); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("RevokeKeyOf: %v, want ErrNotFound", err)
		}
		if key, _, err := m.ReplaceKey(ctx, a.ID, bKey.ID); !errors.Is(err, store.ErrNotFound) || key != "" {
			t.Errorf("ReplaceKey: %q, %v; want ErrNotFound and no key", key, err)
		}
		if !works(keyB) || len(keysOf(b.ID)) != 1 || len(keysOf(a.ID)) != 2 {
			t.Error("an attempt on another account's key changed something")
		}
	})

	t.Run("ReplaceRevokesOnlyThatKey", func(t *testing.T) {
		old := keysOf(a.ID)[0]
		key, k, err := m.ReplaceKey(ctx, a.ID, old.ID)
		if err != nil || !ValidKeyFormat(key) || k.Account != a.ID {
			t.Fatalf("ReplaceKey = %q, %+v, %v", key, k, err)
		}
		if works(keyA) {
			t.Error("the replaced key still works")
		}
		if !works(key) || !works(secondA) || !works(keyB) {
			t.Error("the new key, the account's other key or another account's key stopped working")
		}
		if _, _, err := m.ReplaceKey(ctx, a.ID, old.ID); !errors.Is(err, ErrKeyRevoked) {
			t.Errorf("ReplaceKey of a revoked key: %v, want ErrKeyRevoked", err)
		}
	})

	t.Run("RevokeOwnKey", func(t *testing.T) {
		var second store.Key
		for _, k := range keysOf(a.ID) {
			if k.Last4 == secondA[len(secondA)-4:] && k.Active() {
				second = k
			}
		}
		if err := m.RevokeKeyOf(ctx, a.ID, second.ID); err != nil {
			t.Fatal(err)
		}
		if works(secondA) {
			t.Error("a revoked key still works")
		}
	})
}

// countingUse wraps a store and counts (and can hold) MarkKeyUsed calls.
type countingUse struct {
	store.Store
	calls   atomic.Int64
	mu      sync.Mutex
	hold    chan struct{} // when set, each call waits for it to close
	started chan string
}

func (c *countingUse) MarkKeyUsed(ctx context.Context, hash, day string) error {
	c.calls.Add(1)
	c.mu.Lock()
	hold := c.hold
	c.mu.Unlock()
	if c.started != nil {
		c.started <- hash
	}
	if hold != nil {
		<-hold
	}
	return c.Store.MarkKeyUsed(ctx, hash, day)
}

func TestKeyUse(t *testing.T) {
	_, st := newManager(t)
	cu := &countingUse{Store: st}
	now := time.Date(2026, 11, 22, 23, 59, 0, 0, time.UTC)
	var clock atomic.Pointer[time.Time]
	clock.Store(&now)
	m := NewManager(cu, pepper, func() time.Time { return *clock.Load() })
	ctx := t.Context()
	a, key, err := m.Create(ctx, settings)
	if err != nil {
		t.Fatal(err)
	}
	lastUsed := func() string {
		t.Helper()
		keys, err := m.ListKeys(ctx, a.ID)
		if err != nil {
			t.Fatal(err)
		}
		return keys[0].LastUsed
	}
	if got := lastUsed(); got != "" {
		t.Fatalf("LastUsed before use = %q", got)
	}
	auth := func(n int) {
		t.Helper()
		for range n {
			if _, err := m.Authenticate(ctx, "Bearer "+key); err != nil {
				t.Fatal(err)
			}
			m.WaitKeyUse()
		}
	}
	auth(20)
	if got, calls := lastUsed(), cu.calls.Load(); got != "2026-11-22" || calls != 1 {
		t.Fatalf("after 20 requests on one day: LastUsed %q, %d writes; want 2026-11-22 and 1", got, calls)
	}
	next := now.Add(2 * time.Minute)
	clock.Store(&next)
	auth(20)
	if got, calls := lastUsed(), cu.calls.Load(); got != "2026-11-23" || calls != 2 {
		t.Fatalf("after 20 more the next day: LastUsed %q, %d writes; want 2026-11-23 and 2", got, calls)
	}
}

// TestKeyUseBounded holds every write: requests never wait for them, one key has at most one in
// flight, and at most maxKeyUseWrites are in flight at all.
func TestKeyUseBounded(t *testing.T) {
	_, st := newManager(t)
	cu := &countingUse{Store: st, hold: make(chan struct{}), started: make(chan string, 64)}
	m := NewManager(cu, pepper, nil)
	ctx := t.Context()
	var keys []string
	for range maxKeyUseWrites + 4 {
		_, key, err := m.Create(ctx, settings)
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, key)
	}
	for range 3 { // each key three times: the repeats find their write in flight
		for _, key := range keys {
			if _, err := m.Authenticate(ctx, "Bearer "+key); err != nil {
				t.Fatal(err) // returns although every write is held
			}
		}
	}
	seen := map[string]bool{}
	for range maxKeyUseWrites {
		h := <-cu.started
		if seen[h] {
			t.Fatalf("two writes in flight for one key")
		}
		seen[h] = true
	}
	if n := cu.calls.Load(); n != maxKeyUseWrites {
		t.Fatalf("%d writes started, want the bound %d", n, maxKeyUseWrites)
	}
	close(cu.hold)
	m.WaitKeyUse()
	// The skipped keys are recorded by their next request.
	for _, key := range keys {
		if _, err := m.Authenticate(ctx, "Bearer "+key); err != nil {
			t.Fatal(err)
		}
		m.WaitKeyUse()
	}
	for range len(keys) - maxKeyUseWrites {
		<-cu.started
	}
	if n := cu.calls.Load(); n != int64(len(keys)) {
		t.Fatalf("%d writes in all, want one per key (%d)", n, len(keys))
	}
}

// accountsOnly implements store.Accounts and nothing else.
type accountsOnly struct{ store.Accounts }

func TestKeyUseNeedsThePort(t *testing.T) {
	_, st := newManager(t)
	m := NewManager(accountsOnly{st}, pepper, nil)
	_, key, err := m.Create(t.Context(), settings)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Authenticate(t.Context(), "Bearer "+key); err != nil {
		t.Fatal(err)
	}
	m.WaitKeyUse() // nothing to wait for
}
