package dynamo

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/sluice-api/sluice/internal/store"
)

var layoutT0 = time.Date(2026, 11, 22, 21, 4, 5, 123_000_000, time.UTC)

// rawItem reads one item as stored.
func rawItem(t *testing.T, s *Store, table string, key map[string]types.AttributeValue) decoder {
	t.Helper()
	out, err := s.db.GetItem(t.Context(), &dynamodb.GetItemInput{TableName: aws.String(table), Key: key, ConsistentRead: aws.Bool(true)})
	if err != nil {
		t.Fatalf("GetItem: %v", err)
	}
	if out.Item == nil {
		t.Fatalf("no item %v in %s", key, table)
	}
	return decoder{item: out.Item}
}

// TestTTLAttributes checks the TTL attribute (epoch seconds) of the expiring items: never
// before the millisecond expiry that the conditions use.
func TestTTLAttributes(t *testing.T) {
	s := open(t)
	c := store.Claim{Account: "acct-1", Key: "idem-1", Lease: "l", Now: layoutT0, TTL: 24 * time.Hour, LeaseTTL: time.Minute,
		Pass: crashEnter(t, s, "acct-1", layoutT0)}
	if _, err := s.Claim(t.Context(), c); err != nil {
		t.Fatalf("Claim: %v", err)
	}
	start := time.Date(2026, 11, 22, 21, 4, 0, 0, time.UTC)
	if _, _, err := s.Hit(t.Context(), "acct-1", start, 10); err != nil {
		t.Fatalf("Hit: %v", err)
	}
	for _, tc := range []struct {
		name    string
		table   string
		key     map[string]types.AttributeValue
		expires int64
	}{
		// 21:04:05.123 + 24 h rounds up to the next second.
		{"Idempotency", s.t.Idempotency, idemKey("acct-1", "idem-1"), layoutT0.Add(24*time.Hour).Unix() + 1},
		{"RateWindow", s.t.RateWindows, windowKey("acct-1", start), start.Add(5 * time.Minute).Unix()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := rawItem(t, s, tc.table, tc.key)
			if got := d.num(attrTTL); got != tc.expires || d.err != nil {
				t.Errorf("%s = %d (%v), want %d", attrTTL, got, d.err, tc.expires)
			}
		})
	}
}

// TestAccountEmptyStrings round-trips accounts whose optional strings are empty: they are left
// out of the item, and UpdateAccount removes them.
func TestAccountEmptyStrings(t *testing.T) {
	s := open(t)
	bare := store.Account{ID: "acct-1", RateLimit: 600, Allowance: 10, CreatedAt: layoutT0}
	k := store.Key{ID: "key-1", Hash: "h1", CreatedAt: layoutT0} // Account empty: set to the account's id
	if err := s.CreateAccount(t.Context(), bare, k); err != nil {
		t.Fatalf("CreateAccount: %v", err)
	}
	for _, tc := range []struct {
		name string
		a    store.Account
	}{
		{"Filled", store.Account{ID: "acct-1", Region: "eu-west-1", Tier: "pro", RateLimit: 1, Allowance: 2, UsagePlanKey: "upk", CreatedAt: layoutT0}},
		{"Emptied", bare},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := s.UpdateAccount(t.Context(), tc.a); err != nil {
				t.Fatalf("UpdateAccount: %v", err)
			}
			got, err := s.GetAccount(t.Context(), "acct-1")
			if err != nil {
				t.Fatalf("GetAccount: %v", err)
			}
			if got != tc.a {
				t.Errorf("account = %+v, want %+v", got, tc.a)
			}
		})
	}
	keys, err := s.ListKeys(t.Context(), "acct-1")
	if err != nil || len(keys) != 1 || keys[0].Account != "acct-1" || keys[0].Prefix != "" {
		t.Fatalf("ListKeys = %+v, %v; want key-1 of acct-1", keys, err)
	}
}

// TestAccountCrashLeftovers checks what a crash part-way through CreateAccount or AddKey can
// leave behind, and that none of it authenticates or breaks later calls.
func TestAccountCrashLeftovers(t *testing.T) {
	s := open(t)
	ctx := t.Context()
	// A crash after the account item: an account without keys.
	if _, err := s.db.PutItem(ctx, &dynamodb.PutItemInput{
		TableName: aws.String(s.t.Accounts),
		Item: func() map[string]types.AttributeValue {
			it := accountItem(store.Account{ID: "acct-1", RateLimit: 1, Allowance: 1})
			it[attrCreatedMS] = attrN(ms(layoutT0))
			return it
		}(),
	}); err != nil {
		t.Fatalf("PutItem: %v", err)
	}
	// A crash after the key-id item: an id pointing at no key.
	if _, err := s.db.PutItem(ctx, &dynamodb.PutItemInput{
		TableName: aws.String(s.t.Accounts),
		Item: map[string]types.AttributeValue{
			attrPK: attrS(prefixKeyID + "key-orphan"), attrKind: attrS(kindKeyID), "hash": attrS("h-orphan"), "account": attrS("acct-1"),
		},
	}); err != nil {
		t.Fatalf("PutItem: %v", err)
	}

	if keys, err := s.ListKeys(ctx, "acct-1"); err != nil || len(keys) != 0 {
		t.Fatalf("ListKeys = %+v, %v; want none", keys, err)
	}
	if _, err := s.KeyByHash(ctx, "h-orphan"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("KeyByHash of the orphan id's hash: err = %v, want ErrNotFound", err)
	}
	if err := s.RevokeKey(ctx, "key-orphan", layoutT0); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("RevokeKey of the orphan id: err = %v, want ErrNotFound", err)
	}
	// The operator finishes the job with AddKey; the orphan id stays taken.
	if err := s.AddKey(ctx, store.Key{ID: "key-orphan", Account: "acct-1", Hash: "h2", CreatedAt: layoutT0}); !errors.Is(err, store.ErrExists) {
		t.Errorf("AddKey with the orphan id: err = %v, want ErrExists", err)
	}
	k := store.Key{ID: "key-2", Account: "acct-1", Hash: "h2", CreatedAt: layoutT0}
	if err := s.AddKey(ctx, k); err != nil {
		t.Fatalf("AddKey: %v", err)
	}
	if got, err := s.KeyByHash(ctx, "h2"); err != nil || got.ID != "key-2" || !got.Active() {
		t.Fatalf("KeyByHash = %+v, %v; want active key-2", got, err)
	}
	// A refused AddKey (hash taken) releases the id it reserved.
	if err := s.AddKey(ctx, store.Key{ID: "key-3", Account: "acct-1", Hash: "h2", CreatedAt: layoutT0}); !errors.Is(err, store.ErrExists) {
		t.Fatalf("AddKey with a taken hash: err = %v, want ErrExists", err)
	}
	if err := s.AddKey(ctx, store.Key{ID: "key-3", Account: "acct-1", Hash: "h3", CreatedAt: layoutT0}); err != nil {
		t.Fatalf("AddKey(key-3) after the refused one: %v", err)
	}
}

// TestHitLimitZero refuses every hit without writing.
func TestHitLimitZero(t *testing.T) {
	s := open(t)
	start := time.Date(2026, 11, 22, 21, 4, 0, 0, time.UTC)
	for _, limit := range []int64{0, -1} {
		if count, ok, err := s.Hit(t.Context(), "acct-1", start, limit); err != nil || ok || count != 0 {
			t.Fatalf("Hit(limit %d) = %d, %v, %v; want 0, false, nil", limit, count, ok, err)
		}
	}
	if count, ok, err := s.Hit(t.Context(), "acct-1", start, 1); err != nil || !ok || count != 1 {
		t.Fatalf("Hit(limit 1) = %d, %v, %v; want 1, true, nil", count, ok, err)
	}
}

// keyIDs returns the key_ids of an account item as stored.
func keyIDs(t *testing.T, s *Store, account string) []string {
	t.Helper()
	d := rawItem(t, s, s.t.Accounts, accountPK(account))
	ids := d.strSet(attrKeyIDs)
	if d.err != nil {
		t.Fatalf("key_ids: %v", d.err)
	}
	slices.Sort(ids)
	return ids
}

// TestKeyIDsSet checks that every key's id lands in its account's key_ids, and that a refused
// AddKey leaves its id there without harm.
func TestKeyIDsSet(t *testing.T) {
	s := open(t)
	ctx := t.Context()
	k1 := store.Key{ID: "key-1", Account: "acct-1", Hash: "h1", CreatedAt: layoutT0}
	if err := s.CreateAccount(ctx, store.Account{ID: "acct-1", CreatedAt: layoutT0}, k1); err != nil {
		t.Fatalf("CreateAccount: %v", err)
	}
	if got := keyIDs(t, s, "acct-1"); !slices.Equal(got, []string{"key-1"}) {
		t.Fatalf("key_ids after CreateAccount = %v, want [key-1]", got)
	}
	k2 := store.Key{ID: "key-2", Account: "acct-1", Hash: "h2", CreatedAt: layoutT0.Add(time.Second)}
	if err := s.AddKey(ctx, k2); err != nil {
		t.Fatalf("AddKey: %v", err)
	}
	if err := s.AddKey(ctx, store.Key{ID: "key-3", Account: "acct-1", Hash: "h2", CreatedAt: layoutT0}); !errors.Is(err, store.ErrExists) {
		t.Fatalf("AddKey with a taken hash: err = %v, want ErrExists", err)
	}
	if got := keyIDs(t, s, "acct-1"); !slices.Equal(got, []string{"key-1", "key-2", "key-3"}) {
		t.Fatalf("key_ids = %v, want [key-1 key-2 key-3]", got)
	}
	keys, err := s.ListKeys(ctx, "acct-1")
	if err != nil || len(keys) != 2 || keys[0].ID != "key-1" || keys[1].ID != "key-2" {
		t.Fatalf("ListKeys = %+v, %v; want key-1, key-2", keys, err)
	}
	// The left-over id can still be used.
	if err := s.AddKey(ctx, store.Key{ID: "key-3", Account: "acct-1", Hash: "h3", CreatedAt: layoutT0.Add(2 * time.Second)}); err != nil {
		t.Fatalf("AddKey(key-3): %v", err)
	}
	if keys, err := s.ListKeys(ctx, "acct-1"); err != nil || len(keys) != 3 || keys[2].ID != "key-3" {
		t.Fatalf("ListKeys = %+v, %v; want key-1, key-2, key-3", keys, err)
	}
}

// hideFromIndex removes korder from the key item of hash, so that by_account no longer holds
// it (a sparse index): what a query of DynamoDB's eventually consistent index may see right
// after the key was written.
func hideFromIndex(t *testing.T, s *Store, hash string) {
	t.Helper()
	if _, err := s.db.UpdateItem(t.Context(), &dynamodb.UpdateItemInput{
		TableName:                aws.String(s.t.Accounts),
		Key:                      keyPK(hash),
		UpdateExpression:         aws.String("REMOVE #o"),
		ConditionExpression:      aws.String("attribute_exists(pk)"),
		ExpressionAttributeNames: map[string]string{"#o": attrKOrder},
	}); err != nil {
		t.Fatalf("UpdateItem: %v", err)
	}
}

// TestRotateKeyStaleIndex rotates an account whose keys the by_account index does not show
// (yet): every old key is revoked all the same, and ListKeys lists them.
func TestRotateKeyStaleIndex(t *testing.T) {
	s := open(t)
	ctx := t.Context()
	k1 := store.Key{ID: "key-1", Account: "acct-1", Hash: "h1", CreatedAt: layoutT0}
	k2 := store.Key{ID: "key-2", Account: "acct-1", Hash: "h2", CreatedAt: layoutT0.Add(time.Second)}
	other := store.Key{ID: "key-o", Account: "acct-2", Hash: "ho", CreatedAt: layoutT0}
	if err := s.CreateAccount(ctx, store.Account{ID: "acct-1", CreatedAt: layoutT0}, k1); err != nil {
		t.Fatalf("CreateAccount: %v", err)
	}
	if err := s.CreateAccount(ctx, store.Account{ID: "acct-2", CreatedAt: layoutT0}, other); err != nil {
		t.Fatalf("CreateAccount: %v", err)
	}
	if err := s.AddKey(ctx, k2); err != nil {
		t.Fatalf("AddKey: %v", err)
	}
	hideFromIndex(t, s, k1.Hash)
	hideFromIndex(t, s, k2.Hash)
	if got, err := s.indexKeys(ctx, "acct-1"); err != nil || len(got) != 0 {
		t.Fatalf("index keys of acct-1 = %+v, %v; want none (a stale index)", got, err)
	}
	// Ids that resolve to nothing, or to another account's key, are skipped: a crash after the
	// ADD, and an id written into the set by hand.
	if _, err := s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                 aws.String(s.t.Accounts),
		Key:                       accountPK("acct-1"),
		UpdateExpression:          aws.String("ADD #ids :ids"),
		ExpressionAttributeNames:  map[string]string{"#ids": attrKeyIDs},
		ExpressionAttributeValues: map[string]types.AttributeValue{":ids": &types.AttributeValueMemberSS{Value: []string{"key-ghost", other.ID}}},
	}); err != nil {
		t.Fatalf("UpdateItem: %v", err)
	}

	at := layoutT0.Add(time.Hour)
	k3 := store.Key{ID: "key-3", Account: "acct-1", Hash: "h3", CreatedAt: at}
	if err := s.RotateKey(ctx, k3, at); err != nil {
		t.Fatalf("RotateKey: %v", err)
	}
	for _, tc := range []struct {
		k       store.Key
		revoked bool
	}{{k1, true}, {k2, true}, {k3, false}, {other, false}} {
		got, err := s.KeyByHash(ctx, tc.k.Hash)
		if err != nil {
			t.Fatalf("KeyByHash(%s): %v", tc.k.ID, err)
		}
		if tc.revoked && !got.RevokedAt.Equal(at) {
			t.Errorf("key %s RevokedAt = %v, want %v", tc.k.ID, got.RevokedAt, at)
		}
		if !tc.revoked && !got.Active() {
			t.Errorf("key %s revoked at %v, want active", tc.k.ID, got.RevokedAt)
		}
	}
	keys, err := s.ListKeys(ctx, "acct-1")
	if err != nil {
		t.Fatalf("ListKeys: %v", err)
	}
	var ids []string
	for _, k := range keys {
		ids = append(ids, k.ID)
	}
	if !slices.Equal(ids, []string{"key-1", "key-2", "key-3"}) {
		t.Errorf("ListKeys = %v, want [key-1 key-2 key-3]", ids)
	}
}

// TestRotateKeyWithoutKeyIDs rotates an account written before key_ids existed: the keys the
// index lists are revoked, as before.
func TestRotateKeyWithoutKeyIDs(t *testing.T) {
	s := open(t)
	ctx := t.Context()
	k1 := store.Key{ID: "key-1", Account: "acct-1", Hash: "h1", CreatedAt: layoutT0}
	if err := s.CreateAccount(ctx, store.Account{ID: "acct-1", CreatedAt: layoutT0}, k1); err != nil {
		t.Fatalf("CreateAccount: %v", err)
	}
	if _, err := s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                aws.String(s.t.Accounts),
		Key:                      accountPK("acct-1"),
		UpdateExpression:         aws.String("REMOVE #ids"),
		ExpressionAttributeNames: map[string]string{"#ids": attrKeyIDs},
	}); err != nil {
		t.Fatalf("UpdateItem: %v", err)
	}
	if keys, err := s.ListKeys(ctx, "acct-1"); err != nil || len(keys) != 1 || keys[0].ID != "key-1" {
		t.Fatalf("ListKeys = %+v, %v; want key-1 (from the index)", keys, err)
	}
	at := layoutT0.Add(time.Hour)
	k2 := store.Key{ID: "key-2", Account: "acct-1", Hash: "h2", CreatedAt: at}
	if err := s.RotateKey(ctx, k2, at); err != nil {
		t.Fatalf("RotateKey: %v", err)
	}
	if got, err := s.KeyByHash(ctx, k1.Hash); err != nil || !got.RevokedAt.Equal(at) {
		t.Fatalf("KeyByHash(key-1) = %+v, %v; want revoked at %v", got, err, at)
	}
	if got, err := s.KeyByHash(ctx, k2.Hash); err != nil || !got.Active() {
		t.Fatalf("KeyByHash(key-2) = %+v, %v; want active", got, err)
	}
}
