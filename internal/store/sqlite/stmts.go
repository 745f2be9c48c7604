package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"sync"
)

// pool is a database handle that prepares each SQL text once and reuses the prepared statement.
// Parsing and planning a statement cost more than running it: on the API's hot path (the key
// lookup, the rate window, the charge) preparing was a quarter of the CPU time. database/sql
// keeps one prepared copy per connection of the handle and prepares it again on a new one.
type pool struct {
	db *sql.DB

	mu    sync.Mutex // guards stmts
	stmts map[string]*sql.Stmt
}

func newPool(db *sql.DB) *pool { return &pool{db: db, stmts: map[string]*sql.Stmt{}} }

// cached returns the statement prepared for q, if there is one.
func (p *pool) cached(q string) *sql.Stmt {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stmts[q]
}

// prepared returns the statement for q, preparing it the first time. It never holds the lock
// while preparing: preparing needs a connection, and the writer's only connection may belong to
// a transaction that is itself waiting to look a statement up.
func (p *pool) prepared(ctx context.Context, q string) (*sql.Stmt, error) {
	if st := p.cached(q); st != nil {
		return st, nil
	}
	st, err := p.db.PrepareContext(ctx, q)
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if old, ok := p.stmts[q]; ok { // another goroutine prepared it meanwhile
		st.Close()
		return old, nil
	}
	p.stmts[q] = st
	return st, nil
}

// prepareAll prepares the statements a transaction ran unprepared, once its connection is free.
// A statement that fails to prepare is simply run unprepared again next time.
func (p *pool) prepareAll(ctx context.Context, qs []string) {
	for _, q := range qs {
		_, _ = p.prepared(ctx, q)
	}
}

// ExecContext runs q with args through its prepared statement.
func (p *pool) ExecContext(ctx context.Context, q string, args ...any) (sql.Result, error) {
	st, err := p.prepared(ctx, q)
	if err != nil {
		return nil, err
	}
	return st.ExecContext(ctx, args...)
}

// QueryContext runs q with args through its prepared statement.
func (p *pool) QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	st, err := p.prepared(ctx, q)
	if err != nil {
		return nil, err
	}
	return st.QueryContext(ctx, args...)
}

// QueryRowContext runs q with args through its prepared statement. When q cannot be prepared,
// the row carries the error, as database/sql's own QueryRowContext would.
func (p *pool) QueryRowContext(ctx context.Context, q string, args ...any) *sql.Row {
	st, err := p.prepared(ctx, q)
	if err != nil {
		return p.db.QueryRowContext(ctx, q, args...)
	}
	return st.QueryRowContext(ctx, args...)
}

// Close closes the prepared statements and then the handle.
func (p *pool) Close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	var errs []error
	for q, st := range p.stmts {
		errs = append(errs, st.Close())
		delete(p.stmts, q)
	}
	return errors.Join(append(errs, p.db.Close())...)
}

// txn is a write transaction that runs its statements through the pool's prepared statements
// (database/sql reuses the copy already prepared on the transaction's connection). A statement
// not prepared yet runs unprepared and is noted in missing: the transaction holds the writer's
// only connection, so it cannot be prepared until the transaction ends.
type txn struct {
	tx      *sql.Tx
	p       *pool
	missing []string
}

// ExecContext runs q with args inside the transaction.
func (t *txn) ExecContext(ctx context.Context, q string, args ...any) (sql.Result, error) {
	if st := t.p.cached(q); st != nil {
		return t.tx.StmtContext(ctx, st).ExecContext(ctx, args...)
	}
	t.missing = append(t.missing, q)
	return t.tx.ExecContext(ctx, q, args...)
}

// QueryRowContext runs q with args inside the transaction.
func (t *txn) QueryRowContext(ctx context.Context, q string, args ...any) *sql.Row {
	if st := t.p.cached(q); st != nil {
		return t.tx.StmtContext(ctx, st).QueryRowContext(ctx, args...)
	}
	t.missing = append(t.missing, q)
	return t.tx.QueryRowContext(ctx, q, args...)
}
