package account

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sluice-api/sluice/internal/store"
	"github.com/sluice-api/sluice/internal/store/sqlite"
)

func TestKeyLifecycle(t *testing.T) {
	m, _ := newManager(t)
	ctx := context.Background()
	a, first, err := m.Create(ctx, settings)
	if err != nil {
		t.Fatal(err)
	}
	second, k2, err := m.CreateKey(ctx, a.ID)
	if err != nil || !ValidKeyFormat(second) || k2.Account != a.ID {
		t.Fatalf("CreateKey = %q %+v %v", second, k2, err)
	}
	for _, key := range []string{first, second} {
		if _, err := m.Authenticate(ctx, "Bearer "+key); err != nil {
			t.Fatalf("key before rotation: %v", err)
		}
	}
	third, _, err := m.RotateKey(ctx, a.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{first, second} {
		if _, err := m.Authenticate(ctx, "Bearer "+key); err == nil {
			t.Fatal("a key older than the rotation still works")
		}
	}
	if _, err := m.Authenticate(ctx, "Bearer "+third); err != nil {
		t.Fatalf("rotated key: %v", err)
	}
	keys, err := m.ListKeys(ctx, a.ID)
	if err != nil || len(keys) != 3 || keys[0].Active() || keys[1].Active() || !keys[2].Active() {
		t.Fatalf("keys = %+v, %v", keys, err)
	}
	for _, k := range keys {
		for _, whole := range []string{first, second, third} {
			if strings.Contains(k.Prefix+k.Last4+k.ID+k.Hash, whole) {
				t.Fatal("a whole key is stored")
			}
		}
	}
	if err := m.RevokeKey(ctx, keys[2].ID); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Authenticate(ctx, "Bearer "+third); err == nil {
		t.Fatal("a revoked key still works")
	}
	if _, err := m.ListKeys(ctx, "acct_missing"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("unknown account: %v", err)
	}
	if _, _, err := m.CreateKey(ctx, "acct_missing"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("key for unknown account: %v", err)
	}
}

func TestUpdateAndDisable(t *testing.T) {
	m, _ := newManager(t)
	ctx := context.Background()
	a, key, _ := m.Create(ctx, settings)
	tier, allowance := TierEnterprise, int64(5)
	got, err := m.Update(ctx, a.ID, Change{Tier: &tier, Allowance: &allowance})
	if err != nil || got.Tier != TierEnterprise || got.Allowance != 5 || got.RateLimit != settings.RateLimit {
		t.Fatalf("Update = %+v, %v", got, err)
	}
	bad := "gold"
	if _, err := m.Update(ctx, a.ID, Change{Tier: &bad}); err == nil {
		t.Fatal("an invalid tier was stored")
	}
	if again, _ := m.Get(ctx, a.ID); again.Tier != TierEnterprise {
		t.Fatalf("a refused update changed the account: %+v", again)
	}
	if _, err := m.Disable(ctx, a.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Authenticate(ctx, "Bearer "+key); err == nil {
		t.Fatal("a disabled account's key still works")
	}
	if _, _, err := m.CreateKey(ctx, a.ID); !errors.Is(err, ErrDisabled) {
		t.Fatalf("new key for a disabled account: %v", err)
	}
}

func TestReport(t *testing.T) {
	a := store.Account{ID: "acct_1", Tier: TierStandard, RateLimit: 600, Allowance: 2_000_000}
	r := Report(a, "2026-11", store.Usage{Characters: 1_500_000, Runs: 7})
	want := UsageReport{Account: "acct_1", Month: "2026-11", Characters: 1_500_000, Runs: 7, PriceTier: "tier2",
		CostMicroUSD: 26_000_000, CostUSD: "26.000000", Allowance: 2_000_000, AllowanceLeft: 500_000,
		Tier: TierStandard, RateLimit: 600, RateWindowSecond: 60}
	if r != want {
		t.Fatalf("Report = %+v\nwant %+v", r, want)
	}
	if r := Report(a, "2026-11", store.Usage{Characters: 3_000_000}); r.AllowanceLeft != 0 {
		t.Fatalf("allowance left below zero: %+v", r)
	}
}

// TestKeysListedInCreationOrder makes many keys in one millisecond (a frozen clock): listing
// sorts by (creation time, id), so the ids alone must keep the order in which they were made.
func TestKeysListedInCreationOrder(t *testing.T) {
	st, err := sqlite.Open(filepath.Join(t.TempDir(), "order.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	frozen := time.Date(2026, 11, 22, 21, 4, 5, 123_000_000, time.UTC)
	m := NewManager(st, pepper, func() time.Time { return frozen })
	a, _, err := m.Create(t.Context(), settings)
	if err != nil {
		t.Fatal(err)
	}
	made := []string{}
	for range 40 {
		_, k, err := m.CreateKey(t.Context(), a.ID)
		if err != nil {
			t.Fatal(err)
		}
		made = append(made, k.ID)
	}
	keys, err := m.ListKeys(t.Context(), a.ID)
	if err != nil {
		t.Fatal(err)
	}
	listed := []string{}
	for _, k := range keys[1:] { // keys[0] is the account's first key
		listed = append(listed, k.ID)
	}
	if !slices.Equal(listed, made) {
		t.Fatalf("keys made in one millisecond are listed out of creation order:\nmade   %v\nlisted %v", made, listed)
	}
}

func TestIDsSortWithinAMillisecond(t *testing.T) {
	g := NewIDs()
	at := time.Date(2026, 11, 22, 21, 4, 5, 0, time.UTC)
	prev := g.New("x", at)
	for i := range 10_000 {
		id := g.New("x", at)
		if id <= prev {
			t.Fatalf("id %d = %s does not sort after %s", i, id, prev)
		}
		prev = id
	}
	// A later millisecond sorts after, an unrelated generator's ids are still unique.
	if later := g.New("x", at.Add(time.Millisecond)); later <= prev {
		t.Fatalf("id of a later millisecond %s sorts before %s", later, prev)
	}
	if other := NewIDs().New("x", at); other == prev {
		t.Fatal("two generators made the same id")
	}
}
