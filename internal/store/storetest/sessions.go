package storetest

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/sluice-api/sluice/internal/store"
)

// linkTTL and idle are the dashboard's link lifetime and session idle expiry; the suite only
// needs realistic values.
const (
	linkTTL = 15 * time.Minute
	idle    = 12 * time.Hour
)

func link(hash, acct string) store.SignInLink {
	return store.SignInLink{Hash: hash, Account: acct, CreatedAt: t0, Expires: t0.Add(linkTTL)}
}

func session(hash string, at time.Time) store.Session {
	return store.Session{Hash: hash, CreatedAt: at, Expires: at.Add(idle)}
}

func mustLink(t *testing.T, s store.Store, l store.SignInLink) {
	t.Helper()
	if err := s.CreateLink(t.Context(), l); err != nil {
		t.Fatalf("CreateLink(%s): %v", l.Hash, err)
	}
}

func mustStart(t *testing.T, s store.Store, linkHash string, sess store.Session, now time.Time) store.Session {
	t.Helper()
	got, err := s.StartSession(t.Context(), linkHash, sess, now)
	if err != nil {
		t.Fatalf("StartSession(%s, %s): %v", linkHash, sess.Hash, err)
	}
	return got
}

func sameSession(t *testing.T, got, want store.Session) {
	t.Helper()
	sameTime(t, "session CreatedAt", got.CreatedAt, want.CreatedAt)
	sameTime(t, "session Expires", got.Expires, want.Expires)
	if got.Hash != want.Hash || got.Account != want.Account {
		t.Errorf("session = %s of %q, want %s of %q", got.Hash, got.Account, want.Hash, want.Account)
	}
}

// wantNoSession checks that hash is absent at now.
func wantNoSession(t *testing.T, s store.Store, hash string, now time.Time) {
	t.Helper()
	if got, err := s.Session(t.Context(), hash, now); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Session(%s) = %+v, %v; want ErrNotFound", hash, got, err)
	}
}

// runDashboard covers the ports the dashboard adds: sign-in links, sessions, key use and the
// per-day usage counters.
func runDashboard(t *testing.T, open func(t *testing.T) store.Store) {
	t.Run("Sessions", func(t *testing.T) { runSessions(t, open) })
	t.Run("KeyUse", func(t *testing.T) { runKeyUse(t, open) })
	t.Run("UsageDays", func(t *testing.T) { runUsageDays(t, open) })
}

func runSessions(t *testing.T, open func(t *testing.T) store.Store) {
	t.Run("LinkRoundTrip", func(t *testing.T) {
		s := open(t)
		l := link("link-1", "acct-1")
		mustLink(t, s, l)
		got, err := s.Link(t.Context(), "link-1", t0)
		if err != nil {
			t.Fatalf("Link: %v", err)
		}
		sameTime(t, "link CreatedAt", got.CreatedAt, l.CreatedAt)
		sameTime(t, "link Expires", got.Expires, l.Expires)
		if got.Hash != "link-1" || got.Account != "acct-1" {
			t.Errorf("link = %+v", got)
		}
		wantErr(t, "CreateLink of another account's link", s.CreateLink(t.Context(), link("link-1", "acct-2")), store.ErrExists)
		if err := s.CreateLink(t.Context(), l); err != nil {
			t.Errorf("CreateLink of the same link again (a retried write): %v", err)
		}
		mustStart(t, s, "link-1", session("sess-1", t0), t0)
		wantErr(t, "CreateLink of the used link", s.CreateLink(t.Context(), l), store.ErrExists)
		if _, err := s.Link(t.Context(), "link-1", t0); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("the used link came back: %v", err)
		}
		if _, err := s.Link(t.Context(), "link-2", t0); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("Link(unknown): err = %v, want ErrNotFound", err)
		}
	})

	t.Run("LinkExpires", func(t *testing.T) {
		s := open(t)
		mustLink(t, s, link("link-1", "acct-1"))
		if _, err := s.Link(t.Context(), "link-1", t0.Add(linkTTL-time.Millisecond)); err != nil {
			t.Errorf("Link a millisecond before expiry: %v", err)
		}
		if _, err := s.Link(t.Context(), "link-1", t0.Add(linkTTL)); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("Link at expiry: err = %v, want ErrNotFound", err)
		}
		_, err := s.StartSession(t.Context(), "link-1", session("sess-1", t0.Add(linkTTL)), t0.Add(linkTTL))
		wantErr(t, "StartSession at expiry", err, store.ErrNotFound)
		wantNoSession(t, s, "sess-1", t0.Add(linkTTL))
	})

	t.Run("StartSession", func(t *testing.T) {
		s := open(t)
		mustLink(t, s, link("link-1", "acct-1"))
		now := t0.Add(time.Minute)
		want := session("sess-1", now)
		want.Account = "acct-1"
		in := session("sess-1", now)
		in.Account = "acct-other" // ignored: the link says whose session it is
		sameSession(t, mustStart(t, s, "link-1", in, now), want)
		got, err := s.Session(t.Context(), "sess-1", now)
		if err != nil {
			t.Fatalf("Session: %v", err)
		}
		sameSession(t, got, want)
		if _, err := s.Link(t.Context(), "link-1", now); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("Link after use: err = %v, want ErrNotFound", err)
		}
	})

	t.Run("UnknownLink", func(t *testing.T) {
		s := open(t)
		_, err := s.StartSession(t.Context(), "link-1", session("sess-1", t0), t0)
		wantErr(t, "StartSession", err, store.ErrNotFound)
		wantNoSession(t, s, "sess-1", t0)
	})

	t.Run("LinkUsedOnce", func(t *testing.T) {
		s := open(t)
		mustLink(t, s, link("link-1", "acct-1"))
		mustStart(t, s, "link-1", session("sess-1", t0), t0)
		_, err := s.StartSession(t.Context(), "link-1", session("sess-2", t0), t0)
		wantErr(t, "StartSession with a used link", err, store.ErrNotFound)
		wantNoSession(t, s, "sess-2", t0)
		// Ending the session does not free the link.
		if err := s.EndSession(t.Context(), "sess-1"); err != nil {
			t.Fatalf("EndSession: %v", err)
		}
		_, err = s.StartSession(t.Context(), "link-1", session("sess-3", t0), t0)
		wantErr(t, "StartSession after sign-out", err, store.ErrNotFound)
	})

	t.Run("RepeatIsTheSameSession", func(t *testing.T) {
		s := open(t)
		mustLink(t, s, link("link-1", "acct-1"))
		first := mustStart(t, s, "link-1", session("sess-1", t0), t0)
		again := mustStart(t, s, "link-1", session("sess-1", t0), t0.Add(time.Second))
		sameSession(t, again, first)
		got, err := s.Session(t.Context(), "sess-1", t0)
		if err != nil {
			t.Fatalf("Session: %v", err)
		}
		sameSession(t, got, first)
		// Not once the link has expired.
		_, err = s.StartSession(t.Context(), "link-1", session("sess-1", t0), t0.Add(linkTTL))
		wantErr(t, "repeat after expiry", err, store.ErrNotFound)
	})

	t.Run("SessionNeverOverwritten", func(t *testing.T) {
		s := open(t)
		mustLink(t, s, link("link-1", "acct-1"))
		mustLink(t, s, link("link-2", "acct-2"))
		mustStart(t, s, "link-1", session("sess-1", t0), t0)
		if _, err := s.StartSession(t.Context(), "link-2", session("sess-1", t0), t0); err == nil {
			t.Error("a second link started a session over an existing one")
		}
		got, err := s.Session(t.Context(), "sess-1", t0)
		if err != nil || got.Account != "acct-1" {
			t.Errorf("Session = %+v, %v; want acct-1's", got, err)
		}
	})

	t.Run("StartRace", func(t *testing.T) {
		s := open(t)
		mustLink(t, s, link("link-1", "acct-1"))
		const workers = 16
		var wg sync.WaitGroup
		errs := make([]error, workers)
		for i := range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, errs[i] = s.StartSession(t.Context(), "link-1", session(fmt.Sprintf("sess-%d", i), t0), t0)
			}()
		}
		wg.Wait()
		won := 0
		for i, err := range errs {
			switch {
			case err == nil:
				won++
			case !errors.Is(err, store.ErrNotFound):
				t.Errorf("worker %d: %v", i, err)
			}
		}
		if won != 1 {
			t.Errorf("%d sessions started from one link, want 1", won)
		}
	})

	t.Run("IdleExpiry", func(t *testing.T) {
		s := open(t)
		mustLink(t, s, link("link-1", "acct-1"))
		mustStart(t, s, "link-1", session("sess-1", t0), t0)
		if _, err := s.Session(t.Context(), "sess-1", t0.Add(idle-time.Millisecond)); err != nil {
			t.Errorf("Session a millisecond before expiry: %v", err)
		}
		wantNoSession(t, s, "sess-1", t0.Add(idle))
		err := s.TouchSession(t.Context(), "sess-1", t0.Add(2*idle), t0.Add(idle))
		wantErr(t, "TouchSession after expiry", err, store.ErrNotFound)
		wantNoSession(t, s, "sess-1", t0.Add(idle))
	})

	t.Run("Touch", func(t *testing.T) {
		s := open(t)
		mustLink(t, s, link("link-1", "acct-1"))
		mustStart(t, s, "link-1", session("sess-1", t0), t0)
		later := t0.Add(time.Hour)
		for _, exp := range []time.Time{later.Add(idle), later.Add(idle), t0.Add(idle)} {
			// Once, again (a repeat), then an earlier expiry, which changes nothing.
			if err := s.TouchSession(t.Context(), "sess-1", exp, later); err != nil {
				t.Fatalf("TouchSession(%v): %v", exp, err)
			}
		}
		got, err := s.Session(t.Context(), "sess-1", t0.Add(idle))
		if err != nil {
			t.Fatalf("Session past the first expiry after a touch: %v", err)
		}
		sameTime(t, "Expires", got.Expires, later.Add(idle))
		sameTime(t, "CreatedAt", got.CreatedAt, t0)
		wantErr(t, "TouchSession(unknown)", s.TouchSession(t.Context(), "sess-2", later.Add(idle), later), store.ErrNotFound)
		wantNoSession(t, s, "sess-2", later)
	})

	t.Run("End", func(t *testing.T) {
		s := open(t)
		mustLink(t, s, link("link-1", "acct-1"))
		mustLink(t, s, link("link-2", "acct-1"))
		mustStart(t, s, "link-1", session("sess-1", t0), t0)
		mustStart(t, s, "link-2", session("sess-2", t0), t0)
		for range 2 {
			if err := s.EndSession(t.Context(), "sess-1"); err != nil {
				t.Fatalf("EndSession: %v", err)
			}
		}
		wantNoSession(t, s, "sess-1", t0)
		wantErr(t, "TouchSession after end", s.TouchSession(t.Context(), "sess-1", t0.Add(idle+time.Hour), t0), store.ErrNotFound)
		wantNoSession(t, s, "sess-1", t0)
		if _, err := s.Session(t.Context(), "sess-2", t0); err != nil {
			t.Errorf("the other session ended too: %v", err)
		}
	})
}

func runKeyUse(t *testing.T, open func(t *testing.T) store.Store) {
	lastUsed := func(t *testing.T, s store.Store, hash string) string {
		t.Helper()
		k, err := s.KeyByHash(t.Context(), hash)
		if err != nil {
			t.Fatalf("KeyByHash: %v", err)
		}
		keys, err := s.ListKeys(t.Context(), k.Account)
		if err != nil {
			t.Fatalf("ListKeys: %v", err)
		}
		for _, lk := range keys {
			if lk.ID == k.ID && lk.LastUsed != k.LastUsed {
				t.Errorf("ListKeys says %q, KeyByHash %q", lk.LastUsed, k.LastUsed)
			}
		}
		return k.LastUsed
	}
	t.Run("Days", func(t *testing.T) {
		s := open(t)
		mustCreate(t, s, account("acct-1"), key("key-1", "acct-1", t0))
		if got := lastUsed(t, s, "hash-key-1"); got != "" {
			t.Fatalf("new key LastUsed = %q, want empty", got)
		}
		for _, tc := range []struct{ mark, want string }{
			{"2026-11-22", "2026-11-22"},
			{"2026-11-22", "2026-11-22"}, // a repeat
			{"2026-11-21", "2026-11-22"}, // never backwards
			{"2026-12-01", "2026-12-01"},
		} {
			if err := s.MarkKeyUsed(t.Context(), "hash-key-1", tc.mark); err != nil {
				t.Fatalf("MarkKeyUsed(%s): %v", tc.mark, err)
			}
			if got := lastUsed(t, s, "hash-key-1"); got != tc.want {
				t.Errorf("after marking %s: LastUsed = %q, want %q", tc.mark, got, tc.want)
			}
		}
	})
	t.Run("UnknownKeyIgnored", func(t *testing.T) {
		s := open(t)
		if err := s.MarkKeyUsed(t.Context(), "hash-none", "2026-11-22"); err != nil {
			t.Fatalf("MarkKeyUsed(unknown): %v", err)
		}
		if _, err := s.KeyByHash(t.Context(), "hash-none"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("KeyByHash after marking an unknown key: %v, want ErrNotFound", err)
		}
	})
	t.Run("RevokedStaysRevoked", func(t *testing.T) {
		s := open(t)
		mustCreate(t, s, account("acct-1"), key("key-1", "acct-1", t0))
		if err := s.RevokeKey(t.Context(), "key-1", t0); err != nil {
			t.Fatal(err)
		}
		if err := s.MarkKeyUsed(t.Context(), "hash-key-1", "2026-11-23"); err != nil {
			t.Fatal(err)
		}
		k, err := s.KeyByHash(t.Context(), "hash-key-1")
		if err != nil || k.Active() {
			t.Errorf("KeyByHash = %+v, %v; want the key revoked still", k, err)
		}
	})
}
