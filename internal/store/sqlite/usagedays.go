package sqlite

import (
	"context"
	"fmt"

	"github.com/sluice-api/sluice/internal/store"
)

// addDay adds a settlement's characters to its day, inside Settle's transaction: the same
// write (commit) that charges the month.
func addDay(ctx context.Context, tx *txn, st store.Settlement) error {
	if st.Day == 0 {
		return nil
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO usage_days (account, month, day, characters) VALUES (?, ?, ?, ?)
		ON CONFLICT (account, month, day) DO UPDATE SET characters = characters + excluded.characters`,
		st.Pass.Account, st.Pass.Month, st.Day, st.Characters)
	if err != nil {
		return fmt.Errorf("count the day: %w", err)
	}
	return nil
}

// UsageDays returns account's characters per day of month.
func (s *Store) UsageDays(ctx context.Context, account, month string) (store.Days, error) {
	var days store.Days
	rows, err := s.r.QueryContext(ctx, `SELECT day, characters FROM usage_days WHERE account = ? AND month = ?`, account, month)
	if err != nil {
		return days, fmt.Errorf("sqlite: usage days: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var day int
		var chars int64
		if err := rows.Scan(&day, &chars); err != nil {
			return store.Days{}, fmt.Errorf("sqlite: usage days: %w", err)
		}
		if day >= 1 && day <= len(days) {
			days[day-1] = chars
		}
	}
	if err := rows.Err(); err != nil {
		return store.Days{}, fmt.Errorf("sqlite: usage days: %w", err)
	}
	return days, nil
}
