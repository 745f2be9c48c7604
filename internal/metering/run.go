package metering

import (
	"context"
	"errors"
	"unicode/utf8"

	"github.com/sluice-api/sluice/internal/errcode"
	"github.com/sluice-api/sluice/internal/pipeline"
)

// MaxIdempotencyKeyChars is the longest Idempotency-Key, in characters.
const MaxIdempotencyKeyChars = 255

// Result is what one run came to, for its caller to render.
type Result struct {
	// RequestID is the body's request_id, as far as the body could be read.
	RequestID string
	// TraceID is the run's trace id (the gate's); a duplicate's is the original run's.
	TraceID string
	// Duplicate: the key already produced a run; nothing ran or billed now.
	Duplicate bool
	// Outcome is the executed and settled run: what to answer with when Err is nil. With Err
	// billing_unconfirmed it is the run whose charge may have been applied.
	Outcome *pipeline.Outcome
	// Err is why the run was refused (nothing ran, nothing billed), or billing_unconfirmed: it
	// ran and may have been charged, but the store could not confirm it.
	Err *errcode.Error
}

// Run runs body, a POST /v1/run body, through the gate and closes it. Checks go in the order
// of docs/api.md: the body (pipeline.Engine.Check), the Idempotency-Key (idempotencyKey holds
// every value the request sent for it, none when it sent none), then what admit decides
// (duplicate, 409, 422, 402). An admitted run's steps execute under ctx less the settle
// reserve, and the run is settled (charged) within ctx's deadline, even when ctx was cancelled.
// Store failures are logged with the trace id and answered as service_unavailable, or, once
// the run may have been charged, billing_unconfirmed (never "retry shortly").
func (g *Gate) Run(ctx context.Context, body []byte, idempotencyKey []string) Result {
	res := Result{TraceID: g.TraceID}
	refuse := func(e *errcode.Error) Result {
		g.Close()
		res.Err = e
		return res
	}
	plan, requestID, e := g.r.engine.Check(body)
	if e != nil {
		res.RequestID = requestID
		return refuse(e)
	}
	res.RequestID = plan.RequestID
	want := ticket{TraceID: g.TraceID, InputChars: plan.InputChars}
	if idempotencyKey != nil {
		if len(idempotencyKey) > 1 {
			return refuse(errcode.New(errcode.InvalidIdempotencyKey, "Idempotency-Key was sent more than once; send it once"))
		}
		if len(idempotencyKey) == 0 || !validIdempotencyKey(idempotencyKey[0]) {
			return refuse(errcode.New(errcode.InvalidIdempotencyKey, "Idempotency-Key must be 1 to %d characters", MaxIdempotencyKeyChars))
		}
		fp, err := plan.Fingerprint()
		if err != nil { // cannot happen: the body was decoded already
			return refuse(g.r.unavailable(ctx, g.TraceID, err))
		}
		want.IdempotencyKey, want.Fingerprint = idempotencyKey[0], fp
	}
	adm, dup, err := g.admit(ctx, want)
	switch {
	case err != nil:
		res.Err = g.r.failure(ctx, g.TraceID, err)
		return res
	case dup != nil:
		res.Duplicate, res.TraceID = true, dup.TraceID
		return res
	}
	stepCtx, cancel := adm.stepContext(ctx)
	out := g.r.engine.Execute(stepCtx, plan, pipeline.Env{
		TraceID: g.TraceID, Account: g.acct.ID, Region: g.acct.Region, TokenKey: g.r.cfg.TokenKey,
		ReceivedAt: g.start, Budget: adm.Budget,
	})
	cancel()
	settled, err := adm.settle(ctx, out)
	if err != nil {
		res.Err = g.r.failure(ctx, g.TraceID, err)
		if res.Err.Code == errcode.BillingUnconfirmed {
			res.Outcome = settled // what the charge was, if it was applied
		}
		return res
	}
	res.Outcome = settled
	return res
}

// failure is err as a client may see it: an *errcode.Error as it is, anything else a logged
// store failure.
func (r *Runner) failure(ctx context.Context, traceID string, err error) *errcode.Error {
	var e *errcode.Error
	if errors.As(err, &e) {
		return e
	}
	return r.unavailable(ctx, traceID, err)
}

// validIdempotencyKey: 1 to MaxIdempotencyKeyChars characters of valid UTF-8.
func validIdempotencyKey(k string) bool {
	n := utf8.RuneCountInString(k)
	return n >= 1 && n <= MaxIdempotencyKeyChars && utf8.ValidString(k)
}
