package sqlite_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/sluice-api/sluice/internal/store"
	"github.com/sluice-api/sluice/internal/store/sqlite"
	"github.com/sluice-api/sluice/internal/store/storetest"
)

func openAt(t testing.TB, path string) *sqlite.Store {
	t.Helper()
	s, err := sqlite.Open(path)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return s
}

func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) store.Store {
		return openAt(t, filepath.Join(t.TempDir(), "sluice.db"))
	})
}

// TestMultiProcessShare opens one file twice, as the local server and an operator CLI would,
// and races both handles: the guarantees hold across connections, not only goroutines.
func TestMultiProcessShare(t *testing.T) {
	for _, tc := range []struct {
		name string
		run  func(t *testing.T, stores []store.Store)
	}{
		{"Settle", func(t *testing.T, stores []store.Store) { storetest.AllowanceRace(t, stores, 50, 30, 1000) }},
		{"Claim", func(t *testing.T, stores []store.Store) { storetest.ClaimRace(t, stores, 32) }},
		{"Hit", func(t *testing.T, stores []store.Store) { storetest.HitRace(t, stores, 64, 40) }},
		{"Enter", func(t *testing.T, stores []store.Store) { storetest.EnterRace(t, stores, 64, 40) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "shared.db")
			a, b := openAt(t, path), openAt(t, path)
			tc.run(t, []store.Store{a, b})
		})
	}

	t.Run("WritesVisibleToOther", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "shared.db")
		server, cli := openAt(t, path), openAt(t, path)
		ctx := t.Context()
		at := time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)
		k := store.Key{ID: "key-1", Account: "acct-1", Hash: "h1", Prefix: "sluice_live_a", Last4: "abcd", CreatedAt: at}
		if err := cli.CreateAccount(ctx, store.Account{ID: "acct-1", Region: "local", CreatedAt: at}, k); err != nil {
			t.Fatalf("CreateAccount: %v", err)
		}
		if err := cli.RevokeKey(ctx, "key-1", at.Add(time.Minute)); err != nil {
			t.Fatalf("RevokeKey: %v", err)
		}
		got, err := server.KeyByHash(ctx, "h1")
		if err != nil {
			t.Fatalf("KeyByHash on the other handle: %v", err)
		}
		if got.Active() {
			t.Error("the other handle sees the key active after revocation")
		}
	})
}

func TestOpen(t *testing.T) {
	t.Run("Reopen", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "sluice.db")
		s, err := sqlite.Open(path)
		if err != nil {
			t.Fatalf("Open: %v", err)
		}
		if _, _, err := s.Settle(t.Context(), store.Settlement{Pass: store.Pass{Account: "a", Month: "2026-11"}, Characters: 3, Limit: 10}); err != nil {
			t.Fatalf("Settle: %v", err)
		}
		if err := s.Close(); err != nil {
			t.Fatalf("Close: %v", err)
		}
		s = openAt(t, path)
		u, err := s.Usage(t.Context(), "a", "2026-11")
		if err != nil || u != (store.Usage{Characters: 3, Runs: 1}) {
			t.Fatalf("Usage after reopen = %+v, %v; want {3 1}", u, err)
		}
	})
	for _, path := range []string{"", ":memory:", "file:x.db", "x.db?mode=ro"} {
		t.Run(fmt.Sprintf("Rejects%q", path), func(t *testing.T) {
			if s, err := sqlite.Open(path); err == nil {
				s.Close()
				t.Fatalf("Open(%q) succeeded", path)
			}
		})
	}
}

func BenchmarkSettle(b *testing.B) {
	s := openAt(b, filepath.Join(b.TempDir(), "bench.db"))
	ctx := context.Background()
	for b.Loop() {
		if _, ok, err := s.Settle(ctx, store.Settlement{Pass: store.Pass{Account: "acct-1", Month: "2026-11"}, Characters: 100, Limit: 1 << 62}); err != nil || !ok {
			b.Fatalf("Settle = %v, %v", ok, err)
		}
	}
}

func BenchmarkSettleWithIdempotency(b *testing.B) {
	s := openAt(b, filepath.Join(b.TempDir(), "bench.db"))
	ctx := context.Background()
	now := time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)
	i := 0
	for b.Loop() {
		i++
		k := fmt.Sprintf("idem-%d", i)
		if _, err := s.Claim(ctx, store.Claim{Account: "acct-1", Key: k, Fingerprint: "fp", Lease: "l", TraceID: "t",
			Now: now, TTL: 24 * time.Hour, LeaseTTL: time.Minute}); err != nil {
			b.Fatalf("Claim: %v", err)
		}
		if _, ok, err := s.Settle(ctx, store.Settlement{Pass: store.Pass{Account: "acct-1", Month: "2026-11"}, Characters: 100, Limit: 1 << 62,
			Idem: &store.IdemCompletion{Key: k, Lease: "l", TraceID: "t"}}); err != nil || !ok {
			b.Fatalf("Settle = %v, %v", ok, err)
		}
	}
}

func BenchmarkEnter(b *testing.B) {
	s := openAt(b, filepath.Join(b.TempDir(), "bench.db"))
	ctx := context.Background()
	w := time.Date(2026, 11, 22, 21, 4, 0, 0, time.UTC)
	for b.Loop() {
		p, err := s.Enter(ctx, store.Entry{Account: "acct-1", Month: "2026-11", Window: w, Limit: 1 << 62})
		if err != nil || !p.Admitted {
			b.Fatalf("Enter = %+v, %v", p, err)
		}
	}
}

func BenchmarkHit(b *testing.B) {
	s := openAt(b, filepath.Join(b.TempDir(), "bench.db"))
	ctx := context.Background()
	start := time.Date(2026, 11, 22, 21, 4, 0, 0, time.UTC)
	for b.Loop() {
		if _, ok, err := s.Hit(ctx, "acct-1", start, 1<<62); err != nil || !ok {
			b.Fatalf("Hit = %v, %v", ok, err)
		}
	}
}

func BenchmarkHitParallel(b *testing.B) {
	s := openAt(b, filepath.Join(b.TempDir(), "bench.db"))
	ctx := context.Background()
	start := time.Date(2026, 11, 22, 21, 4, 0, 0, time.UTC)
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, ok, err := s.Hit(ctx, "acct-1", start, 1<<62); err != nil || !ok {
				b.Errorf("Hit = %v, %v", ok, err)
				return
			}
		}
	})
}
