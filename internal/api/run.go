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

// Run answers POST /v1/run for an authenticated account: Enter (region and rate window: 421,
// 429), the contract's body size (413) and Content-Type (415), then Run (the body, the
// Idempotency-Key, the allowance, the steps and the charge; see metering.Gate.Run), rendered.
// A request rejected before running changes nothing but its rate window.
func (s *Server) Run(ctx context.Context, a store.Account, req Request) Response {
	start := s.cfg.Now()
	g, e := s.runner.Enter(ctx, a, start)
	res := metering.Result{TraceID: g.TraceID, Err: e}
	if e == nil {
		res.Err = httpChecks(req)
		if res.Err != nil {
			g.Close()
		} else {
			res = g.Run(ctx, req.Body, req.Header.Values(HeaderIdempotencyKey))
		}
	}
	resp := s.render(a, start, g.Quota, res)
	o := Observation{
		TraceID: res.TraceID, AccountID: a.ID, Route: "run", HTTPStatus: resp.Status,
		Duration: s.cfg.Now().Sub(start),
	}
	if res.Duplicate {
		o.RunStatus = pipeline.StatusDuplicate
	}
	if out := res.Outcome; out != nil {
		o.RunStatus, o.HaltReason, o.BilledCharacters = out.Status, out.HaltReason, out.Characters()
		if out.Error != nil {
			o.Code = out.Error.Code
		}
		for _, st := range out.Steps {
			o.Steps = append(o.Steps, StepObservation{Service: st.Step.Descriptor.Name, Status: st.Status, Duration: st.Duration})
		}
	}
	if res.Err != nil { // a refusal, or a charge not confirmed: nothing known to be billed
		o.Code, o.BilledCharacters = res.Err.Code, 0
		if res.Outcome != nil {
			o.RunStatus, o.HaltReason = pipeline.StatusFailed, ""
		}
	}
	s.record(ctx, o)
	return resp
}

// httpChecks are the contract's checks of a run request between its rate window and its body:
// the body's size (413), then its Content-Type (415), which must be sent once.
func httpChecks(req Request) *errcode.Error {
	if len(req.Body) > pipeline.MaxBodyBytes {
		return errcode.New(errcode.BodyTooLarge, "the request body is larger than %d bytes", pipeline.MaxBodyBytes)
	}
	if len(req.Header.Values(HeaderContentType)) > 1 {
		return errcode.New(errcode.UnsupportedMediaType, "Content-Type was sent more than once; send it once: Content-Type: application/json")
	}
	if !jsonBody(req.Header) {
		return errcode.New(errcode.UnsupportedMediaType, "the request body must be JSON: send Content-Type: application/json (charset, if given, utf-8)")
	}
	return nil
}

// render is a run's answer: the run shape (a rejection's carries its error and nothing run; an
// unconfirmed charge's its error and the billing lines it may have charged), or a duplicate's
// short one with Idempotent-Replayed.
func (s *Server) render(a store.Account, start time.Time, q account.Quota, res metering.Result) Response {
	switch {
	case res.Duplicate:
		resp := jsonResponse(http.StatusOK, res.TraceID, pipeline.Duplicate{
			RequestID: res.RequestID, TraceID: res.TraceID, Status: pipeline.StatusDuplicate,
		}, q)
		resp.Header.Set(HeaderReplayed, "true")
		return resp
	case res.Err != nil && res.Outcome != nil:
		// billing_unconfirmed: usage.billed says what the run was charged if the charge was
		// applied; no output or result goes out on a charge that is not confirmed.
		body := res.Outcome.Render(res.RequestID, s.cfg.Now().Sub(start))
		body.Status, body.Error, body.Output, body.HaltedAt, body.HaltReason = pipeline.StatusFailed, res.Err, nil, nil, ""
		body.Results = map[string]pipeline.StepResult{}
		return jsonResponse(errcode.Status(res.Err.Code), res.TraceID, body, q)
	case res.Err != nil:
		body := pipeline.Rejected(res.RequestID, res.TraceID, a.Region, start, s.cfg.Now().Sub(start), res.Err)
		return jsonResponse(errcode.Status(res.Err.Code), res.TraceID, body, q)
	}
	return jsonResponse(http.StatusOK, res.TraceID, res.Outcome.Render(res.RequestID, s.cfg.Now().Sub(start)), q)
}

// RequestTimeout answers a POST /v1/run whose body did not arrive within the server's read
// timeout: 408 request_timeout in the run shape, logged at INFO like every rejection (it is the
// client's problem, not the server's). The request counts in the account's rate window like any
// other, so a full window answers 429 instead. API Gateway reads bodies itself; the local server
// calls this.
func (s *Server) RequestTimeout(ctx context.Context, a store.Account) Response {
	start := s.cfg.Now()
	g, e := s.runner.Enter(ctx, a, start)
	g.Close()
	if e == nil {
		e = errcode.New(errcode.RequestTimeout, "the request body did not arrive in time; send the whole body at once and retry")
	}
	resp := s.render(a, start, g.Quota, metering.Result{TraceID: g.TraceID, Err: e})
	s.record(ctx, Observation{
		TraceID: g.TraceID, AccountID: a.ID, Route: "run", HTTPStatus: resp.Status, Code: e.Code,
		Duration: s.cfg.Now().Sub(start),
	})
	return resp
}
