package account

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/sluice-api/sluice/internal/store"
)

// keyAttempts bounds the new keys CreateKey and RotateKey make when the store refuses one
// because the account changed while it was written (store.ErrAccountChanged): an operator's
// change of the account, which is rare, so a second key nearly always goes through.
const keyAttempts = 3

// CreateKey adds a new key to an existing, enabled account and returns it: the only time the
// key is visible.
func (m *Manager) CreateKey(ctx context.Context, accountID string) (string, store.Key, error) {
	return m.newKey(ctx, accountID, "add key", func(k store.Key, _ time.Time) error { return m.store.AddKey(ctx, k) })
}

// RotateKey adds a new key to the account and revokes every older key at once: the old keys stop
// working on the very next request. The new key is returned, the only time it is visible.
func (m *Manager) RotateKey(ctx context.Context, accountID string) (string, store.Key, error) {
	return m.newKey(ctx, accountID, "rotate key", func(k store.Key, now time.Time) error { return m.store.RotateKey(ctx, k, now) })
}

// newKey makes a key for an enabled account and stores it with put, making another when the
// store answers that the account changed meanwhile (the refused key is revoked already). The
// account is checked again each time: a change that disabled it gets no key.
func (m *Manager) newKey(ctx context.Context, accountID, what string, put func(store.Key, time.Time) error) (string, store.Key, error) {
	for range keyAttempts {
		if _, err := m.usable(ctx, accountID); err != nil {
			return "", store.Key{}, err
		}
		key, err := NewKey()
		if err != nil {
			return "", store.Key{}, err
		}
		now := m.now().UTC()
		k := m.keyRecord(accountID, key, now)
		err = put(k, now)
		if errors.Is(err, store.ErrAccountChanged) {
			continue
		}
		if err != nil {
			return "", store.Key{}, fmt.Errorf("account: %s: %w", what, err)
		}
		return key, k, nil
	}
	return "", store.Key{}, fmt.Errorf("account: %s: the account kept changing: %w", what, store.ErrAccountChanged)
}

// RevokeKey revokes one key by its id.
func (m *Manager) RevokeKey(ctx context.Context, keyID string) error {
	if err := m.store.RevokeKey(ctx, keyID, m.now().UTC()); err != nil {
		return fmt.Errorf("account: revoke key: %w", err)
	}
	return nil
}

// ListKeys lists an account's keys, oldest first: ids, prefixes and last four characters only.
func (m *Manager) ListKeys(ctx context.Context, accountID string) ([]store.Key, error) {
	if _, err := m.Get(ctx, accountID); err != nil {
		return nil, err
	}
	keys, err := m.store.ListKeys(ctx, accountID)
	if err != nil {
		return nil, fmt.Errorf("account: list keys: %w", err)
	}
	return keys, nil
}

// Get returns an account; store.ErrNotFound (wrapped) when there is none.
func (m *Manager) Get(ctx context.Context, accountID string) (store.Account, error) {
	a, err := m.store.GetAccount(ctx, accountID)
	if err != nil {
		return store.Account{}, fmt.Errorf("account: get %s: %w", accountID, err)
	}
	return a, nil
}

// Change lists the settings to change; nil fields stay as they are.
type Change struct {
	Region    *string
	Tier      *string
	RateLimit *int64
	Allowance *int64
	// UsagePlanKey sets the account's API Gateway API key (AWS provisioning).
	UsagePlanKey *string
	Disabled     *bool
}

// Update applies c to the account after validating the result.
func (m *Manager) Update(ctx context.Context, accountID string, c Change) (store.Account, error) {
	a, err := m.Get(ctx, accountID)
	if err != nil {
		return store.Account{}, err
	}
	set(&a.Region, c.Region)
	set(&a.Tier, c.Tier)
	set(&a.RateLimit, c.RateLimit)
	set(&a.Allowance, c.Allowance)
	set(&a.UsagePlanKey, c.UsagePlanKey)
	set(&a.Disabled, c.Disabled)
	s := Settings{Region: a.Region, Tier: a.Tier, RateLimit: a.RateLimit, Allowance: a.Allowance}
	if err := s.Validate(); err != nil {
		return store.Account{}, err
	}
	if err := m.store.UpdateAccount(ctx, a); err != nil {
		return store.Account{}, fmt.Errorf("account: update %s: %w", accountID, err)
	}
	return a, nil
}

func set[T any](dst *T, v *T) {
	if v != nil {
		*dst = *v
	}
}

// Disable stops every key of the account from working at once; the keys stay listed.
func (m *Manager) Disable(ctx context.Context, accountID string) (store.Account, error) {
	disabled := true
	return m.Update(ctx, accountID, Change{Disabled: &disabled})
}

// ErrDisabled: the account is disabled, so it gets no new keys.
var ErrDisabled = errors.New("account: the account is disabled")

func (m *Manager) usable(ctx context.Context, accountID string) (store.Account, error) {
	a, err := m.Get(ctx, accountID)
	if err != nil {
		return store.Account{}, err
	}
	if a.Disabled {
		return store.Account{}, ErrDisabled
	}
	return a, nil
}

// UsageReport is an account's month: what it was billed and what it has left. keyctl usage and
// GET /v1/usage both show it, so customers see exactly what they are billed.
type UsageReport struct {
	Account          string `json:"account_id"`
	Month            string `json:"month"`
	Characters       int64  `json:"characters"`
	Runs             int64  `json:"runs"`
	PriceTier        string `json:"price_tier"`
	CostMicroUSD     int64  `json:"cost_micro_usd"`
	CostUSD          string `json:"cost_usd"`
	Allowance        int64  `json:"allowance"`
	AllowanceLeft    int64  `json:"allowance_left"`
	Tier             string `json:"tier"`
	RateLimit        int64  `json:"rate_limit"`
	RateWindowSecond int64  `json:"rate_window_seconds"`
}

// Report builds the usage report of account a for month ("YYYY-MM") from its counters.
func Report(a store.Account, month string, u store.Usage) UsageReport {
	cost := Cost(u.Characters)
	return UsageReport{
		Account: a.ID, Month: month, Characters: u.Characters, Runs: u.Runs,
		PriceTier: PriceBand(u.Characters).Name, CostMicroUSD: cost, CostUSD: FormatUSD(cost),
		Allowance: a.Allowance, AllowanceLeft: max(a.Allowance-u.Characters, 0),
		Tier: a.Tier, RateLimit: a.RateLimit, RateWindowSecond: int64(Window.Seconds()),
	}
}
