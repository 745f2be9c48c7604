package sqlite

// The Meter port: the rate window on the month's usage row (Enter, Leave).

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/sluice-api/sluice/internal/store"
)

// Enter counts one request in the account's window, kept on its month's usage row, in one
// upsert: the stored window is the same (count it, below the limit), older (start e.Window's
// with this request), or newer (a lagging clock: count it there).
func (s *Store) Enter(ctx context.Context, e store.Entry) (store.Pass, error) {
	p := store.Pass{Account: e.Account, Month: e.Month}
	if e.Limit <= 0 {
		u, err := s.Usage(ctx, e.Account, e.Month)
		p.Usage = u
		return p, err
	}
	w := ms(e.Window)
	err := s.w.QueryRowContext(ctx, `INSERT INTO usage (account, month, characters, runs, window_start, window_count)
		VALUES (?1, ?2, 0, 0, ?3, 1)
		ON CONFLICT (account, month) DO UPDATE SET
			window_count = CASE WHEN window_start >= ?3 THEN window_count + 1 ELSE 1 END,
			window_start = MAX(window_start, ?3)
			WHERE window_start < ?3 OR window_count < ?4
		RETURNING characters, runs, window_count`, e.Account, e.Month, w, e.Limit).
		Scan(&p.Usage.Characters, &p.Usage.Runs, &p.Count)
	switch {
	case err == nil:
		p.Admitted = true
		return p, nil
	case !errors.Is(err, sql.ErrNoRows):
		return store.Pass{}, fmt.Errorf("sqlite: enter: %w", err)
	}
	// Refused: the window is full; report it as it stands.
	err = s.r.QueryRowContext(ctx, `SELECT characters, runs, window_count FROM usage WHERE account = ? AND month = ?`,
		e.Account, e.Month).Scan(&p.Usage.Characters, &p.Usage.Runs, &p.Count)
	if err != nil {
		return store.Pass{}, fmt.Errorf("sqlite: enter: %w", err)
	}
	return p, nil
}

// Leave does nothing: a pass holds nothing in this store.
func (s *Store) Leave(store.Pass) {}
