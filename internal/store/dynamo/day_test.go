package dynamo

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go/middleware"

	"github.com/sluice-api/sluice/internal/store"
	"github.com/sluice-api/sluice/internal/testutil/dynalite"
)

// capacityRecorder asks DynamoDB for the write units of every UpdateItem of one table (the
// meter's writes) and keeps what it answers.
type capacityRecorder struct {
	table string
	mu    sync.Mutex
	units map[float64]int // write units -> writes
}

func (r *capacityRecorder) option(o *dynamodb.Options) {
	o.APIOptions = append(o.APIOptions, func(stack *middleware.Stack) error {
		return stack.Initialize.Add(middleware.InitializeMiddlewareFunc("recordCapacity", func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
			p, ok := in.Parameters.(*dynamodb.UpdateItemInput)
			if !ok || p.TableName == nil || *p.TableName != r.table {
				return next.HandleInitialize(ctx, in)
			}
			p.ReturnConsumedCapacity = types.ReturnConsumedCapacityTotal
			out, md, err := next.HandleInitialize(ctx, in)
			if o, ok := out.Result.(*dynamodb.UpdateItemOutput); ok && err == nil && o.ConsumedCapacity != nil && o.ConsumedCapacity.CapacityUnits != nil {
				r.mu.Lock()
				r.units[*o.ConsumedCapacity.CapacityUnits]++
				r.mu.Unlock()
			}
			return out, md, err
		}), middleware.After)
	})
}

// TestDayOfContainers simulates a day and two hours of one account served by 1,000 Lambda
// containers, each a dynamo.Store over one shared SDK client: rounds two to five minutes apart
// run one to eight requests at once, on as many containers, most of them with an
// Idempotency-Key (three in four; one in ten of those fails to complete its record: ErrCharged); a container
// stops after a keyed run and new ones replace it. Once all have started, the rounds are
// further apart (a quiet night) until the 26th hour. Retries of the runs that failed to
// complete, after their lease, must be duplicates. The meter item must stay within one write
// unit (as dynalite reports every meter write's consumed capacity) and its writer slots within
// the peak of requests in flight (8), with usage exactly the sum of the charges.
func TestDayOfContainers(t *testing.T) {
	const (
		containers = 1000
		peak       = 8
		acct       = "acct-day"
	)
	tables := freshTables(t)
	rec := &capacityRecorder{table: tables.Usage, units: map[float64]int{}}
	shared, err := dynalite.Client(t.Context(), endpoint, rec.option)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(41, 1))
	start := time.Date(2026, 11, 10, 0, 0, 0, 0, time.UTC)
	now, end := start, start.Add(26*time.Hour)
	var live []*Store
	var created, runs, keyed, failed int
	var want store.Usage
	maxSlots, maxSize := 0, 0
	type pending struct {
		claim store.Claim
		at    time.Time
	}
	var retries []pending
	for created < containers || now.Before(end) {
		k := 1 + rng.IntN(peak)
		for len(live) < k && created < containers {
			live = append(live, New(shared, tables))
			created++
		}
		k = min(k, len(live))
		month := now.Format("2006-01")
		type result struct {
			keyed, failed bool
			claim         store.Claim
			chars         int64
			err           error
		}
		results := make([]result, k)
		var wg sync.WaitGroup
		for i := range k {
			s := live[i]
			r := &results[i]
			r.keyed = created < containers && rng.IntN(4) < 3 // keyed runs stop their container
			r.failed = r.keyed && rng.IntN(10) == 0
			r.chars = int64(1 + rng.IntN(500))
			wg.Go(func() {
				r.err = dayRun(t.Context(), s, acct, month, now, r.chars, r.keyed, r.failed, &r.claim)
			})
		}
		wg.Wait()
		var next []*Store
		for i, r := range results {
			if r.err != nil {
				t.Fatalf("run at %v: %v", now, r.err)
			}
			runs++
			want.Characters += r.chars
			want.Runs++
			if r.keyed {
				keyed++
				if r.failed {
					failed++
					retries = append(retries, pending{r.claim, now})
				}
				continue // the container stops
			}
			next = append(next, live[i])
		}
		live = append(next, live[k:]...)
		// Retries of runs whose record was not completed, after their lease: duplicates.
		var later []pending
		for _, p := range retries {
			if now.Sub(p.at) < 2*time.Minute || len(live) == 0 {
				later = append(later, p)
				continue
			}
			dayRetry(t, live[0], p.claim, now)
		}
		retries = later
		item, err := New(shared, tables).readMeter(t.Context(), acct, month)
		if err != nil {
			t.Fatal(err)
		}
		slots, size := slotsAndSize(item)
		maxSlots, maxSize = max(maxSlots, slots), max(maxSize, size)
		if slots > peak {
			t.Fatalf("at %v: %d writer slots, more than the %d requests ever in flight at once", now, slots, peak)
		}
		step := time.Duration(2+rng.IntN(4)) * time.Minute
		if created == containers { // the last containers: a quiet night until the 26th hour
			step *= 10
		}
		now = now.Add(step)
	}
	u, err := New(shared, tables).Usage(t.Context(), acct, start.Format("2006-01"))
	if err != nil || u != want {
		t.Fatalf("usage = %+v, %v; want %+v", u, err, want)
	}
	t.Logf("%d containers, %d runs (%d keyed, %d not completed) over %v: at most %d writer slots, meter item at most %d bytes; meter writes by write units: %v",
		created, runs, keyed, failed, now.Sub(start).Round(time.Minute), maxSlots, maxSize, rec.units)
	for units, n := range rec.units {
		if units != 1 {
			t.Errorf("%d meter writes consumed %v write units, want 1", n, units)
		}
	}
	if maxSize > 1024 {
		t.Errorf("the meter item reached %d bytes, want at most 1,024", maxSize)
	}
}

// dayRun is one run of TestDayOfContainers on s: Enter, with a key Claim, Settle, Leave. A run
// whose record fails to complete keeps its claim in *c for a retry.
func dayRun(ctx context.Context, s *Store, acct, month string, now time.Time, chars int64, keyed, failed bool, c *store.Claim) error {
	p, err := s.Enter(ctx, store.Entry{Account: acct, Month: month, Window: now.Truncate(time.Minute), Limit: 1 << 40})
	if err != nil || !p.Admitted {
		return fmt.Errorf("Enter = %+v, %v", p, err)
	}
	defer s.Leave(p)
	trace := "sluice_" + newTestID()
	st := store.Settlement{Pass: p, Characters: chars, Limit: 1 << 50, Day: now.Day(), TraceID: trace}
	settler := s
	if keyed {
		*c = store.Claim{Account: acct, Key: "key-" + trace, Fingerprint: "fp", Lease: "lease-" + trace, TraceID: trace,
			Now: now, TTL: 24 * time.Hour, LeaseTTL: time.Minute, Pass: p}
		if rec, err := s.Claim(ctx, *c); err != nil || rec != nil {
			return fmt.Errorf("Claim = %+v, %v", rec, err)
		}
		st.Idem = &store.IdemCompletion{Key: c.Key, Lease: c.Lease, TraceID: trace}
		if failed {
			settler = brokenRecords(s)
		}
	}
	_, ok, err := settler.Settle(ctx, st)
	switch {
	case failed && errors.Is(err, store.ErrCharged):
		return nil
	case err != nil || !ok:
		return fmt.Errorf("Settle = %v, %v", ok, err)
	}
	return nil
}

// dayRetry retries the keyed run of c on s at now, after its lease: a duplicate of it.
func dayRetry(t *testing.T, s *Store, c store.Claim, now time.Time) {
	t.Helper()
	p, err := s.Enter(t.Context(), store.Entry{Account: c.Account, Month: now.Format("2006-01"), Window: now.Truncate(time.Minute), Limit: 1 << 40})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Leave(p)
	retry := c
	retry.Lease, retry.Now, retry.Pass = "retry-"+c.Lease, now, p
	claimFinds(t, s, retry, store.IdemDone, c.Lease, c.TraceID)
}

var testIDs struct {
	mu sync.Mutex
	n  int
}

// newTestID returns a new id for a run of the test binary.
func newTestID() string {
	testIDs.mu.Lock()
	defer testIDs.mu.Unlock()
	testIDs.n++
	return fmt.Sprintf("%026d", testIDs.n) // as long as a ULID
}

// slotsAndSize returns the number of writer slots of a meter item and its size as DynamoDB
// counts it: the UTF-8 lengths of names and string values, about half the digits of a number
// plus one.
func slotsAndSize(item map[string]types.AttributeValue) (slots, size int) {
	for name, v := range item {
		size += len(name)
		switch v := v.(type) {
		case *types.AttributeValueMemberS:
			size += len(v.Value)
			if len(name) > len(slotPrefix) && name[:len(slotPrefix)] == slotPrefix {
				slots++
			}
		case *types.AttributeValueMemberN:
			size += (len(v.Value)+1)/2 + 1
		default:
			size += 8
		}
	}
	return slots, size
}
