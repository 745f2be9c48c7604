package dynamo

import (
	"errors"
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
	c := store.Claim{Account: "acct-1", Key: "idem-1", Lease: "l", Now: layoutT0, TTL: 24 * time.Hour, LeaseTTL: time.Minute}
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
