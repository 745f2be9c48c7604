package dynamo

import (
	"context"
	crand "crypto/rand"
	"encoding/base64"
	"fmt"
	"math/rand/v2"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/smithy-go/middleware"
)

// Retries of the store's client. Every write of the store is safe to repeat (see the package
// doc), so a call whose answer was lost is retried like any other transient failure.
const (
	// MaxAttempts bounds the attempts of one call: DynamoDB's transient errors (throttling, a
	// lost connection, a 5xx) clear quickly, and each attempt of a lost answer is cheap.
	MaxAttempts = 8
	// retryBase and retryCap shape the full-jitter backoff: attempt i waits a random time up
	// to min(retryBase * 2^i, retryCap). Throttling waits up to a second from the start.
	retryBase = 25 * time.Millisecond
	retryCap  = time.Second
)

// NewRetryer returns the retry policy of the store's client: the SDK's standard retryer (its
// retryable errors and its retry quota, which stops retry storms when DynamoDB is down) with
// MaxAttempts attempts and a full-jitter backoff from 25 ms to 1 s.
func NewRetryer() aws.Retryer {
	return retry.NewStandard(func(o *retry.StandardOptions) {
		o.MaxAttempts = MaxAttempts
		o.MaxBackoff = retryCap
		o.Backoff = retry.BackoffDelayerFunc(backoff(retry.IsErrorThrottles(o.Throttles)))
	})
}

// backoff is full jitter: a random delay up to min(base * 2^attempt, retryCap), with a base of
// retryBase, or a second for throttling.
func backoff(throttle retry.IsErrorThrottle) func(attempt int, err error) (time.Duration, error) {
	return func(attempt int, err error) (time.Duration, error) {
		base := retryBase
		if throttle.IsErrorThrottle(err) == aws.TrueTernary {
			base = time.Second
		}
		ceiling := retryCap
		if attempt < 16 {
			ceiling = min(base<<attempt, retryCap)
		}
		return rand.N(ceiling + 1), nil
	}
}

// withRetryPolicy returns a client like c whose retryer is NewRetryer.
func withRetryPolicy(c *dynamodb.Client) *dynamodb.Client {
	o := c.Options()
	o.Retryer = NewRetryer()
	return dynamodb.New(o)
}

// attempts counts the HTTP attempts the SDK makes for one call, its retries included; pass its
// count method as the call's option.
type attempts struct{ c atomic.Int32 }

func (a *attempts) n() int32 { return a.c.Load() }

func (a *attempts) count(o *dynamodb.Options) {
	o.APIOptions = append(o.APIOptions, func(st *middleware.Stack) error {
		// After the SDK's "Retry" middleware, so that every attempt passes here.
		return st.Finalize.Insert(middleware.FinalizeMiddlewareFunc("SluiceCountAttempts",
			func(ctx context.Context, in middleware.FinalizeInput, next middleware.FinalizeHandler) (middleware.FinalizeOutput, middleware.Metadata, error) {
				a.c.Add(1)
				return next.HandleFinalize(ctx, in)
			}), "Retry", middleware.After)
	})
}

// newMarker returns prefix + 16 random base64url characters: the name of a marker attribute
// that identifies one write.
func newMarker(prefix string) (string, error) {
	var b [12]byte
	if _, err := crand.Read(b[:]); err != nil {
		return "", fmt.Errorf("marker: %w", err)
	}
	return prefix + base64.RawURLEncoding.EncodeToString(b[:]), nil
}
