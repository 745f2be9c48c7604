package dynamo

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/sluice-api/sluice/internal/store"
)

// meterSlots returns the writer slots on the meter item of acct in crashMonth, and the item's
// size in bytes as DynamoDB counts it (slotsAndSize).
func meterSlots(t *testing.T, s *Store, acct string) (map[string]string, int) {
	t.Helper()
	item, err := s.readMeter(t.Context(), acct, crashMonth)
	if err != nil {
		t.Fatal(err)
	}
	slots := map[string]string{}
	for name, v := range item {
		if v, ok := v.(*types.AttributeValueMemberS); ok && strings.HasPrefix(name, slotPrefix) {
			slots[name] = v.Value
		}
	}
	_, size := slotsAndSize(item)
	return slots, size
}

// meterRun enters and settles one unkeyed run of 10 characters on s at now.
func meterRun(t *testing.T, s *Store, acct string, now time.Time, trace string) {
	t.Helper()
	meterRunOf(t, s, acct, now, trace, 10)
}

func meterRunOf(t *testing.T, s *Store, acct string, now time.Time, trace string, chars int64) {
	t.Helper()
	p := crashEnter(t, s, acct, now)
	defer s.Leave(p)
	if _, ok, err := s.Settle(t.Context(), store.Settlement{Pass: p, Characters: chars, Limit: 1 << 50, TraceID: trace, Day: now.Day()}); err != nil || !ok {
		t.Fatalf("Settle = %v, %v", ok, err)
	}
}

// TestMeterItemStaysSmall: writer slots are reused, so runs one after another leave one slot on
// the meter item, and concurrent runs of one Store leave at most as many as ran at once. The
// item, with a month of day counters of a billion characters a day and 8 runs in flight whose
// ids are as long as real ones, stays within 1,024 bytes: one write unit.
func TestMeterItemStaysSmall(t *testing.T) {
	s := open(t)
	const perRun = 1_000_000_000
	for i := range 40 { // on every day of the month
		at := time.Date(2026, 11, 1+i%30, 12, i, 0, 0, time.UTC)
		meterRunOf(t, s, "acct_01JDZ5Q8R3M4N5P6Q7R8S9T0VW", at, fmt.Sprintf("sluice_%026d", i), perRun)
	}
	slots, _ := meterSlots(t, s, "acct_01JDZ5Q8R3M4N5P6Q7R8S9T0VW")
	if len(slots) != 1 {
		t.Errorf("%d slots after sequential runs, want 1: %v", len(slots), slots)
	}
	const workers = 8
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := range 5 {
				p, err := s.Enter(t.Context(), store.Entry{Account: "acct_01JDZ5Q8R3M4N5P6Q7R8S9T0VW", Month: crashMonth, Window: time.Date(2026, 11, 30, 23, 59, 0, 0, time.UTC), Limit: 1 << 40})
				if err != nil {
					t.Error(err)
					return
				}
				if _, _, err := s.Settle(t.Context(), store.Settlement{Pass: p, Characters: 1, Limit: 1 << 50, Day: 31, TraceID: fmt.Sprintf("sluice_%026d", 1000+10*w+i)}); err != nil {
					t.Error(err)
				}
				s.Leave(p)
			}
		})
	}
	wg.Wait()
	slots, size := meterSlots(t, s, "acct_01JDZ5Q8R3M4N5P6Q7R8S9T0VW")
	if len(slots) > workers {
		t.Errorf("%d slots after %d concurrent runs at a time, want at most %d", len(slots), workers, workers)
	}
	slotBytes := 0
	for name, v := range slots {
		slotBytes += len(name) + len(v)
	}
	t.Logf("meter item after a month of days and %d concurrent runs: %d bytes, %d writer slots of %d bytes in all", workers, size, len(slots), slotBytes)
	if size > 1024 {
		t.Errorf("the meter item is %d bytes, want at most 1,024", size)
	}
	usageIs(t, s, "acct_01JDZ5Q8R3M4N5P6Q7R8S9T0VW", store.Usage{Characters: 40*perRun + workers*5, Runs: 40 + workers*5})
}

// TestStaleSlotsTakenOrRemoved: the slot of a container that stopped is taken by another Store
// once no request can still write it (two windows on), so the item does not grow with the
// containers that served the account; a keyed charge's slot is taken after its proof moved to
// its own item, and a retry of that run is still a duplicate. A slot that nobody takes is
// removed by a later Settle, in the same write, after five minutes (a day and an hour for a
// keyed charge).
func TestStaleSlotsTakenOrRemoved(t *testing.T) {
	tables := freshTables(t)
	newStore := func() *Store { return New(client(t), tables) }
	gone, keyed, s := newStore(), newStore(), newStore()
	// gone: a container that entered a request and stopped (its slot keeps an admission).
	crashEnter(t, gone, "acct-1", crashT0)
	// keyed: a container that charged a keyed run and stopped before completing its record.
	run := newCrashRun(t, keyed, "acct-1", "lease-1", crashT0, 10)
	claimWins(t, keyed, run.claim)
	chargeOnly(t, keyed, run.st, charged)

	// One minute on both may still be written: s gets a slot of its own.
	meterRun(t, s, "acct-1", crashT0.Add(time.Minute), "sluice_a")
	if slots, _ := meterSlots(t, s, "acct-1"); len(slots) != 3 {
		t.Fatalf("%d slots, want 3: %v", len(slots), slots)
	}
	// Two windows on, two new containers take the two stopped ones' slots: no new slot.
	meterRun(t, newStore(), "acct-1", crashT0.Add(2*time.Minute), "sluice_b")
	meterRun(t, newStore(), "acct-1", crashT0.Add(2*time.Minute), "sluice_c")
	slots, _ := meterSlots(t, s, "acct-1")
	if len(slots) != 3 {
		t.Fatalf("%d slots after two new containers, want the same 3: %v", len(slots), slots)
	}
	for _, v := range slots {
		if strings.HasPrefix(v, kindKeyed+"|lease-1|") {
			t.Fatalf("the stopped containers' slots were not taken: %v", slots)
		}
	}
	// The keyed run's charge moved to its proof: a retry after its lease is a duplicate.
	claimFinds(t, s, newCrashRun(t, s, "acct-1", "lease-2", afterLease.Add(2*time.Minute), 10).claim, store.IdemDone, "lease-1", "sluice_claim-lease-1")
	// Ten minutes on, s's Settles remove the slots nobody took again.
	meterRun(t, s, "acct-1", crashT0.Add(10*time.Minute), "sluice_d")
	meterRun(t, s, "acct-1", crashT0.Add(11*time.Minute), "sluice_e")
	if slots, _ := meterSlots(t, s, "acct-1"); len(slots) != 1 {
		t.Errorf("%d slots ten minutes on, want only s's own: %v", len(slots), slots)
	}
	usageIs(t, s, "acct-1", store.Usage{Characters: 60, Runs: 6})
}

// TestFenceOnValue: a Claim taking over a run that stopped before its charge fences the run's
// own admission value, never the slot's name. Here the stopped run's slot was taken by another
// request since, which is in flight: the fence must not overwrite it (a fence on the name
// would, and that request's charge would then fail), and the stopped run still never charges.
func TestFenceOnValue(t *testing.T) {
	tables := freshTables(t)
	stopped, other, retrier := New(client(t), tables), New(client(t), tables), New(client(t), tables)
	first := newCrashRun(t, stopped, "acct-1", "lease-1", crashT0, 10)
	claimWins(t, stopped, first.claim)
	// Two windows on, another container takes the stopped run's slot and starts a run.
	p := crashEnter(t, other, "acct-1", crashT0.Add(2*time.Minute))
	if taken, _, _ := parseRef(p.Ref); taken != first.claim.Pass.Ref[:strings.IndexByte(first.claim.Pass.Ref, ' ')] {
		t.Fatalf("the other container got slot %q, want the stopped run's %q", taken, first.claim.Pass.Ref)
	}
	// A retry of the stopped run takes its key over: its fence is refused (the admission is
	// gone), nothing was charged, so the retry wins.
	claimWins(t, retrier, newCrashRun(t, retrier, "acct-1", "lease-2", crashT0.Add(2*time.Minute+time.Second), 10).claim)
	// The other request's slot is intact: it charges.
	settleAdmitted(t, other, store.Settlement{Pass: p, Characters: 7, Limit: 100, TraceID: "sluice_other"}, store.Usage{Characters: 7, Runs: 1})
	// The stopped run wakes up: it may not charge.
	settleLost(t, stopped, first.st)
	usageIs(t, other, "acct-1", store.Usage{Characters: 7, Runs: 1})
}

// TestChargedWithinLease: a keyed run charged whose record was not completed is found charged
// by a retry within the lease (Charged: one read), also after its slot was taken.
func TestChargedWithinLease(t *testing.T) {
	tables := freshTables(t)
	runner, retrier := New(client(t), tables), New(client(t), tables)
	first := newCrashRun(t, runner, "acct-1", "lease-1", crashT0, 10)
	claimWins(t, runner, first.claim)
	retry := newCrashRun(t, retrier, "acct-1", "lease-2", crashT0.Add(20*time.Second), 10)
	charged := func(want bool) {
		t.Helper()
		rec, err := retrier.Claim(t.Context(), retry.claim)
		if err != nil || rec == nil || rec.State != store.IdemInFlight {
			t.Fatalf("Claim within the lease = %+v, %v; want the in-flight record", rec, err)
		}
		got, err := retrier.Charged(t.Context(), *rec)
		if err != nil || got != want {
			t.Fatalf("Charged = %v, %v; want %v", got, err, want)
		}
	}
	charged(false)
	// The charge went through and the record's completion failed.
	if _, _, err := brokenRecords(runner).Settle(t.Context(), first.st); !errors.Is(err, store.ErrCharged) {
		t.Fatalf("Settle with the records unreachable = %v; want ErrCharged", err)
	}
	runner.Leave(first.st.Pass)
	charged(true)
	// Later, with the lease still running in the record's eyes, another Store takes the slot:
	// the proof answers.
	meterRun(t, New(client(t), tables), "acct-1", crashT0.Add(2*time.Minute), "sluice_taker")
	retry.claim.Now = crashT0.Add(50 * time.Second)
	charged(true)
	usageIs(t, runner, "acct-1", store.Usage{Characters: 20, Runs: 2})
}

// TestLaggingClockKeepsSlots: a request whose window lags the newest counter on the item counts
// in the newer window, but judges the age of slots on its own clock, so it never takes a slot
// that another request holds. Here the month's newest counter is the 30th's (a caller whose
// clock ran ahead), a request enters at 21:04 on the 22nd and holds its slot, another opens
// 21:05, and a new container enters at 21:04: its write is refused (21:05 is open), it counts
// in the 30th's window, and it must not take the held slot, written "eight days" before.
func TestLaggingClockKeepsSlots(t *testing.T) {
	tables := freshTables(t)
	meterRun(t, New(client(t), tables), "acct-1", time.Date(2026, 11, 30, 12, 29, 0, 0, time.UTC), "sluice_ahead")
	held := New(client(t), tables)
	w := crashT0.Truncate(time.Minute)
	p := crashEnter(t, held, "acct-1", w)
	meterRun(t, New(client(t), tables), "acct-1", w.Add(time.Minute), "sluice_next")
	lagging := New(client(t), tables)
	q := crashEnter(t, lagging, "acct-1", w)
	if a, _, _ := parseRef(p.Ref); a == q.Ref[:len(a)] {
		t.Fatalf("the lagging request took slot %q, held by another request", a)
	}
	settleAdmitted(t, held, store.Settlement{Pass: p, Characters: 5, Limit: 1 << 40, TraceID: "sluice_held"}, store.Usage{Characters: 25, Runs: 3})
	settleAdmitted(t, lagging, store.Settlement{Pass: q, Characters: 5, Limit: 1 << 40, TraceID: "sluice_lagging"}, store.Usage{Characters: 30, Runs: 4})
}
