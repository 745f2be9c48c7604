package store

import (
	"context"
	"fmt"
)

// Days is a month's billed characters per UTC day: Days[0] is the 1st, Days[30] the 31st.
type Days [31]int64

// DailyUsage reads the per-day counters that Settle keeps beside each month's usage.
type DailyUsage interface {
	// UsageDays returns account's characters per day of month ("YYYY-MM"); all zero when
	// nothing was charged. Settle adds a run's characters to its day in the same write that
	// charges the month, so the days of a month sum to its characters (runs settled with Day
	// 0 count for the month only).
	UsageDays(ctx context.Context, account, month string) (Days, error)
}

// ValidDay checks a Settlement's Day.
func ValidDay(day int) error {
	if day < 0 || day > len(Days{}) {
		return fmt.Errorf("store: day %d is not a day of a month (1 to 31, or 0 for none)", day)
	}
	return nil
}
