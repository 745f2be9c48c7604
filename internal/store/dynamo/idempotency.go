package dynamo

// The Idempotency port: one record per account and key in the idempotency table, and the
// takeover of a record whose run stopped (its fence on the meter item).

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/sluice-api/sluice/internal/store"
)

const (
	// maxClaimAttempts bounds Claim's read-decide-write loop; each lost race means another
	// claimer changed the record, so a few attempts always settle it.
	maxClaimAttempts = 8

	// stateSettling marks an idempotency record whose run is being charged (Settle step 1).
	// Outside the package it reads as store.IdemInFlight.
	stateSettling = "settling"

	// pendingPrefix + lease (a settlement with an idempotency key) or + trace id (one without)
	// names the marker attribute of a charge on the usage item.
	pendingPrefix = "pending:"
	// markCharged: the lease's run was charged in this month.
	markCharged = "charged"
	// markFenced: the lease was taken over by a claimer and may never charge.
	markFenced = "fenced"

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
	attrAdmission   = "adm"
)

func idemKey(account, key string) map[string]types.AttributeValue {
	return itemKey(account, attrS(key))
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
	// adm is the admission value the run's Enter wrote into the slot: its charge and a fence
	// both replace exactly this value. Absent on records written before shared slot names,
	// whose slots no other request ever writes.
	adm string
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
	if r.slot != "" {
		rec.Ref = r.month + " " + r.slot + " " + r.adm
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
		adm:         d.str(attrAdmission),
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
// charges by replacing its admission value in its writer slot on the meter item with
// "k|<lease>|..."; Claim fences by replacing the same admission value with "f|<lease>|...", and
// exactly one of the two conditional writes on the one item wins (fenceSlot). Fenced: the old
// run can never charge (its Settle requires its admission value in the slot); c takes the
// record over. Charged: the record is completed as the old run's (done, its trace) and
// returned, so the retry is a duplicate. A record of the store before the meter (no slot) is
// taken over at once: the old Settle's first step required the lease, which the takeover
// changes.
func (s *Store) takeOver(ctx context.Context, c store.Claim, cur idemItem) (existing *store.IdemRecord, won bool, err error) {
	lease := cur.rec.Lease
	ours := condition{
		expr:   "#st = :inflight AND #lease = :old",
		names:  map[string]string{"#st": attrState, "#lease": attrLease},
		values: map[string]types.AttributeValue{":inflight": attrS(store.IdemInFlight), ":old": attrS(lease)},
	}
	if cur.slot != "" {
		charged, err := s.fenceSlot(ctx, c.Account, cur, ms(c.Now))
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

// fenceSlot fences the run of the in-flight record r on its meter item and reports whether
// that run was charged instead. The fence replaces the run's own admission value r.adm with
// "f|<lease>|<now>": a fence is on the value, never on the slot's name, so it never overwrites
// a slot another request took since. When it is refused the slot no longer holds the
// admission: it holds the run's charge (charged), or it was taken by another Store after the
// charge's proof was moved to its own item (charged: hasProof), or it was fenced, removed as
// stale or taken without ever holding the charge (not charged, and the run can never charge).
// Records of the store before shared slot names (no adm) are fenced on the slot's name, which
// no other request ever writes: unless it holds the run's keyed charge.
func (s *Store) fenceSlot(ctx context.Context, account string, r idemItem, nowMS int64) (charged bool, err error) {
	lease := r.rec.Lease
	names := map[string]string{"#slot": slotPrefix + r.slot}
	values := map[string]types.AttributeValue{":f": attrS(slotValue(kindFence, lease, nowMS))}
	cond := "#slot = :adm"
	if r.adm == "" {
		cond = "attribute_not_exists(#slot) OR NOT begins_with(#slot, :charge)"
		values[":charge"] = attrS(kindKeyed + "|" + lease + "|")
	} else {
		values[":adm"] = attrS(r.adm)
	}
	_, err = s.meterWrite(ctx, account, r.month, "SET #slot = :f", cond, names, values)
	switch {
	case err == nil:
		return false, nil
	case !errors.Is(err, errRefused):
		return false, fmt.Errorf("fence lease %q: %w", lease, err)
	case r.adm == "":
		return true, nil
	}
	charged, err = s.chargeHolds(ctx, account, r)
	if err != nil {
		return false, fmt.Errorf("fence lease %q: %w", lease, err)
	}
	return charged, nil
}

// chargeHolds reports whether the run of the record r was charged: its slot holds its keyed
// charge, or (the slot was taken since) the charge's proof exists. One read when the slot
// holds the charge or the admission; two when it holds anything else.
func (s *Store) chargeHolds(ctx context.Context, account string, r idemItem) (bool, error) {
	out, err := s.db.GetItem(ctx, &dynamodb.GetItemInput{
		TableName:                aws.String(s.t.Usage),
		Key:                      usageKey(account, r.month),
		ConsistentRead:           aws.Bool(true),
		ProjectionExpression:     aws.String("#slot"),
		ExpressionAttributeNames: map[string]string{"#slot": slotPrefix + r.slot},
	})
	if err != nil {
		return false, fmt.Errorf("read slot: %w", err)
	}
	d := decoder{item: out.Item}
	held := d.str(slotPrefix + r.slot)
	if d.err != nil {
		return false, fmt.Errorf("read slot: %w", d.err)
	}
	kind, lease, _, _ := parseSlot(held)
	switch {
	case kind == kindKeyed && lease == r.rec.Lease:
		return true, nil
	case r.adm != "" && held == r.adm, r.adm == "":
		return false, nil // still admitted (or a record of the store before shared slots)
	}
	return s.hasProof(ctx, account, r.rec.Lease)
}

// Charged reports whether the run of rec, an in-flight record that Claim returned, has been
// charged though its record is not complete yet: its writer slot on the meter item holds its
// keyed charge (one read), or, when the slot was taken since, the charge's proof exists.
func (s *Store) Charged(ctx context.Context, rec store.IdemRecord) (bool, error) {
	if rec.State != store.IdemInFlight || rec.Ref == "" {
		return false, nil
	}
	parts := strings.SplitN(rec.Ref, " ", 3)
	if len(parts) != 3 || parts[0] == "" || parts[1] == "" {
		return false, fmt.Errorf("dynamo: charged %q: not a record of this store", rec.Key)
	}
	r := idemItem{rec: rec, month: parts[0], slot: parts[1], adm: parts[2]}
	charged, err := s.chargeHolds(ctx, rec.Account, r)
	if err != nil {
		return false, fmt.Errorf("dynamo: charged %q: %w", rec.Key, err)
	}
	return charged, nil
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
	slot, adm, _ := parseRef(c.Pass.Ref)
	setS(item, attrSlot, slot)
	setS(item, attrMonth, c.Pass.Month)
	setS(item, attrAdmission, adm)
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
