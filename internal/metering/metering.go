// Package metering is the use case of a run: it admits a run before its steps, executes them and
// settles the run after them, in one call (Gate.Run). It holds the invariants of billing: every
// request counts in its account's rate window (Runner.Enter); a run starts only under its
// idempotency key's claim and within the month's allowance; and a run is charged exactly for the
// steps that completed, once, before its answer is returned.
//
// A run costs the store one request before its steps and one after (two more with an
// Idempotency-Key: the claim, and the completion of the key's record): Enter counts the request
// and reads the month's usage in one write, and the settlement charges the run, its day and the
// allowance in one write (store.Meter). Its callers only translate: internal/api maps HTTP onto
// Enter and Run, and the dashboard's playground maps its form onto the same two calls.
package metering

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/sluice-api/sluice/internal/account"
	"github.com/sluice-api/sluice/internal/errcode"
	"github.com/sluice-api/sluice/internal/pipeline"
	"github.com/sluice-api/sluice/internal/services"
	"github.com/sluice-api/sluice/internal/store"
	"github.com/sluice-api/sluice/internal/timing"
)

// Store is what metering needs from a store.
type Store interface {
	store.Meter
	store.Idempotency
	store.Ledger
}

// Charges is what metering asks a store, when it can answer, about a run whose record is in
// flight: whether its charge holds although the record is not complete (its settlement
// returned store.ErrCharged, or stopped between the charge and the record). A retry inside the
// lease of such a run is then a duplicate, not idempotency_key_in_use. Asked on that path only;
// one read. A store that does not implement it answers every such retry with
// idempotency_key_in_use until the lease ends and a claim completes the record.
type Charges interface {
	Charged(ctx context.Context, rec store.IdemRecord) (bool, error)
}

// charged reports whether the in-flight record rec's charge holds, as far as the store can
// tell; a failure to tell is logged and taken as no (idempotency_key_in_use, retried later).
func (r *Runner) charged(ctx context.Context, traceID string, rec *store.IdemRecord) bool {
	c, ok := r.st.(Charges)
	if !ok {
		return false
	}
	held, err := c.Charged(ctx, *rec)
	if err != nil {
		r.cfg.Log.ErrorContext(ctx, "read of a keyed charge failed", "trace_id", traceID, "error", err.Error())
		return false
	}
	return held
}

// Defaults of Config.
const (
	DefaultIdempotencyTTL = 24 * time.Hour
	DefaultLeaseTTL       = 60 * time.Second
	// settleTimeout bounds settling a run whose context has no deadline.
	settleTimeout = 5 * time.Second
	// maxSettleAttempts bounds the retries of a charge that lost a race for the allowance; each
	// retry shortens the run, so a few always suffice.
	maxSettleAttempts = 8
)

// Config holds the runner's settings.
type Config struct {
	// Region is the region this deployment serves: an account of another region is refused
	// (wrong_region) before its request is counted.
	Region string
	// TokenKey is the tokenization secret the steps use.
	TokenKey []byte
	// IdempotencyTTL is how long a key is remembered (24 h).
	IdempotencyTTL time.Duration
	// LeaseTTL is how long an in-flight run holds its key before a retry may take it over; it
	// must be longer than the longest run.
	LeaseTTL time.Duration
	// SettleReserve is kept from the request's deadline for settling after the steps;
	// timing.SettleReserve when 0, the budget the run function's timeout is computed with.
	SettleReserve time.Duration
	Log           *slog.Logger // store failures, with the trace id; never any request text
}

// Runner runs pipelines under the meter: the rate window, idempotency, the allowance and the
// charge. It is safe for concurrent use.
type Runner struct {
	st     Store
	engine *pipeline.Engine
	cfg    Config
}

// New returns a runner of engine's pipelines over st.
func New(st Store, engine *pipeline.Engine, cfg Config) *Runner {
	if cfg.IdempotencyTTL == 0 {
		cfg.IdempotencyTTL = DefaultIdempotencyTTL
	}
	if cfg.LeaseTTL == 0 {
		cfg.LeaseTTL = DefaultLeaseTTL
	}
	if cfg.SettleReserve == 0 {
		cfg.SettleReserve = timing.SettleReserve
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	return &Runner{st: st, engine: engine, cfg: cfg}
}

// Registry is the services the runner's pipelines may use.
func (r *Runner) Registry() *services.Registry { return r.engine.Registry() }

// Gate is one request inside its account's rate window. Close it when no run follows; Run
// closes it.
type Gate struct {
	r     *Runner
	acct  store.Account
	start time.Time
	pass  store.Pass
	// TraceID is the request's trace id, made when it entered.
	TraceID string
	// Quota is the window as the request's rate-limit headers report it.
	Quota  account.Quota
	closed bool
}

// Enter checks that acct lives in the runner's region and counts its request, received at now,
// in the account's rate window. It always returns a gate, whose Quota the answer's headers
// report (all 0 for another region's account); with an error the gate is closed already. The
// errors: wrong_region, rate_limited, or service_unavailable when the store failed (logged with
// the gate's trace id).
func (r *Runner) Enter(ctx context.Context, acct store.Account, now time.Time) (*Gate, *errcode.Error) {
	g := &Gate{r: r, acct: acct, start: now, TraceID: account.NewID("sluice", now), closed: true}
	if acct.Region != r.cfg.Region {
		g.Quota = account.NoQuota
		return g, errcode.New(errcode.WrongRegion, "this account lives in region %q; call that region's endpoint", acct.Region)
	}
	g.Quota = account.Quota{Limit: acct.RateLimit, Reset: account.ResetSeconds(now)}
	p, err := r.st.Enter(ctx, store.Entry{
		Account: acct.ID, Month: account.Month(now), Window: now.UTC().Truncate(account.Window), Limit: acct.RateLimit,
	})
	if err != nil {
		return g, r.unavailable(ctx, g.TraceID, fmt.Errorf("metering: rate window: %w", err))
	}
	g.pass = p
	g.Quota.Remaining, g.Quota.Admitted = max(acct.RateLimit-p.Count, 0), p.Admitted
	if !p.Admitted {
		return g, errcode.New(errcode.RateLimited, "the account's limit of %d requests per minute is used up; retry after %d seconds", g.Quota.Limit, g.Quota.Reset)
	}
	g.closed = false
	return g, nil
}

// unavailable logs a store failure and returns what the client sees of it.
func (r *Runner) unavailable(ctx context.Context, traceID string, err error) *errcode.Error {
	r.cfg.Log.ErrorContext(ctx, "dependency failed", "trace_id", traceID, "error", err.Error())
	return errcode.New(errcode.ServiceUnavailable, "a dependency is unavailable; retry shortly")
}

// Usage is the month's usage as the gate found it.
func (g *Gate) Usage() store.Usage { return g.pass.Usage }

// Month is the month the gate's request is counted in ("YYYY-MM", UTC).
func (g *Gate) Month() string { return g.pass.Month }

// Close ends the gate of a request that runs nothing. Closing twice is harmless.
func (g *Gate) Close() {
	if !g.closed {
		g.closed = true
		g.r.st.Leave(g.pass)
	}
}

// ticket is a validated run, as admit needs it.
type ticket struct {
	TraceID string
	// IdempotencyKey is the request's key; "" when it sent none.
	IdempotencyKey string
	// Fingerprint is the SHA-256 of the request's canonical JSON; needed with a key only.
	Fingerprint string
	// InputChars is the code points of the input: the first step's bill.
	InputChars int64
}

// duplicate is the answer to a repeat of a key that already produced a run.
type duplicate struct {
	TraceID string // the original run's
}

// admission is a run that may execute. settle ends it.
type admission struct {
	g       *Gate
	run     ticket
	lease   string
	claimed bool
	// Budget is how many characters the run may bill: the allowance left.
	Budget int64
}

// admit decides whether the gate's run may start: the idempotency key first (a repeat of a
// completed run is a duplicate, and so is one of a run whose charge holds though its record is
// not complete; one still running is idempotency_key_in_use, one with another body
// idempotency_key_reused), then the allowance (allowance_exhausted when the first step
// cannot be billed). A refusal closes the gate and frees the key; errors other than
// *errcode.Error are store failures.
func (g *Gate) admit(ctx context.Context, r ticket) (*admission, *duplicate, error) {
	a := &admission{g: g, run: r}
	if r.IdempotencyKey != "" {
		a.lease = account.NewID("lease", g.start)
		existing, err := g.r.st.Claim(ctx, store.Claim{
			Account: g.acct.ID, Key: r.IdempotencyKey, Fingerprint: r.Fingerprint, Lease: a.lease,
			TraceID: r.TraceID, Now: g.start, TTL: g.r.cfg.IdempotencyTTL, LeaseTTL: g.r.cfg.LeaseTTL, Pass: g.pass,
		})
		switch {
		case err != nil:
			g.Close()
			return nil, nil, fmt.Errorf("metering: claim: %w", err)
		case existing == nil:
			a.claimed = true
		case existing.Fingerprint != r.Fingerprint:
			g.Close()
			return nil, nil, errcode.New(errcode.IdempotencyKeyReused, "this Idempotency-Key was used in the last 24 hours with a different request body")
		case existing.State == store.IdemInFlight && !g.r.charged(ctx, r.TraceID, existing):
			g.Close()
			return nil, nil, errcode.New(errcode.IdempotencyKeyInUse, "a run with this Idempotency-Key is still in progress; retry shortly")
		default:
			g.Close()
			return nil, &duplicate{TraceID: existing.TraceID}, nil
		}
	}
	a.Budget = g.acct.Allowance - g.pass.Usage.Characters
	if a.Budget <= 0 || r.InputChars > a.Budget {
		a.release(ctx)
		g.Close()
		return nil, nil, a.exhausted()
	}
	return a, nil, nil
}

func (a *admission) exhausted() *errcode.Error {
	return errcode.New(errcode.AllowanceExhausted, "the account's monthly allowance of %d characters is used up", a.g.acct.Allowance)
}

// stepContext is the context the admitted run's steps execute under: ctx's deadline less the
// time settling needs, so that the charge fits before the deadline.
func (a *admission) stepContext(ctx context.Context) (context.Context, context.CancelFunc) {
	if d, ok := ctx.Deadline(); ok {
		return context.WithDeadline(ctx, d.Add(-a.g.r.cfg.SettleReserve))
	}
	return context.WithCancel(ctx)
}

// settle bills an executed run and returns the outcome to answer with, possibly cut short by the
// allowance. The rules:
//   - a run none of whose steps completed bills nothing and releases its key (its answer
//     carries no result); Exhausted (the first step did not fit) is allowance_exhausted;
//   - any other run, completed, halted or failed part-way for whatever reason, bills every
//     completed step, once, and keeps its key (a repeat is a duplicate);
//   - when concurrent runs took part of the allowance meanwhile, the run is cut to the steps
//     that still fit (a halt by allowance) and charged again; nothing fits: allowance_exhausted;
//   - a retry that took the key over while this run outlived its lease bills instead:
//     idempotency_key_in_use, nothing charged.
//
// The charge is made even when ctx was cancelled (a client that hung up), within ctx's
// deadline. When the run may have been charged but the store cannot confirm it (store.ErrCharged
// with a key; any failure without one), settle returns the outcome it tried to charge with
// billing_unconfirmed, and a key's record is left for a later claim to complete. Other errors
// that are not *errcode.Error are store failures; the key is then released. settle closes the
// gate.
func (a *admission) settle(ctx context.Context, out *pipeline.Outcome) (*pipeline.Outcome, error) {
	defer a.g.Close()
	if out.Exhausted {
		a.release(ctx)
		return nil, a.exhausted()
	}
	if out.Characters() == 0 {
		a.release(ctx)
		return out, nil
	}
	ctx, cancel := settleContext(ctx)
	defer cancel()
	var idem *store.IdemCompletion
	if a.claimed {
		idem = &store.IdemCompletion{Key: a.run.IdempotencyKey, Lease: a.lease, TraceID: a.run.TraceID}
	}
	limit := a.g.acct.Allowance
	for range maxSettleAttempts {
		after, admitted, err := a.g.r.st.Settle(ctx, store.Settlement{
			Pass: a.g.pass, Characters: out.Characters(), Limit: limit, Day: a.g.start.UTC().Day(),
			TraceID: a.run.TraceID, Idem: idem,
		})
		switch {
		case errors.Is(err, store.ErrLeaseLost):
			// The run outlived its lease and a retry took the key over; that run bills instead.
			a.claimed = false
			return nil, errcode.New(errcode.IdempotencyKeyInUse, "a retry with this Idempotency-Key took over this run; retry shortly")
		case errors.Is(err, store.ErrCharged):
			a.claimed = false // the record is the proof of the charge: a later claim completes it
			return out, a.unconfirmed(ctx, err)
		case err != nil && idem == nil:
			// Without a key nothing tells a charge that was applied from one that was not.
			return out, a.unconfirmed(ctx, err)
		case err != nil:
			a.release(ctx)
			return nil, fmt.Errorf("metering: settle: %w", err)
		case admitted:
			a.claimed = false
			return out, nil
		}
		cut, fits := out.Within(limit - after.Characters)
		if !fits {
			a.release(ctx)
			return nil, a.exhausted()
		}
		out = cut
	}
	a.release(ctx)
	return nil, errors.New("metering: settle: allowance contention did not resolve")
}

// unconfirmed logs a settlement that may have charged and returns billing_unconfirmed.
func (a *admission) unconfirmed(ctx context.Context, err error) *errcode.Error {
	a.g.r.cfg.Log.ErrorContext(ctx, "charge not confirmed", "trace_id", a.run.TraceID, "error", err.Error())
	if a.run.IdempotencyKey != "" {
		return errcode.New(errcode.BillingUnconfirmed, "the run ran, but its charge could not be confirmed: it may have been billed; send it again with the same Idempotency-Key and body to learn which (a duplicate was billed)")
	}
	return errcode.New(errcode.BillingUnconfirmed, "the run ran, but its charge could not be confirmed: it may have been billed; check GET /v1/usage before running it again, and send an Idempotency-Key to make this answerable")
}

// settleContext is ctx without its cancellation, under the same deadline (or settleTimeout when
// it has none): a run is charged for its completed steps even when its client went away.
func settleContext(ctx context.Context) (context.Context, context.CancelFunc) {
	base := context.WithoutCancel(ctx)
	if d, ok := ctx.Deadline(); ok {
		return context.WithDeadline(base, d)
	}
	return context.WithTimeout(base, settleTimeout)
}

// release frees the idempotency key so the client can retry with it, even when ctx is done.
func (a *admission) release(ctx context.Context) {
	if !a.claimed {
		return
	}
	a.claimed = false
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
	defer cancel()
	if err := a.g.r.st.Release(ctx, a.g.acct.ID, a.run.IdempotencyKey, a.lease); err != nil {
		a.g.r.cfg.Log.Error("release idempotency key failed", "trace_id", a.run.TraceID, "error", err.Error())
	}
}
