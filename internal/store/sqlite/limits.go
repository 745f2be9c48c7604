package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/sluice-api/sluice/internal/store"
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

// Claim creates an in-flight record for c unless a live record exists, which it returns. The
// read and the write happen in one IMMEDIATE transaction, so concurrent claims, also from other
// processes, have exactly one winner.
func (s *Store) Claim(ctx context.Context, c store.Claim) (*store.IdemRecord, error) {
	now := ms(c.Now)
	var existing *store.IdemRecord
	err := s.withTx(ctx, func(tx *txn) error {
		r := store.IdemRecord{Account: c.Account, Key: c.Key}
		var leaseExp, exp int64
		err := tx.QueryRowContext(ctx, `SELECT fingerprint, state, lease, trace_id, lease_expires, expires
			FROM idempotency WHERE account = ? AND key = ?`, c.Account, c.Key).
			Scan(&r.Fingerprint, &r.State, &r.Lease, &r.TraceID, &leaseExp, &exp)
		switch {
		case err == nil:
			live := now < exp && (r.State == store.IdemDone || now < leaseExp)
			if live {
				r.LeaseExpires, r.Expires = fromMS(leaseExp), fromMS(exp)
				existing = &r
				return nil
			}
		case !errors.Is(err, sql.ErrNoRows):
			return err
		default:
			// A new key: prune records that are absent anyway. Expired rows are ignored by
			// every read, so this only keeps the table small.
			if _, err := tx.ExecContext(ctx, `DELETE FROM idempotency WHERE expires <= ?`, now); err != nil {
				return fmt.Errorf("prune: %w", err)
			}
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO idempotency
			(account, key, fingerprint, state, lease, trace_id, lease_expires, expires)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (account, key) DO UPDATE SET
				fingerprint = excluded.fingerprint, state = excluded.state, lease = excluded.lease,
				trace_id = excluded.trace_id, lease_expires = excluded.lease_expires, expires = excluded.expires`,
			c.Account, c.Key, c.Fingerprint, store.IdemInFlight, c.Lease, c.TraceID,
			ms(c.Now.Add(c.LeaseTTL)), ms(c.Now.Add(c.TTL)))
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("sqlite: claim %q: %w", c.Key, err)
	}
	return existing, nil
}

// Release deletes the in-flight record of account and key held by lease; anything else is left
// alone.
func (s *Store) Release(ctx context.Context, account, key, lease string) error {
	_, err := s.w.ExecContext(ctx, `DELETE FROM idempotency
		WHERE account = ? AND key = ? AND lease = ? AND state = ?`, account, key, lease, store.IdemInFlight)
	if err != nil {
		return fmt.Errorf("sqlite: release %q: %w", key, err)
	}
	return nil
}

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
