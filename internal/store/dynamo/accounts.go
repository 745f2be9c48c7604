package dynamo

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/sluice-api/sluice/internal/store"
	"github.com/sluice-api/sluice/internal/store/dynamo/layout"
)

// Item kinds and key prefixes of the accounts table.
const (
	attrKind    = "kind"
	kindAccount = "account"
	kindKey     = "key"
	kindKeyID   = "keyid"

	prefixAccount = layout.PrefixAccount
	prefixKey     = layout.PrefixKey
	prefixKeyID   = layout.PrefixKeyID

	// attrKeyIDs is the string set of key ids on the account item: every key of the account
	// is in it before its key-id and key items are written.
	attrKeyIDs = layout.KeyIDs
)

func accountPK(id string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{attrPK: attrS(prefixAccount + id)}
}

func keyPK(hash string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{attrPK: attrS(prefixKey + hash)}
}

func keyIDPK(id string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{attrPK: attrS(prefixKeyID + id)}
}

// keyOrder sorts keys by creation time, then id: 16 hex digits of the millisecond time with the
// sign bit flipped (so that negative times sort first), "#", the id.
func keyOrder(k store.Key) string {
	return fmt.Sprintf("%016x#%s", uint64(ms(k.CreatedAt))^(1<<63), k.ID)
}

// CreateAccount stores a and its first key: the account item (whose key_ids already holds the
// key's id), then the key-id item, then the key item, each only if it does not exist. When the
// key's id or hash exists, what was written is deleted again and ErrExists returned.
// first.Account may be empty (it is set to a.ID); any other value than a.ID is an error.
func (s *Store) CreateAccount(ctx context.Context, a store.Account, first store.Key) error {
	if first.Account == "" {
		first.Account = a.ID
	}
	if first.Account != a.ID {
		return fmt.Errorf("dynamo: create account %q: first key belongs to account %q", a.ID, first.Account)
	}
	if a.ID == "" {
		return errors.New("dynamo: create account: empty id")
	}
	if first.ID == "" || first.Hash == "" {
		return fmt.Errorf("dynamo: create account %q: first key %q: empty id or hash", a.ID, first.ID)
	}
	item := accountItem(a)
	item[attrCreatedMS] = attrN(ms(a.CreatedAt))
	item[attrKeyIDs] = &types.AttributeValueMemberSS{Value: []string{first.ID}}
	item[attrVersion] = attrN(1)
	mac := seal(s.copyKey, a, 1)
	setS(item, attrCopyMAC, mac)
	_, err := s.db.PutItem(ctx, &dynamodb.PutItemInput{
		TableName:           aws.String(s.t.Accounts),
		Item:                item,
		ConditionExpression: aws.String("attribute_not_exists(pk)"),
	})
	if conditionFailed(err) {
		// Ours when it names our first key and creation time: an earlier attempt of this
		// write (or an earlier call with these arguments) made it.
		mine, rerr := s.holds(ctx, accountPK(a.ID), func(d *decoder) bool {
			return slices.Contains(d.strSet(attrKeyIDs), first.ID) && d.num(attrCreatedMS) == ms(a.CreatedAt)
		})
		switch {
		case rerr != nil:
			return fmt.Errorf("dynamo: create account %q: %w", a.ID, rerr)
		case !mine:
			return fmt.Errorf("dynamo: create account %q: %w", a.ID, store.ErrExists)
		}
	} else if err != nil {
		return fmt.Errorf("dynamo: create account %q: %w", a.ID, err)
	}
	if err := s.putKey(ctx, first, accountCopy(a, 1, mac)); err != nil {
		// Undo the account so that a refused creation leaves nothing. Nobody else can have
		// written it: ids are unique and accounts are never deleted otherwise.
		if _, derr := s.db.DeleteItem(ctx, &dynamodb.DeleteItemInput{
			TableName: aws.String(s.t.Accounts),
			Key:       accountPK(a.ID),
		}); derr != nil {
			return fmt.Errorf("dynamo: create account %q: %w (and undoing the account failed: %v)", a.ID, err, derr)
		}
		return fmt.Errorf("dynamo: create account %q: %w", a.ID, err)
	}
	// An UpdateAccount that came in between found no key item to copy to: copy it here.
	if now, ver, mac, err := s.readAccount(ctx, a.ID); err != nil {
		return fmt.Errorf("dynamo: create account %q: %w", a.ID, err)
	} else if ver != 1 {
		if err := s.copyToKey(ctx, first.Hash, now, ver, mac); err != nil {
			return fmt.Errorf("dynamo: create account %q: %w", a.ID, err)
		}
	}
	return nil
}

const attrCreatedMS = "created_ms"

// accountItem is the account item without created_ms.
func accountItem(a store.Account) map[string]types.AttributeValue {
	item := accountPK(a.ID)
	item[attrKind] = attrS(kindAccount)
	item["id"] = attrS(a.ID)
	setS(item, "region", a.Region)
	setS(item, "tier", a.Tier)
	item["rate_limit"] = attrN(a.RateLimit)
	item["allowance"] = attrN(a.Allowance)
	item["disabled"] = attrBool(a.Disabled)
	setS(item, "usage_plan_key", a.UsagePlanKey)
	return item
}

// GetAccount returns the account with id, or ErrNotFound.
func (s *Store) GetAccount(ctx context.Context, id string) (store.Account, error) {
	out, err := s.db.GetItem(ctx, &dynamodb.GetItemInput{
		TableName:      aws.String(s.t.Accounts),
		Key:            accountPK(id),
		ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		return store.Account{}, fmt.Errorf("dynamo: get account %q: %w", id, err)
	}
	if out.Item == nil {
		return store.Account{}, fmt.Errorf("dynamo: get account %q: %w", id, store.ErrNotFound)
	}
	a, _, err := decodeAccount(id, out.Item)
	if err != nil {
		return store.Account{}, fmt.Errorf("dynamo: get account %q: %w", id, err)
	}
	return a, nil
}

// UpdateAccount replaces the settings of an existing account (region, tier, rate limit,
// allowance, disabled, usage plan key), raising its version, then copies them onto every key
// of the account (accountcopy.go); CreatedAt is kept. ErrNotFound when there is no such
// account. When it fails after the account's write, calling it again finishes the copies.
func (s *Store) UpdateAccount(ctx context.Context, a store.Account) error {
	names := map[string]string{}
	values := map[string]types.AttributeValue{}
	var set, remove []string
	for i, f := range []struct {
		name string
		v    types.AttributeValue // nil: remove (an empty string)
	}{
		{"region", strOrNil(a.Region)},
		{"tier", strOrNil(a.Tier)},
		{"rate_limit", attrN(a.RateLimit)},
		{"allowance", attrN(a.Allowance)},
		{"disabled", attrBool(a.Disabled)},
		{"usage_plan_key", strOrNil(a.UsagePlanKey)},
	} {
		n := fmt.Sprintf("#f%d", i)
		names[n] = f.name
		if f.v == nil {
			remove = append(remove, n)
			continue
		}
		v := fmt.Sprintf(":v%d", i)
		values[v] = f.v
		set = append(set, n+" = "+v)
	}
	names["#ver"] = attrVersion
	values[":zero"], values[":one"] = attrN(0), attrN(1)
	set = append(set, "#ver = if_not_exists(#ver, :zero) + :one")
	expr := "SET " + strings.Join(set, ", ")
	if len(remove) > 0 {
		expr += " REMOVE " + strings.Join(remove, ", ")
	}
	out, err := s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                 aws.String(s.t.Accounts),
		Key:                       accountPK(a.ID),
		UpdateExpression:          aws.String(expr),
		ConditionExpression:       aws.String("attribute_exists(pk)"),
		ExpressionAttributeNames:  names,
		ExpressionAttributeValues: values,
		ReturnValues:              types.ReturnValueAllNew,
	})
	if conditionFailed(err) {
		return fmt.Errorf("dynamo: update account %q: %w", a.ID, store.ErrNotFound)
	}
	if err != nil {
		return fmt.Errorf("dynamo: update account %q: %w", a.ID, err)
	}
	now, ver, err := decodeAccount(a.ID, out.Attributes)
	if err != nil {
		return fmt.Errorf("dynamo: update account %q: %w", a.ID, err)
	}
	mac, err := s.sealAccount(ctx, now, ver)
	if err != nil {
		return fmt.Errorf("dynamo: update account %q: %w", a.ID, err)
	}
	if err := s.copyToKeys(ctx, now, ver, mac); err != nil {
		return fmt.Errorf("dynamo: update account %q: %w", a.ID, err)
	}
	return nil
}

func strOrNil(v string) types.AttributeValue {
	if v == "" {
		return nil
	}
	return attrS(v)
}

// HasAccounts reports whether any account exists. It scans the accounts table until it finds
// an account item: meant for local mode and operator tools, not for request paths.
func (s *Store) HasAccounts(ctx context.Context) (bool, error) {
	p := dynamodb.NewScanPaginator(s.db, &dynamodb.ScanInput{
		TableName:                 aws.String(s.t.Accounts),
		FilterExpression:          aws.String("#k = :account"),
		ProjectionExpression:      aws.String("pk"),
		ExpressionAttributeNames:  map[string]string{"#k": attrKind},
		ExpressionAttributeValues: map[string]types.AttributeValue{":account": attrS(kindAccount)},
		Limit:                     aws.Int32(100),
	})
	for p.HasMorePages() {
		out, err := p.NextPage(ctx)
		if err != nil {
			return false, fmt.Errorf("dynamo: has accounts: %w", err)
		}
		if out.Count > 0 {
			return true, nil
		}
	}
	return false, nil
}

// AddKey stores another key for an existing account: ErrNotFound when the account does not
// exist, ErrExists when a key with that id or hash does. It adds the key's id to the account's
// key_ids, then writes the key-id and key items.
func (s *Store) AddKey(ctx context.Context, k store.Key) error {
	if err := s.addKey(ctx, k); err != nil {
		return fmt.Errorf("dynamo: add key %q: %w", k.ID, err)
	}
	return nil
}

// addKey adds k.ID to the key_ids of k's account (which must exist), then writes the key-id
// and key items (putKey). An id added for a key that is then refused (ErrExists) stays in the
// set: it may be the id of a key of this account that exists already (a retried call), and
// removing it would hide that key from RotateKey. A stale id is harmless: listing and rotation
// skip an id whose key-id or key item is missing or belongs to another account.
func (s *Store) addKey(ctx context.Context, k store.Key) error {
	if k.ID == "" || k.Hash == "" || k.Account == "" {
		return fmt.Errorf("key %q: empty id, hash or account", k.ID)
	}
	out, err := s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                 aws.String(s.t.Accounts),
		Key:                       accountPK(k.Account),
		UpdateExpression:          aws.String("ADD #ids :id"),
		ConditionExpression:       aws.String("attribute_exists(pk)"),
		ExpressionAttributeNames:  map[string]string{"#ids": attrKeyIDs},
		ExpressionAttributeValues: map[string]types.AttributeValue{":id": &types.AttributeValueMemberSS{Value: []string{k.ID}}},
		ReturnValues:              types.ReturnValueAllNew,
	})
	if conditionFailed(err) {
		return fmt.Errorf("account %q: %w", k.Account, store.ErrNotFound)
	}
	if err != nil {
		return fmt.Errorf("record key id in account %q: %w", k.Account, err)
	}
	a, ver, err := decodeAccount(k.Account, out.Attributes)
	if err != nil {
		return fmt.Errorf("account %q: %w", k.Account, err)
	}
	// The account's seal is copied as it is: whoever wrote the account sealed it (a store
	// without the copy key, like the dashboard's, cannot seal, nor forge a seal).
	if err := s.putKey(ctx, k, accountCopy(a, ver, macOf(out.Attributes, attrCopyMAC))); err != nil {
		return err
	}
	// An UpdateAccount may have written the account after the read above and listed the keys
	// before this key's item existed: then the key copies old settings. Revoke it instead.
	_, now, _, err := s.readAccount(ctx, k.Account)
	if err != nil {
		return err
	}
	if now != ver {
		if err := s.revoke(ctx, k.ID, k.Hash, k.CreatedAt); err != nil && !errors.Is(err, store.ErrNotFound) {
			return fmt.Errorf("revoke key %q of a changed account: %w", k.ID, err)
		}
		return fmt.Errorf("key %q: %w", k.ID, store.ErrAccountChanged)
	}
	return nil
}

// putKey reserves k's id (key-id item), then writes the key item; when the hash exists it
// releases the id again. The key item comes last, so a crash never leaves a key that
// authenticates but cannot be found by id (and revoked).
func (s *Store) putKey(ctx context.Context, k store.Key, account map[string]types.AttributeValue) error {
	if k.ID == "" || k.Hash == "" || k.Account == "" {
		return fmt.Errorf("key %q: empty id, hash or account", k.ID)
	}
	idItem := keyIDPK(k.ID)
	idItem[attrKind] = attrS(kindKeyID)
	idItem["hash"] = attrS(k.Hash)
	idItem["account"] = attrS(k.Account)
	_, err := s.db.PutItem(ctx, &dynamodb.PutItemInput{
		TableName:           aws.String(s.t.Accounts),
		Item:                idItem,
		ConditionExpression: aws.String("attribute_not_exists(pk)"),
	})
	if conditionFailed(err) {
		// Ours when it reserves the id for this hash and account and the hash's key item is
		// missing (the rest of this write is still to come) or is this very key (a repeat).
		mine, rerr := s.holds(ctx, keyIDPK(k.ID), func(d *decoder) bool {
			return d.str("hash") == k.Hash && d.str("account") == k.Account
		})
		if rerr == nil && mine {
			var other bool
			other, rerr = s.holds(ctx, keyPK(k.Hash), func(d *decoder) bool { return !sameKey(d, k) })
			mine = !other
		}
		switch {
		case rerr != nil:
			return fmt.Errorf("key id %q: %w", k.ID, rerr)
		case !mine:
			return fmt.Errorf("key id %q: %w", k.ID, store.ErrExists)
		}
	} else if err != nil {
		return fmt.Errorf("reserve key id %q: %w", k.ID, err)
	}

	item := keyPK(k.Hash)
	item[attrKind] = attrS(kindKey)
	item[layout.KeyID] = attrS(k.ID)
	item[attrAcct] = attrS(k.Account)
	item[attrKOrder] = attrS(keyOrder(k))
	item["hash"] = attrS(k.Hash)
	setS(item, "prefix", k.Prefix)
	setS(item, "last4", k.Last4)
	item[attrCreatedMS] = attrN(ms(k.CreatedAt))
	if !k.RevokedAt.IsZero() {
		item[attrRevokedMS] = attrN(ms(k.RevokedAt))
	}
	for name, v := range account {
		item[name] = v
	}
	_, err = s.db.PutItem(ctx, &dynamodb.PutItemInput{
		TableName:           aws.String(s.t.Accounts),
		Item:                item,
		ConditionExpression: aws.String("attribute_not_exists(pk)"),
	})
	if err == nil {
		return nil
	}
	if conditionFailed(err) {
		// Ours when the hash's key item is this very key (a repeated write).
		mine, rerr := s.holds(ctx, keyPK(k.Hash), func(d *decoder) bool { return sameKey(d, k) })
		if rerr != nil {
			return fmt.Errorf("put key %q: %w", k.ID, rerr)
		}
		if mine {
			return nil
		}
	}
	if !conditionFailed(err) {
		err = fmt.Errorf("put key %q: %w", k.ID, err)
	} else {
		err = fmt.Errorf("key hash of %q: %w", k.ID, store.ErrExists)
	}
	// Release the id we reserved (only if it is still ours).
	if _, derr := s.db.DeleteItem(ctx, &dynamodb.DeleteItemInput{
		TableName:                 aws.String(s.t.Accounts),
		Key:                       keyIDPK(k.ID),
		ConditionExpression:       aws.String("#h = :h"),
		ExpressionAttributeNames:  map[string]string{"#h": "hash"},
		ExpressionAttributeValues: map[string]types.AttributeValue{":h": attrS(k.Hash)},
	}); derr != nil && !conditionFailed(derr) {
		return fmt.Errorf("%w (and releasing the key id failed: %v)", err, derr)
	}
	return err
}

const attrRevokedMS = layout.RevokedMS

// sameKey reports whether a key item is k: the same id, account and creation time.
func sameKey(d *decoder, k store.Key) bool {
	return d.str(layout.KeyID) == k.ID && d.str(attrAcct) == k.Account && d.num(attrCreatedMS) == ms(k.CreatedAt)
}

// holds reads the item at key (consistent read) and reports whether it exists and ours says it
// is the caller's own. It resolves a refused attribute_not_exists write: the item may be the write's own,
// applied by an earlier attempt whose answer was lost.
func (s *Store) holds(ctx context.Context, key map[string]types.AttributeValue, ours func(d *decoder) bool) (bool, error) {
	out, err := s.db.GetItem(ctx, &dynamodb.GetItemInput{
		TableName:      aws.String(s.t.Accounts),
		Key:            key,
		ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		return false, fmt.Errorf("read back: %w", err)
	}
	if out.Item == nil {
		return false, nil
	}
	d := &decoder{item: out.Item}
	mine := ours(d)
	if d.err != nil {
		return false, fmt.Errorf("read back: %w", d.err)
	}
	return mine, nil
}

// KeyByHash returns the key (active or revoked) whose hash is hash, or ErrNotFound.
func (s *Store) KeyByHash(ctx context.Context, hash string) (store.Key, error) {
	out, err := s.db.GetItem(ctx, &dynamodb.GetItemInput{
		TableName:      aws.String(s.t.Accounts),
		Key:            keyPK(hash),
		ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		return store.Key{}, fmt.Errorf("dynamo: key by hash: %w", err)
	}
	if out.Item == nil {
		return store.Key{}, fmt.Errorf("dynamo: key by hash: %w", store.ErrNotFound)
	}
	k, err := decodeKey(out.Item)
	if err != nil {
		return store.Key{}, fmt.Errorf("dynamo: key by hash: %w", err)
	}
	return k, nil
}

func decodeKey(item map[string]types.AttributeValue) (store.Key, error) {
	d := decoder{item: item}
	k := store.Key{
		ID:        d.str(layout.KeyID),
		Account:   d.str(attrAcct),
		Hash:      d.str("hash"),
		Prefix:    d.str("prefix"),
		Last4:     d.str("last4"),
		CreatedAt: d.time(attrCreatedMS),
		RevokedAt: d.time(attrRevokedMS),
		LastUsed:  d.str(attrLastUsed),
	}
	if d.err != nil {
		return store.Key{}, d.err
	}
	return k, nil
}

// ListKeys returns every key of account, oldest first (creation time, then id); none (and no
// error) for an unknown account. It reads the account's key_ids and each key through its key-id
// item, all with consistent reads, so a key whose AddKey has returned is always listed. Keys of
// the by_account index that the set lacks (accounts written before key_ids existed) are listed
// too.
func (s *Store) ListKeys(ctx context.Context, account string) ([]store.Key, error) {
	keys, err := s.listKeys(ctx, account)
	if err != nil {
		return nil, fmt.Errorf("dynamo: list keys of %q: %w", account, err)
	}
	return keys, nil
}

func (s *Store) listKeys(ctx context.Context, account string) ([]store.Key, error) {
	ids, err := s.accountKeyIDs(ctx, account)
	if err != nil {
		return nil, err
	}
	byID := make(map[string]store.Key, len(ids))
	for _, id := range ids {
		k, err := s.keyOfAccount(ctx, account, id)
		if errors.Is(err, store.ErrNotFound) {
			continue // an id whose key was never written, or is another account's
		}
		if err != nil {
			return nil, err
		}
		byID[id] = k
	}
	indexed, err := s.indexKeys(ctx, account)
	if err != nil {
		return nil, err
	}
	for _, k := range indexed {
		if _, ok := byID[k.ID]; !ok && k.Account == account {
			byID[k.ID] = k
		}
	}
	keys := make([]store.Key, 0, len(byID))
	for _, k := range byID {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b store.Key) int {
		return cmp.Or(cmp.Compare(ms(a.CreatedAt), ms(b.CreatedAt)), cmp.Compare(a.ID, b.ID))
	})
	return keys, nil
}

// accountKeyIDs returns the key_ids of account (consistent read); none when the account or
// the set does not exist.
func (s *Store) accountKeyIDs(ctx context.Context, account string) ([]string, error) {
	out, err := s.db.GetItem(ctx, &dynamodb.GetItemInput{
		TableName:                aws.String(s.t.Accounts),
		Key:                      accountPK(account),
		ConsistentRead:           aws.Bool(true),
		ProjectionExpression:     aws.String("#ids"),
		ExpressionAttributeNames: map[string]string{"#ids": attrKeyIDs},
	})
	if err != nil {
		return nil, fmt.Errorf("read key ids: %w", err)
	}
	d := decoder{item: out.Item}
	ids := d.strSet(attrKeyIDs)
	if d.err != nil {
		return nil, d.err
	}
	slices.Sort(ids)
	return ids, nil
}

// keyOfAccount returns the key with id through its key-id item (consistent reads).
// ErrNotFound when either item is missing (a crash or a refused AddKey left the id in key_ids)
// or they belong to another key or account.
func (s *Store) keyOfAccount(ctx context.Context, account, id string) (store.Key, error) {
	out, err := s.db.GetItem(ctx, &dynamodb.GetItemInput{
		TableName:      aws.String(s.t.Accounts),
		Key:            keyIDPK(id),
		ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		return store.Key{}, fmt.Errorf("read key id %q: %w", id, err)
	}
	if out.Item == nil {
		return store.Key{}, store.ErrNotFound
	}
	d := decoder{item: out.Item}
	hash, owner := d.str("hash"), d.str("account")
	if d.err != nil {
		return store.Key{}, fmt.Errorf("key id %q: %w", id, d.err)
	}
	if owner != account || hash == "" {
		return store.Key{}, store.ErrNotFound
	}
	out, err = s.db.GetItem(ctx, &dynamodb.GetItemInput{
		TableName:      aws.String(s.t.Accounts),
		Key:            keyPK(hash),
		ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		return store.Key{}, fmt.Errorf("read key %q: %w", id, err)
	}
	if out.Item == nil {
		return store.Key{}, store.ErrNotFound
	}
	k, err := decodeKey(out.Item)
	if err != nil {
		return store.Key{}, fmt.Errorf("key %q: %w", id, err)
	}
	if k.ID != id || k.Account != account {
		return store.Key{}, store.ErrNotFound
	}
	return k, nil
}

// indexKeys returns the keys of account that the by_account index holds. DynamoDB updates the
// index asynchronously: a key added a moment ago may be missing, and a revocation may not show.
func (s *Store) indexKeys(ctx context.Context, account string) ([]store.Key, error) {
	p := dynamodb.NewQueryPaginator(s.db, &dynamodb.QueryInput{
		TableName:                 aws.String(s.t.Accounts),
		IndexName:                 aws.String(indexByAccount),
		KeyConditionExpression:    aws.String("#a = :a"),
		ExpressionAttributeNames:  map[string]string{"#a": attrAcct},
		ExpressionAttributeValues: map[string]types.AttributeValue{":a": attrS(account)},
	})
	var keys []store.Key
	for p.HasMorePages() {
		out, err := p.NextPage(ctx)
		if err != nil {
			return nil, fmt.Errorf("query %s: %w", indexByAccount, err)
		}
		for _, item := range out.Items {
			k, err := decodeKey(item)
			if err != nil {
				return nil, fmt.Errorf("query %s: %w", indexByAccount, err)
			}
			keys = append(keys, k)
		}
	}
	return keys, nil
}

// RevokeKey marks a key revoked at at; a revoked key keeps its first revocation time.
// ErrNotFound when there is no such key.
func (s *Store) RevokeKey(ctx context.Context, keyID string, at time.Time) error {
	if at.IsZero() {
		return fmt.Errorf("dynamo: revoke key %q: zero revocation time", keyID)
	}
	out, err := s.db.GetItem(ctx, &dynamodb.GetItemInput{
		TableName:      aws.String(s.t.Accounts),
		Key:            keyIDPK(keyID),
		ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		return fmt.Errorf("dynamo: revoke key %q: %w", keyID, err)
	}
	if out.Item == nil {
		return fmt.Errorf("dynamo: revoke key %q: %w", keyID, store.ErrNotFound)
	}
	d := decoder{item: out.Item}
	hash := d.str("hash")
	if d.err != nil {
		return fmt.Errorf("dynamo: revoke key %q: %w", keyID, d.err)
	}
	if err := s.revoke(ctx, keyID, hash, at); err != nil {
		return fmt.Errorf("dynamo: revoke key %q: %w", keyID, err)
	}
	return nil
}

// revoke sets revoked_ms on the key item of hash unless it is set; ErrNotFound when that item
// does not exist or belongs to another key id (a key-id item left by a crash).
func (s *Store) revoke(ctx context.Context, keyID, hash string, at time.Time) error {
	_, err := s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                aws.String(s.t.Accounts),
		Key:                      keyPK(hash),
		UpdateExpression:         aws.String("SET #r = if_not_exists(#r, :at)"),
		ConditionExpression:      aws.String("attribute_exists(pk) AND #id = :id"),
		ExpressionAttributeNames: map[string]string{"#r": attrRevokedMS, "#id": layout.KeyID},
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":at": attrN(ms(at)),
			":id": attrS(keyID),
		},
	})
	if conditionFailed(err) {
		return store.ErrNotFound
	}
	return err
}

// RotateKey stores k (AddKey), then revokes at at every other active key of k.Account: each
// key of the account's key_ids, read with consistent reads after k's id was added to the set,
// and each key the by_account index lists (for accounts older than key_ids). Correctness never
// depends on the index: every key whose AddKey (or CreateAccount) returned before RotateKey
// started is in the set. A failure after the first write leaves k stored and some old keys
// active: calling RevokeKey (or RotateKey with another new key) finishes the job.
func (s *Store) RotateKey(ctx context.Context, k store.Key, at time.Time) error {
	if at.IsZero() {
		return fmt.Errorf("dynamo: rotate key of %q: zero revocation time", k.Account)
	}
	if err := s.addKey(ctx, k); err != nil {
		return fmt.Errorf("dynamo: rotate key of %q: %w", k.Account, err)
	}
	keys, err := s.listKeys(ctx, k.Account)
	if err != nil {
		return fmt.Errorf("dynamo: rotate key of %q: %w", k.Account, err)
	}
	for _, old := range keys {
		if old.ID == k.ID || !old.Active() {
			continue
		}
		if err := s.revoke(ctx, old.ID, old.Hash, at); err != nil {
			return fmt.Errorf("dynamo: rotate key of %q: revoke %q: %w", k.Account, old.ID, err)
		}
	}
	return nil
}
