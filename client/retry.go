package client

import "time"

// RetryPolicy says how often and how patiently a call is retried. A call is retried after a
// connection error, a 408, a 409 idempotency_key_in_use, a 429 or a 5xx; never after any other
// answer (a 400 stays a 400). Retry n (from 0) waits a random delay in [d/2, d), where
// d = min(BaseDelay·2ⁿ, MaxDelay); when Sluice sent Retry-After, it waits that long plus a random
// part of BaseDelay instead, so clients told the same time do not come back at the same instant.
// The context's deadline bounds everything: a wait that would end past it is not started.
type RetryPolicy struct {
	// MaxRetries is how many times a call is retried after its first attempt; 0 never retries.
	MaxRetries int
	// BaseDelay is the first backoff (default 500 ms when zero).
	BaseDelay time.Duration
	// MaxDelay caps the exponential backoff, not a Retry-After (default 20 s when zero).
	MaxDelay time.Duration
}

// DefaultRetryPolicy returns the policy a new Client has: 3 retries, 500 ms growing to 20 s.
func DefaultRetryPolicy() RetryPolicy {
	return RetryPolicy{MaxRetries: 3, BaseDelay: 500 * time.Millisecond, MaxDelay: 20 * time.Second}
}

// delay returns the wait before retry n (from 0), given the Retry-After Sluice sent (0: none)
// and jitter, a uniform random integer in [0, k) for k > 0.
func (p RetryPolicy) delay(n int, retryAfter time.Duration, jitter func(k int64) int64) time.Duration {
	base, ceiling := p.BaseDelay, p.MaxDelay
	if base <= 0 {
		base = 500 * time.Millisecond
	}
	if ceiling <= 0 {
		ceiling = 20 * time.Second
	}
	if retryAfter > 0 {
		return retryAfter + time.Duration(jitter(int64(base)))
	}
	d := ceiling
	if n < 32 && base<<n > 0 && base<<n < ceiling {
		d = base << n
	}
	half := d / 2
	return half + time.Duration(jitter(int64(d-half)))
}
