package dynamo

// The meter: an account's rate window and its month's usage on one item of the usage table (pk
// account, sk month), so that a run writes that item once before its steps (Enter) and once
// after them (Settle). See "The meter" in the package doc for the protocol.

import (
	"context"
	crand "crypto/rand"
	"encoding/base32"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/sluice-api/sluice/internal/store"
)

const (
	// attrWindow and attrWindowCount are the meter's rate window: the start of the current
	// window (Unix milliseconds) and its count.
	attrWindow      = "win_ms"
	attrWindowCount = "win_count"

	// slotPrefix + a slot's name is the attribute of one writer slot: the last write a request
	// holding the slot made, "<kind>|<id>|<window ms>".
	slotPrefix = "w:"
	kindAdmit  = "a" // admitted by Enter; id: a random token
	kindCharge = "c" // charged by Settle without an idempotency key; id: the trace id
	kindKeyed  = "k" // charged by Settle with an idempotency key; id: the lease
	kindFence  = "f" // fenced by a Claim that took the key over; id: the lease

	// maxEnterAttempts bounds Enter's loop of conditional writes: each lost race means another
	// request rolled the window over meanwhile.
	maxEnterAttempts = 4
	// maxPrunes bounds the stale slots one Settle removes.
	maxPrunes = 4
	// slotStaleMS is when a slot holding an admission, an unkeyed charge or a fence may be
	// removed: far past the longest run (the request deadline), so no request still needs it.
	slotStaleMS = 5 * 60 * 1000
	// keyedStaleMS is when a slot holding a keyed charge may be removed: past the lifetime of
	// the idempotency record it proves charged (24 hours), which a Claim may repair until then.
	keyedStaleMS = 25 * 60 * 60 * 1000
	// hintsMax bounds the per-Store memory of each account's last window.
	hintsMax = 10_000
)

// slotValue is the value of a writer slot.
func slotValue(kind, id string, windowMS int64) string {
	return kind + "|" + id + "|" + strconv.FormatInt(windowMS, 10)
}

// parseSlot splits a slot value; ok is false for anything else.
func parseSlot(v string) (kind, id string, windowMS int64, ok bool) {
	parts := strings.Split(v, "|")
	if len(parts) != 3 {
		return "", "", 0, false
	}
	n, err := strconv.ParseInt(parts[2], 10, 64)
	if err != nil {
		return "", "", 0, false
	}
	return parts[0], parts[1], n, true
}

// slots is a Store's pool of writer slots. A request holds one from Enter to Leave, so no
// other request writes its attribute meanwhile: a write sent again after a lost answer finds
// its own value there, and a Claim can fence the slot of a run it takes over. A slot whose
// last write may have charged a keyed run that is not yet complete is retired, never reused,
// so its value stays until a Claim reads it.
type slots struct {
	mu    sync.Mutex
	free  []string
	state map[string]*slotState // by slot, while held
	hints map[string]int64      // account -> the last window this Store saw for it
}

// slotState is what the holder of a slot learned at Enter: the stale slots it may remove.
type slotState struct {
	prunes map[string]string // attribute -> the value it had
}

func newSlots() *slots {
	return &slots{state: map[string]*slotState{}, hints: map[string]int64{}}
}

// get takes a free slot, or makes one with a random name.
func (p *slots) get() (string, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if n := len(p.free); n > 0 {
		s := p.free[n-1]
		p.free = p.free[:n-1]
		p.state[s] = &slotState{}
		return s, nil
	}
	var b [5]byte
	if _, err := crand.Read(b[:]); err != nil {
		return "", fmt.Errorf("slot: %w", err)
	}
	s := strings.ToLower(base32.StdEncoding.EncodeToString(b[:]))
	p.state[s] = &slotState{}
	return s, nil
}

// put returns a held slot to the pool, unless it was retired.
func (p *slots) put(s string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, held := p.state[s]; !held {
		return // retired, or not ours
	}
	delete(p.state, s)
	p.free = append(p.free, s)
}

// retire takes a held slot out of use for good.
func (p *slots) retire(s string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.state, s)
}

func (p *slots) setPrunes(s string, prunes map[string]string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if st := p.state[s]; st != nil {
		st.prunes = prunes
	}
}

func (p *slots) takePrunes(s string) map[string]string {
	p.mu.Lock()
	defer p.mu.Unlock()
	st := p.state[s]
	if st == nil {
		return nil
	}
	pr := st.prunes
	st.prunes = nil
	return pr
}

func (p *slots) hint(account string) int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.hints[account]
}

func (p *slots) setHint(account string, window int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.hints) >= hintsMax {
		clear(p.hints)
	}
	p.hints[account] = window
}

// ref is a pass's reference: the slot and the value Enter wrote into it.
func ref(slot, value string) string { return slot + " " + value }

func parseRef(r string) (slot, value string, err error) {
	slot, value, ok := strings.Cut(r, " ")
	if !ok || slot == "" || value == "" {
		return "", "", errors.New("not a pass of this store")
	}
	return slot, value, nil
}

// Enter counts one request in the window kept on the month's usage item. It tries the write
// that fits what this Store last saw of the account's window first: the same window (ADD one,
// under the limit) or a newer one (SET the window and a count of one, over an older window);
// when that is refused it tries the other, and when both are refused a consistent read tells
// why (the window is full, another request rolled it over, or an attempt sent again after a
// lost answer had counted). Each write also sets the request's writer slot to a new value of
// kind "a", under the condition that the slot does not hold it yet: that is how a write sent
// again recognises its own earlier effect. ReturnValues ALL_NEW gives the usage in the same
// request, and the stale slots that the request's Settle may remove.
func (s *Store) Enter(ctx context.Context, e store.Entry) (store.Pass, error) {
	p := store.Pass{Account: e.Account, Month: e.Month}
	if e.Limit <= 0 {
		u, err := s.Usage(ctx, e.Account, e.Month)
		p.Usage = u
		return p, err
	}
	slot, err := s.slots.get()
	if err != nil {
		return store.Pass{}, fmt.Errorf("dynamo: enter: %w", err)
	}
	p, err = s.enter(ctx, e, slot)
	if err != nil || !p.Admitted {
		s.slots.put(slot)
		p.Ref = ""
	}
	if err != nil {
		return store.Pass{}, fmt.Errorf("dynamo: enter: %w", err)
	}
	return p, nil
}

func (s *Store) enter(ctx context.Context, e store.Entry, slot string) (store.Pass, error) {
	p := store.Pass{Account: e.Account, Month: e.Month}
	w := ms(e.Window)
	token, err := newMarker("")
	if err != nil {
		return p, err
	}
	value := slotValue(kindAdmit, token, w)
	names := map[string]string{"#ws": attrWindow, "#wc": attrWindowCount, "#slot": slotPrefix + slot}
	same := func(window int64) (map[string]types.AttributeValue, error) {
		return s.meterWrite(ctx, e.Account, e.Month, "ADD #wc :one SET #slot = :v",
			"#ws >= :w AND #wc < :limit AND (attribute_not_exists(#slot) OR #slot <> :v)", names,
			map[string]types.AttributeValue{":one": attrN(1), ":v": attrS(value), ":w": attrN(window), ":limit": attrN(e.Limit)})
	}
	roll := func() (map[string]types.AttributeValue, error) {
		return s.meterWrite(ctx, e.Account, e.Month, "SET #ws = :w, #wc = :one, #slot = :v",
			"(attribute_not_exists(#ws) OR #ws < :w) AND (attribute_not_exists(#slot) OR #slot <> :v)", names,
			map[string]types.AttributeValue{":one": attrN(1), ":v": attrS(value), ":w": attrN(w)})
	}
	window := w
	sameFirst := s.slots.hint(e.Account) >= w
	for range maxEnterAttempts {
		first, second := roll, func() (map[string]types.AttributeValue, error) { return same(window) }
		if sameFirst {
			first, second = second, first
		}
		item, err := first()
		if errors.Is(err, errRefused) {
			item, err = second()
		}
		if err == nil {
			return s.admitted(p, e, slot, value, item), nil
		}
		if !errors.Is(err, errRefused) {
			return p, err
		}
		// Both refused: read why.
		item, err = s.readMeter(ctx, e.Account, e.Month)
		if err != nil {
			return p, err
		}
		d := decoder{item: item}
		ws, count, mine := d.num(attrWindow), d.num(attrWindowCount), d.str(slotPrefix+slot) == value
		if d.err != nil {
			return p, fmt.Errorf("read meter: %w", d.err)
		}
		switch {
		case mine: // an attempt sent again after a lost answer had counted this request
			return s.admitted(p, e, slot, value, item), nil
		case ws >= w && count >= e.Limit: // full
			p.Count, p.Usage = count, usageOf(item)
			s.slots.setHint(e.Account, ws)
			return p, nil
		}
		// Another request rolled the window over between the two writes: the same window now.
		window, sameFirst = min(ws, w), true
	}
	return p, fmt.Errorf("the window of %q kept changing after %d attempts", e.Account, maxEnterAttempts)
}

// admitted fills the pass of an admitted request from the meter item as it stands after.
func (s *Store) admitted(p store.Pass, e store.Entry, slot, value string, item map[string]types.AttributeValue) store.Pass {
	d := decoder{item: item}
	p.Admitted, p.Count, p.Usage, p.Ref = true, d.num(attrWindowCount), usageOf(item), ref(slot, value)
	s.slots.setHint(e.Account, d.num(attrWindow))
	s.slots.setPrunes(slot, stale(item, ms(e.Window)))
	return p
}

// stale returns the writer slots of item that no request needs any more, at most maxPrunes:
// an admission, unkeyed charge or fence older than slotStaleMS, a keyed charge older than
// keyedStaleMS, as of the window nowMS.
func stale(item map[string]types.AttributeValue, nowMS int64) map[string]string {
	out := map[string]string{}
	for name, av := range item {
		if !strings.HasPrefix(name, slotPrefix) || len(out) == maxPrunes {
			continue
		}
		v, ok := av.(*types.AttributeValueMemberS)
		if !ok {
			continue
		}
		kind, _, at, ok := parseSlot(v.Value)
		if !ok {
			continue
		}
		limit := int64(slotStaleMS)
		if kind == kindKeyed {
			limit = keyedStaleMS
		}
		if nowMS-at > limit {
			out[name] = v.Value
		}
	}
	return out
}

func usageOf(item map[string]types.AttributeValue) store.Usage {
	d := decoder{item: item}
	return store.Usage{Characters: d.num(attrCharacters), Runs: d.num(attrRuns)}
}

// Leave returns the pass's slot to the pool (unless Settle retired it).
func (s *Store) Leave(p store.Pass) {
	if slot, _, err := parseRef(p.Ref); err == nil {
		s.slots.put(slot)
	}
}

// meterWrite is one conditional UpdateItem of the meter item with ReturnValues ALL_NEW;
// errRefused when cond does not hold.
func (s *Store) meterWrite(ctx context.Context, account, month, update, cond string, names map[string]string, values map[string]types.AttributeValue) (map[string]types.AttributeValue, error) {
	out, err := s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                 aws.String(s.t.Usage),
		Key:                       usageKey(account, month),
		UpdateExpression:          aws.String(update),
		ConditionExpression:       aws.String(cond),
		ExpressionAttributeNames:  names,
		ExpressionAttributeValues: values,
		ReturnValues:              types.ReturnValueAllNew,
	})
	if conditionFailed(err) {
		return nil, errRefused
	}
	if err != nil {
		return nil, fmt.Errorf("write meter: %w", err)
	}
	return out.Attributes, nil
}

// readMeter reads the whole meter item with a consistent read (nil when there is none).
func (s *Store) readMeter(ctx context.Context, account, month string) (map[string]types.AttributeValue, error) {
	out, err := s.db.GetItem(ctx, &dynamodb.GetItemInput{
		TableName:      aws.String(s.t.Usage),
		Key:            usageKey(account, month),
		ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		return nil, fmt.Errorf("read meter: %w", err)
	}
	return out.Item, nil
}
