package account

import (
	"context"
	"errors"
	"fmt"

	"github.com/sluice-api/sluice/internal/store"
)

// The account holder's own key operations (the dashboard): every one names the account it acts
// for and refuses a key of any other account as if the key did not exist.

// ErrKeyRevoked: the key is revoked already, so there is nothing to replace.
var ErrKeyRevoked = errors.New("account: the key is revoked")

// KeyOf returns the key keyID of accountID; store.ErrNotFound (wrapped) when the account has no
// such key, whether or not another account has.
func (m *Manager) KeyOf(ctx context.Context, accountID, keyID string) (store.Key, error) {
	keys, err := m.ListKeys(ctx, accountID)
	if err != nil {
		return store.Key{}, err
	}
	for _, k := range keys {
		if k.ID == keyID {
			return k, nil
		}
	}
	return store.Key{}, fmt.Errorf("account: key %s of %s: %w", keyID, accountID, store.ErrNotFound)
}

// RevokeKeyOf revokes the key keyID of accountID: it stops working on the very next request.
func (m *Manager) RevokeKeyOf(ctx context.Context, accountID, keyID string) error {
	if _, err := m.KeyOf(ctx, accountID, keyID); err != nil {
		return err
	}
	return m.RevokeKey(ctx, keyID)
}

// ReplaceKey rotates one key of accountID: it adds a new key, then revokes keyID, which stops
// working on the very next request, while the account's other keys keep working. The new key is
// returned, the only time it is visible. The new key is added first so that a failure never
// leaves the account with fewer working keys: when the revocation fails, the new key is
// returned together with the error and must still be shown, and keyID stays active.
func (m *Manager) ReplaceKey(ctx context.Context, accountID, keyID string) (string, store.Key, error) {
	old, err := m.KeyOf(ctx, accountID, keyID)
	if err != nil {
		return "", store.Key{}, err
	}
	if !old.Active() {
		return "", store.Key{}, ErrKeyRevoked
	}
	key, k, err := m.CreateKey(ctx, accountID)
	if err != nil {
		return "", store.Key{}, err
	}
	if err := m.RevokeKey(ctx, keyID); err != nil {
		return key, k, fmt.Errorf("account: new key %s made, but %s was not revoked: %w", k.ID, keyID, err)
	}
	return key, k, nil
}
