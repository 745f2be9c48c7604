package account

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sluice-api/sluice/internal/errcode"
	"github.com/sluice-api/sluice/internal/store"
	"github.com/sluice-api/sluice/internal/store/sqlite"
)

var pepper = []byte("pepper-pepper-pepper-pepper-pepper")

func TestKeyFormat(t *testing.T) {
	seen := map[string]bool{}
	for range 200 {
		k, err := NewKey()
		if err != nil {
			t.Fatal(err)
		}
		if !ValidKeyFormat(k) || seen[k] {
			t.Fatalf("bad or repeated key %q", k)
		}
		seen[k] = true
	}
	for _, tc := range []struct {
		name string
		key  string
		ok   bool
	}{
		{"Valid", KeyPrefix + strings.Repeat("aZ9", 10) + "xy", true},
		{"TestPrefix", "sluice_test_" + strings.Repeat("a", 32), false},
		{"Short", KeyPrefix + strings.Repeat("a", 31), false},
		{"Long", KeyPrefix + strings.Repeat("a", 33), false},
		{"NotBase62", KeyPrefix + strings.Repeat("a", 31) + "-", false},
		{"Empty", "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := ValidKeyFormat(tc.key); got != tc.ok {
				t.Fatalf("ValidKeyFormat(%q) = %v", tc.key, got)
			}
		})
	}
	if HashKey(pepper, "a") == HashKey([]byte("other-pepper-other-pepper-other!!"), "a") || len(HashKey(pepper, "a")) != 64 {
		t.Fatal("the hash must depend on the pepper and be hex SHA-256")
	}
}

func newManager(t *testing.T) (*Manager, store.Store) {
	t.Helper()
	st, err := sqlite.Open(filepath.Join(t.TempDir(), "acct.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return NewManager(st, pepper, nil), st
}

var settings = Settings{Region: "local", Tier: TierStandard, RateLimit: 10, Allowance: 1000}

func TestAuthenticate(t *testing.T) {
	m, st := newManager(t)
	ctx := context.Background()
	a, key, err := m.Create(ctx, settings)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(a.ID, "acct_") || !ValidKeyFormat(key) {
		t.Fatalf("account %q key %q", a.ID, key)
	}
	keys, _ := st.ListKeys(ctx, a.ID)
	if len(keys) != 1 || keys[0].Hash != HashKey(pepper, key) || strings.Contains(keys[0].Prefix+keys[0].Last4, key) || keys[0].Last4 != key[len(key)-4:] {
		t.Fatalf("stored key = %+v", keys)
	}
	if got, err := m.Authenticate(ctx, "Bearer "+key); err != nil || got.ID != a.ID {
		t.Fatalf("Authenticate = %v, %v", got.ID, err)
	}
	if got, err := m.Authenticate(ctx, "bearer  "+key+" "); err != nil || got.ID != a.ID {
		t.Fatalf("scheme is case-insensitive: %v", err)
	}
	other, _ := NewKey()
	disabled, dkey, _ := m.Create(ctx, settings)
	disabled.Disabled = true
	if err := st.UpdateAccount(ctx, disabled); err != nil {
		t.Fatal(err)
	}
	if err := st.RevokeKey(ctx, keys[0].ID, time.Now()); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, header string }{
		{"Missing", ""}, {"NoScheme", key}, {"Basic", "Basic " + key}, {"Unknown", "Bearer " + other},
		{"Revoked", "Bearer " + key}, {"DisabledAccount", "Bearer " + dkey}, {"Malformed", "Bearer sluice_live_x"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := m.Authenticate(ctx, tc.header)
			var e *errcode.Error
			if !errors.As(err, &e) || e.Code != errcode.InvalidAPIKey {
				t.Fatalf("err = %v, want invalid_api_key", err)
			}
		})
	}
}

func TestEnsure(t *testing.T) {
	m, _ := newManager(t)
	ctx := context.Background()
	key := KeyPrefix + strings.Repeat("Q", 32)
	a, err := m.Ensure(ctx, settings, key)
	if err != nil {
		t.Fatal(err)
	}
	changed := settings
	changed.Allowance, changed.RateLimit = 5, 2
	b, err := m.Ensure(ctx, changed, key)
	if err != nil || b.ID != a.ID || b.Allowance != 5 || b.RateLimit != 2 {
		t.Fatalf("second Ensure = %+v, %v", b, err)
	}
	if got, _ := m.Authenticate(ctx, "Bearer "+key); got.Allowance != 5 {
		t.Fatalf("settings not stored: %+v", got)
	}
	if _, err := m.Ensure(ctx, settings, "sluice_live_bad"); err == nil {
		t.Fatal("a malformed seed key was accepted")
	}

	// A key rotated away stays revoked; Ensure says so instead of pretending it was seeded.
	if _, _, err := m.RotateKey(ctx, a.ID); err != nil {
		t.Fatal(err)
	}
	if c, err := m.Ensure(ctx, settings, key); !errors.Is(err, ErrKeyRevoked) || c.ID != a.ID {
		t.Fatalf("Ensure of a rotated key = %+v, %v; want its account and ErrKeyRevoked", c, err)
	}
	if _, err := m.Authenticate(ctx, "Bearer "+key); err == nil {
		t.Fatal("Ensure revived a rotated key")
	}

	// A key of a disabled account: ErrDisabled.
	other := KeyPrefix + strings.Repeat("R", 32)
	d, err := m.Ensure(ctx, settings, other)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Disable(ctx, d.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Ensure(ctx, settings, other); !errors.Is(err, ErrDisabled) {
		t.Fatalf("Ensure of a disabled account's key: %v, want ErrDisabled", err)
	}
}

func TestSettingsValidate(t *testing.T) {
	for _, tc := range []struct {
		name string
		s    Settings
		ok   bool
	}{
		{"Defaults", Settings{Region: "r", Tier: DefaultTier, RateLimit: DefaultRateLimit, Allowance: DefaultAllowance}, true},
		{"NoRegion", Settings{Tier: DefaultTier, RateLimit: 1}, false},
		{"BadTier", Settings{Region: "r", Tier: "gold", RateLimit: 1}, false},
		{"ZeroRate", Settings{Region: "r", Tier: DefaultTier}, false},
		{"NegativeAllowance", Settings{Region: "r", Tier: DefaultTier, RateLimit: 1, Allowance: -1}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.s.Validate(); (err == nil) != tc.ok {
				t.Fatalf("Validate = %v", err)
			}
		})
	}
}

// TestResetSeconds: the seconds until a window ends, as X-RateLimit-Reset reports them (the
// metering package's tests count requests in windows).
func TestResetSeconds(t *testing.T) {
	for _, tc := range []struct {
		at   time.Time
		want int64
	}{
		{time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), 60},
		{time.Date(2026, 1, 1, 0, 0, 0, 1, time.UTC), 60},
		{time.Date(2026, 1, 1, 0, 0, 30, 0, time.UTC), 30},
		{time.Date(2026, 1, 1, 0, 0, 59, 999_000_000, time.UTC), 1},
	} {
		if got := ResetSeconds(tc.at); got != tc.want {
			t.Errorf("ResetSeconds(%v) = %d, want %d", tc.at, got, tc.want)
		}
	}
}
