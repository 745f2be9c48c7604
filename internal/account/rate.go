package account

import (
	"time"
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

// ResetSeconds returns the whole seconds, rounded up, until the window holding now ends: 1 to 60.
func ResetSeconds(now time.Time) int64 {
	end := now.UTC().Truncate(Window).Add(Window)
	left := end.Sub(now)
	s := int64((left + time.Second - 1) / time.Second)
	return min(max(s, 1), 60)
}
