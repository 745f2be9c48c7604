package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/sluice-api/sluice/internal/store"
)

// CreateAccount stores a and its first key in one transaction. first.Account may be empty (it
// is set to a.ID); any other value than a.ID is an error. A repeat of a call that succeeded
// (the account and its first key are there, as created) succeeds and changes nothing.
func (s *Store) CreateAccount(ctx context.Context, a store.Account, first store.Key) error {
	if first.Account == "" {
		first.Account = a.ID
	}
	if first.Account != a.ID {
		return fmt.Errorf("sqlite: create account %q: first key belongs to account %q", a.ID, first.Account)
	}
	err := s.withTx(ctx, func(tx *txn) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO accounts
			(id, region, tier, rate_limit, allowance, disabled, usage_plan_key, created_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
			a.ID, a.Region, a.Tier, a.RateLimit, a.Allowance, boolInt(a.Disabled), a.UsagePlanKey, ms(a.CreatedAt))
		if err != nil {
			return mapConstraint(err)
		}
		return insertKey(ctx, tx, first)
	})
	if errors.Is(err, store.ErrExists) {
		var created int64
		qerr := s.r.QueryRowContext(ctx, `SELECT created_at FROM accounts WHERE id = ?`, a.ID).Scan(&created)
		if qerr == nil && created == ms(a.CreatedAt) && s.hasKey(ctx, first) {
			return nil
		}
	}
	if err != nil {
		return fmt.Errorf("sqlite: create account %q: %w", a.ID, err)
	}
	return nil
}

// hasKey reports whether the key with k's id is k: the same account, hash and creation time.
func (s *Store) hasKey(ctx context.Context, k store.Key) bool {
	var account, hash string
	var created int64
	err := s.r.QueryRowContext(ctx, `SELECT account, hash, created_at FROM api_keys WHERE id = ?`, k.ID).
		Scan(&account, &hash, &created)
	return err == nil && account == k.Account && hash == k.Hash && created == ms(k.CreatedAt)
}

// GetAccount returns the account with id, or ErrNotFound.
func (s *Store) GetAccount(ctx context.Context, id string) (store.Account, error) {
	a := store.Account{ID: id}
	var disabled, created int64
	err := s.r.QueryRowContext(ctx, `SELECT region, tier, rate_limit, allowance, disabled, usage_plan_key, created_at
		FROM accounts WHERE id = ?`, id).
		Scan(&a.Region, &a.Tier, &a.RateLimit, &a.Allowance, &disabled, &a.UsagePlanKey, &created)
	if errors.Is(err, sql.ErrNoRows) {
		return store.Account{}, fmt.Errorf("sqlite: get account %q: %w", id, store.ErrNotFound)
	}
	if err != nil {
		return store.Account{}, fmt.Errorf("sqlite: get account %q: %w", id, err)
	}
	a.Disabled = disabled != 0
	a.CreatedAt = fromMS(created)
	return a, nil
}

// UpdateAccount replaces the settings of an existing account (region, tier, rate limit,
// allowance, disabled, usage plan key); CreatedAt is kept. ErrNotFound when there is no such
// account.
func (s *Store) UpdateAccount(ctx context.Context, a store.Account) error {
	res, err := s.w.ExecContext(ctx, `UPDATE accounts
		SET region = ?, tier = ?, rate_limit = ?, allowance = ?, disabled = ?, usage_plan_key = ?
		WHERE id = ?`,
		a.Region, a.Tier, a.RateLimit, a.Allowance, boolInt(a.Disabled), a.UsagePlanKey, a.ID)
	if err != nil {
		return fmt.Errorf("sqlite: update account %q: %w", a.ID, err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("sqlite: update account %q: %w", a.ID, err)
	} else if n == 0 {
		return fmt.Errorf("sqlite: update account %q: %w", a.ID, store.ErrNotFound)
	}
	return nil
}

// HasAccounts reports whether any account exists.
func (s *Store) HasAccounts(ctx context.Context) (bool, error) {
	var ok bool
	if err := s.r.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM accounts)`).Scan(&ok); err != nil {
		return false, fmt.Errorf("sqlite: has accounts: %w", err)
	}
	return ok, nil
}

// AddKey stores another key for an existing account: ErrNotFound when the account does not
// exist, ErrExists when a key with that id or hash does, unless it is k itself (a repeat).
func (s *Store) AddKey(ctx context.Context, k store.Key) error {
	if err := insertKey(ctx, s.w, k); err != nil {
		if errors.Is(err, store.ErrExists) && s.hasKey(ctx, k) {
			return nil
		}
		return fmt.Errorf("sqlite: add key %q: %w", k.ID, err)
	}
	return nil
}

// KeyByHash returns the key (active or revoked) whose hash is hash, or ErrNotFound.
func (s *Store) KeyByHash(ctx context.Context, hash string) (store.Key, error) {
	k, err := scanKey(s.r.QueryRowContext(ctx, `SELECT `+keyColumns+` FROM api_keys WHERE hash = ?`, hash))
	if errors.Is(err, sql.ErrNoRows) {
		return store.Key{}, fmt.Errorf("sqlite: key by hash: %w", store.ErrNotFound)
	}
	if err != nil {
		return store.Key{}, fmt.Errorf("sqlite: key by hash: %w", err)
	}
	return k, nil
}

// KeyAccount returns the key with hash and its account, in one query.
func (s *Store) KeyAccount(ctx context.Context, hash string) (store.Key, store.Account, error) {
	var a store.Account
	var disabled, created int64
	row := s.r.QueryRowContext(ctx, `SELECT k.id, k.account, k.hash, k.prefix, k.last4, k.created_at, k.revoked_at,
		COALESCE(k.last_used, ''), a.region, a.tier, a.rate_limit, a.allowance, a.disabled, a.usage_plan_key, a.created_at
		FROM api_keys k JOIN accounts a ON a.id = k.account WHERE k.hash = ?`, hash)
	k, err := scanKey(multiScanner{row, []any{&a.Region, &a.Tier, &a.RateLimit, &a.Allowance, &disabled, &a.UsagePlanKey, &created}})
	if errors.Is(err, sql.ErrNoRows) {
		return store.Key{}, store.Account{}, fmt.Errorf("sqlite: key account: %w", store.ErrNotFound)
	}
	if err != nil {
		return store.Key{}, store.Account{}, fmt.Errorf("sqlite: key account: %w", err)
	}
	a.ID, a.Disabled, a.CreatedAt = k.Account, disabled != 0, fromMS(created)
	return k, a, nil
}

// multiScanner scans a row whose first columns scanKey reads, and more after them.
type multiScanner struct {
	row  scanner
	more []any
}

func (m multiScanner) Scan(dest ...any) error { return m.row.Scan(append(dest, m.more...)...) }

// ListKeys returns every key of account, oldest first; none (and no error) for an unknown
// account.
func (s *Store) ListKeys(ctx context.Context, account string) ([]store.Key, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT `+keyColumns+` FROM api_keys
		WHERE account = ? ORDER BY created_at, id`, account)
	if err != nil {
		return nil, fmt.Errorf("sqlite: list keys of %q: %w", account, err)
	}
	defer rows.Close()
	var keys []store.Key
	for rows.Next() {
		k, err := scanKey(rows)
		if err != nil {
			return nil, fmt.Errorf("sqlite: list keys of %q: %w", account, err)
		}
		keys = append(keys, k)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: list keys of %q: %w", account, err)
	}
	return keys, nil
}

// RevokeKey marks a key revoked at at; a revoked key keeps its first revocation time.
// ErrNotFound when there is no such key.
func (s *Store) RevokeKey(ctx context.Context, keyID string, at time.Time) error {
	if at.IsZero() {
		return fmt.Errorf("sqlite: revoke key %q: zero revocation time", keyID)
	}
	// SQLite counts a matched row as changed even when COALESCE keeps its value, so zero rows
	// means no such key.
	res, err := s.w.ExecContext(ctx, `UPDATE api_keys SET revoked_at = COALESCE(revoked_at, ?) WHERE id = ?`,
		ms(at), keyID)
	if err != nil {
		return fmt.Errorf("sqlite: revoke key %q: %w", keyID, err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("sqlite: revoke key %q: %w", keyID, err)
	} else if n == 0 {
		return fmt.Errorf("sqlite: revoke key %q: %w", keyID, store.ErrNotFound)
	}
	return nil
}

// RotateKey stores k and revokes, at at, every other active key of k.Account, in one
// transaction.
func (s *Store) RotateKey(ctx context.Context, k store.Key, at time.Time) error {
	if at.IsZero() {
		return fmt.Errorf("sqlite: rotate key of %q: zero revocation time", k.Account)
	}
	err := s.withTx(ctx, func(tx *txn) error {
		if err := insertKey(ctx, tx, k); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `UPDATE api_keys SET revoked_at = ?
			WHERE account = ? AND id <> ? AND revoked_at IS NULL`, ms(at), k.Account, k.ID)
		return err
	})
	if err != nil {
		return fmt.Errorf("sqlite: rotate key of %q: %w", k.Account, err)
	}
	return nil
}

type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

func insertKey(ctx context.Context, db execer, k store.Key) error {
	var revoked sql.NullInt64
	if !k.RevokedAt.IsZero() {
		revoked = sql.NullInt64{Int64: ms(k.RevokedAt), Valid: true}
	}
	_, err := db.ExecContext(ctx, `INSERT INTO api_keys (id, account, hash, prefix, last4, created_at, revoked_at)
		VALUES (?, ?, ?, ?, ?, ?, ?)`,
		k.ID, k.Account, k.Hash, k.Prefix, k.Last4, ms(k.CreatedAt), revoked)
	return mapConstraint(err)
}

const keyColumns = `id, account, hash, prefix, last4, created_at, revoked_at, COALESCE(last_used, '')`

type scanner interface{ Scan(dest ...any) error }

func scanKey(row scanner) (store.Key, error) {
	var k store.Key
	var created int64
	var revoked sql.NullInt64
	if err := row.Scan(&k.ID, &k.Account, &k.Hash, &k.Prefix, &k.Last4, &created, &revoked, &k.LastUsed); err != nil {
		return store.Key{}, err
	}
	k.CreatedAt = fromMS(created)
	if revoked.Valid {
		k.RevokedAt = fromMS(revoked.Int64)
	}
	return k, nil
}
