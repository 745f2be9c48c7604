package dynamo

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/smithy-go/middleware"

	"github.com/sluice-api/sluice/internal/store"
	"github.com/sluice-api/sluice/internal/testutil/dynalite"
)

// Round-trip budget of a run (issue 35), for every request after a container's first for the
// account: DynamoDB requests of a run without an Idempotency-Key, with one, and of the
// authorizer's key check. A container's first request may spend one read and one write more
// (to take a writer slot).
const (
	maxRequestsWithoutKey = 2
	maxRequestsWithKey    = 4
	maxAuthorizerReads    = 1
	maxFirstExtra         = 2
)

// callCounter counts the DynamoDB requests a client's caller makes: once per operation call,
// before the SDK's retries (a transport error's retry is not a request of the protocol).
type callCounter struct{ n atomic.Int64 }

func (c *callCounter) option(o *dynamodb.Options) {
	o.APIOptions = append(o.APIOptions, func(stack *middleware.Stack) error {
		return stack.Initialize.Add(middleware.InitializeMiddlewareFunc("countCalls", func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
			c.n.Add(1)
			return next.HandleInitialize(ctx, in)
		}), middleware.After)
	})
}

// TestRoundTripsTwoContainers counts the DynamoDB requests of the store calls a run makes
// (Enter, Claim, Settle, Leave; the authorizer's KeyAccount) on two Stores with their own
// clients, as two Lambda containers, taking turns across two minute boundaries so that either
// opens a window. It logs the worst container's figures.
func TestRoundTripsTwoContainers(t *testing.T) {
	tables := freshTables(t)
	var calls callCounter
	var stores [2]*Store
	for i := range stores {
		c, err := dynalite.Client(t.Context(), endpoint, calls.option)
		if err != nil {
			t.Fatal(err)
		}
		// With the copy key, as the authorizer and keyctl (which writes accounts) have it.
		stores[i] = New(c, tables, WithCopyKey(testCopyKey))
	}
	t0 := time.Date(2026, 11, 22, 21, 4, 40, 0, time.UTC)
	acct := store.Account{ID: "acct-1", Region: "eu-west-1", RateLimit: 1000, Allowance: 1 << 40, CreatedAt: t0}
	if err := stores[0].CreateAccount(t.Context(), acct, store.Key{ID: "key-1", Account: "acct-1", Hash: "hash-1", CreatedAt: t0}); err != nil {
		t.Fatal(err)
	}
	count := func(fn func()) int64 {
		t.Helper()
		before := calls.n.Load()
		fn()
		return calls.n.Load() - before
	}
	run := func(s *Store, now time.Time, key string) func() {
		return func() {
			t.Helper()
			pass, err := s.Enter(t.Context(), store.Entry{Account: "acct-1", Month: "2026-11", Window: now.Truncate(time.Minute), Limit: acct.RateLimit})
			if err != nil || !pass.Admitted {
				t.Fatalf("Enter = %+v, %v", pass, err)
			}
			defer s.Leave(pass)
			st := store.Settlement{Pass: pass, Characters: 5, Limit: acct.Allowance, Day: now.Day(), TraceID: "sluice_" + key}
			if key != "" {
				c := store.Claim{Account: "acct-1", Key: key, Fingerprint: "fp", Lease: "lease-" + key, TraceID: st.TraceID,
					Now: now, TTL: 24 * time.Hour, LeaseTTL: time.Minute, Pass: pass}
				if rec, err := s.Claim(t.Context(), c); err != nil || rec != nil {
					t.Fatalf("Claim = %+v, %v", rec, err)
				}
				st.Idem = &store.IdemCompletion{Key: key, Lease: c.Lease, TraceID: st.TraceID}
			}
			if _, ok, err := s.Settle(t.Context(), st); err != nil || !ok {
				t.Fatalf("Settle = %v, %v", ok, err)
			}
		}
	}
	authorize := func(s *Store) func() {
		return func() {
			if _, _, err := s.KeyAccount(t.Context(), "hash-1"); err != nil {
				t.Fatal(err)
			}
		}
	}
	var withoutKey, withKey, auth int64
	var first [2]int64
	for i := range 12 {
		c, s := i%2, stores[i%2]
		now := t0.Add(time.Duration(i) * 10 * time.Second) // 21:04:40 to 21:06:30
		n := count(run(s, now, ""))
		if i < 2 {
			first[c] = n // the container's first request for the account
		} else {
			withoutKey = max(withoutKey, n)
		}
		withKey = max(withKey, count(run(s, now.Add(time.Second), fmt.Sprintf("order-%d", i))))
		auth = max(auth, count(authorize(s)))
	}
	t.Logf("dynamodb requests per run: without key %d, with key %d, authorizer %d (first run of each container: %d, %d)",
		withoutKey, withKey, auth, first[0], first[1])
	if withoutKey > maxRequestsWithoutKey || withKey > maxRequestsWithKey || auth > maxAuthorizerReads {
		t.Errorf("over the budget of %d / %d / %d", maxRequestsWithoutKey, maxRequestsWithKey, maxAuthorizerReads)
	}
	for c, n := range first {
		if n > maxRequestsWithoutKey+maxFirstExtra {
			t.Errorf("container %d's first run took %d requests, want at most %d", c, n, maxRequestsWithoutKey+maxFirstExtra)
		}
	}
}
