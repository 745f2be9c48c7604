package sqlite

// The RateWindows port: the rate_windows table.

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// Hit counts one request in account's window starting at start unless the window holds limit
// requests already. The admission is one statement: an upsert whose update is guarded by
// count < limit.
func (s *Store) Hit(ctx context.Context, account string, start time.Time, limit int64) (int64, bool, error) {
	var count int64
	err := s.w.QueryRowContext(ctx, `INSERT INTO rate_windows (account, window_start, count)
		SELECT ?1, ?2, 1 WHERE ?3 > 0
		ON CONFLICT (account, window_start) DO UPDATE SET count = count + 1 WHERE count < ?3
		RETURNING count`, account, ms(start), limit).Scan(&count)
	switch {
	case err == nil:
		if count == 1 {
			// First hit of a new window: prune this account's old windows, once per window.
			if _, err := s.w.ExecContext(ctx, `DELETE FROM rate_windows WHERE account = ? AND window_start < ?`,
				account, ms(start.Add(-rateWindowKeep))); err != nil {
				return 0, false, fmt.Errorf("sqlite: hit: prune: %w", err)
			}
		}
		return count, true, nil
	case !errors.Is(err, sql.ErrNoRows):
		return 0, false, fmt.Errorf("sqlite: hit: %w", err)
	}
	// Refused: report the count as it stands.
	err = s.r.QueryRowContext(ctx, `SELECT count FROM rate_windows WHERE account = ? AND window_start = ?`,
		account, ms(start)).Scan(&count)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return 0, false, fmt.Errorf("sqlite: hit: %w", err)
	}
	return count, false, nil
}

// Count returns the count of account's window at start.
func (s *Store) Count(ctx context.Context, account string, start time.Time) (int64, error) {
	var count int64
	err := s.r.QueryRowContext(ctx, `SELECT count FROM rate_windows WHERE account = ? AND window_start = ?`,
		account, ms(start)).Scan(&count)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return 0, fmt.Errorf("sqlite: count: %w", err)
	}
	return count, nil
}
