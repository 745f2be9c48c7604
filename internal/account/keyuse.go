package account

import (
	"context"
	"sync"
	"time"

	"github.com/sluice-api/sluice/internal/store"
)

// Recording the day a key was last used costs the API no store round trip per request: the key
// item that Authenticate reads anyway carries the day recorded last, so a write is due only
// when that day is not today, at most once per key per day. The write is a conditional update
// (MarkKeyUsed) started in the background after the key is accepted, so the request never waits
// for it. It is bounded: at most maxKeyUseWrites writes are in flight per Manager (more are
// skipped, not queued), one per key at a time, each with a short timeout. A skipped or failed
// write loses nothing: the stored day is still old, so the key's next request tries again. In a
// Lambda container a write still in flight when the invocation returns is frozen with it and
// resumes (or times out) on the next invocation; the next request repairs that too.
const (
	maxKeyUseWrites = 8
	keyUseTimeout   = 2 * time.Second
)

// Day returns the calendar day of t in UTC as "YYYY-MM-DD", the form of store.Key.LastUsed.
func Day(t time.Time) string { return t.UTC().Format("2006-01-02") }

// keyUse records key use in the background. A nil *keyUse records nothing.
type keyUse struct {
	store   store.KeyUse
	mu      sync.Mutex
	pending map[string]string // key hash -> day being written
	wg      sync.WaitGroup
}

func newKeyUse(st store.Accounts) *keyUse {
	ku, ok := st.(store.KeyUse)
	if !ok {
		return nil
	}
	return &keyUse{store: ku, pending: map[string]string{}}
}

// note starts recording that k was used at now unless k records that day already, a write for
// k is in flight, or maxKeyUseWrites are.
func (u *keyUse) note(ctx context.Context, k store.Key, now time.Time) {
	day := Day(now)
	if u == nil || k.LastUsed >= day {
		return
	}
	u.mu.Lock()
	if _, busy := u.pending[k.Hash]; busy || len(u.pending) >= maxKeyUseWrites {
		u.mu.Unlock()
		return
	}
	u.pending[k.Hash] = day
	u.wg.Add(1)
	u.mu.Unlock()
	ctx = context.WithoutCancel(ctx) // the write outlives the request
	go func() {
		defer u.wg.Done()
		wctx, cancel := context.WithTimeout(ctx, keyUseTimeout)
		// An error is dropped on purpose: the stored day stays old, and the next request of
		// the key writes again.
		_ = u.store.MarkKeyUsed(wctx, k.Hash, day)
		cancel()
		u.mu.Lock()
		delete(u.pending, k.Hash)
		u.mu.Unlock()
	}()
}

// WaitKeyUse waits until the key-use writes started so far have finished (graceful shutdown,
// tests). They are bounded by their timeout.
func (m *Manager) WaitKeyUse() {
	if m.use != nil {
		m.use.wg.Wait()
	}
}
