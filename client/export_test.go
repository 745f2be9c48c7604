package client

import (
	"context"
	"time"
)

// WithClock replaces the client's waiting and randomness, so tests never sleep: sleep is called
// instead of waiting d (it returns the context's error if the context ends first), jitter
// instead of the random source (a uniform integer in [0, n)).
func WithClock(sleep func(ctx context.Context, d time.Duration) error, jitter func(n int64) int64) Option {
	return func(c *Client) { c.sleep, c.jitter = sleep, jitter }
}
