package dynamo

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/sluice-api/sluice/internal/store"
)

// meterSlots returns the writer slots on the meter item of acct in crashMonth, and the item's
// size in bytes as DynamoDB counts it (names and values).
func meterSlots(t *testing.T, s *Store, acct string) (map[string]string, int) {
	t.Helper()
	item, err := s.readMeter(t.Context(), acct, crashMonth)
	if err != nil {
		t.Fatal(err)
	}
	slots, size := map[string]string{}, 0
	for name, v := range item {
		size += len(name)
		switch v := v.(type) {
		case *types.AttributeValueMemberS:
			size += len(v.Value)
			if strings.HasPrefix(name, slotPrefix) {
				slots[name] = v.Value
			}
		case *types.AttributeValueMemberN:
			size += len(v.Value)
		default:
			size += 8
		}
	}
	return slots, size
}

// run enters and settles one unkeyed run on s at now.
func meterRun(t *testing.T, s *Store, acct string, now time.Time, trace string) {
	t.Helper()
	p := crashEnter(t, s, acct, now)
	defer s.Leave(p)
	if _, ok, err := s.Settle(t.Context(), store.Settlement{Pass: p, Characters: 10, Limit: 1 << 40, TraceID: trace, Day: now.Day()}); err != nil || !ok {
		t.Fatalf("Settle = %v, %v", ok, err)
	}
}

// TestMeterItemStaysSmall: writer slots are reused, so runs one after another leave one slot on
// the meter item, and concurrent runs of one Store leave at most as many as ran at once; the
// item, with a month of day counters, stays under 1 KB.
func TestMeterItemStaysSmall(t *testing.T) {
	s := open(t)
	for i := range 40 { // on every day of the month
		at := time.Date(2026, 11, 1+i%30, 12, i, 0, 0, time.UTC)
		meterRun(t, s, "acct-1", at, fmt.Sprintf("sluice_seq-%d", i))
	}
	slots, _ := meterSlots(t, s, "acct-1")
	if len(slots) != 1 {
		t.Errorf("%d slots after sequential runs, want 1: %v", len(slots), slots)
	}
	const workers = 8
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := range 5 {
				p, err := s.Enter(t.Context(), store.Entry{Account: "acct-1", Month: crashMonth, Window: crashT0.Truncate(time.Minute), Limit: 1 << 40})
				if err != nil {
					t.Error(err)
					return
				}
				if _, _, err := s.Settle(t.Context(), store.Settlement{Pass: p, Characters: 1, Limit: 1 << 40, TraceID: fmt.Sprintf("sluice_par-%d-%d", w, i)}); err != nil {
					t.Error(err)
				}
				s.Leave(p)
			}
		})
	}
	wg.Wait()
	slots, size := meterSlots(t, s, "acct-1")
	if len(slots) > workers {
		t.Errorf("%d slots after %d concurrent runs at a time, want at most %d", len(slots), workers, workers)
	}
	t.Logf("meter item after a month of days and %d concurrent runs: %d bytes, %d writer slots", workers, size, len(slots))
	if size >= 1024 {
		t.Errorf("the meter item is %d bytes, want under 1 KB", size)
	}
	usageIs(t, s, "acct-1", store.Usage{Characters: 40*10 + workers*5, Runs: 40 + workers*5})
}

// TestStaleSlotsRemoved: a slot whose last write is older than the horizon of its kind is
// removed by a later Settle, in the same write; a keyed charge stays for a day.
func TestStaleSlotsRemoved(t *testing.T) {
	tables := freshTables(t)
	gone, keyed, s := New(client(t), tables), New(client(t), tables), New(client(t), tables)
	// gone: a container that entered a request and stopped (its slot keeps an admission).
	p := crashEnter(t, gone, "acct-1", crashT0)
	goneSlot, _, _ := parseRef(p.Ref)
	// keyed: a container that charged a keyed run and stopped before completing its record.
	run := newCrashRun(t, keyed, "acct-1", "lease-1", crashT0, 10)
	claimWins(t, keyed, run.claim)
	chargeOnly(t, keyed, run.st, charged)
	keyedSlot, _, _ := parseRef(run.st.Pass.Ref)

	// Four minutes on: nothing is stale yet.
	meterRun(t, s, "acct-1", crashT0.Add(4*time.Minute), "sluice_a")
	slots, _ := meterSlots(t, s, "acct-1")
	if _, ok := slots[slotPrefix+goneSlot]; !ok {
		t.Fatalf("a fresh admission was removed: %v", slots)
	}
	// Ten minutes on: the admission goes, the keyed charge stays.
	meterRun(t, s, "acct-1", crashT0.Add(10*time.Minute), "sluice_b")
	meterRun(t, s, "acct-1", crashT0.Add(11*time.Minute), "sluice_c")
	slots, _ = meterSlots(t, s, "acct-1")
	if _, ok := slots[slotPrefix+goneSlot]; ok {
		t.Errorf("a stale admission was kept: %v", slots)
	}
	if _, ok := slots[slotPrefix+keyedSlot]; !ok {
		t.Errorf("a keyed charge was removed within its day: %v", slots)
	}
	// A retry of the keyed run still finds its charge and is a duplicate.
	claimFinds(t, s, newCrashRun(t, s, "acct-1", "lease-2", afterLease.Add(20*time.Minute), 10).claim, store.IdemDone, "lease-1", "sluice_claim-lease-1")
	// After a day and an hour the keyed charge goes too.
	meterRun(t, s, "acct-1", crashT0.Add(25*time.Hour+time.Minute), "sluice_d")
	meterRun(t, s, "acct-1", crashT0.Add(25*time.Hour+2*time.Minute), "sluice_e")
	slots, _ = meterSlots(t, s, "acct-1")
	if _, ok := slots[slotPrefix+keyedSlot]; ok {
		t.Errorf("a keyed charge older than a day was kept: %v", slots)
	}
	usageIs(t, s, "acct-1", store.Usage{Characters: 60, Runs: 6})
}
