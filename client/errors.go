package client

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// Error is an error Sluice answered: a rejected request (HTTPStatus 4xx or 5xx) or a failed run
// (HTTPStatus 200, the run's Error). Branch on Code, never on Message:
//
//	var e *client.Error
//	if errors.As(err, &e) && e.Code == client.CodeInvalidParams {
//		log.Printf("fix %s: %s", e.Param, e.Message)
//	}
type Error struct {
	// HTTPStatus is the answer's status: 200 for a failed run.
	HTTPStatus int `json:"-"`
	// Code is stable: one of the Code constants.
	Code string `json:"code"`
	// Message is for humans.
	Message string `json:"message"`
	// Param, when set, is a JSON pointer to the offending field, e.g. "/pipeline/1/params/entities".
	Param string `json:"param,omitempty"`
	// TraceID identifies the request (the run, on a failed run); quote it to support.
	TraceID string `json:"-"`
	// RateLimit is the account's request budget after this answer.
	RateLimit RateLimit `json:"-"`
	// RetryAfter is how long Sluice asked to wait (429, 409, 503); zero when it did not say.
	RetryAfter time.Duration `json:"-"`
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("sluice: ")
	if e.HTTPStatus == 200 {
		b.WriteString("run failed: ")
	} else if e.HTTPStatus != 0 {
		fmt.Fprintf(&b, "%d ", e.HTTPStatus)
	}
	b.WriteString(e.Code)
	if e.Message != "" {
		b.WriteString(": " + e.Message)
	}
	if e.Param != "" {
		b.WriteString(" (" + e.Param + ")")
	}
	if e.TraceID != "" {
		b.WriteString(" [trace " + e.TraceID + "]")
	}
	return b.String()
}

// ErrDuplicate is matched (errors.Is) by every *DuplicateError.
var ErrDuplicate = errors.New("sluice: duplicate run")

// DuplicateError is Run's error when Sluice answered status duplicate: a run with the same
// Idempotency-Key and body already happened within 24 hours. It ran and was billed then;
// nothing ran or billed now, and its output is gone, because Sluice keeps no payload
// (retention "none").
//
// With a key the client made (Retried is then true), it means an earlier attempt of this very
// call reached Sluice and ran, but its answer was lost, e.g. with a dropped connection. What a
// caller can do:
//   - if the run was a check whose verdict you need, or a transform whose output you need, run
//     it again under a new key (or none): it is billed again, knowingly;
//   - if only the fact that it ran matters (e.g. metering), record TraceID and carry on;
//   - quote TraceID to support to match it with the original run's audit.
type DuplicateError struct {
	// TraceID is the original run's trace id.
	TraceID string
	// RequestID is the request id of this call, as Sluice echoed it.
	RequestID string
	// IdempotencyKey is the key the duplicate was answered for.
	IdempotencyKey string
	// Retried is true when the original run is an earlier attempt of this very call: always
	// so under a key the client made, and under your key when this call had sent it before.
	// False means an earlier call used your key.
	Retried bool
	// RateLimit is the account's request budget after this answer.
	RateLimit RateLimit
}

func (e *DuplicateError) Error() string {
	if e.Retried {
		return "sluice: duplicate run: an earlier attempt of this call ran and was billed, but its answer was lost; original trace " + e.TraceID
	}
	return "sluice: duplicate run: Idempotency-Key " + e.IdempotencyKey + " already ran and was billed; original trace " + e.TraceID
}

// Is reports whether target is ErrDuplicate.
func (e *DuplicateError) Is(target error) bool { return target == ErrDuplicate }

// ErrMaybeBilled is matched (errors.Is) by every *MaybeBilledError.
var ErrMaybeBilled = errors.New("sluice: the run may have been billed")

// MaybeBilledError is Run's error when the run may have been billed and Sluice could not say
// whether: it answered billing_unconfirmed (the run ran; its charge could not be confirmed), or
// an earlier attempt of this call reached Sluice and its key was still in use when the retries
// ran out (409 idempotency_key_in_use). The run's output, if it ran, is gone.
//
// Do not simply call Run again: under a new key (the client makes one per call) a run that was
// billed is billed again. With IdempotencyKey set, call Run again with the same body and
// RunRequest.IdempotencyKey = IdempotencyKey: a billed run answers ErrDuplicate, and one that
// was not runs once (after its 60-second lease, a 409 until then). Without a key, compare
// Usage before running again.
type MaybeBilledError struct {
	// IdempotencyKey is the key the run was sent under ("" without one): send it again to learn
	// whether the run was billed.
	IdempotencyKey string
	// Last is Sluice's last answer: billing_unconfirmed or idempotency_key_in_use.
	Last *Error
}

func (e *MaybeBilledError) Error() string {
	msg := "sluice: the run may have been billed, but Sluice could not confirm it"
	if e.IdempotencyKey != "" {
		msg += "; send it again under Idempotency-Key " + e.IdempotencyKey + " to learn whether (a duplicate was billed)"
	}
	return msg + ": " + e.Last.Error()
}

// Is reports whether target is ErrMaybeBilled.
func (e *MaybeBilledError) Is(target error) bool { return target == ErrMaybeBilled }

// Unwrap returns Sluice's last answer, so errors.As finds the *Error too.
func (e *MaybeBilledError) Unwrap() error { return e.Last }

// Codes of rejected requests, with their HTTP status (docs/api.md, "Errors", says when each
// happens).
const (
	CodeInvalidAPIKey         = "invalid_api_key"         // 401
	CodeWrongRegion           = "wrong_region"            // 421
	CodeInvalidJSON           = "invalid_json"            // 400
	CodeInvalidRequest        = "invalid_request"         // 400
	CodeUnsupportedInputType  = "unsupported_input_type"  // 400
	CodeUnknownService        = "unknown_service"         // 400
	CodeDuplicateStepID       = "duplicate_step_id"       // 400
	CodeInvalidParams         = "invalid_params"          // 400
	CodeInvalidStopIf         = "invalid_stop_if"         // 400
	CodeImpossibleChain       = "impossible_chain"        // 400
	CodeInvalidIdempotencyKey = "invalid_idempotency_key" // 400
	CodeAllowanceExhausted    = "allowance_exhausted"     // 402
	CodeServiceNotFound       = "service_not_found"       // 404
	CodeNotFound              = "not_found"               // 404
	CodeMethodNotAllowed      = "method_not_allowed"      // 405
	CodeRequestTimeout        = "request_timeout"         // 408, retried
	CodeIdempotencyKeyInUse   = "idempotency_key_in_use"  // 409, retried
	CodeInputTooLarge         = "input_too_large"         // 413
	CodeBodyTooLarge          = "body_too_large"          // 413
	CodeUnsupportedMediaType  = "unsupported_media_type"  // 415
	CodeIdempotencyKeyReused  = "idempotency_key_reused"  // 422
	CodeRateLimited           = "rate_limited"            // 429, retried
	CodeInternal              = "internal_error"          // 500, retried
	CodeServiceUnavailable    = "service_unavailable"     // 503, retried
	CodeBillingUnconfirmed    = "billing_unconfirmed"     // 502, retried under a key; see MaybeBilledError
)

// Codes of failed runs (HTTP 200, status failed). Run returns the *RunResponse, whose completed
// steps are billed and have their results, together with an *Error carrying one of these.
const (
	CodeStepFailed     = "step_failed"      // the service returned an error
	CodeStepTimeout    = "step_timeout"     // the step ran past its time budget
	CodeOutputInvalid  = "output_invalid"   // an extract step's data failed its output_schema
	CodeOutputTooLarge = "output_too_large" // a step's output would exceed 100,000 characters
)
