package dynamo

// The RateWindows port: per-key counters in fixed windows, one item per window of the
// rate_windows table.

import (
	"context"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

const (
	// rateWindowTTL is how long after its start a rate window item may be deleted by TTL: far
	// longer than the one-minute window, so callers whose clocks lag a little never lose theirs.
	rateWindowTTL = 5 * time.Minute
	// hitPrefix + a random token names the marker attribute of one hit on a rate window item.
	hitPrefix = "hit:"

	attrCount = "count"
)

func windowKey(account string, start time.Time) map[string]types.AttributeValue {
	return itemKey(account, attrN(ms(start)))
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
