// Package store defines what Sluice needs from a database: accounts and API keys, per-account
// rate windows, monthly usage counters guarded by the allowance, idempotency records, and the
// dashboard's sign-in links and sessions. The
// ports are plain interfaces; adapters live in sub-packages named after what they wrap
// (store/sqlite) and all pass the one conformance suite in store/storetest.
//
// Stores never read a clock: every call that depends on time takes it as an argument, so the
// conformance suite can move time and callers decide what "now" is.
package store

import (
	"context"
	"errors"
	"time"
)

// Errors adapters return (possibly wrapped).
var (
	// ErrNotFound: no such account or key.
	ErrNotFound = errors.New("store: not found")
	// ErrExists: an account or key with that id or hash exists already.
	ErrExists = errors.New("store: already exists")
	// ErrLeaseLost: an idempotency record is no longer held by the caller's lease.
	ErrLeaseLost = errors.New("store: idempotency lease lost")
)

// Account is a customer account: the billing identity behind its keys.
type Account struct {
	ID        string
	Region    string
	Tier      string
	RateLimit int64 // requests per 60-second window
	Allowance int64 // characters per calendar month
	Disabled  bool
	// UsagePlanKey is the value of the account's API Gateway API key, which the authorizer returns
	// as usageIdentifierKey (AWS only; empty locally). It is not a Sluice key.
	UsagePlanKey string
	CreatedAt    time.Time
}

// Key is a stored API key. The key itself is never stored: only its HMAC.
type Key struct {
	ID        string
	Account   string
	Hash      string // hex HMAC-SHA256(pepper, key)
	Prefix    string // the first characters of the key, for humans
	Last4     string // the last four characters of the key, for humans
	CreatedAt time.Time
	RevokedAt time.Time // zero while the key is active
	// LastUsed is the last day ("YYYY-MM-DD", UTC) the key authenticated a request; "" when it
	// never did. It is recorded at most once a day (KeyUse).
	LastUsed string
}

// Active reports whether the key has not been revoked.
func (k Key) Active() bool { return k.RevokedAt.IsZero() }

// Accounts stores accounts and their keys.
//
// CreateAccount and AddKey may be repeated: a call that repeats one that succeeded (the same
// account id and first key, or the same key id, hash and account), such as a retry after a lost
// answer, succeeds and changes nothing.
type Accounts interface {
	// CreateAccount stores a new account together with its first key. ErrExists if an account
	// with a.ID or a key with first's id or hash exists, unless it is this very account with
	// this first key (a repeated call).
	CreateAccount(ctx context.Context, a Account, first Key) error
	// GetAccount returns the account with id, or ErrNotFound.
	GetAccount(ctx context.Context, id string) (Account, error)
	// UpdateAccount replaces an existing account's settings, or returns ErrNotFound.
	UpdateAccount(ctx context.Context, a Account) error
	// HasAccounts reports whether any account exists.
	HasAccounts(ctx context.Context) (bool, error)
	// AddKey stores another key for an existing account: ErrNotFound when the account does not
	// exist, ErrExists when a key with k's id or hash exists, unless it is k itself (a repeated
	// call: the same id, hash and account).
	AddKey(ctx context.Context, k Key) error
	// KeyByHash returns the key (active or revoked) whose hash is hash, or ErrNotFound.
	KeyByHash(ctx context.Context, hash string) (Key, error)
	// ListKeys returns every key of account, oldest first.
	ListKeys(ctx context.Context, account string) ([]Key, error)
	// RevokeKey marks a key revoked at at; revoking a revoked key keeps the first time.
	RevokeKey(ctx context.Context, keyID string, at time.Time) error
	// RotateKey stores k and revokes every other active key of k.Account at at.
	RotateKey(ctx context.Context, k Key, at time.Time) error
}

// RateWindows counts requests in fixed windows.
type RateWindows interface {
	// Hit counts one request in account's window that starts at start, unless the window holds
	// limit requests already. It returns the count after the call and whether the request was
	// admitted. Concurrent hits never admit more than limit.
	Hit(ctx context.Context, account string, start time.Time, limit int64) (count int64, admitted bool, err error)
	// Count returns the count of account's window that starts at start: 0 when it has none.
	Count(ctx context.Context, account string, start time.Time) (int64, error)
}

// Usage is an account's month-to-date consumption.
type Usage struct {
	Characters int64
	Runs       int64
}

// Idempotency record states.
const (
	IdemInFlight = "in_flight"
	IdemDone     = "done"
)

// IdemRecord is the state of one idempotency key of one account.
type IdemRecord struct {
	Account      string
	Key          string
	Fingerprint  string // SHA-256 of the request's canonical JSON
	State        string // IdemInFlight or IdemDone
	Lease        string // opaque token of the run holding an in-flight record
	TraceID      string // the run's trace id
	LeaseExpires time.Time
	Expires      time.Time // the record is absent from this time on
}

// Claim asks to start a run under an idempotency key.
type Claim struct {
	Account     string
	Key         string
	Fingerprint string
	Lease       string
	TraceID     string
	Now         time.Time
	TTL         time.Duration // how long the key is remembered (24 h)
	LeaseTTL    time.Duration // how long an in-flight claim is honoured without completion
}

// Idempotency stores idempotency records.
type Idempotency interface {
	// Claim creates an in-flight record for c unless a live record exists, and returns nil. A
	// record is live until Expires; an in-flight record whose lease has expired is not live (its
	// run crashed) and is taken over. When a live record exists it is returned and nothing
	// changes. Concurrent claims of one key have exactly one winner.
	Claim(ctx context.Context, c Claim) (existing *IdemRecord, err error)
	// Release deletes an in-flight record held by lease, so the key can be used again. Releasing
	// a record held by another lease, or a done record, changes nothing.
	Release(ctx context.Context, account, key, lease string) error
}

// Settlement is the end of a run: its characters are charged and its idempotency record is
// completed, at once.
type Settlement struct {
	Account    string
	Month      string // "YYYY-MM", UTC
	Characters int64  // billed characters of the run; may be 0
	Limit      int64  // the account's allowance: usage after the charge must not exceed it
	// Day is the day of Month (1 to 31, UTC) whose counter the characters are added to, in the
	// same write as the month's (DailyUsage); 0 adds them to no day.
	Day int
	// TraceID is the run's trace id (required): the identity of the charge, with which an
	// adapter whose writes can be retried after a lost answer charges a run once.
	TraceID string
	// Idem completes the run's idempotency record; nil when the request carried no key.
	Idem *IdemCompletion
}

// IdemCompletion marks an in-flight idempotency record done.
type IdemCompletion struct {
	Key     string
	Lease   string
	TraceID string
}

// Ledger keeps the monthly usage counters.
type Ledger interface {
	// Usage returns account's usage in month ("YYYY-MM"); zero when nothing was charged.
	Usage(ctx context.Context, account, month string) (Usage, error)
	// Settle adds s.Characters and one run to the month's usage unless the characters would
	// exceed s.Limit, and completes s.Idem in the same step. When the limit would be crossed it
	// changes nothing and returns admitted=false with the usage as it stands. ErrLeaseLost (and
	// no charge) when s.Idem's record is no longer held by its lease.
	Settle(ctx context.Context, s Settlement) (after Usage, admitted bool, err error)
}

// Store is everything Sluice needs from a database.
type Store interface {
	Accounts
	RateWindows
	Idempotency
	Ledger
	DailyUsage
	Sessions
	KeyUse
	Close() error
}
