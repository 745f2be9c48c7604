package sqlite

// The Ledger port: the month's usage row, charged by Settle.

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/sluice-api/sluice/internal/store"
)

// Usage returns account's usage in month; zero when nothing was charged.
func (s *Store) Usage(ctx context.Context, account, month string) (store.Usage, error) {
	var u store.Usage
	err := s.r.QueryRowContext(ctx, `SELECT characters, runs FROM usage WHERE account = ? AND month = ?`,
		account, month).Scan(&u.Characters, &u.Runs)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return store.Usage{}, fmt.Errorf("sqlite: usage: %w", err)
	}
	return u, nil
}

// Settle charges s and completes s.Idem in one IMMEDIATE transaction. The charge is one upsert
// guarded by characters + s.Characters <= s.Limit, so the allowance holds across processes.
// The lease of s.Idem is checked first: a lost lease charges nothing.
func (s *Store) Settle(ctx context.Context, st store.Settlement) (store.Usage, bool, error) {
	if st.Characters < 0 {
		return store.Usage{}, false, fmt.Errorf("sqlite: settle: negative characters %d", st.Characters)
	}
	if err := store.ValidDay(st.Day); err != nil {
		return store.Usage{}, false, fmt.Errorf("sqlite: settle: %w", err)
	}
	acct, month := st.Pass.Account, st.Pass.Month
	var after store.Usage
	var admitted bool
	err := s.withTx(ctx, func(tx *txn) error {
		if st.Idem != nil {
			var held bool
			err := tx.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM idempotency
				WHERE account = ? AND key = ? AND lease = ? AND state = ?)`,
				acct, st.Idem.Key, st.Idem.Lease, store.IdemInFlight).Scan(&held)
			if err != nil {
				return err
			}
			if !held {
				return store.ErrLeaseLost
			}
		}
		err := tx.QueryRowContext(ctx, `INSERT INTO usage (account, month, characters, runs)
			SELECT ?1, ?2, ?3, 1 WHERE ?3 <= ?4
			ON CONFLICT (account, month) DO UPDATE
				SET characters = characters + excluded.characters, runs = runs + 1
				WHERE characters + excluded.characters <= ?4
			RETURNING characters, runs`, acct, month, st.Characters, st.Limit).
			Scan(&after.Characters, &after.Runs)
		if errors.Is(err, sql.ErrNoRows) {
			// Refused: nothing changed; report the usage as it stands.
			err = tx.QueryRowContext(ctx, `SELECT characters, runs FROM usage WHERE account = ? AND month = ?`,
				acct, month).Scan(&after.Characters, &after.Runs)
			if err != nil && !errors.Is(err, sql.ErrNoRows) {
				return err
			}
			return nil
		}
		if err != nil {
			return err
		}
		admitted = true
		if err := addDay(ctx, tx, st); err != nil {
			return err
		}
		if st.Idem != nil {
			_, err := tx.ExecContext(ctx, `UPDATE idempotency SET state = ?, trace_id = COALESCE(NULLIF(?, ''), trace_id)
				WHERE account = ? AND key = ? AND lease = ?`,
				store.IdemDone, st.Idem.TraceID, acct, st.Idem.Key, st.Idem.Lease)
			if err != nil {
				return fmt.Errorf("complete idempotency record: %w", err)
			}
		}
		return nil
	})
	if err != nil {
		return store.Usage{}, false, fmt.Errorf("sqlite: settle: %w", err)
	}
	return after, admitted, nil
}
