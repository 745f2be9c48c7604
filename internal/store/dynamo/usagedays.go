package dynamo

// Per-day counters live on the month's usage item, as attributes d01 to d31 (characters billed
// on that UTC day). Settle's charge (step 2) ADDs the run's characters to the day's attribute in
// the same conditional UpdateItem that ADDs them to the month and sets the lease's marker, so a
// day is charged exactly when the month is: a retried or repaired settlement that finds its
// marker "charged" adds nothing to either.

import (
	"context"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/sluice-api/sluice/internal/store"
)

// dayAttr names the counter of day (1 to 31) on a usage item.
func dayAttr(day int) string { return fmt.Sprintf("d%02d", day) }

// UsageDays returns account's characters per day of month (one consistent read).
func (s *Store) UsageDays(ctx context.Context, account, month string) (store.Days, error) {
	var days store.Days
	names := make(map[string]string, len(days))
	proj := make([]string, len(days))
	for i := range days {
		ph := fmt.Sprintf("#d%d", i+1)
		names[ph] = dayAttr(i + 1)
		proj[i] = ph
	}
	out, err := s.db.GetItem(ctx, &dynamodb.GetItemInput{
		TableName:                aws.String(s.t.Usage),
		Key:                      usageKey(account, month),
		ConsistentRead:           aws.Bool(true),
		ProjectionExpression:     aws.String(strings.Join(proj, ", ")),
		ExpressionAttributeNames: names,
	})
	if err != nil {
		return store.Days{}, fmt.Errorf("dynamo: usage days: %w", err)
	}
	d := decoder{item: out.Item}
	for i := range days {
		days[i] = d.num(dayAttr(i + 1))
	}
	if d.err != nil {
		return store.Days{}, fmt.Errorf("dynamo: usage days: %w", d.err)
	}
	return days, nil
}
