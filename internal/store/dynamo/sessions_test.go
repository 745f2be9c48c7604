package dynamo

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/sluice-api/sluice/internal/store"
)

var sessT0 = time.Date(2026, 11, 22, 21, 4, 5, 123_000_000, time.UTC)

// lossy is an HTTP client that loses the response of chosen DynamoDB calls after the server
// has applied them: it forwards the request, throws the answer away and reports a reset
// connection, which the SDK retries. It stands for a network that drops a response.
type lossy struct {
	mu    sync.Mutex
	lose  map[string]int // X-Amz-Target operation -> how many responses to lose
	table string         // when set, only calls on this table lose responses
	lost  []string
}

func (l *lossy) Do(r *http.Request) (*http.Response, error) {
	op := strings.TrimPrefix(r.Header.Get("X-Amz-Target"), "DynamoDB_20120810.")
	onTable := true
	if l.table != "" && r.Body != nil {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			return nil, err
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		onTable = bytes.Contains(body, []byte(`"TableName":"`+l.table+`"`))
	}
	resp, err := http.DefaultClient.Do(r)
	if err != nil {
		return nil, err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if onTable && l.lose[op] > 0 {
		l.lose[op]--
		l.lost = append(l.lost, op)
		resp.Body.Close()
		return nil, errors.New("read tcp 127.0.0.1: connection reset by peer (response lost by the test)")
	}
	return resp, nil
}

// wantLost checks that exactly one response, of op, was lost.
func (l *lossy) wantLost(t *testing.T, op string) {
	t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.lost) != 1 || l.lost[0] != op {
		t.Fatalf("lost %v, want one %s", l.lost, op)
	}
}

// lossyStore returns a store on fresh tables whose client loses the responses in lose.
func lossyStore(t *testing.T, lose map[string]int) (*Store, *lossy) {
	t.Helper()
	l := &lossy{lose: lose}
	c := dynamodb.New(client(t).Options(), func(o *dynamodb.Options) { o.HTTPClient = l })
	return New(c, freshTables(t)), l
}

// TestStartSessionLostResponses loses the answer of each write of StartSession once: the SDK's
// retry must neither fail the sign-in nor count as a second use of the link.
func TestStartSessionLostResponses(t *testing.T) {
	for _, op := range []string{"UpdateItem", "PutItem"} {
		t.Run(op, func(t *testing.T) {
			s, l := lossyStore(t, nil)
			ctx := t.Context()
			if err := s.CreateLink(ctx, store.SignInLink{Hash: "link-1", Account: "acct-1", CreatedAt: sessT0, Expires: sessT0.Add(15 * time.Minute)}); err != nil {
				t.Fatal(err)
			}
			l.mu.Lock()
			l.lose = map[string]int{op: 1}
			l.mu.Unlock()
			sess, err := s.StartSession(ctx, "link-1", store.Session{Hash: "sess-1", CreatedAt: sessT0, Expires: sessT0.Add(12 * time.Hour)}, sessT0)
			if err != nil {
				t.Fatalf("StartSession with a lost %s response: %v", op, err)
			}
			l.wantLost(t, op)
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
		s, l := lossyStore(t, nil)
		ctx := t.Context()
		if err := s.CreateLink(ctx, store.SignInLink{Hash: "link-1", Account: "acct-1", CreatedAt: sessT0, Expires: sessT0.Add(time.Minute)}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.StartSession(ctx, "link-1", store.Session{Hash: "sess-1", CreatedAt: sessT0, Expires: sessT0.Add(time.Hour)}, sessT0); err != nil {
			t.Fatal(err)
		}
		l.mu.Lock()
		l.lose = map[string]int{"UpdateItem": 1}
		l.mu.Unlock()
		if err := s.TouchSession(ctx, "sess-1", sessT0.Add(2*time.Hour), sessT0.Add(time.Minute)); err != nil {
			t.Fatalf("TouchSession with a lost response: %v", err)
		}
		l.wantLost(t, "UpdateItem")
		got, err := s.Session(ctx, "sess-1", sessT0.Add(90*time.Minute))
		if err != nil || !got.Expires.Equal(sessT0.Add(2*time.Hour)) {
			t.Errorf("Session = %+v, %v; want it live until %v", got, err, sessT0.Add(2*time.Hour))
		}
	})
	t.Run("CreateLink", func(t *testing.T) {
		s, l := lossyStore(t, map[string]int{"PutItem": 1})
		// A lost answer of a link's PutItem makes the retry find the link: ErrExists. The link
		// was stored, but its token was never shown, so the caller makes a new one: nothing
		// works that should not.
		err := s.CreateLink(t.Context(), store.SignInLink{Hash: "link-1", Account: "acct-1", CreatedAt: sessT0, Expires: sessT0.Add(time.Minute)})
		if err != nil && !errors.Is(err, store.ErrExists) {
			t.Fatalf("CreateLink: %v", err)
		}
		l.wantLost(t, "PutItem")
	})
	t.Run("MarkKeyUsed", func(t *testing.T) {
		s, l := lossyStore(t, nil)
		ctx := t.Context()
		k := store.Key{ID: "key-1", Account: "acct-1", Hash: "h1", CreatedAt: sessT0}
		if err := s.CreateAccount(ctx, store.Account{ID: "acct-1", Region: "r", CreatedAt: sessT0}, k); err != nil {
			t.Fatal(err)
		}
		l.mu.Lock()
		l.lose = map[string]int{"UpdateItem": 1}
		l.mu.Unlock()
		if err := s.MarkKeyUsed(ctx, "h1", "2026-11-22"); err != nil {
			t.Fatalf("MarkKeyUsed with a lost response: %v", err)
		}
		l.wantLost(t, "UpdateItem")
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
