package sqlite

// The Idempotency port: the idempotency table.

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/sluice-api/sluice/internal/store"
)

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

// Charged is false: Settle charges a run and completes its record in one transaction, so the
// run of an in-flight record was never charged.
func (s *Store) Charged(context.Context, store.IdemRecord) (bool, error) { return false, nil }
