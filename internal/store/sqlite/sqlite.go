// Package sqlite implements the store ports on an embedded SQLite database (pure Go,
// modernc.org/sqlite). It is the store of the local server and of the operator tools.
//
// Several processes may share one database file: the database runs in WAL mode, every write
// transaction begins IMMEDIATE (it takes the write lock before it reads, so its reads cannot go
// stale), waits for the lock up to a busy timeout, and every guarded change (rate window,
// allowance, idempotency claim) is decided by SQL inside that one transaction, never by a value
// read earlier. Within one process, writes go through a single connection and reads through a
// small pool of read-only connections.
//
// Times are stored as Unix milliseconds, UTC.
package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/sluice-api/sluice/internal/store"
)

var _ store.Store = (*Store)(nil)

const (
	// schemaVersion is stored in PRAGMA user_version: the number of migrations applied.
	schemaVersion = 3
	// busyTimeout is how long a connection waits for another connection's lock.
	busyTimeout = 10 * time.Second
	// readConns bounds the pool of read-only connections.
	readConns = 4
	// rateWindowKeep is how far behind the newest window old rate windows are kept before they
	// may be pruned. It is far longer than a window so that callers whose clocks lag a little
	// never find their window pruned.
	rateWindowKeep = time.Hour
)

// Store is the SQLite store. It is safe for concurrent use, and several Stores (in one process
// or in several) may share one database file.
type Store struct {
	w *pool // one connection; write transactions begin IMMEDIATE
	r *pool // read-only connections
}

// Open opens (creating when missing) the database file at path and brings its schema up to
// date. path must be a file name: an in-memory database cannot be shared between the read and
// the write connections.
func Open(path string) (*Store, error) {
	if path == "" || path == ":memory:" || strings.HasPrefix(path, "file:") || strings.ContainsRune(path, '?') {
		return nil, fmt.Errorf("sqlite: open %q: want a plain file path", path)
	}
	if err := private(path); err != nil {
		return nil, fmt.Errorf("sqlite: open %q: %w", path, err)
	}
	pragmas := url.Values{}
	pragmas.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", busyTimeout.Milliseconds()))
	pragmas.Add("_pragma", "foreign_keys(1)")
	pragmas.Add("_pragma", "synchronous(NORMAL)")

	wq := url.Values{"_pragma": append([]string{"journal_mode(WAL)"}, pragmas["_pragma"]...)}
	wq.Set("_txlock", "immediate")
	w, err := sql.Open("sqlite", path+"?"+wq.Encode())
	if err != nil {
		return nil, fmt.Errorf("sqlite: open %q: %w", path, err)
	}
	w.SetMaxOpenConns(1)
	w.SetMaxIdleConns(1)
	w.SetConnMaxLifetime(0)
	w.SetConnMaxIdleTime(0)
	if err := migrate(w); err != nil {
		w.Close()
		return nil, fmt.Errorf("sqlite: open %q: %w", path, err)
	}

	rq := url.Values{"_pragma": append(pragmas["_pragma"], "query_only(1)")}
	r, err := sql.Open("sqlite", path+"?"+rq.Encode())
	if err != nil {
		w.Close()
		return nil, fmt.Errorf("sqlite: open %q: %w", path, err)
	}
	r.SetMaxOpenConns(readConns)
	r.SetMaxIdleConns(readConns)
	if err := r.Ping(); err != nil {
		w.Close()
		r.Close()
		return nil, fmt.Errorf("sqlite: open %q: %w", path, err)
	}
	return &Store{w: newPool(w), r: newPool(r)}, nil
}

// private makes sure the database file exists and only its owner can read or write it (0600):
// it holds account ids, key hashes and usage. SQLite gives the -wal and -shm files it creates
// beside it the database file's permissions.
func private(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if fi.Mode().Perm()&0o077 != 0 {
		if err := f.Chmod(0o600); err != nil {
			return fmt.Errorf("make the database private: %w", err)
		}
	}
	return nil
}

// Close closes the database connections.
func (s *Store) Close() error {
	return errors.Join(s.r.Close(), s.w.Close())
}

// migrations[i] brings a database from version i to version i+1. Only ever append.
var migrations = [][]string{schema, dashboardSchema, meterSchema}

// meterSchema puts each account's rate window on its month's usage row (Meter.Enter). The
// rate_windows table stays for the windows counted under other keys (failed sign-ins).
var meterSchema = []string{
	`ALTER TABLE usage ADD COLUMN window_start INTEGER NOT NULL DEFAULT 0`,
	`ALTER TABLE usage ADD COLUMN window_count INTEGER NOT NULL DEFAULT 0`,
}

var schema = []string{
	`CREATE TABLE IF NOT EXISTS accounts (
		id             TEXT PRIMARY KEY,
		region         TEXT NOT NULL,
		tier           TEXT NOT NULL,
		rate_limit     INTEGER NOT NULL,
		allowance      INTEGER NOT NULL,
		disabled       INTEGER NOT NULL,
		usage_plan_key TEXT NOT NULL,
		created_at     INTEGER NOT NULL
	)`,
	`CREATE TABLE IF NOT EXISTS api_keys (
		id         TEXT PRIMARY KEY,
		account    TEXT NOT NULL REFERENCES accounts(id),
		hash       TEXT NOT NULL UNIQUE,
		prefix     TEXT NOT NULL,
		last4      TEXT NOT NULL,
		created_at INTEGER NOT NULL,
		revoked_at INTEGER
	)`,
	`CREATE INDEX IF NOT EXISTS api_keys_by_account ON api_keys(account, created_at, id)`,
	`CREATE TABLE IF NOT EXISTS rate_windows (
		account      TEXT NOT NULL,
		window_start INTEGER NOT NULL,
		count        INTEGER NOT NULL,
		PRIMARY KEY (account, window_start)
	) WITHOUT ROWID`,
	`CREATE TABLE IF NOT EXISTS usage (
		account    TEXT NOT NULL,
		month      TEXT NOT NULL,
		characters INTEGER NOT NULL,
		runs       INTEGER NOT NULL,
		PRIMARY KEY (account, month)
	) WITHOUT ROWID`,
	`CREATE TABLE IF NOT EXISTS idempotency (
		account       TEXT NOT NULL,
		key           TEXT NOT NULL,
		fingerprint   TEXT NOT NULL,
		state         TEXT NOT NULL CHECK (state IN ('in_flight', 'done')),
		lease         TEXT NOT NULL,
		trace_id      TEXT NOT NULL,
		lease_expires INTEGER NOT NULL,
		expires       INTEGER NOT NULL,
		PRIMARY KEY (account, key)
	)`,
	`CREATE INDEX IF NOT EXISTS idempotency_by_expires ON idempotency(expires)`,
}

// migrate applies the migrations the database lacks and refuses a database written by a newer
// version. It runs in one IMMEDIATE transaction, so processes opening one file at once agree.
func migrate(db *sql.DB) error {
	tx, err := db.Begin()
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	defer tx.Rollback()
	var v int
	if err := tx.QueryRow(`PRAGMA user_version`).Scan(&v); err != nil {
		return fmt.Errorf("migrate: read version: %w", err)
	}
	switch {
	case v == schemaVersion:
		return nil
	case v > schemaVersion:
		return fmt.Errorf("migrate: database schema version %d is newer than this program's %d", v, schemaVersion)
	}
	for i := v; i < schemaVersion; i++ {
		for _, q := range migrations[i] {
			if _, err := tx.Exec(q); err != nil {
				return fmt.Errorf("migrate to version %d: %w", i+1, err)
			}
		}
	}
	if _, err := tx.Exec(fmt.Sprintf(`PRAGMA user_version = %d`, schemaVersion)); err != nil {
		return fmt.Errorf("migrate: set version: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("migrate: commit: %w", err)
	}
	return nil
}

// withTx runs fn in a write transaction (IMMEDIATE) and commits when fn returns nil.
func (s *Store) withTx(ctx context.Context, fn func(tx *txn) error) error {
	tx, err := s.w.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	t := &txn{tx: tx, p: s.w}
	defer func() {
		tx.Rollback()
		s.w.prepareAll(context.WithoutCancel(ctx), t.missing)
	}()
	if err := fn(t); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}

// sqliteCode returns the extended result code of a SQLite error, or 0.
func sqliteCode(err error) int {
	var se *sqlite.Error
	if errors.As(err, &se) {
		return se.Code()
	}
	return 0
}

// mapConstraint turns unique and foreign-key violations into the store's errors.
func mapConstraint(err error) error {
	switch sqliteCode(err) {
	case sqlite3.SQLITE_CONSTRAINT_UNIQUE, sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY:
		return fmt.Errorf("%w (%v)", store.ErrExists, err)
	case sqlite3.SQLITE_CONSTRAINT_FOREIGNKEY:
		return fmt.Errorf("%w: no such account (%v)", store.ErrNotFound, err)
	}
	return err
}

func ms(t time.Time) int64 { return t.UnixMilli() }

func fromMS(v int64) time.Time { return time.UnixMilli(v).UTC() }

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
