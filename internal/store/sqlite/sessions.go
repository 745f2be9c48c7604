package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/sluice-api/sluice/internal/store"
)

// dashboardSchema is migration 2: the dashboard's sign-in links and sessions, the day each key
// was last used, and characters per day beside each month's usage.
var dashboardSchema = []string{
	`CREATE TABLE IF NOT EXISTS usage_days (
		account    TEXT NOT NULL,
		month      TEXT NOT NULL,
		day        INTEGER NOT NULL CHECK (day BETWEEN 1 AND 31),
		characters INTEGER NOT NULL,
		PRIMARY KEY (account, month, day)
	) WITHOUT ROWID`,
	`CREATE TABLE IF NOT EXISTS signin_links (
		hash       TEXT PRIMARY KEY,
		account    TEXT NOT NULL,
		created_at INTEGER NOT NULL,
		expires    INTEGER NOT NULL,
		used_by    TEXT
	)`,
	`CREATE INDEX IF NOT EXISTS signin_links_by_expires ON signin_links(expires)`,
	`CREATE TABLE IF NOT EXISTS sessions (
		hash       TEXT PRIMARY KEY,
		account    TEXT NOT NULL,
		created_at INTEGER NOT NULL,
		expires    INTEGER NOT NULL,
		link       TEXT NOT NULL
	)`,
	`CREATE INDEX IF NOT EXISTS sessions_by_expires ON sessions(expires)`,
	`ALTER TABLE api_keys ADD COLUMN last_used TEXT`,
}

// CreateLink stores a new link (a repeat of the same unused link changes nothing); ErrExists when
// its hash holds anything else. Links and sessions that expired are pruned on the way (reads
// ignore them anyway).
func (s *Store) CreateLink(ctx context.Context, l store.SignInLink) error {
	err := s.withTx(ctx, func(tx *txn) error {
		now := ms(l.CreatedAt)
		if _, err := tx.ExecContext(ctx, `DELETE FROM signin_links WHERE expires <= ?`, now); err != nil {
			return fmt.Errorf("prune links: %w", err)
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM sessions WHERE expires <= ?`, now); err != nil {
			return fmt.Errorf("prune sessions: %w", err)
		}
		res, err := tx.ExecContext(ctx, `INSERT INTO signin_links (hash, account, created_at, expires) VALUES (?, ?, ?, ?)
			ON CONFLICT (hash) DO NOTHING`, l.Hash, l.Account, ms(l.CreatedAt), ms(l.Expires))
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 1 {
			return err
		}
		// The hash exists: only the same link, unused, is a harmless repeat.
		var same bool
		err = tx.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM signin_links WHERE hash = ? AND account = ?
			AND created_at = ? AND expires = ? AND used_by IS NULL)`, l.Hash, l.Account, ms(l.CreatedAt), ms(l.Expires)).Scan(&same)
		if err != nil {
			return err
		}
		if !same {
			return store.ErrExists
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("sqlite: create link: %w", err)
	}
	return nil
}

// Link returns the live link with hash.
func (s *Store) Link(ctx context.Context, hash string, now time.Time) (store.SignInLink, error) {
	l := store.SignInLink{Hash: hash}
	var created, expires int64
	err := s.r.QueryRowContext(ctx, `SELECT account, created_at, expires FROM signin_links
		WHERE hash = ? AND used_by IS NULL AND expires > ?`, hash, ms(now)).Scan(&l.Account, &created, &expires)
	if errors.Is(err, sql.ErrNoRows) {
		return store.SignInLink{}, fmt.Errorf("sqlite: link: %w", store.ErrNotFound)
	}
	if err != nil {
		return store.SignInLink{}, fmt.Errorf("sqlite: link: %w", err)
	}
	l.CreatedAt, l.Expires = fromMS(created), fromMS(expires)
	return l, nil
}

// StartSession marks the link used by sess and stores sess, in one IMMEDIATE transaction. As on
// DynamoDB, a repeat with the same session hash is accepted while the link is unexpired and
// rewrites that same session; nothing else can overwrite a session.
func (s *Store) StartSession(ctx context.Context, linkHash string, sess store.Session, now time.Time) (store.Session, error) {
	err := s.withTx(ctx, func(tx *txn) error {
		var expires int64
		var usedBy sql.NullString
		err := tx.QueryRowContext(ctx, `SELECT account, expires, used_by FROM signin_links WHERE hash = ?`, linkHash).
			Scan(&sess.Account, &expires, &usedBy)
		if errors.Is(err, sql.ErrNoRows) || err == nil && (expires <= ms(now) || usedBy.Valid && usedBy.String != sess.Hash) {
			return store.ErrNotFound
		}
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE signin_links SET used_by = ? WHERE hash = ?`, sess.Hash, linkHash); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, `INSERT INTO sessions (hash, account, created_at, expires, link) VALUES (?, ?, ?, ?, ?)
			ON CONFLICT (hash) DO UPDATE SET account = excluded.account, created_at = excluded.created_at,
				expires = excluded.expires WHERE link = excluded.link`,
			sess.Hash, sess.Account, ms(sess.CreatedAt), ms(sess.Expires), linkHash)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			return store.ErrExists // a session with this hash that another link started
		}
		return nil
	})
	if err != nil {
		return store.Session{}, fmt.Errorf("sqlite: start session: %w", err)
	}
	sess.CreatedAt, sess.Expires = fromMS(ms(sess.CreatedAt)), fromMS(ms(sess.Expires))
	return sess, nil
}

const sessionColumns = `hash, account, created_at, expires`

func scanSession(row scanner) (store.Session, error) {
	var sess store.Session
	var created, expires int64
	if err := row.Scan(&sess.Hash, &sess.Account, &created, &expires); err != nil {
		return store.Session{}, err
	}
	sess.CreatedAt, sess.Expires = fromMS(created), fromMS(expires)
	return sess, nil
}

// Session returns the live session with hash.
func (s *Store) Session(ctx context.Context, hash string, now time.Time) (store.Session, error) {
	sess, err := scanSession(s.r.QueryRowContext(ctx, `SELECT `+sessionColumns+` FROM sessions
		WHERE hash = ? AND expires > ?`, hash, ms(now)))
	if errors.Is(err, sql.ErrNoRows) {
		return store.Session{}, fmt.Errorf("sqlite: session: %w", store.ErrNotFound)
	}
	if err != nil {
		return store.Session{}, fmt.Errorf("sqlite: session: %w", err)
	}
	return sess, nil
}

// TouchSession moves a live session's expiry to expires, never earlier.
func (s *Store) TouchSession(ctx context.Context, hash string, expires, now time.Time) error {
	res, err := s.w.ExecContext(ctx, `UPDATE sessions SET expires = MAX(expires, ?) WHERE hash = ? AND expires > ?`,
		ms(expires), hash, ms(now))
	if err != nil {
		return fmt.Errorf("sqlite: touch session: %w", err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("sqlite: touch session: %w", err)
	} else if n == 0 {
		return fmt.Errorf("sqlite: touch session: %w", store.ErrNotFound)
	}
	return nil
}

// EndSession deletes the session.
func (s *Store) EndSession(ctx context.Context, hash string) error {
	if _, err := s.w.ExecContext(ctx, `DELETE FROM sessions WHERE hash = ?`, hash); err != nil {
		return fmt.Errorf("sqlite: end session: %w", err)
	}
	return nil
}

// MarkKeyUsed records day as the key's last-used day unless it records that day or a later one.
func (s *Store) MarkKeyUsed(ctx context.Context, hash, day string) error {
	_, err := s.w.ExecContext(ctx, `UPDATE api_keys SET last_used = ?1
		WHERE hash = ?2 AND (last_used IS NULL OR last_used < ?1)`, day, hash)
	if err != nil {
		return fmt.Errorf("sqlite: mark key used: %w", err)
	}
	return nil
}
