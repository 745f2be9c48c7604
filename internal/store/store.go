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
	// ErrCharged: Settle charged the run, or may have, but could not complete its idempotency
	// record; the record is left for a later Claim, which completes it.
	ErrCharged = errors.New("store: charged, idempotency record not completed")
	// ErrAccountChanged: a key could not be added because its account's settings changed while
	// it was written; the key was revoked again. The caller makes a new key and tries again.
	ErrAccountChanged = errors.New("store: the account changed while the key was added")
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
	// UpdateAccount replaces an existing account's settings, or returns ErrNotFound. When it
	// returns, KeyAccount of every key of the account sees the new settings.
	UpdateAccount(ctx context.Context, a Account) error
	// HasAccounts reports whether any account exists.
	HasAccounts(ctx context.Context) (bool, error)
	// AddKey stores another key for an existing account: ErrNotFound when the account does not
	// exist, ErrExists when a key with k's id or hash exists, unless it is k itself (a repeated
	// call: the same id, hash and account). ErrAccountChanged (k revoked) when the account's
	// settings changed while k was written, in a store that copies them onto keys.
	AddKey(ctx context.Context, k Key) error
	// KeyByHash returns the key (active or revoked) whose hash is hash, or ErrNotFound.
	KeyByHash(ctx context.Context, hash string) (Key, error)
	// KeyAccount returns the key whose hash is hash together with its account, as the
	// authorizer needs them on every request: in one read where the store can (the DynamoDB
	// store copies the account's settings onto each key item; UpdateAccount updates them all
	// before it returns). ErrNotFound when there is no such key, or its account is gone.
	KeyAccount(ctx context.Context, hash string) (Key, Account, error)
	// ListKeys returns every key of account, oldest first.
	ListKeys(ctx context.Context, account string) ([]Key, error)
	// RevokeKey marks a key revoked at at; revoking a revoked key keeps the first time.
	RevokeKey(ctx context.Context, keyID string, at time.Time) error
	// RotateKey stores k and revokes every other active key of k.Account at at; ErrAccountChanged
	// as AddKey (nothing revoked).
	RotateKey(ctx context.Context, k Key, at time.Time) error
}

// RateWindows counts events in fixed windows under any key: the dashboard counts failed
// sign-ins per client address with it. An account's requests are counted by Meter.Enter.
type RateWindows interface {
	// Hit counts one request in account's window that starts at start, unless the window holds
	// limit requests already. It returns the count after the call and whether the request was
	// admitted. Concurrent hits never admit more than limit.
	Hit(ctx context.Context, account string, start time.Time, limit int64) (count int64, admitted bool, err error)
	// Count returns the count of account's window that starts at start: 0 when it has none.
	Count(ctx context.Context, account string, start time.Time) (int64, error)
}

// Entry asks to count one request of an account in its rate window.
type Entry struct {
	Account string
	Month   string    // "YYYY-MM", UTC: the month whose usage the request sees and may charge
	Window  time.Time // start of the request's window: the UTC minute
	Limit   int64     // the account's requests per window
}

// Pass is what Enter hands one request: its window's count and the month's usage, and the
// adapter's reference for the request's later writes (Claim, Settle), which carry the pass.
type Pass struct {
	Account  string
	Month    string
	Count    int64 // requests in the window, after this one when it was admitted
	Admitted bool  // false: the window was full; nothing changed
	Usage    Usage // the month's usage as Enter saw it
	// Ref is the adapter's own reference (the DynamoDB store's writer slot); callers pass it
	// back unchanged. "" for adapters that need none.
	Ref string
}

// Meter keeps an account's rate window and its month's usage on one record, so that a run
// reads and writes both in one store request before its steps (Enter) and one after (Settle).
type Meter interface {
	// Enter counts one request in e.Account's window unless the window holds e.Limit requests
	// already, and returns the window's count, whether the request was admitted, and the
	// month's usage. Concurrent requests never admit more than the limit, and a request counts
	// once even when the store's answer was lost and the write sent again. A window older than
	// e.Window is replaced by e.Window's; a newer one (a caller whose clock lags) counts the
	// request. Every Enter is followed by Leave once the request is over.
	Enter(ctx context.Context, e Entry) (Pass, error)
	// Leave ends a pass: its request settled, or will not. It never fails.
	Leave(p Pass)
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
	// Ref is the adapter's reference of where the record's run charges (the DynamoDB store:
	// the meter item's month, the writer slot and the run's admission value), for Charged;
	// callers pass it back unchanged. "" for adapters that need none.
	Ref string
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
	// Pass is the request's pass (Meter.Enter): the record remembers where the run's charge
	// will be written, so that a claimer taking the key over later can tell whether it was.
	Pass Pass
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
	// Charged reports whether the run holding rec, an in-flight record that Claim returned,
	// has been charged although its record is not complete yet (its Settle returned
	// ErrCharged, or it stopped between its charge and the record's completion). A retry under
	// the same key within the lease may then answer as a duplicate of that run instead of
	// "in use". It costs one read (the DynamoDB store), and is false for a done record and in
	// adapters that charge and complete in one transaction.
	Charged(ctx context.Context, rec IdemRecord) (bool, error)
}

// Settlement is the end of a run: its characters are charged and its idempotency record is
// completed, at once.
type Settlement struct {
	// Pass is the run's pass (Meter.Enter): the account and month charged, and the adapter's
	// reference for the charge.
	Pass       Pass
	Characters int64 // billed characters of the run; may be 0
	Limit      int64 // the account's allowance: usage after the charge must not exceed it
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
	// Settle adds s.Characters and one run to the month's usage of s.Pass unless the
	// characters would exceed s.Limit, and completes s.Idem. When the limit would be crossed
	// it changes nothing and returns admitted=false with the usage as it stands. ErrLeaseLost
	// (and no charge) when s.Idem's record is no longer held by its lease. A run is charged at
	// most once, also when Settle is called again after an error or the store's answer was lost.
	// ErrCharged: the run was charged but its idempotency record could not be completed; the
	// record completes itself when a later Claim meets it, so the caller must not Release it.
	Settle(ctx context.Context, s Settlement) (after Usage, admitted bool, err error)
}

// Store is everything Sluice needs from a database.
type Store interface {
	Accounts
	RateWindows
	Meter
	Idempotency
	Ledger
	DailyUsage
	Sessions
	KeyUse
	Close() error
}
