// Package errcode is Sluice's one error type: a stable machine-readable code, a human message that
// never carries an internal error's text, and an optional JSON pointer to the offending field. One
// table maps every code to its HTTP status.
package errcode

import (
	"errors"
	"fmt"
	"net/http"
)

// Codes of rejected requests.
const (
	InvalidAPIKey         = "invalid_api_key"
	WrongRegion           = "wrong_region"
	InvalidJSON           = "invalid_json"
	InvalidRequest        = "invalid_request"
	UnsupportedInputType  = "unsupported_input_type"
	UnknownService        = "unknown_service"
	DuplicateStepID       = "duplicate_step_id"
	InvalidParams         = "invalid_params"
	InvalidStopIf         = "invalid_stop_if"
	ImpossibleChain       = "impossible_chain"
	InvalidIdempotencyKey = "invalid_idempotency_key"
	InputTooLarge         = "input_too_large"
	BodyTooLarge          = "body_too_large"
	UnsupportedMediaType  = "unsupported_media_type"
	RequestTimeout        = "request_timeout"
	ServiceNotFound       = "service_not_found"
	NotFound              = "not_found"
	MethodNotAllowed      = "method_not_allowed"
	IdempotencyKeyInUse   = "idempotency_key_in_use"
	IdempotencyKeyReused  = "idempotency_key_reused"
	AllowanceExhausted    = "allowance_exhausted"
	RateLimited           = "rate_limited"
	Internal              = "internal_error"
	ServiceUnavailable    = "service_unavailable"
	// BillingUnconfirmed: the run ran and its charge may have been applied, but the store could
	// not confirm it. Never "retry shortly": a retry under the same Idempotency-Key answers
	// duplicate when the charge holds.
	BillingUnconfirmed = "billing_unconfirmed"
)

// InvalidAPIKeyMessage is the message of every invalid_api_key answer, the local server's and
// API Gateway's alike: it never says which of the reasons applies.
const InvalidAPIKeyMessage = "the API key is missing, malformed or revoked; a key that worked before was probably rotated"

// Codes inside a failed run (HTTP 200, status failed).
const (
	StepFailed     = "step_failed"
	StepTimeout    = "step_timeout"
	OutputInvalid  = "output_invalid"
	OutputTooLarge = "output_too_large"
)

var statuses = map[string]int{
	InvalidAPIKey:         http.StatusUnauthorized,
	WrongRegion:           http.StatusMisdirectedRequest,
	InvalidJSON:           http.StatusBadRequest,
	InvalidRequest:        http.StatusBadRequest,
	UnsupportedInputType:  http.StatusBadRequest,
	UnknownService:        http.StatusBadRequest,
	DuplicateStepID:       http.StatusBadRequest,
	InvalidParams:         http.StatusBadRequest,
	InvalidStopIf:         http.StatusBadRequest,
	ImpossibleChain:       http.StatusBadRequest,
	InvalidIdempotencyKey: http.StatusBadRequest,
	InputTooLarge:         http.StatusRequestEntityTooLarge,
	BodyTooLarge:          http.StatusRequestEntityTooLarge,
	UnsupportedMediaType:  http.StatusUnsupportedMediaType,
	RequestTimeout:        http.StatusRequestTimeout,
	ServiceNotFound:       http.StatusNotFound,
	NotFound:              http.StatusNotFound,
	MethodNotAllowed:      http.StatusMethodNotAllowed,
	IdempotencyKeyInUse:   http.StatusConflict,
	IdempotencyKeyReused:  http.StatusUnprocessableEntity,
	AllowanceExhausted:    http.StatusPaymentRequired,
	RateLimited:           http.StatusTooManyRequests,
	Internal:              http.StatusInternalServerError,
	ServiceUnavailable:    http.StatusServiceUnavailable,
	BillingUnconfirmed:    http.StatusBadGateway,
	StepFailed:            http.StatusOK,
	StepTimeout:           http.StatusOK,
	OutputInvalid:         http.StatusOK,
	OutputTooLarge:        http.StatusOK,
}

// Error is an error a client may see.
type Error struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Param   string `json:"param,omitempty"` // JSON pointer to the offending field
}

func (e *Error) Error() string {
	if e.Param != "" {
		return fmt.Sprintf("%s: %s (%s)", e.Code, e.Message, e.Param)
	}
	return e.Code + ": " + e.Message
}

// New returns an error with code and a formatted message.
func New(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// At returns an error with code about the field at the JSON pointer param.
func At(code, param, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...), Param: param}
}

// Status returns the HTTP status of code; unknown codes are 500.
func Status(code string) int {
	if s, ok := statuses[code]; ok {
		return s
	}
	return http.StatusInternalServerError
}

// Codes returns every code with its HTTP status, for documentation and tests.
func Codes() map[string]int {
	out := make(map[string]int, len(statuses))
	for k, v := range statuses {
		out[k] = v
	}
	return out
}

// As returns err as an *Error when it is one; otherwise it returns an internal_error whose message
// says nothing of err (the caller logs err).
func As(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return &Error{Code: Internal, Message: "internal error; quote the trace id when contacting support"}
}
