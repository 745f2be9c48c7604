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
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/sluice-api/sluice/internal/store"
)

const (
	// counterPrefix + a window's minute (Unix minutes, base 36) is the count of that window.
	// Enter adds to the current window's counter and removes the one before in the same write,
	// so the write is the same whoever opens a window.
	counterPrefix = "n:"
	// attrWindow and attrWindowCount are the rate window of the store before per-window
	// counters (one start and one count); Settle removes them.
	attrWindow      = "win_ms"
	attrWindowCount = "win_count"

	// slotPrefix + a slot's name is the attribute of one writer slot: the last write a request
	// holding the slot made, "<kind>|<id>|<window ms>".
	slotPrefix = "w:"
	// slotNameLen is the length of a slot's name: random base-32 characters. Slots of the store
	// before shared names have longer names (8); they are never taken, only removed when stale.
	slotNameLen = 4
	kindAdmit   = "a" // admitted by Enter; id: a random token
	kindCharge  = "c" // charged by Settle without an idempotency key; id: the trace id
	kindKeyed   = "k" // charged by Settle with an idempotency key; id: the lease
	kindFence   = "f" // fenced by a Claim that took the key over; id: the lease

	// minuteMS is a window's length.
	minuteMS = 60 * 1000
	// takeAfterMS is when a slot written by another Store may be taken: its value is this much
	// older than the taker's window. A request holds its slot from Enter, in its window, to the
	// end of its Settle, within its deadline (29 s): no request still writes a slot two windows
	// after the window of its Enter (at least 31 s of margin for clocks that disagree). Slots
	// written within the last two windows are kept by the Stores that wrote them, so two
	// containers taking turns never take each other's slot.
	takeAfterMS = 2 * minuteMS
	// maxEnterAttempts bounds Enter's loop of conditional writes: each lost race means another
	// request took the slot Enter chose or opened a newer window meanwhile.
	maxEnterAttempts = 16
	// maxPrunes bounds the stale attributes one Settle removes.
	maxPrunes = 4
	// slotStaleMS is when a slot holding an admission, an unkeyed charge or a fence may be
	// removed: far past the longest run (the request deadline), so no request still needs it.
	slotStaleMS = 5 * minuteMS
	// keyedStaleMS is when a slot holding a keyed charge may be removed: past the lifetime of
	// the idempotency record it proves charged (24 hours), which a Claim may repair until then.
	keyedStaleMS = 25 * 60 * minuteMS
	// ownedMax bounds the per-Store memory of slots it owns.
	ownedMax = 10_000
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

// counterAttr is the name of the counter of the window that starts at windowMS.
func counterAttr(windowMS int64) string {
	return counterPrefix + strconv.FormatInt(windowMS/minuteMS, 36)
}

// counterWindow parses a counter's name back to its window; ok is false for other names.
func counterWindow(name string) (int64, bool) {
	rest, ok := strings.CutPrefix(name, counterPrefix)
	if !ok {
		return 0, false
	}
	m, err := strconv.ParseInt(rest, 36, 64)
	if err != nil {
		return 0, false
	}
	return m * minuteMS, true
}

// newSlotName returns a random slot name (without the prefix).
func newSlotName() (string, error) {
	var b [3]byte
	if _, err := crand.Read(b[:]); err != nil {
		return "", fmt.Errorf("slot name: %w", err)
	}
	return strings.ToLower(base32.StdEncoding.EncodeToString(b[:]))[:slotNameLen], nil
}

// slots is what a Store knows of the writer slots it owns: slots of meter items that it
// wrote last, with the value it wrote. A request holds one from Enter to Leave; a slot is
// owned again after Leave unless its last value is unknown or must stay (dropped).
type slots struct {
	mu    sync.Mutex
	owned map[string][]ownedSlot // by meter item (account and month): free slots
	held  map[string]*heldSlot   // by pass reference
	// noProofs: the Store may not write the idempotency table (the services and dashboard
	// functions' roles), so it never takes a slot holding a keyed charge.
	noProofs bool
}

// ownedSlot is a slot of a meter item and the value this Store last wrote into it.
type ownedSlot struct {
	name, last string
}

// heldSlot is a slot held by a pass.
type heldSlot struct {
	item    string
	slot    ownedSlot
	dropped bool
	prunes  map[string]types.AttributeValue // stale attributes the pass's Settle may remove
}

func newSlots() *slots {
	return &slots{owned: map[string][]ownedSlot{}, held: map[string]*heldSlot{}}
}

func meterItemID(account, month string) string { return account + "\x00" + month }

// take takes a free owned slot of the meter item, if there is one.
func (p *slots) take(item string) (ownedSlot, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	free := p.owned[item]
	if len(free) == 0 {
		return ownedSlot{}, false
	}
	o := free[len(free)-1]
	if len(free) == 1 {
		delete(p.owned, item)
	} else {
		p.owned[item] = free[:len(free)-1]
	}
	return o, true
}

func (p *slots) proofsDenied() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.noProofs
}

func (p *slots) denyProofs() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.noProofs = true
}

// put makes o a free owned slot of the meter item.
func (p *slots) put(item string, o ownedSlot) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.owned) >= ownedMax {
		clear(p.owned) // forgetting costs each item one claim again, nothing else
	}
	p.owned[item] = append(p.owned[item], o)
}

// hold records a slot held by the pass with reference ref.
func (p *slots) hold(ref, item string, o ownedSlot, prunes map[string]types.AttributeValue) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.held[ref] = &heldSlot{item: item, slot: o, prunes: prunes}
}

// wrote records the value the pass's Settle left in its slot.
func (p *slots) wrote(ref, value string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if h := p.held[ref]; h != nil {
		h.slot.last = value
	}
}

// drop gives up the pass's slot: its value is unknown, or must stay until a Claim reads it.
func (p *slots) drop(ref string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if h := p.held[ref]; h != nil {
		h.dropped = true
	}
}

func (p *slots) takePrunes(ref string) map[string]types.AttributeValue {
	p.mu.Lock()
	defer p.mu.Unlock()
	h := p.held[ref]
	if h == nil {
		return nil
	}
	pr := h.prunes
	h.prunes = nil
	return pr
}

// leave ends the pass's hold: its slot is owned and free again, unless dropped.
func (p *slots) leave(ref string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	h := p.held[ref]
	if h == nil {
		return
	}
	delete(p.held, ref)
	if h.dropped {
		return
	}
	if len(p.owned) >= ownedMax {
		clear(p.owned) // forgetting costs each item one claim again, nothing else
	}
	p.owned[h.item] = append(p.owned[h.item], h.slot)
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

// Enter counts one request in the window kept on the month's usage item, in one conditional
// UpdateItem: ADD one to the counter of e.Window, REMOVE the counter of the window before, and
// SET the request's writer slot to a new admission value "a|<token>|<window>", under the
// conditions that the window's count is under the limit, that no newer window has a counter (a
// caller whose clock lags counts in the newer one), and that the slot still holds the value
// this Store last wrote into it. ReturnValues ALL_NEW gives the usage in the same request, and
// the stale attributes that the request's Settle may remove.
//
// A Store that owns no free slot of the item (its first request for the account and month,
// or one more in flight at once) reads the item first and chooses a slot: one that no request
// can still write (takeAfterMS), oldest first, or else a new name. Taking a slot that holds a
// keyed charge first moves the charge's proof to its own item (putProof), which a Claim reads.
// A refused write is explained by a consistent read: the slot holds the request's own value
// (an attempt sent again after a lost answer had counted), the window is full, a newer window
// exists, or another request took the slot (choose again).
func (s *Store) Enter(ctx context.Context, e store.Entry) (store.Pass, error) {
	p := store.Pass{Account: e.Account, Month: e.Month}
	if e.Limit <= 0 {
		u, err := s.Usage(ctx, e.Account, e.Month)
		p.Usage = u
		return p, err
	}
	p, err := s.enter(ctx, e)
	if err != nil {
		return store.Pass{}, fmt.Errorf("dynamo: enter: %w", err)
	}
	return p, nil
}

func (s *Store) enter(ctx context.Context, e store.Entry) (store.Pass, error) {
	p := store.Pass{Account: e.Account, Month: e.Month}
	id := meterItemID(e.Account, e.Month)
	now := ms(e.Window) // the caller's clock
	w := now            // the window counted: a newer one when a caller whose clock lags finds it
	token, err := newMarker("")
	if err != nil {
		return p, err
	}
	// o is the slot to write and the value it must hold (last "" : it must not exist).
	o, owned := s.slots.take(id)
	var item map[string]types.AttributeValue // the item as last read; nil before any read
	for range maxEnterAttempts {
		if !owned {
			if item == nil {
				if item, err = s.readMeter(ctx, e.Account, e.Month); err != nil {
					return p, err
				}
			}
			if o, err = s.chooseSlot(ctx, e.Account, item, now); err != nil {
				return p, err
			}
		}
		// The value carries the caller's own window, not the counter's: every age of a slot is
		// judged on the clock of the request that wrote it and of the one that would take it.
		value := slotValue(kindAdmit, token, now)
		out, err := s.enterWrite(ctx, e, w, o, value)
		if err == nil {
			return s.admitted(p, e, id, w, ownedSlot{name: o.name, last: value}, out), nil
		}
		if !errors.Is(err, errRefused) {
			return p, err
		}
		// Refused: read why.
		if item, err = s.readMeter(ctx, e.Account, e.Month); err != nil {
			return p, err
		}
		d := decoder{item: item}
		held := d.str(slotPrefix + o.name)
		if held == value { // an attempt sent again after a lost answer had counted this request
			return s.admitted(p, e, id, w, ownedSlot{name: o.name, last: value}, item), nil
		}
		if newest := newestWindow(item); newest > w {
			w = newest // a newer window is open: count there
		}
		if owned && held != o.last {
			owned = false // another request took the slot (it was idle long enough)
		}
		if count := d.num(counterAttr(w)); count >= e.Limit {
			if d.err != nil {
				return p, fmt.Errorf("read meter: %w", d.err)
			}
			if owned { // the slot is unchanged: still ours
				s.slots.put(id, o)
			}
			p.Count, p.Usage = count, usageOf(item)
			return p, nil
		}
	}
	return p, fmt.Errorf("the meter of %q kept changing after %d attempts", e.Account, maxEnterAttempts)
}

// enterWrite is Enter's one write (see Enter); errRefused when a condition does not hold.
func (s *Store) enterWrite(ctx context.Context, e store.Entry, w int64, o ownedSlot, value string) (map[string]types.AttributeValue, error) {
	names := map[string]string{
		"#cur": counterAttr(w), "#prev": counterAttr(w - minuteMS), "#next": counterAttr(w + minuteMS),
		"#slot": slotPrefix + o.name,
	}
	values := map[string]types.AttributeValue{":one": attrN(1), ":v": attrS(value), ":limit": attrN(e.Limit)}
	cond := "(attribute_not_exists(#cur) OR #cur < :limit) AND attribute_not_exists(#next) AND "
	if o.last == "" {
		cond += "attribute_not_exists(#slot)"
	} else {
		cond += "#slot = :last"
		values[":last"] = attrS(o.last)
	}
	return s.meterWrite(ctx, e.Account, e.Month, "ADD #cur :one SET #slot = :v REMOVE #prev", cond, names, values)
}

// chooseSlot picks the slot for a request of a Store that owns no free one, from the meter item
// as read: a slot whose value no request can still write (takeAfterMS before the caller's
// window nowMS; one that nobody wrote for slotStaleMS first, so that idle containers keep
// theirs when they can), at random among those so that Stores entering at once rarely choose
// the same, or a new name when there is none. A slot holding a keyed charge is taken only
// after its proof was written (putProof): a Claim of the charged run's key may still need it. A
// Store whose role may not write the proof (AccessDeniedException) never takes such a slot.
func (s *Store) chooseSlot(ctx context.Context, account string, item map[string]types.AttributeValue, nowMS int64) (ownedSlot, error) {
	for {
		best, lease, at := freeSlot(item, nowMS, s.slots.proofsDenied())
		if best.name == "" {
			break
		}
		if lease == "" {
			return best, nil
		}
		err := s.putProof(ctx, account, lease, at)
		if err == nil {
			return best, nil
		}
		if !accessDenied(err) {
			return ownedSlot{}, err
		}
		s.slots.denyProofs() // and choose again, without keyed charges
	}
	for range 16 {
		name, err := newSlotName()
		if err != nil {
			return ownedSlot{}, err
		}
		if _, taken := item[slotPrefix+name]; !taken {
			return ownedSlot{name: name}, nil
		}
	}
	return ownedSlot{}, errors.New("no free slot name")
}

// freeSlot returns a slot of item whose value was written takeAfterMS or more before nowMS, at
// random among those written slotStaleMS or more before if there are any, else among the
// others; when it holds a keyed charge, also the charge's lease and window. None when there is
// no such slot. Keyed charges are left out when noKeyed.
func freeSlot(item map[string]types.AttributeValue, nowMS int64, noKeyed bool) (slot ownedSlot, lease string, at int64) {
	type candidate struct {
		slot  ownedSlot
		lease string
		at    int64
	}
	var abandoned, idle []candidate
	for attr, av := range item {
		name, ok := strings.CutPrefix(attr, slotPrefix)
		v, isS := av.(*types.AttributeValueMemberS)
		if !ok || !isS || len(name) != slotNameLen {
			continue
		}
		kind, id, when, ok := parseSlot(v.Value)
		if !ok || nowMS-when < takeAfterMS || (noKeyed && kind == kindKeyed) {
			continue
		}
		c := candidate{slot: ownedSlot{name: name, last: v.Value}, at: when}
		if kind == kindKeyed {
			c.lease = id
		}
		if nowMS-when >= slotStaleMS {
			abandoned = append(abandoned, c)
		} else {
			idle = append(idle, c)
		}
	}
	from := abandoned
	if len(from) == 0 {
		from = idle
	}
	if len(from) == 0 {
		return ownedSlot{}, "", 0
	}
	c := from[rand.IntN(len(from))]
	return c.slot, c.lease, c.at
}

// accessDenied reports an error of a request the caller's role may not make.
func accessDenied(err error) bool {
	var api interface{ ErrorCode() string }
	return errors.As(err, &api) && api.ErrorCode() == "AccessDeniedException"
}

// newestWindow returns the newest window with a counter on item; 0 when there is none.
func newestWindow(item map[string]types.AttributeValue) int64 {
	var newest int64
	for name := range item {
		if w, ok := counterWindow(name); ok && w > newest {
			newest = w
		}
	}
	return newest
}

// admitted fills the pass of an admitted request from the meter item as it stands after, and
// holds its slot.
func (s *Store) admitted(p store.Pass, e store.Entry, id string, w int64, o ownedSlot, item map[string]types.AttributeValue) store.Pass {
	d := decoder{item: item}
	p.Admitted, p.Count, p.Usage, p.Ref = true, d.num(counterAttr(w)), usageOf(item), ref(o.name, o.last)
	s.slots.hold(p.Ref, id, o, stale(item, ms(e.Window)))
	return p
}

// stale returns the attributes of item that no request needs any more, at most maxPrunes, with
// their values: writer slots holding an admission, unkeyed charge or fence older than
// slotStaleMS or a keyed charge older than keyedStaleMS, as of the window nowMS; counters of
// windows before the previous one; the rate window of the store before counters.
func stale(item map[string]types.AttributeValue, nowMS int64) map[string]types.AttributeValue {
	out := map[string]types.AttributeValue{}
	for name, av := range item {
		if len(out) == maxPrunes {
			break
		}
		if w, ok := counterWindow(name); ok {
			if w < nowMS-minuteMS {
				out[name] = av
			}
			continue
		}
		if name == attrWindow || name == attrWindowCount {
			out[name] = av
			continue
		}
		v, ok := av.(*types.AttributeValueMemberS)
		if !strings.HasPrefix(name, slotPrefix) || !ok {
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
			out[name] = av
		}
	}
	return out
}

func usageOf(item map[string]types.AttributeValue) store.Usage {
	d := decoder{item: item}
	return store.Usage{Characters: d.num(attrCharacters), Runs: d.num(attrRuns)}
}

// Leave returns the pass's slot to the Store's free slots (unless Settle dropped it).
func (s *Store) Leave(p store.Pass) {
	if p.Ref != "" {
		s.slots.leave(p.Ref)
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

// proofKey is the key of the item that proves lease's run was charged, in the idempotency
// table: its own partition ("charged#" + account), which no idempotency key can name.
func proofKey(account, lease string) map[string]types.AttributeValue {
	return itemKey("charged#"+account, attrS(lease))
}

// putProof records that lease's run, admitted in the window windowMS, was charged, before the
// slot holding its charge is taken: the proof lives as long as the record it completes could.
func (s *Store) putProof(ctx context.Context, account, lease string, windowMS int64) error {
	exp := windowMS + keyedStaleMS
	item := proofKey(account, lease)
	item[attrExpMS] = attrN(exp)
	item[attrTTL] = attrN(ttlSeconds(exp))
	if _, err := s.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(s.t.Idempotency), Item: item}); err != nil {
		return fmt.Errorf("write proof of %q: %w", lease, err)
	}
	return nil
}

// hasProof reports whether putProof recorded lease's charge (a consistent read).
func (s *Store) hasProof(ctx context.Context, account, lease string) (bool, error) {
	out, err := s.db.GetItem(ctx, &dynamodb.GetItemInput{
		TableName:      aws.String(s.t.Idempotency),
		Key:            proofKey(account, lease),
		ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		return false, fmt.Errorf("read proof of %q: %w", lease, err)
	}
	return out.Item != nil, nil
}
