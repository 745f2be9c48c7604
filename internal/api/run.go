package api

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/sluice-api/sluice/internal/account"
	"github.com/sluice-api/sluice/internal/errcode"
	"github.com/sluice-api/sluice/internal/pipeline"
	"github.com/sluice-api/sluice/internal/store"
)

// maxSettleAttempts bounds the retries of a charge that lost a race for the allowance; each retry
// shortens the run, so a few always suffice.
const maxSettleAttempts = 8

// run is the state of one POST /v1/run.
type run struct {
	s         *Server
	acct      store.Account
	start     time.Time
	traceID   string
	requestID string
	quota     account.Quota
	idemKey   string
	lease     string
	claimed   bool
}

// Run answers POST /v1/run for an authenticated account. Checks run in this order, the first
// failure answering: region and rate window (421, 429), body size (413), Content-Type (415),
// then the body (invalid_json, invalid_request, ..., see pipeline.Engine.Parse), idempotency
// (409, 422) and the allowance (402). A request rejected before running changes nothing but its rate window.
func (s *Server) Run(ctx context.Context, a store.Account, req Request) Response {
	r := &run{s: s, acct: a, start: s.cfg.Now()}
	r.traceID = account.NewID("sluice", r.start)
	resp, code, out := r.handle(ctx, req)
	o := Observation{
		TraceID: r.traceID, AccountID: a.ID, Route: "run", HTTPStatus: resp.Status, Code: code,
		Duration: s.cfg.Now().Sub(r.start),
	}
	if resp.Header.Get(HeaderReplayed) == "true" {
		o.RunStatus = pipeline.StatusDuplicate
	}
	if out != nil {
		o.RunStatus, o.HaltReason, o.BilledCharacters = out.Status, out.HaltReason, out.Characters()
		for _, st := range out.Steps {
			o.Steps = append(o.Steps, StepObservation{Service: st.Step.Descriptor.Name, Status: st.Status, Duration: st.Duration})
		}
	}
	s.record(ctx, o)
	return resp
}

// RequestTimeout answers a POST /v1/run whose body did not arrive within the server's read
// timeout: 408 request_timeout in the run shape, logged at INFO like every rejection (it is the
// client's problem, not the server's). The request counts in the account's rate window like any
// other, so a full window answers 429 instead. API Gateway reads bodies itself; the local server
// calls this.
func (s *Server) RequestTimeout(ctx context.Context, a store.Account) Response {
	r := &run{s: s, acct: a, start: s.cfg.Now()}
	r.traceID = account.NewID("sluice", r.start)
	q, e := s.admit(ctx, a)
	r.quota = q
	if e == nil {
		e = errcode.New(errcode.RequestTimeout, "the request body did not arrive in time; send the whole body at once and retry")
	}
	resp := r.reject(e)
	s.record(ctx, Observation{
		TraceID: r.traceID, AccountID: a.ID, Route: "run", HTTPStatus: resp.Status, Code: e.Code,
		Duration: s.cfg.Now().Sub(r.start),
	})
	return resp
}

// handle answers the request; out is the executed run, if one ran.
func (r *run) handle(ctx context.Context, req Request) (resp Response, code string, out *pipeline.Outcome) {
	s := r.s
	q, e := s.admit(ctx, r.acct)
	r.quota = q
	if e != nil {
		return r.reject(e), e.Code, nil
	}
	if len(req.Body) > pipeline.MaxBodyBytes {
		e := errcode.New(errcode.BodyTooLarge, "the request body is larger than %d bytes", pipeline.MaxBodyBytes)
		return r.reject(e), e.Code, nil
	}
	if !jsonBody(req.Header) {
		e := errcode.New(errcode.UnsupportedMediaType, "the request body must be JSON: send Content-Type: application/json (charset, if given, utf-8)")
		return r.reject(e), e.Code, nil
	}
	plan, requestID, e := s.engine.Check(req.Body)
	if e != nil {
		r.requestID = requestID
		return r.reject(e), e.Code, nil
	}
	r.requestID = plan.RequestID
	if keys, ok := req.Header[http.CanonicalHeaderKey(HeaderIdempotencyKey)]; ok {
		if len(keys) != 1 || !validIdempotencyKey(keys[0]) {
			e := errcode.New(errcode.InvalidIdempotencyKey, "Idempotency-Key must be 1 to %d characters", MaxIdempotencyKeyChars)
			return r.reject(e), e.Code, nil
		}
		r.idemKey = keys[0]
		if resp, code, done := r.claim(ctx, plan); done {
			return resp, code, nil
		}
	}
	month := account.Month(r.start)
	used, err := s.store.Usage(ctx, r.acct.ID, month)
	if err != nil {
		return r.abort(ctx, err), errcode.ServiceUnavailable, nil
	}
	budget := r.acct.Allowance - used.Characters
	if budget <= 0 || plan.InputChars > budget {
		return r.exhausted(ctx), errcode.AllowanceExhausted, nil
	}

	runCtx, cancel := r.runContext(ctx)
	defer cancel()
	out = s.engine.Execute(runCtx, plan, pipeline.Env{
		TraceID: r.traceID, Account: r.acct.ID, Region: r.acct.Region, TokenKey: s.tokenKey,
		ReceivedAt: r.start, Budget: budget,
	})
	if out.Exhausted {
		return r.exhausted(ctx), errcode.AllowanceExhausted, nil
	}
	if out.Characters() == 0 {
		// The first step failed: nothing to bill and no result to return; release the key so
		// the client can retry with it.
		r.release(ctx)
		return r.render(out), out.Error.Code, out
	}
	// Whatever ended the run (a step error or timeout, the deadline, a client that went away),
	// every completed step is charged before its result can be returned; the charge must not be
	// lost because the request's context was cancelled.
	sctx, scancel := settleContext(ctx)
	defer scancel()
	out, resp, code, ok := r.settle(sctx, out, month)
	if !ok {
		return resp, code, nil
	}
	if out.Error != nil {
		code = out.Error.Code
	}
	return r.render(out), code, out
}

// claim takes the idempotency key for a validated body. done is true when the request is
// answered already (duplicate, in use, reused or a store failure). Only requests with a key pay
// for the fingerprint, which comes from the same decoding of the body as the plan.
func (r *run) claim(ctx context.Context, plan *pipeline.Plan) (Response, string, bool) {
	s := r.s
	fp, err := plan.Fingerprint()
	if err != nil { // cannot happen: the body was decoded already
		return r.abort(ctx, err), errcode.ServiceUnavailable, true
	}
	r.lease = account.NewID("lease", r.start)
	existing, err := s.store.Claim(ctx, store.Claim{
		Account: r.acct.ID, Key: r.idemKey, Fingerprint: fp, Lease: r.lease,
		TraceID: r.traceID, Now: r.start, TTL: s.cfg.IdempotencyTTL, LeaseTTL: s.cfg.LeaseTTL,
	})
	switch {
	case err != nil:
		return r.abort(ctx, err), errcode.ServiceUnavailable, true
	case existing == nil:
		r.claimed = true
		return Response{}, "", false
	case existing.Fingerprint != fp:
		e := errcode.New(errcode.IdempotencyKeyReused, "this Idempotency-Key was used in the last 24 hours with a different request body")
		return r.reject(e), e.Code, true
	case existing.State == store.IdemInFlight:
		e := errcode.New(errcode.IdempotencyKeyInUse, "a run with this Idempotency-Key is still in progress; retry shortly")
		return r.reject(e), e.Code, true
	default:
		resp := jsonResponse(http.StatusOK, existing.TraceID, pipeline.Duplicate{
			RequestID: r.requestID, TraceID: existing.TraceID, Status: pipeline.StatusDuplicate,
		}, r.quota)
		resp.Header.Set(HeaderReplayed, "true")
		r.traceID = existing.TraceID
		return resp, "", true
	}
}

// runContext bounds the steps by the request's deadline less the time settling needs.
func (r *run) runContext(ctx context.Context) (context.Context, context.CancelFunc) {
	if d, ok := ctx.Deadline(); ok {
		return context.WithDeadline(ctx, d.Add(-r.s.cfg.SettleReserve))
	}
	return context.WithCancel(ctx)
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

// settleTimeout bounds settling a run whose context has no deadline.
const settleTimeout = 5 * time.Second

// settle charges the run and completes its idempotency record in one store call. When a
// concurrent run took part of the allowance meanwhile, the run is cut to what still fits (a halt
// by allowance) and charged again; when nothing fits it is answered 402.
func (r *run) settle(ctx context.Context, out *pipeline.Outcome, month string) (*pipeline.Outcome, Response, string, bool) {
	s := r.s
	var idem *store.IdemCompletion
	if r.claimed {
		idem = &store.IdemCompletion{Key: r.idemKey, Lease: r.lease, TraceID: r.traceID}
	}
	for range maxSettleAttempts {
		after, admitted, err := s.store.Settle(ctx, store.Settlement{
			Account: r.acct.ID, Month: month, Day: r.start.UTC().Day(), Characters: out.Characters(),
			Limit: r.acct.Allowance, TraceID: r.traceID, Idem: idem,
		})
		if errors.Is(err, store.ErrLeaseLost) {
			// The run outlived its lease and a retry took the key over; that run bills instead.
			r.claimed = false
			e := errcode.New(errcode.IdempotencyKeyInUse, "a retry with this Idempotency-Key took over this run; retry shortly")
			return nil, r.reject(e), e.Code, false
		}
		if err != nil {
			return nil, r.abort(ctx, err), errcode.ServiceUnavailable, false
		}
		if admitted {
			r.claimed = false
			return out, Response{}, "", true
		}
		cut, fits := out.Within(r.acct.Allowance - after.Characters)
		if !fits {
			return nil, r.exhausted(ctx), errcode.AllowanceExhausted, false
		}
		out = cut
	}
	return nil, r.abort(ctx, errors.New("settle: allowance contention did not resolve")), errcode.ServiceUnavailable, false
}

func (r *run) render(out *pipeline.Outcome) Response {
	return jsonResponse(http.StatusOK, r.traceID, out.Render(r.requestID, r.s.cfg.Now().Sub(r.start)), r.quota)
}

// reject answers with the run shape carrying the error; nothing ran.
func (r *run) reject(e *errcode.Error) Response {
	body := pipeline.Rejected(r.requestID, r.traceID, r.acct.Region, r.start, r.s.cfg.Now().Sub(r.start), e)
	return jsonResponse(errcode.Status(e.Code), r.traceID, body, r.quota)
}

func (r *run) exhausted(ctx context.Context) Response {
	r.release(ctx)
	return r.reject(errcode.New(errcode.AllowanceExhausted, "the account's monthly allowance of %d characters is used up", r.acct.Allowance))
}

// abort answers a store failure with 503 after releasing the key.
func (r *run) abort(ctx context.Context, err error) Response {
	r.release(ctx)
	return r.reject(r.s.failure(r.traceID, err))
}

// release frees the idempotency key so the client can retry with it.
func (r *run) release(ctx context.Context) {
	if !r.claimed {
		return
	}
	r.claimed = false
	// Release even when the request's context is done: the client will retry.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
	defer cancel()
	if err := r.s.store.Release(ctx, r.acct.ID, r.idemKey, r.lease); err != nil {
		r.s.cfg.Log.Error("release idempotency key failed", "trace_id", r.traceID, "error", err.Error())
	}
}
