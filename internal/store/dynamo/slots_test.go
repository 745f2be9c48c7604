package dynamo

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/smithy-go"
	"github.com/aws/smithy-go/middleware"

	"github.com/sluice-api/sluice/internal/store"
	"github.com/sluice-api/sluice/internal/testutil/dynalite"
	"github.com/sluice-api/sluice/internal/testutil/faultproxy"
)

// TestTakeSlotsRace: containers that stopped leave slots holding admissions and keyed charges
// whose records were never completed; two windows later 32 new containers, each with its own
// Store, enter at once through a proxy that loses 15% of the write answers (the SDK sends each
// such write again), and take those slots or make new ones. Every request is admitted once and
// holds a slot of its own, no slot is made while one could be taken, each run is charged once,
// and every stopped keyed run is still found charged by a retry after its lease.
func TestTakeSlotsRace(t *testing.T) {
	proxy := faultproxy.StartT(t, endpoint, faultproxy.Config{Share: lossShare, Seed: 41})
	tables := freshTables(t)
	lossyStore := func() *Store {
		c, err := dynalite.Client(t.Context(), proxy.URL())
		if err != nil {
			t.Fatal(err)
		}
		return New(c, tables)
	}
	const stopped, takers = 8, 32
	var runs []crashRun
	for i := range stopped {
		s := New(client(t), tables)
		if i%2 == 1 { // entered and stopped
			crashEnter(t, s, "acct-1", crashT0)
			continue
		}
		r := newCrashRun(t, s, "acct-1", fmt.Sprintf("lease-%d", i), crashT0, 10)
		r.claim.Key, r.st.Idem.Key = fmt.Sprintf("idem-%d", i), fmt.Sprintf("idem-%d", i)
		claimWins(t, s, r.claim)
		chargeOnly(t, s, r.st, charged)
		runs = append(runs, r)
	}
	now := crashT0.Add(2 * time.Minute)
	var wg sync.WaitGroup
	passes := make([]store.Pass, takers)
	stores := make([]*Store, takers)
	errs := make(chan error, takers)
	for i := range takers {
		stores[i] = lossyStore()
		wg.Go(func() {
			p, err := stores[i].Enter(t.Context(), store.Entry{Account: "acct-1", Month: crashMonth, Window: now.Truncate(time.Minute), Limit: 1 << 40})
			if err != nil || !p.Admitted {
				errs <- fmt.Errorf("Enter %d = %+v, %v", i, p, err)
				return
			}
			passes[i] = p
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	held := map[string]int{}
	for i, p := range passes {
		slot, _, err := parseRef(p.Ref)
		if err != nil {
			t.Fatal(err)
		}
		if j, dup := held[slot]; dup {
			t.Fatalf("requests %d and %d both hold slot %q", j, i, slot)
		}
		held[slot] = i
	}
	if slots, _ := meterSlots(t, stores[0], "acct-1"); len(slots) != takers {
		t.Errorf("%d slots with %d requests in flight and every older slot free to take, want %d: %v", len(slots), takers, takers, slots)
	}
	for i, p := range passes {
		wg.Go(func() {
			defer stores[i].Leave(p)
			if _, ok, err := stores[i].Settle(t.Context(), store.Settlement{Pass: p, Characters: 1, Limit: 1 << 40, TraceID: fmt.Sprintf("sluice_taker-%d", i)}); err != nil || !ok {
				t.Errorf("Settle %d = %v, %v", i, ok, err)
			}
		})
	}
	wg.Wait()
	usageIs(t, stores[0], "acct-1", store.Usage{Characters: int64(len(runs))*10 + takers, Runs: int64(len(runs)) + takers})
	retrier := lossyStore()
	for _, r := range runs {
		c := newCrashRun(t, retrier, "acct-1", "retry-"+r.claim.Lease, now.Add(time.Second), 10).claim
		c.Key = r.claim.Key
		claimFinds(t, retrier, c, store.IdemDone, r.claim.Lease, r.claim.TraceID)
	}
	if s := proxy.Stats(); s.Dropped == 0 {
		t.Fatal("the proxy lost no answer: the test proves nothing")
	} else {
		t.Logf("through the proxy: %d requests, %d answers lost (%v)", s.Requests, s.Dropped, s.ByOp)
	}
}

// TestLostAnswerOfSlotWrites loses the answer of each write a container's first request makes
// to take a stopped keyed run's slot (the proof, then the take), and of a Claim's fence on the
// admission value; each call ends as if nothing was lost.
func TestLostAnswerOfSlotWrites(t *testing.T) {
	for i, write := range []string{"proof", "take"} {
		t.Run("Take/"+write, func(t *testing.T) {
			s, p := lossy(t)
			stoppedRun := newCrashRun(t, New(client(t), s.t), "acct-1", "lease-1", crashT0, 10)
			claimWins(t, s, stoppedRun.claim)
			chargeOnly(t, s, stoppedRun.st, charged)
			lose(p, i)
			meterRun(t, s, "acct-1", crashT0.Add(2*time.Minute), "sluice_taker")
			if st := p.Stats(); st.Dropped != 1 {
				t.Fatalf("%d answers lost, want 1", st.Dropped)
			}
			if slots, _ := meterSlots(t, s, "acct-1"); len(slots) != 1 {
				t.Fatalf("%d slots, want the one taken: %v", len(slots), slots)
			}
			claimFinds(t, s, newCrashRun(t, s, "acct-1", "lease-2", afterLease.Add(2*time.Minute), 10).claim, store.IdemDone, "lease-1", "sluice_claim-lease-1")
			usageIs(t, s, "acct-1", store.Usage{Characters: 20, Runs: 2})
		})
	}
	t.Run("FenceOnValue", func(t *testing.T) {
		s, p := lossy(t)
		first := newCrashRun(t, New(client(t), s.t), "acct-1", "lease-1", crashT0, 10)
		claimWins(t, s, first.claim)
		retry := newCrashRun(t, s, "acct-1", "lease-2", afterLease, 10)
		lose(p, 0) // the fence
		claimWins(t, s, retry.claim)
		settleLost(t, s, first.st)
		settleAdmitted(t, s, retry.st, store.Usage{Characters: 10, Runs: 1})
	})
}

// denyIdempotencyWrites makes a client's PutItem on the idempotency table fail as AWS answers a
// role without that grant (the services and dashboard functions'), and counts the attempts.
func denyIdempotencyWrites(table string, attempts *atomic.Int32) func(*dynamodb.Options) {
	return func(o *dynamodb.Options) {
		o.APIOptions = append(o.APIOptions, func(stack *middleware.Stack) error {
			return stack.Initialize.Add(middleware.InitializeMiddlewareFunc("denyIdempotency", func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
				if p, ok := in.Parameters.(*dynamodb.PutItemInput); ok && p.TableName != nil && *p.TableName == table {
					attempts.Add(1)
					return middleware.InitializeOutput{}, middleware.Metadata{}, &smithy.GenericAPIError{Code: "AccessDeniedException", Message: "not authorized"}
				}
				return next.HandleInitialize(ctx, in)
			}), middleware.After)
		})
	}
}

// TestNoProofWithoutGrant: a Store whose role may not write the idempotency table never takes
// a slot holding a keyed charge (it cannot move the charge's proof): after one refused proof it
// makes a new slot, and the charge stays where a Claim finds it.
func TestNoProofWithoutGrant(t *testing.T) {
	tables := freshTables(t)
	stoppedRun := newCrashRun(t, New(client(t), tables), "acct-1", "lease-1", crashT0, 10)
	claimWins(t, New(client(t), tables), stoppedRun.claim)
	chargeOnly(t, New(client(t), tables), stoppedRun.st, charged)
	var denied atomic.Int32
	c, err := dynalite.Client(t.Context(), endpoint, denyIdempotencyWrites(tables.Idempotency, &denied))
	if err != nil {
		t.Fatal(err)
	}
	services := New(c, tables)
	meterRun(t, services, "acct-1", crashT0.Add(2*time.Minute), "sluice_usage-1")
	meterRun(t, services, "acct-1", crashT0.Add(3*time.Minute), "sluice_usage-2")
	meterRun(t, New(c, tables), "acct-1", crashT0.Add(3*time.Minute), "sluice_usage-3")
	if n := denied.Load(); n != 2 { // once for each of the two Stores
		t.Errorf("%d refused proofs, want 2 (one per Store)", n)
	}
	slots, _ := meterSlots(t, services, "acct-1")
	if len(slots) != 3 {
		t.Errorf("%d slots, want the keyed charge's and one per Store: %v", len(slots), slots)
	}
	run := New(client(t), tables) // the run function's role may write the records
	claimFinds(t, run, newCrashRun(t, run, "acct-1", "lease-2", afterLease.Add(3*time.Minute), 10).claim, store.IdemDone, "lease-1", "sluice_claim-lease-1")
}
