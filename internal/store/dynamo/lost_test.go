package dynamo

import (
	"testing"
	"time"

	"github.com/sluice-api/sluice/internal/store"
	"github.com/sluice-api/sluice/internal/testutil/dynalite"
	"github.com/sluice-api/sluice/internal/testutil/faultproxy"
)

// lossy returns a store whose client goes through a proxy that loses no answer unless the test
// scripts it, and the proxy.
func lossy(t *testing.T) (*Store, *faultproxy.Proxy) {
	t.Helper()
	p := faultproxy.StartT(t, endpoint, faultproxy.Config{})
	c, err := dynalite.Client(t.Context(), p.URL())
	if err != nil {
		t.Fatalf("dynalite.Client: %v", err)
	}
	return New(c, freshTables(t)), p
}

// lose scripts the fate of the next writes: the one at index i (0-based) loses its answer.
func lose(p *faultproxy.Proxy, i int) {
	script := make([]bool, i+1)
	script[i] = true
	p.Script(script...)
}

var lostT0 = time.Date(2026, 11, 22, 21, 4, 5, 0, time.UTC)

// lostClaim is a claim with a new pass (entered without losing anything).
func lostClaim(t *testing.T, s *Store, lease string, now time.Time) store.Claim {
	t.Helper()
	return store.Claim{Account: "acct-1", Key: "idem-1", Fingerprint: "fp", Lease: lease, TraceID: "sluice_" + lease,
		Now: now, TTL: 24 * time.Hour, LeaseTTL: time.Minute, Pass: crashEnter(t, s, "acct-1", now)}
}

func mustStep(t *testing.T, what string, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// TestLostAnswerOfEachWrite loses the answer of one write of a call at a time, after DynamoDB
// applied it; the SDK retries the write, and the call must end exactly as if nothing was lost.
// Before the writes carried their writer's identity these ended in 409 for the claimer's own
// key, ErrExists for the account's own creation, a window or month counted twice, or a charged
// run reported refused.
func TestLostAnswerOfEachWrite(t *testing.T) {
	t.Run("Claim", func(t *testing.T) {
		s, p := lossy(t)
		c := lostClaim(t, s, "lease-1", lostT0)
		lose(p, 0)
		claimWins(t, s, c)
		claimFinds(t, s, lostClaim(t, s, "lease-2", lostT0.Add(time.Second)), store.IdemInFlight, "lease-1", "sluice_lease-1")
	})
	for i, write := range []string{"fence", "takeover"} {
		t.Run("ClaimTakeover/"+write, func(t *testing.T) {
			s, p := lossy(t)
			claimWins(t, s, lostClaim(t, s, "lease-1", lostT0))
			c := lostClaim(t, s, "lease-2", lostT0.Add(2*time.Minute)) // the first lease expired
			lose(p, i)
			claimWins(t, s, c)
			claimFinds(t, s, lostClaim(t, s, "lease-3", lostT0.Add(2*time.Minute+time.Second)), store.IdemInFlight, "lease-2", "sluice_lease-2")
		})
	}
	t.Run("Release", func(t *testing.T) {
		s, p := lossy(t)
		claimWins(t, s, lostClaim(t, s, "lease-1", lostT0))
		lose(p, 0)
		mustStep(t, "Release", s.Release(t.Context(), "acct-1", "idem-1", "lease-1"))
		claimWins(t, s, lostClaim(t, s, "lease-2", lostT0.Add(time.Second)))
	})

	for i, write := range []string{"account item", "key-id item", "key item"} {
		t.Run("CreateAccount/"+write, func(t *testing.T) {
			s, p := lossy(t)
			a := store.Account{ID: "acct-1", Region: "eu-west-1", Tier: "standard", RateLimit: 1, Allowance: 1, CreatedAt: lostT0}
			k := store.Key{ID: "key-1", Account: "acct-1", Hash: "hash-1", CreatedAt: lostT0}
			lose(p, i)
			mustStep(t, "CreateAccount", s.CreateAccount(t.Context(), a, k))
			wantKeys(t, s, "acct-1", "key-1")
			if st := p.Stats(); st.Dropped != 1 {
				t.Fatalf("%d answers lost, want 1", st.Dropped)
			}
		})
	}
	for i, write := range []string{"key_ids", "key-id item", "key item"} {
		t.Run("AddKey/"+write, func(t *testing.T) {
			s, p := lossy(t)
			mustStep(t, "CreateAccount", s.CreateAccount(t.Context(),
				store.Account{ID: "acct-1", Region: "eu-west-1", CreatedAt: lostT0},
				store.Key{ID: "key-1", Account: "acct-1", Hash: "hash-1", CreatedAt: lostT0}))
			lose(p, i)
			mustStep(t, "AddKey", s.AddKey(t.Context(), store.Key{ID: "key-2", Account: "acct-1", Hash: "hash-2", CreatedAt: lostT0.Add(time.Second)}))
			wantKeys(t, s, "acct-1", "key-1", "key-2")
		})
	}

	for i, write := range []string{"hit", "clean-up"} {
		t.Run("Hit/"+write, func(t *testing.T) {
			s, p := lossy(t)
			start := lostT0.Truncate(time.Minute)
			hit := func(want int64, admitted bool) {
				t.Helper()
				n, ok, err := s.Hit(t.Context(), "acct-1", start, 2)
				if err != nil || n != want || ok != admitted {
					t.Fatalf("Hit = %d, %v, %v; want %d, %v", n, ok, err, want, admitted)
				}
			}
			lose(p, i)
			hit(1, true)
			lose(p, i)
			hit(2, true) // the hit that fills the window: its own retry must not be refused
			hit(2, false)
		})
	}

	// Enter: the first request of a window rolls it over, the next ones count in it; the one
	// that fills the window must not be refused by its own retry.
	t.Run("Enter", func(t *testing.T) {
		s, p := lossy(t)
		w := lostT0.Truncate(time.Minute)
		in := func(want int64, admitted bool) {
			t.Helper()
			pass, err := s.Enter(t.Context(), store.Entry{Account: "acct-1", Month: crashMonth, Window: w, Limit: 2})
			if err != nil || pass.Count != want || pass.Admitted != admitted {
				t.Fatalf("Enter = %+v, %v; want count %d, admitted %v", pass, err, want, admitted)
			}
			s.Leave(pass)
		}
		lose(p, 0)
		in(1, true) // the rollover
		lose(p, 0)
		in(2, true) // the same window
		in(2, false)
		lose(p, 0)
		w = w.Add(time.Minute)
		in(1, true) // the next window's rollover, after a same-window attempt was refused
		if st := p.Stats(); st.Dropped != 3 {
			t.Fatalf("%d answers lost, want 3", st.Dropped)
		}
	})

	t.Run("SettleWithoutKey", func(t *testing.T) {
		s, p := lossy(t)
		settle := func(trace string, n int64, want store.Usage, admitted bool) {
			t.Helper()
			st := store.Settlement{Pass: crashEnter(t, s, "acct-1", lostT0), Characters: n, Limit: 10, TraceID: trace}
			defer s.Leave(st.Pass)
			lose(p, 0)
			u, ok, err := s.Settle(t.Context(), st)
			if err != nil || ok != admitted || u != want {
				t.Fatalf("Settle(%s, %d) = %+v, %v, %v; want %+v, %v", trace, n, u, ok, err, want, admitted)
			}
		}
		settle("sluice_run-1", 4, store.Usage{Characters: 4, Runs: 1}, true)
		settle("sluice_run-2", 6, store.Usage{Characters: 10, Runs: 2}, true) // exactly reaches the limit
		settle("sluice_run-3", 1, store.Usage{Characters: 10, Runs: 2}, false)
		usageIs(t, s, "acct-1", store.Usage{Characters: 10, Runs: 2})
	})

	for i, write := range []string{"charge", "completion"} {
		t.Run("SettleWithKey/"+write, func(t *testing.T) {
			s, p := lossy(t)
			c := lostClaim(t, s, "lease-1", lostT0)
			claimWins(t, s, c)
			lose(p, i)
			u, ok, err := s.Settle(t.Context(), store.Settlement{Pass: c.Pass, Characters: 5, Limit: 5,
				TraceID: "sluice_run-1", Idem: &store.IdemCompletion{Key: "idem-1", Lease: "lease-1", TraceID: "sluice_run-1"}})
			if err != nil || !ok || u != (store.Usage{Characters: 5, Runs: 1}) {
				t.Fatalf("Settle = %+v, %v, %v; want {5 1}, admitted", u, ok, err)
			}
			usageIs(t, s, "acct-1", store.Usage{Characters: 5, Runs: 1})
			claimFinds(t, s, lostClaim(t, s, "lease-2", lostT0.Add(time.Hour)), store.IdemDone, "lease-1", "sluice_run-1")
			if st := p.Stats(); st.Dropped != 1 {
				t.Fatalf("%d answers lost, want 1", st.Dropped)
			}
		})
	}
}

// wantKeys checks that account's keys are exactly ids, in order.
func wantKeys(t *testing.T, s *Store, account string, ids ...string) {
	t.Helper()
	if _, err := s.GetAccount(t.Context(), account); err != nil {
		t.Fatalf("GetAccount: %v", err)
	}
	keys, err := s.ListKeys(t.Context(), account)
	if err != nil {
		t.Fatalf("ListKeys: %v", err)
	}
	var got []string
	for _, k := range keys {
		got = append(got, k.ID)
		if kk, err := s.KeyByHash(t.Context(), k.Hash); err != nil || kk.ID != k.ID || !kk.Active() {
			t.Fatalf("KeyByHash(%s) = %+v, %v", k.Hash, kk, err)
		}
	}
	if len(got) != len(ids) {
		t.Fatalf("keys = %v, want %v", got, ids)
	}
	for i := range ids {
		if got[i] != ids[i] {
			t.Fatalf("keys = %v, want %v", got, ids)
		}
	}
}
