package api

import (
	"context"
	"net/http"
	"time"

	"github.com/sluice-api/sluice/internal/account"
	"github.com/sluice-api/sluice/internal/errcode"
	"github.com/sluice-api/sluice/internal/metering"
	"github.com/sluice-api/sluice/internal/pipeline"
	"github.com/sluice-api/sluice/internal/store"
)

// run is the state of one POST /v1/run.
type run struct {
	s         *Server
	acct      store.Account
	start     time.Time
	traceID   string
	requestID string
	quota     account.Quota
}

// Run answers POST /v1/run for an authenticated account. Checks run in this order, the first
// failure answering: region and rate window (421, 429), body size (413), Content-Type (415),
// then the body (invalid_json, invalid_request, ..., see pipeline.Engine.Parse), idempotency
// (409, 422) and the allowance (402). A request rejected before running changes nothing but its
// rate window. What a run admits, charges and releases is the metering package's.
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
	g, e := s.enter(ctx, a, r.start)
	r.quota = g.Quota
	g.Close()
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
	g, e := s.enter(ctx, r.acct, r.start)
	r.quota = g.Quota
	if e != nil {
		return r.reject(e), e.Code, nil
	}
	reject := func(e *errcode.Error) (Response, string, *pipeline.Outcome) {
		g.Close()
		return r.reject(e), e.Code, nil
	}
	if len(req.Body) > pipeline.MaxBodyBytes {
		return reject(errcode.New(errcode.BodyTooLarge, "the request body is larger than %d bytes", pipeline.MaxBodyBytes))
	}
	if !jsonBody(req.Header) {
		return reject(errcode.New(errcode.UnsupportedMediaType, "the request body must be JSON: send Content-Type: application/json (charset, if given, utf-8)"))
	}
	plan, requestID, e := s.engine.Check(req.Body)
	if e != nil {
		r.requestID = requestID
		return reject(e)
	}
	r.requestID = plan.RequestID
	want := metering.Run{TraceID: r.traceID, InputChars: plan.InputChars}
	if keys, ok := req.Header[http.CanonicalHeaderKey(HeaderIdempotencyKey)]; ok {
		if len(keys) != 1 || !validIdempotencyKey(keys[0]) {
			return reject(errcode.New(errcode.InvalidIdempotencyKey, "Idempotency-Key must be 1 to %d characters", MaxIdempotencyKeyChars))
		}
		fp, err := plan.Fingerprint()
		if err != nil { // cannot happen: the body was decoded already
			g.Close()
			return r.fail(err), errcode.ServiceUnavailable, nil
		}
		want.IdempotencyKey, want.Fingerprint = keys[0], fp
	}
	adm, dup, err := g.Admit(ctx, want)
	switch {
	case err != nil:
		e := r.s.failure(r.traceID, err)
		return r.reject(e), e.Code, nil
	case dup != nil:
		resp := jsonResponse(http.StatusOK, dup.TraceID, pipeline.Duplicate{
			RequestID: r.requestID, TraceID: dup.TraceID, Status: pipeline.StatusDuplicate,
		}, r.quota)
		resp.Header.Set(HeaderReplayed, "true")
		r.traceID = dup.TraceID
		return resp, "", nil
	}

	runCtx, cancel := adm.StepContext(ctx)
	defer cancel()
	out = s.engine.Execute(runCtx, plan, pipeline.Env{
		TraceID: r.traceID, Account: r.acct.ID, Region: r.acct.Region, TokenKey: s.tokenKey,
		ReceivedAt: r.start, Budget: adm.Budget,
	})
	settled, err := adm.Settle(ctx, out)
	if err != nil {
		e := r.s.failure(r.traceID, err)
		return r.reject(e), e.Code, nil
	}
	if settled.Error != nil {
		code = settled.Error.Code
	}
	return r.render(settled), code, settled
}

func (r *run) render(out *pipeline.Outcome) Response {
	return jsonResponse(http.StatusOK, r.traceID, out.Render(r.requestID, r.s.cfg.Now().Sub(r.start)), r.quota)
}

// reject answers with the run shape carrying the error; nothing ran.
func (r *run) reject(e *errcode.Error) Response {
	body := pipeline.Rejected(r.requestID, r.traceID, r.acct.Region, r.start, r.s.cfg.Now().Sub(r.start), e)
	return jsonResponse(errcode.Status(e.Code), r.traceID, body, r.quota)
}

// fail answers an internal failure with 503 (logged, never shown).
func (r *run) fail(err error) Response {
	return r.reject(r.s.failure(r.traceID, err))
}
