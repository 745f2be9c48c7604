package dynamo

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/sluice-api/sluice/internal/store"
)

const (
	// rateWindowTTL is how long after its start a rate window item may be deleted by TTL: far
	// longer than the one-minute window, so callers whose clocks lag a little never lose theirs.
	rateWindowTTL = 5 * time.Minute
	// maxClaimAttempts bounds Claim's read-decide-write loop; each lost race means another
	// claimer changed the record, so a few attempts always settle it.
	maxClaimAttempts = 8

	// stateSettling marks an idempotency record whose run is being charged (Settle step 1).
	// Outside the package it reads as store.IdemInFlight.
	stateSettling = "settling"

	// pendingPrefix + lease (a settlement with an idempotency key) or + trace id (one without)
	// names the marker attribute of a charge on the usage item.
	pendingPrefix = "pending:"
	// hitPrefix + a random token names the marker attribute of one hit on a rate window item.
	hitPrefix = "hit:"
	// markCharged: the lease's run was charged in this month.
	markCharged = "charged"
	// markFenced: the lease was taken over by a claimer and may never charge.
	markFenced = "fenced"

	attrCount      = "count"
	attrCharacters = "characters"
	attrRuns       = "runs"

	attrFingerprint = "fp"
	attrState       = "state"
	attrLease       = "lease"
	attrTrace       = "trace"
	attrLeaseExpMS  = "lease_exp_ms"
	attrSettleTrace = "settle_trace"
	attrSettleMonth = "settle_month"
	attrSettleChars = "settle_chars"
	attrSlot        = "slot"
	attrMonth       = "month"
)

func itemKey(pk string, sk types.AttributeValue) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{attrPK: attrS(pk), attrSK: sk}
}

func windowKey(account string, start time.Time) map[string]types.AttributeValue {
	return itemKey(account, attrN(ms(start)))
}

func idemKey(account, key string) map[string]types.AttributeValue {
	return itemKey(account, attrS(key))
}

func usageKey(account, month string) map[string]types.AttributeValue {
	return itemKey(account, attrS(month))
}

// Hit counts one request in account's window starting at start unless the window holds limit
// requests already. The write carries the hit's identity, a random marker attribute, so that a
// retry of a write whose answer was lost finds its own hit instead of counting it again (or,
// in a full window, refusing a request that was counted): one conditional update ADDs the
// count and sets the marker unless the window is full or the marker is there; a second write
// removes the marker. A refused hit changes nothing and reports count = limit (the window is
// full); only when the SDK had retried does it read the window to see whether an earlier attempt
// was the one that counted, so the path that abusers hit hardest costs no read.
func (s *Store) Hit(ctx context.Context, account string, start time.Time, limit int64) (int64, bool, error) {
	if limit <= 0 {
		return 0, false, nil
	}
	marker, err := newMarker(hitPrefix)
	if err != nil {
		return 0, false, fmt.Errorf("dynamo: hit: %w", err)
	}
	var tries attempts
	out, err := s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                aws.String(s.t.RateWindows),
		Key:                      windowKey(account, start),
		UpdateExpression:         aws.String("ADD #c :one SET #ttl = :ttl, #m = :one"),
		ConditionExpression:      aws.String("(attribute_not_exists(#c) OR #c < :limit) AND attribute_not_exists(#m)"),
		ExpressionAttributeNames: map[string]string{"#c": attrCount, "#ttl": attrTTL, "#m": marker},
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":one":   attrN(1),
			":ttl":   attrN(ttlSeconds(ms(start.Add(rateWindowTTL)))),
			":limit": attrN(limit),
		},
		ReturnValues: types.ReturnValueUpdatedNew,
	}, tries.count)
	var count int64
	switch {
	case conditionFailed(err):
		if tries.n() == 1 {
			return limit, false, nil // refused on its only attempt: nothing of this hit was applied
		}
		c, mine, rerr := s.readWindow(ctx, account, start, marker)
		if rerr != nil {
			return 0, false, fmt.Errorf("dynamo: hit: %w", rerr)
		}
		if !mine {
			return limit, false, nil
		}
		count = c // an earlier attempt counted this hit; its answer was lost
	case err != nil:
		return 0, false, fmt.Errorf("dynamo: hit: %w", err)
	default:
		d := decoder{item: out.Attributes}
		count = d.num(attrCount)
		if d.err != nil {
			return 0, false, fmt.Errorf("dynamo: hit: %w", d.err)
		}
	}
	// Best effort: a marker left behind only takes a few bytes until the window expires.
	_ = s.removeMarker(ctx, s.t.RateWindows, windowKey(account, start), marker)
	return count, true, nil
}

// readWindow reads a window's count and whether it holds marker (consistent read).
// Count returns the count of account's window at start (a consistent read).
func (s *Store) Count(ctx context.Context, account string, start time.Time) (int64, error) {
	out, err := s.db.GetItem(ctx, &dynamodb.GetItemInput{
		TableName:                aws.String(s.t.RateWindows),
		Key:                      windowKey(account, start),
		ConsistentRead:           aws.Bool(true),
		ProjectionExpression:     aws.String("#c"),
		ExpressionAttributeNames: map[string]string{"#c": attrCount},
	})
	if err != nil {
		return 0, fmt.Errorf("dynamo: count: %w", err)
	}
	d := decoder{item: out.Item}
	count := d.num(attrCount)
	if d.err != nil {
		return 0, fmt.Errorf("dynamo: count: %w", d.err)
	}
	return count, nil
}

func (s *Store) readWindow(ctx context.Context, account string, start time.Time, marker string) (int64, bool, error) {
	out, err := s.db.GetItem(ctx, &dynamodb.GetItemInput{
		TableName:                aws.String(s.t.RateWindows),
		Key:                      windowKey(account, start),
		ConsistentRead:           aws.Bool(true),
		ProjectionExpression:     aws.String("#c, #m"),
		ExpressionAttributeNames: map[string]string{"#c": attrCount, "#m": marker},
	})
	if err != nil {
		return 0, false, fmt.Errorf("read window: %w", err)
	}
	d := decoder{item: out.Item}
	count, mine := d.num(attrCount), d.has(marker)
	if d.err != nil {
		return 0, false, fmt.Errorf("read window: %w", d.err)
	}
	return count, mine, nil
}

// removeMarker removes the marker attribute from the item at key, if the item holds it.
func (s *Store) removeMarker(ctx context.Context, table string, key map[string]types.AttributeValue, marker string) error {
	_, err := s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                aws.String(table),
		Key:                      key,
		UpdateExpression:         aws.String("REMOVE #m"),
		ConditionExpression:      aws.String("attribute_exists(#m)"),
		ExpressionAttributeNames: map[string]string{"#m": marker},
	})
	if err != nil && !conditionFailed(err) {
		return fmt.Errorf("remove marker: %w", err)
	}
	return nil
}

// idemItem is a stored idempotency record as the package sees it.
type idemItem struct {
	rec         store.IdemRecord // State may be stateSettling
	leaseExpMS  int64
	expMS       int64
	settleTrace string
	settleMonth string
	// slot and month: where the run of the lease charges (the meter item of month, its writer
	// slot). Absent on records written before the meter (legacy).
	slot  string
	month string
}

// live reports whether the record is live at nowMS: not expired, and done or within its lease.
func (r idemItem) live(nowMS int64) bool {
	return nowMS < r.expMS && (r.rec.State == store.IdemDone || nowMS < r.leaseExpMS)
}

// public is the record as the port shows it: a settling record is in flight.
func (r idemItem) public() *store.IdemRecord {
	rec := r.rec
	if rec.State == stateSettling {
		rec.State = store.IdemInFlight
	}
	return &rec
}

// getIdem reads the record of account and key with a consistent read.
func (s *Store) getIdem(ctx context.Context, account, key string) (idemItem, bool, error) {
	out, err := s.db.GetItem(ctx, &dynamodb.GetItemInput{
		TableName:      aws.String(s.t.Idempotency),
		Key:            idemKey(account, key),
		ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		return idemItem{}, false, fmt.Errorf("read record: %w", err)
	}
	if out.Item == nil {
		return idemItem{}, false, nil
	}
	d := decoder{item: out.Item}
	r := idemItem{
		rec: store.IdemRecord{
			Account:      account,
			Key:          key,
			Fingerprint:  d.str(attrFingerprint),
			State:        d.str(attrState),
			Lease:        d.str(attrLease),
			TraceID:      d.str(attrTrace),
			LeaseExpires: d.time(attrLeaseExpMS),
			Expires:      d.time(attrExpMS),
		},
		leaseExpMS:  d.num(attrLeaseExpMS),
		expMS:       d.num(attrExpMS),
		settleTrace: d.str(attrSettleTrace),
		settleMonth: d.str(attrSettleMonth),
		slot:        d.str(attrSlot),
		month:       d.str(attrMonth),
	}
	if d.err != nil {
		return idemItem{}, false, fmt.Errorf("read record: %w", d.err)
	}
	return r, true, nil
}

// Claim creates an in-flight record for c unless a live record exists, which it returns. It
// first tries one conditional PutItem that succeeds when the record is absent or expired; when
// that is refused it reads the record: in flight under c's own lease, it is c's (an earlier
// attempt of the write succeeded, its answer was lost); live, it is returned; in flight with
// an expired lease, its run is taken over after its charge is settled one way or the other
// (takeOver); settling with an expired lease (a record of the store before the meter), it is
// repaired (repair); otherwise Claim tries again (another claimer changed the record).
func (s *Store) Claim(ctx context.Context, c store.Claim) (*store.IdemRecord, error) {
	if _, _, err := parseRef(c.Pass.Ref); err != nil || c.Pass.Month == "" {
		return nil, fmt.Errorf("dynamo: claim %q: the claim needs the request's pass: %v", c.Key, err)
	}
	now := ms(c.Now)
	fresh := condition{
		expr:   "attribute_not_exists(pk) OR #exp <= :now",
		names:  map[string]string{"#exp": attrExpMS},
		values: map[string]types.AttributeValue{":now": attrN(now)},
	}
	for range maxClaimAttempts {
		won, err := s.putClaim(ctx, c, fresh)
		if err != nil {
			return nil, fmt.Errorf("dynamo: claim %q: %w", c.Key, err)
		}
		if won {
			return nil, nil
		}
		cur, found, err := s.getIdem(ctx, c.Account, c.Key)
		if err != nil {
			return nil, fmt.Errorf("dynamo: claim %q: %w", c.Key, err)
		}
		var existing *store.IdemRecord
		switch {
		case !found:
			continue // released or deleted meanwhile: claim again
		case cur.rec.Lease == c.Lease && cur.rec.State == store.IdemInFlight:
			// This call's own record: an earlier attempt of the write succeeded and its answer
			// was lost (leases are unique to one run).
			return nil, nil
		case cur.live(now):
			return cur.public(), nil
		case cur.expMS <= now:
			continue // absent for c: the next put takes it over unless someone is faster
		case cur.rec.State == store.IdemInFlight:
			existing, won, err = s.takeOver(ctx, c, cur)
		case cur.rec.State == stateSettling:
			existing, won, err = s.repair(ctx, c, cur)
		default:
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("dynamo: claim %q: %w", c.Key, err)
		}
		if won {
			return nil, nil
		}
		if existing != nil {
			return existing, nil
		}
	}
	return nil, fmt.Errorf("dynamo: claim %q: record still changing after %d attempts", c.Key, maxClaimAttempts)
}

// takeOver resolves an in-flight record whose lease has expired: its run stopped (or stalled
// past its lease) before its record was completed, and may or may not have charged. The run
// charges by setting its writer slot on the meter item to "k|<lease>|..."; Claim fences the
// slot with "f|<lease>|..." unless it holds that charge, and exactly one of the two conditional
// writes on the one item wins. Fenced: the old run can never charge (its Settle requires its
// own admission value in the slot); c takes the record over. Charged: the record is completed
// as the old run's (done, its trace) and returned, so the retry is a duplicate. A record of the
// store before the meter (no slot) is taken over at once: the old Settle's first step required
// the lease, which the takeover changes.
func (s *Store) takeOver(ctx context.Context, c store.Claim, cur idemItem) (existing *store.IdemRecord, won bool, err error) {
	lease := cur.rec.Lease
	ours := condition{
		expr:   "#st = :inflight AND #lease = :old",
		names:  map[string]string{"#st": attrState, "#lease": attrLease},
		values: map[string]types.AttributeValue{":inflight": attrS(store.IdemInFlight), ":old": attrS(lease)},
	}
	if cur.slot != "" {
		charged, err := s.fenceSlot(ctx, c.Account, cur.month, cur.slot, lease, ms(c.Now))
		if err != nil {
			return nil, false, err
		}
		if charged {
			if err := s.markDone(ctx, c.Account, c.Key, "", ours); err != nil {
				if errors.Is(err, errRefused) {
					return nil, false, nil // the record moved on: look again
				}
				return nil, false, err
			}
			rec := cur.rec
			rec.State = store.IdemDone
			return &rec, false, nil
		}
	}
	won, err = s.putClaim(ctx, c, ours)
	return nil, won, err
}

// fenceSlot writes "f|<lease>|<now>" into the writer slot of the meter item of month unless the
// slot holds the keyed charge of lease; charged reports that it does.
func (s *Store) fenceSlot(ctx context.Context, account, month, slot, lease string, nowMS int64) (charged bool, err error) {
	charge := kindKeyed + "|" + lease + "|"
	_, err = s.meterWrite(ctx, account, month, "SET #slot = :f",
		"attribute_not_exists(#slot) OR NOT begins_with(#slot, :charge)",
		map[string]string{"#slot": slotPrefix + slot},
		map[string]types.AttributeValue{":f": attrS(slotValue(kindFence, lease, nowMS)), ":charge": attrS(charge)})
	switch {
	case err == nil:
		return false, nil
	case errors.Is(err, errRefused):
		return true, nil
	}
	return false, fmt.Errorf("fence lease %q: %w", lease, err)
}

// condition is a ConditionExpression with its names and values.
type condition struct {
	expr   string
	names  map[string]string
	values map[string]types.AttributeValue
}

// putClaim writes c's in-flight record under cond; false when cond refused it.
func (s *Store) putClaim(ctx context.Context, c store.Claim, cond condition) (bool, error) {
	leaseExp, exp := ms(c.Now.Add(c.LeaseTTL)), ms(c.Now.Add(c.TTL))
	item := idemKey(c.Account, c.Key)
	setS(item, attrFingerprint, c.Fingerprint)
	item[attrState] = attrS(store.IdemInFlight)
	setS(item, attrLease, c.Lease)
	setS(item, attrTrace, c.TraceID)
	item[attrLeaseExpMS] = attrN(leaseExp)
	item[attrExpMS] = attrN(exp)
	item[attrTTL] = attrN(ttlSeconds(exp))
	slot, _, _ := parseRef(c.Pass.Ref)
	setS(item, attrSlot, slot)
	setS(item, attrMonth, c.Pass.Month)
	_, err := s.db.PutItem(ctx, &dynamodb.PutItemInput{
		TableName:                 aws.String(s.t.Idempotency),
		Item:                      item,
		ConditionExpression:       aws.String(cond.expr),
		ExpressionAttributeNames:  cond.names,
		ExpressionAttributeValues: cond.values,
	})
	if conditionFailed(err) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("write record: %w", err)
	}
	return true, nil
}

// repair resolves a settling record whose lease has expired, written by the store before the
// meter (its run stopped between that Settle's steps 1 and 3). It fences the lease on the usage item of the settlement's month; when the
// fence holds, c takes the record over (won). When the lease had been charged, the record is
// marked done with the settlement's trace and returned. Both nil and false: the record changed
// meanwhile; look again.
func (s *Store) repair(ctx context.Context, c store.Claim, cur idemItem) (existing *store.IdemRecord, won bool, err error) {
	lease := cur.rec.Lease
	if cur.settleMonth == "" {
		return nil, false, fmt.Errorf("settling record of lease %q has no settle_month", lease)
	}
	mark, err := s.fence(ctx, c.Account, cur.settleMonth, lease)
	if err != nil {
		return nil, false, err
	}
	ours := condition{
		expr:   "#st = :settling AND #lease = :old",
		names:  map[string]string{"#st": attrState, "#lease": attrLease},
		values: map[string]types.AttributeValue{":settling": attrS(stateSettling), ":old": attrS(lease)},
	}
	switch mark {
	case markFenced:
		won, err := s.putClaim(ctx, c, ours)
		return nil, won, err
	case markCharged:
		trace := cur.settleTrace
		if trace == "" {
			trace = cur.rec.TraceID
		}
		if err := s.markDone(ctx, c.Account, c.Key, trace, ours); err != nil {
			if errors.Is(err, errRefused) {
				return nil, false, nil
			}
			return nil, false, err
		}
		rec := cur.rec
		rec.State, rec.TraceID = store.IdemDone, trace
		return &rec, false, nil
	}
	return nil, false, nil // the marker vanished: the record has moved on
}

// errRefused is a refused condition inside the package.
var errRefused = errors.New("condition refused")

// markDone sets the record done with trace (kept when empty) under cond and clears the
// settlement attributes; errRefused when cond does not hold.
func (s *Store) markDone(ctx context.Context, account, key, trace string, cond condition) error {
	names := map[string]string{"#st": attrState, "#strace": attrSettleTrace, "#smonth": attrSettleMonth, "#schars": attrSettleChars}
	values := map[string]types.AttributeValue{":done": attrS(store.IdemDone)}
	expr := "SET #st = :done"
	if trace != "" {
		names["#trace"], values[":trace"] = attrTrace, attrS(trace)
		expr += ", #trace = :trace"
	}
	expr += " REMOVE #strace, #smonth, #schars"
	for k, v := range cond.names {
		names[k] = v
	}
	for k, v := range cond.values {
		values[k] = v
	}
	_, err := s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                 aws.String(s.t.Idempotency),
		Key:                       idemKey(account, key),
		UpdateExpression:          aws.String(expr),
		ConditionExpression:       aws.String(cond.expr),
		ExpressionAttributeNames:  names,
		ExpressionAttributeValues: values,
	})
	if conditionFailed(err) {
		return errRefused
	}
	if err != nil {
		return fmt.Errorf("complete record: %w", err)
	}
	return nil
}

// fence writes the marker "fenced" for lease on the usage item of month unless a marker is
// there, and returns the marker that holds: markFenced (now or before) or markCharged. "" when
// the marker was removed between the write and the read (the settlement has finished).
func (s *Store) fence(ctx context.Context, account, month, lease string) (string, error) {
	_, err := s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                 aws.String(s.t.Usage),
		Key:                       usageKey(account, month),
		UpdateExpression:          aws.String("SET #p = :fenced"),
		ConditionExpression:       aws.String("attribute_not_exists(#p)"),
		ExpressionAttributeNames:  map[string]string{"#p": pendingPrefix + lease},
		ExpressionAttributeValues: map[string]types.AttributeValue{":fenced": attrS(markFenced)},
	})
	if err == nil {
		return markFenced, nil
	}
	if !conditionFailed(err) {
		return "", fmt.Errorf("fence lease %q: %w", lease, err)
	}
	_, mark, err := s.readUsage(ctx, account, month, lease)
	if err != nil {
		return "", fmt.Errorf("fence lease %q: %w", lease, err)
	}
	return mark, nil
}

// Release deletes the in-flight record of account and key held by lease; anything else
// (another lease, a settling or done record, no record) is left alone.
func (s *Store) Release(ctx context.Context, account, key, lease string) error {
	_, err := s.db.DeleteItem(ctx, &dynamodb.DeleteItemInput{
		TableName:                aws.String(s.t.Idempotency),
		Key:                      idemKey(account, key),
		ConditionExpression:      aws.String("#lease = :lease AND #st = :inflight"),
		ExpressionAttributeNames: map[string]string{"#lease": attrLease, "#st": attrState},
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":lease":    attrS(lease),
			":inflight": attrS(store.IdemInFlight),
		},
	})
	if err != nil && !conditionFailed(err) {
		return fmt.Errorf("dynamo: release %q: %w", key, err)
	}
	return nil
}

// Usage returns account's usage in month; zero when nothing was charged.
func (s *Store) Usage(ctx context.Context, account, month string) (store.Usage, error) {
	u, _, err := s.readUsage(ctx, account, month, "")
	if err != nil {
		return store.Usage{}, fmt.Errorf("dynamo: usage: %w", err)
	}
	return u, nil
}

// readUsage reads the usage item of month with a consistent read, and the marker of lease
// unless lease is "".
func (s *Store) readUsage(ctx context.Context, account, month, lease string) (store.Usage, string, error) {
	names := map[string]string{"#ch": attrCharacters, "#runs": attrRuns}
	proj := "#ch, #runs"
	if lease != "" {
		names["#p"] = pendingPrefix + lease
		proj += ", #p"
	}
	out, err := s.db.GetItem(ctx, &dynamodb.GetItemInput{
		TableName:                aws.String(s.t.Usage),
		Key:                      usageKey(account, month),
		ConsistentRead:           aws.Bool(true),
		ProjectionExpression:     aws.String(proj),
		ExpressionAttributeNames: names,
	})
	if err != nil {
		return store.Usage{}, "", fmt.Errorf("read usage: %w", err)
	}
	d := decoder{item: out.Item}
	u := store.Usage{Characters: d.num(attrCharacters), Runs: d.num(attrRuns)}
	var mark string
	if lease != "" {
		mark = d.str(pendingPrefix + lease)
	}
	if d.err != nil {
		return store.Usage{}, "", fmt.Errorf("read usage: %w", d.err)
	}
	return u, mark, nil
}

// Settle charges st on the meter item of its pass and completes st.Idem: one conditional
// UpdateItem of the meter item (ADD characters, one run and the day's characters; SET the
// pass's writer slot to the charge, "c|<trace id>|..." or with a key "k|<lease>|..."; REMOVE a
// few stale slots), under the condition that the slot still holds the pass's admission value
// and the allowance holds; then, with a key, one UpdateItem of the record (done, under its
// lease). A refused charge is explained by a consistent read: the slot holds this charge (an
// attempt sent again after a lost answer had charged), a fence or nothing (a claimer took the
// key over: ErrLeaseLost, nothing charged), or the admission value (the allowance, or a stale
// slot that changed: then the charge is sent again without removals). A charge that may have
// been applied and whose record could not be completed retires the slot (its value is the
// proof a later Claim reads) and returns ErrCharged.
func (s *Store) Settle(ctx context.Context, st store.Settlement) (store.Usage, bool, error) {
	if st.Characters < 0 {
		return store.Usage{}, false, fmt.Errorf("dynamo: settle: negative characters %d", st.Characters)
	}
	if err := store.ValidDay(st.Day); err != nil {
		return store.Usage{}, false, fmt.Errorf("dynamo: settle: %w", err)
	}
	slot, admission, err := parseRef(st.Pass.Ref)
	if err != nil {
		return store.Usage{}, false, fmt.Errorf("dynamo: settle: %w", err)
	}
	if st.Idem == nil && st.TraceID == "" {
		return store.Usage{}, false, errors.New("dynamo: settle: a settlement without an idempotency key needs the run's trace id")
	}
	u, res, err := s.charge(ctx, st, slot, admission)
	if err != nil {
		if st.Idem != nil {
			s.slots.retire(slot) // the charge may stand: keep its proof for the next Claim
			return store.Usage{}, false, fmt.Errorf("dynamo: settle %q: %w: %w", st.Idem.Key, store.ErrCharged, err)
		}
		return store.Usage{}, false, fmt.Errorf("dynamo: settle %q: %w", st.TraceID, err)
	}
	switch res {
	case fenced:
		return store.Usage{}, false, fmt.Errorf("dynamo: settle %q: %w", st.Idem.Key, store.ErrLeaseLost)
	case refused:
		return u, false, nil
	}
	if st.Idem != nil {
		err := s.markDone(ctx, st.Pass.Account, st.Idem.Key, st.Idem.TraceID, condition{
			expr:  "#lease = :lease AND (#st = :inflight OR #st = :done)",
			names: map[string]string{"#lease": attrLease},
			values: map[string]types.AttributeValue{
				":lease": attrS(st.Idem.Lease), ":inflight": attrS(store.IdemInFlight),
			},
		})
		// Refused: a Claim found the charge and completed the record, or the record expired;
		// either way the charge stands and the key is settled.
		if err != nil && !errors.Is(err, errRefused) {
			s.slots.retire(slot)
			return store.Usage{}, false, fmt.Errorf("dynamo: settle %q: %w: %w", st.Idem.Key, store.ErrCharged, err)
		}
	}
	return u, true, nil
}

// chargeResult is the outcome of a charge.
type chargeResult int

const (
	charged        chargeResult = iota // charged now
	alreadyCharged                     // charged by an earlier attempt of this settlement
	refused                            // the limit would be crossed; nothing changed
	fenced                             // the key was taken over; nothing changed
)

// charge is Settle's write to the meter item (see Settle).
func (s *Store) charge(ctx context.Context, st store.Settlement, slot, admission string) (store.Usage, chargeResult, error) {
	_, _, windowMS, _ := parseSlot(admission)
	value := slotValue(kindCharge, st.TraceID, windowMS)
	if st.Idem != nil {
		value = slotValue(kindKeyed, st.Idem.Lease, windowMS)
	}
	prunes := s.slots.takePrunes(slot)
	for attempt := 0; attempt < 2; attempt++ {
		names := map[string]string{"#ch": attrCharacters, "#runs": attrRuns, "#slot": slotPrefix + slot}
		values := map[string]types.AttributeValue{
			":n": attrN(st.Characters), ":one": attrN(1), ":max": attrN(st.Limit - st.Characters),
			":v": attrS(value), ":a": attrS(admission),
		}
		update := "ADD #ch :n, #runs :one"
		if st.Day > 0 { // the day's counter, in the same write as the month's
			names["#day"] = dayAttr(st.Day)
			update += ", #day :n"
		}
		update += " SET #slot = :v"
		cond := "#slot = :a AND (attribute_not_exists(#ch) OR #ch <= :max)"
		i := 0
		var removes []string
		for name, old := range prunes {
			if name == slotPrefix+slot {
				continue
			}
			n, v := fmt.Sprintf("#p%d", i), fmt.Sprintf(":p%d", i)
			names[n], values[v] = name, attrS(old)
			removes = append(removes, n)
			cond += " AND " + n + " = " + v
			i++
		}
		if len(removes) > 0 {
			update += " REMOVE " + strings.Join(removes, ", ")
		}
		if st.Characters <= st.Limit { // a charge over the limit on its own can never fit
			out, err := s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
				TableName:                 aws.String(s.t.Usage),
				Key:                       usageKey(st.Pass.Account, st.Pass.Month),
				UpdateExpression:          aws.String(update),
				ConditionExpression:       aws.String(cond),
				ExpressionAttributeNames:  names,
				ExpressionAttributeValues: values,
				ReturnValues:              types.ReturnValueUpdatedNew,
			})
			if err == nil {
				d := decoder{item: out.Attributes}
				u := store.Usage{Characters: d.num(attrCharacters), Runs: d.num(attrRuns)}
				if d.err != nil {
					return store.Usage{}, 0, fmt.Errorf("charge: %w", d.err)
				}
				return u, charged, nil
			}
			if !conditionFailed(err) {
				return store.Usage{}, 0, fmt.Errorf("charge: %w", err)
			}
		}
		item, err := s.readMeter(ctx, st.Pass.Account, st.Pass.Month)
		if err != nil {
			return store.Usage{}, 0, fmt.Errorf("charge: %w", err)
		}
		d := decoder{item: item}
		held := d.str(slotPrefix + slot)
		u := usageOf(item)
		if d.err != nil {
			return store.Usage{}, 0, fmt.Errorf("charge: %w", d.err)
		}
		switch {
		case held == value:
			return u, alreadyCharged, nil
		case held != admission:
			if st.Idem != nil { // a fence, or a slot removed as stale: the key was taken over
				return u, fenced, nil
			}
			return store.Usage{}, 0, fmt.Errorf("charge: the writer slot holds %q, not this pass's admission", held)
		case u.Characters+st.Characters > st.Limit || st.Characters > st.Limit:
			return u, refused, nil
		}
		prunes = nil // a stale slot changed meanwhile: charge again without removals
	}
	return store.Usage{}, 0, errors.New("charge: refused twice with the allowance free")
}
