package dynamo

// The Ledger port: the month's usage on the meter item, charged by Settle.

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
	attrCharacters = "characters"
	attrRuns       = "runs"
)

func usageKey(account, month string) map[string]types.AttributeValue {
	return itemKey(account, attrS(month))
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
// few stale attributes), under the condition that the slot still holds the pass's admission value
// and the allowance holds; then, with a key, one UpdateItem of the record (done, under its
// lease). A refused charge is explained by a consistent read: the slot holds this charge (an
// attempt sent again after a lost answer had charged), a fence or nothing (a claimer took the
// key over: ErrLeaseLost, nothing charged), or the admission value (the allowance, or a stale
// slot that changed: then the charge is sent again without removals). A charge that may have
// been applied and whose record could not be completed returns ErrCharged; the Store gives the
// slot up (its value is the proof a later Claim reads, until another Store takes the slot and
// moves the proof to its own item). After a charge the Store owns the slot with the charge's
// value; after any error, or a fence, it gives the slot up.
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
	ref := st.Pass.Ref
	u, res, err := s.charge(ctx, st, slot, admission)
	if err != nil {
		s.slots.drop(ref)   // the slot's value is unknown
		if st.Idem != nil { // the charge may stand: its proof stays for the next Claim
			return store.Usage{}, false, fmt.Errorf("dynamo: settle %q: %w: %w", st.Idem.Key, store.ErrCharged, err)
		}
		return store.Usage{}, false, fmt.Errorf("dynamo: settle %q: %w", st.TraceID, err)
	}
	switch res {
	case fenced:
		s.slots.drop(ref)
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
			s.slots.drop(ref)
			return store.Usage{}, false, fmt.Errorf("dynamo: settle %q: %w: %w", st.Idem.Key, store.ErrCharged, err)
		}
	}
	s.slots.wrote(ref, chargeValue(st, admission))
	return u, true, nil
}

// chargeValue is the value st's charge writes into its slot.
func chargeValue(st store.Settlement, admission string) string {
	_, _, windowMS, _ := parseSlot(admission)
	if st.Idem != nil {
		return slotValue(kindKeyed, st.Idem.Lease, windowMS)
	}
	return slotValue(kindCharge, st.TraceID, windowMS)
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
	value := chargeValue(st, admission)
	prunes := s.slots.takePrunes(st.Pass.Ref)
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
			names[n], values[v] = name, old
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
