package errcode

import (
	"errors"
	"fmt"
	"testing"
)

func TestStatus(t *testing.T) {
	for _, tc := range []struct {
		code   string
		status int
	}{
		{InvalidAPIKey, 401}, {WrongRegion, 421}, {InvalidJSON, 400}, {InvalidRequest, 400},
		{UnsupportedInputType, 400}, {UnknownService, 400}, {DuplicateStepID, 400}, {InvalidParams, 400},
		{InvalidStopIf, 400}, {ImpossibleChain, 400}, {InvalidIdempotencyKey, 400}, {InputTooLarge, 413},
		{BodyTooLarge, 413}, {UnsupportedMediaType, 415}, {RequestTimeout, 408}, {ServiceNotFound, 404}, {NotFound, 404}, {MethodNotAllowed, 405},
		{IdempotencyKeyInUse, 409}, {IdempotencyKeyReused, 422}, {AllowanceExhausted, 402},
		{RateLimited, 429}, {Internal, 500}, {ServiceUnavailable, 503}, {BillingUnconfirmed, 502},
		{StepFailed, 200}, {StepTimeout, 200}, {OutputInvalid, 200}, {"no_such_code", 500},
	} {
		t.Run(tc.code, func(t *testing.T) {
			if got := Status(tc.code); got != tc.status {
				t.Fatalf("Status(%s) = %d, want %d", tc.code, got, tc.status)
			}
		})
	}
	if len(Codes()) != 29 {
		t.Fatalf("Codes() has %d codes; update this test and the README table together", len(Codes()))
	}
}

func TestAsHidesInternalErrors(t *testing.T) {
	e := As(fmt.Errorf("wrapped: %w", New(InvalidParams, "bad")))
	if e.Code != InvalidParams {
		t.Fatalf("wrapped *Error lost: %v", e)
	}
	e = As(errors.New("open /secret/path: permission denied"))
	if e.Code != Internal || e.Message == "" || e.Message == "open /secret/path: permission denied" {
		t.Fatalf("internal error leaked or lost: %+v", e)
	}
}
