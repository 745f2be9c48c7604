package account

import (
	"context"
	"fmt"
	"time"

	"github.com/sluice-api/sluice/internal/store"
)

// Window is the length of a rate window. Windows are aligned to the UTC minute.
const Window = time.Minute

// Quota is the state of an account's rate window after a request, as the X-RateLimit-* headers
// report it.
type Quota struct {
	Limit     int64
	Remaining int64
	Reset     int64 // whole seconds until the window ends, 1 to 60
	Admitted  bool
}

// NoQuota is what a response without an account (401, unknown route) reports: all zero.
var NoQuota = Quota{}

// Limiter counts requests per account in fixed windows.
type Limiter struct {
	windows store.RateWindows
}

// NewLimiter returns a limiter over windows.
func NewLimiter(windows store.RateWindows) *Limiter { return &Limiter{windows: windows} }

// Take counts one request of a at now and returns the window's quota.
func (l *Limiter) Take(ctx context.Context, a store.Account, now time.Time) (Quota, error) {
	start := now.UTC().Truncate(Window)
	count, ok, err := l.windows.Hit(ctx, a.ID, start, a.RateLimit)
	if err != nil {
		return Quota{}, fmt.Errorf("account: rate window: %w", err)
	}
	return Quota{
		Limit: a.RateLimit, Remaining: max(a.RateLimit-count, 0),
		Reset: ResetSeconds(now), Admitted: ok,
	}, nil
}

// ResetSeconds returns the whole seconds, rounded up, until the window holding now ends: 1 to 60.
func ResetSeconds(now time.Time) int64 {
	end := now.UTC().Truncate(Window).Add(Window)
	left := end.Sub(now)
	s := int64((left + time.Second - 1) / time.Second)
	return min(max(s, 1), 60)
}
