package dynamo

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/sluice-api/sluice/internal/store"
	"github.com/sluice-api/sluice/internal/testutil/faultproxy"
)

var sessT0 = time.Date(2026, 11, 22, 21, 4, 5, 123_000_000, time.UTC)

// lostOnce checks that the proxy lost exactly one answer, of op.
func lostOnce(t *testing.T, p *faultproxy.Proxy, op string) {
	t.Helper()
	if st := p.Stats(); st.Dropped != 1 || st.ByOp[op] != 1 {
		t.Fatalf("lost %d answers (%v), want one %s", st.Dropped, st.ByOp, op)
	}
}

// TestStartSessionLostResponses loses the answer of each write of StartSession once: the SDK's
// retry must neither fail the sign-in nor count as a second use of the link.
func TestStartSessionLostResponses(t *testing.T) {
	for i, op := range []string{"UpdateItem", "PutItem"} { // use the link, then store the session
		t.Run(op, func(t *testing.T) {
			s, p := lossy(t)
			ctx := t.Context()
			if err := s.CreateLink(ctx, store.SignInLink{Hash: "link-1", Account: "acct-1", CreatedAt: sessT0, Expires: sessT0.Add(15 * time.Minute)}); err != nil {
				t.Fatal(err)
			}
			lose(p, i)
			sess, err := s.StartSession(ctx, "link-1", store.Session{Hash: "sess-1", CreatedAt: sessT0, Expires: sessT0.Add(12 * time.Hour)}, sessT0)
			if err != nil {
				t.Fatalf("StartSession with a lost %s response: %v", op, err)
			}
			lostOnce(t, p, op)
			if sess.Account != "acct-1" {
				t.Errorf("session account %q", sess.Account)
			}
			if _, err := s.Session(ctx, "sess-1", sessT0); err != nil {
				t.Errorf("Session: %v", err)
			}
			if _, err := s.StartSession(ctx, "link-1", store.Session{Hash: "sess-2", CreatedAt: sessT0, Expires: sessT0.Add(12 * time.Hour)}, sessT0); !errors.Is(err, store.ErrNotFound) {
				t.Errorf("a second session from the link: err = %v, want ErrNotFound", err)
			}
		})
	}
}

// TestRetriedWritesLostResponses loses one answer of each other conditional write.
func TestRetriedWritesLostResponses(t *testing.T) {
	t.Run("TouchSession", func(t *testing.T) {
		s, p := lossy(t)
		ctx := t.Context()
		if err := s.CreateLink(ctx, store.SignInLink{Hash: "link-1", Account: "acct-1", CreatedAt: sessT0, Expires: sessT0.Add(time.Minute)}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.StartSession(ctx, "link-1", store.Session{Hash: "sess-1", CreatedAt: sessT0, Expires: sessT0.Add(time.Hour)}, sessT0); err != nil {
			t.Fatal(err)
		}
		lose(p, 0)
		if err := s.TouchSession(ctx, "sess-1", sessT0.Add(2*time.Hour), sessT0.Add(time.Minute)); err != nil {
			t.Fatalf("TouchSession with a lost response: %v", err)
		}
		lostOnce(t, p, "UpdateItem")
		got, err := s.Session(ctx, "sess-1", sessT0.Add(90*time.Minute))
		if err != nil || !got.Expires.Equal(sessT0.Add(2*time.Hour)) {
			t.Errorf("Session = %+v, %v; want it live until %v", got, err, sessT0.Add(2*time.Hour))
		}
	})
	t.Run("CreateLink", func(t *testing.T) {
		s, p := lossy(t)
		lose(p, 0)
		l := store.SignInLink{Hash: "link-1", Account: "acct-1", CreatedAt: sessT0, Expires: sessT0.Add(time.Minute)}
		if err := s.CreateLink(t.Context(), l); err != nil {
			t.Fatalf("CreateLink with a lost answer: %v", err)
		}
		lostOnce(t, p, "PutItem")
		if _, err := s.StartSession(t.Context(), "link-1", store.Session{Hash: "sess-1", CreatedAt: sessT0, Expires: sessT0.Add(time.Hour)}, sessT0); err != nil {
			t.Fatalf("the link does not work: %v", err)
		}
		// The same put again (a late retry) cannot make the used link usable.
		if err := s.CreateLink(t.Context(), l); !errors.Is(err, store.ErrExists) {
			t.Fatalf("CreateLink over a used link: %v, want ErrExists", err)
		}
		if _, err := s.Link(t.Context(), "link-1", sessT0); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("the used link came back: %v", err)
		}
	})
	t.Run("MarkKeyUsed", func(t *testing.T) {
		s, p := lossy(t)
		ctx := t.Context()
		k := store.Key{ID: "key-1", Account: "acct-1", Hash: "h1", CreatedAt: sessT0}
		if err := s.CreateAccount(ctx, store.Account{ID: "acct-1", Region: "r", CreatedAt: sessT0}, k); err != nil {
			t.Fatal(err)
		}
		lose(p, 0)
		if err := s.MarkKeyUsed(ctx, "h1", "2026-11-22"); err != nil {
			t.Fatalf("MarkKeyUsed with a lost response: %v", err)
		}
		lostOnce(t, p, "UpdateItem")
		got, err := s.KeyByHash(ctx, "h1")
		if err != nil || got.LastUsed != "2026-11-22" {
			t.Errorf("key = %+v, %v", got, err)
		}
	})
}

// TestSessionTTL checks the TTL attributes of links and sessions (whole seconds, rounded up)
// and that the sessions table has its TTL attribute.
func TestSessionTTL(t *testing.T) {
	s := open(t)
	ctx := t.Context()
	if err := s.CreateLink(ctx, store.SignInLink{Hash: "link-1", Account: "acct-1", CreatedAt: sessT0, Expires: sessT0.Add(15 * time.Minute)}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.StartSession(ctx, "link-1", store.Session{Hash: "sess-1", CreatedAt: sessT0, Expires: sessT0.Add(12 * time.Hour)}, sessT0); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		key     map[string]types.AttributeValue
		expires int64
	}{
		{"Link", linkPK("link-1"), sessT0.Add(15*time.Minute).Unix() + 1},
		{"Session", sessionPK("sess-1"), sessT0.Add(12*time.Hour).Unix() + 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := rawItem(t, s, s.t.Sessions, tc.key)
			if got := d.num(attrTTL); got != tc.expires || d.err != nil {
				t.Errorf("%s = %d (%v), want %d", attrTTL, got, d.err, tc.expires)
			}
		})
	}
	if got := sessionsSpec("x"); !got.ttl || got.sk != "" {
		t.Errorf("sessions table spec %+v: want TTL and no sort key", got)
	}
}

// TestSessionsMissingTable checks that the dashboard's calls report a missing or unconfigured
// sessions table as an error with context, never as a sentinel.
func TestSessionsMissingTable(t *testing.T) {
	noTable := TablesWithPrefix("sluice-missing-")
	unset := freshTables(t)
	unset.Sessions = ""
	for name, tables := range map[string]Tables{"Missing": noTable, "NotConfigured": unset} {
		s := New(client(t), tables)
		for _, tc := range []struct {
			name string
			call func(ctx context.Context) error
		}{
			{"CreateLink", func(ctx context.Context) error {
				return s.CreateLink(ctx, store.SignInLink{Hash: "l", Account: "a", CreatedAt: sessT0, Expires: sessT0.Add(time.Minute)})
			}},
			{"Link", func(ctx context.Context) error { _, err := s.Link(ctx, "l", sessT0); return err }},
			{"StartSession", func(ctx context.Context) error {
				_, err := s.StartSession(ctx, "l", store.Session{Hash: "s"}, sessT0)
				return err
			}},
			{"Session", func(ctx context.Context) error { _, err := s.Session(ctx, "s", sessT0); return err }},
			{"TouchSession", func(ctx context.Context) error { return s.TouchSession(ctx, "s", sessT0.Add(time.Hour), sessT0) }},
			{"EndSession", func(ctx context.Context) error { return s.EndSession(ctx, "s") }},
		} {
			t.Run(name+"/"+tc.name, func(t *testing.T) {
				err := tc.call(t.Context())
				if err == nil || !strings.HasPrefix(err.Error(), "dynamo: ") {
					t.Fatalf("err = %v, want an error with context", err)
				}
				for _, sentinel := range []error{store.ErrNotFound, store.ErrExists} {
					if errors.Is(err, sentinel) {
						t.Errorf("err = %v, is %v", err, sentinel)
					}
				}
			})
		}
	}
}
