// Package account owns Sluice's accounts and API keys: the key format and its hashing, account
// creation with a first key shown once, authentication of a Bearer header, key rotation and
// revocation, the per-account rate window and the monthly allowance check.
package account

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/sluice-api/sluice/internal/errcode"
	"github.com/sluice-api/sluice/internal/store"
)

// Key format: the prefix followed by KeyRandomLen base62 characters.
const (
	KeyPrefix    = "sluice_live_"
	KeyRandomLen = 32
	base62       = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
)

// Account tiers: the API Gateway usage plan an account's key is attached to.
const (
	TierFree       = "free"
	TierStandard   = "standard"
	TierEnterprise = "enterprise"
)

// Tiers lists the valid tiers.
var Tiers = []string{TierFree, TierStandard, TierEnterprise}

// Defaults for a new account.
const (
	DefaultRateLimit = 600
	DefaultAllowance = 10_000_000
	DefaultTier      = TierStandard
)

// NewKey returns a new random API key.
func NewKey() (string, error) {
	b := make([]byte, KeyRandomLen)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("account: new key: %w", err)
	}
	out := make([]byte, KeyRandomLen)
	for i, x := range b {
		// 248 = 4*62: reject and redraw bytes past it so every character is uniform.
		for x >= 248 {
			var one [1]byte
			if _, err := rand.Read(one[:]); err != nil {
				return "", fmt.Errorf("account: new key: %w", err)
			}
			x = one[0]
		}
		out[i] = base62[x%62]
	}
	return KeyPrefix + string(out), nil
}

// ValidKeyFormat reports whether k has the form of an API key.
func ValidKeyFormat(k string) bool {
	rest, ok := strings.CutPrefix(k, KeyPrefix)
	if !ok || len(rest) != KeyRandomLen {
		return false
	}
	for i := 0; i < len(rest); i++ {
		if strings.IndexByte(base62, rest[i]) < 0 {
			return false
		}
	}
	return true
}

// HashKey returns hex HMAC-SHA256(pepper, key): the only form in which a key is stored.
func HashKey(pepper []byte, key string) string {
	m := hmac.New(sha256.New, pepper)
	m.Write([]byte(key))
	return hex.EncodeToString(m.Sum(nil))
}

// Settings are the adjustable settings of an account.
type Settings struct {
	Region    string
	Tier      string
	RateLimit int64
	Allowance int64
}

// Validate checks settings.
func (s Settings) Validate() error {
	switch {
	case s.Region == "":
		return errors.New("account: region is required")
	case !validTier(s.Tier):
		return fmt.Errorf("account: tier must be one of %v", Tiers)
	case s.RateLimit < 1:
		return errors.New("account: rate limit must be at least 1")
	case s.Allowance < 0:
		return errors.New("account: allowance must not be negative")
	}
	return nil
}

func validTier(t string) bool {
	for _, v := range Tiers {
		if v == t {
			return true
		}
	}
	return false
}

// Manager creates and authenticates accounts and keys.
type Manager struct {
	store  store.Accounts
	pepper []byte
	now    func() time.Time
	ids    *IDs
	use    *keyUse // nil unless st records key use
}

// NewManager returns a manager over st that hashes keys with pepper. When st also implements
// store.KeyUse, Authenticate records the day each key was last used (see keyUse).
func NewManager(st store.Accounts, pepper []byte, now func() time.Time) *Manager {
	if now == nil {
		now = time.Now
	}
	return &Manager{store: st, pepper: pepper, now: now, ids: NewIDs(), use: newKeyUse(st)}
}

// NewID returns prefix + "_" + a new ULID (time-sortable, 26 Crockford base32 characters) with
// random entropy: ids made in the same millisecond are unique but in no particular order. Use
// IDs where that order matters.
func NewID(prefix string, now time.Time) string {
	return prefix + "_" + ulid.MustNew(ulid.Timestamp(now), rand.Reader).String()
}

// IDs makes ULIDs that sort in the order they were made, also within one millisecond: the
// entropy of an id made in the same millisecond as the one before is that id's entropy plus a
// random increment (ulid.Monotonic). Keys are listed by (creation time, id), and their creation
// time has millisecond precision, so keys made in one millisecond keep their creation order.
// It is safe for concurrent use; each Manager has its own.
type IDs struct {
	mu      sync.Mutex
	entropy *ulid.MonotonicEntropy
}

// NewIDs returns a generator drawing its entropy from crypto/rand.
func NewIDs() *IDs { return &IDs{entropy: ulid.Monotonic(rand.Reader, 0)} }

// New returns prefix + "_" + a ULID for now that sorts after every id g made before for the same
// or an earlier millisecond.
func (g *IDs) New(prefix string, now time.Time) string {
	g.mu.Lock()
	defer g.mu.Unlock()
	ms := ulid.Timestamp(now)
	id, err := ulid.New(ms, g.entropy)
	if err != nil {
		// The entropy overflowed (a chance of about 2^-48 per id): the id is still unique, only
		// its order within this millisecond is lost.
		id = ulid.MustNew(ms, rand.Reader)
	}
	return prefix + "_" + id.String()
}

func (m *Manager) keyRecord(account, key string, now time.Time) store.Key {
	return store.Key{
		ID: m.ids.New("key", now), Account: account, Hash: HashKey(m.pepper, key),
		Prefix: key[:len(KeyPrefix)+4], Last4: key[len(key)-4:], CreatedAt: now,
	}
}

// Create makes a new account with s and returns it with its first key, the only time the key
// is ever visible.
func (m *Manager) Create(ctx context.Context, s Settings) (store.Account, string, error) {
	key, err := NewKey()
	if err != nil {
		return store.Account{}, "", err
	}
	a, err := m.CreateWithKey(ctx, s, key)
	return a, key, err
}

// CreateWithKey makes a new account whose first key is key (used to seed known keys locally).
func (m *Manager) CreateWithKey(ctx context.Context, s Settings, key string) (store.Account, error) {
	if err := s.Validate(); err != nil {
		return store.Account{}, err
	}
	if !ValidKeyFormat(key) {
		return store.Account{}, fmt.Errorf("account: key must be %q followed by %d letters and digits", KeyPrefix, KeyRandomLen)
	}
	now := m.now().UTC()
	a := store.Account{
		ID: m.ids.New("acct", now), Region: s.Region, Tier: s.Tier,
		RateLimit: s.RateLimit, Allowance: s.Allowance, CreatedAt: now,
	}
	if err := m.store.CreateAccount(ctx, a, m.keyRecord(a.ID, key, now)); err != nil {
		return store.Account{}, fmt.Errorf("account: create: %w", err)
	}
	return a, nil
}

// Ensure makes sure key belongs to an account with settings s: it creates the account when the
// key is unknown and updates its settings when they differ. A key that was revoked (or rotated
// away) stays revoked: Ensure returns its account with ErrKeyRevoked, and a disabled account is
// returned with ErrDisabled, so a caller can say why the key will not work.
func (m *Manager) Ensure(ctx context.Context, s Settings, key string) (store.Account, error) {
	if err := s.Validate(); err != nil {
		return store.Account{}, err
	}
	if !ValidKeyFormat(key) {
		return store.Account{}, fmt.Errorf("account: key must be %q followed by %d letters and digits", KeyPrefix, KeyRandomLen)
	}
	hash := HashKey(m.pepper, key)
	k, err := m.store.KeyByHash(ctx, hash)
	if errors.Is(err, store.ErrNotFound) {
		a, cerr := m.CreateWithKey(ctx, s, key)
		if !errors.Is(cerr, store.ErrExists) { // ErrExists: another process seeded it first
			return a, cerr
		}
		k, err = m.store.KeyByHash(ctx, hash)
	}
	if err != nil {
		return store.Account{}, fmt.Errorf("account: look up key: %w", err)
	}
	a, err := m.store.GetAccount(ctx, k.Account)
	if err != nil {
		return store.Account{}, fmt.Errorf("account: get account: %w", err)
	}
	if !k.Active() {
		return a, ErrKeyRevoked
	}
	if a.Region != s.Region || a.Tier != s.Tier || a.RateLimit != s.RateLimit || a.Allowance != s.Allowance {
		a.Region, a.Tier, a.RateLimit, a.Allowance = s.Region, s.Tier, s.RateLimit, s.Allowance
		if err := m.store.UpdateAccount(ctx, a); err != nil {
			return store.Account{}, fmt.Errorf("account: update account: %w", err)
		}
	}
	if a.Disabled {
		return a, ErrDisabled
	}
	return a, nil
}

// invalidKey is the one answer to every bad key, whatever was wrong with it.
func invalidKey() error {
	return errcode.New(errcode.InvalidAPIKey, errcode.InvalidAPIKeyMessage)
}

// Authenticate resolves an Authorization header value ("Bearer <key>") to an active account. Any
// bad key, unknown, revoked or of a disabled account, is invalid_api_key; a store failure is
// returned as it is (the caller answers service_unavailable).
func (m *Manager) Authenticate(ctx context.Context, authorization string) (store.Account, error) {
	scheme, key, ok := strings.Cut(strings.TrimSpace(authorization), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return store.Account{}, invalidKey()
	}
	key = strings.TrimSpace(key)
	if !ValidKeyFormat(key) {
		return store.Account{}, invalidKey()
	}
	k, a, err := m.store.KeyAccount(ctx, HashKey(m.pepper, key))
	if errors.Is(err, store.ErrNotFound) {
		return store.Account{}, invalidKey()
	}
	if err != nil {
		return store.Account{}, fmt.Errorf("account: look up key: %w", err)
	}
	if !k.Active() || a.Disabled {
		return store.Account{}, invalidKey()
	}
	m.use.note(ctx, k, m.now())
	return a, nil
}

// Month returns the calendar month of t in UTC as "YYYY-MM".
func Month(t time.Time) string { return t.UTC().Format("2006-01") }

// AuthorizationHeader returns the request's one Authorization header, or "" when it is missing
// or repeated: a repeated header is refused like a missing one, so a filter in front of Sluice
// and Sluice itself can never read different keys from one request.
func AuthorizationHeader(h http.Header) string {
	if v := h.Values("Authorization"); len(v) == 1 {
		return v[0]
	}
	return ""
}
