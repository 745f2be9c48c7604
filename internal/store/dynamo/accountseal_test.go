package dynamo

import (
	"context"
	"maps"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go/middleware"

	"github.com/sluice-api/sluice/internal/store"
	"github.com/sluice-api/sluice/internal/store/dynamo/layout"
	"github.com/sluice-api/sluice/internal/testutil/dynalite"
)

var testCopyKey = []byte("copy-key-copy-key-copy-key-copy-key!")

// countCalls is an SDK option that counts the requests the client sends.
func countCalls(n *atomic.Int64) func(*dynamodb.Options) {
	return func(o *dynamodb.Options) {
		o.APIOptions = append(o.APIOptions, func(stack *middleware.Stack) error {
			return stack.Initialize.Add(middleware.InitializeMiddlewareFunc("countCalls", func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
				n.Add(1)
				return next.HandleInitialize(ctx, in)
			}), middleware.After)
		})
	}
}

// TestDashboardCannotRaiseSettings plays a compromised dashboard: its store has no copy key, and
// it writes key items whole, with any attributes, as its role's PutKey allows. The account is
// disabled with an allowance of 100. Whatever copy the dashboard puts on a key item, the
// authorizer's store (with the copy key) answers the account's real settings; a copy it cannot
// trust costs it one more read, and a key the dashboard added the ordinary way, sealed with the
// account's own seal, costs one read.
func TestDashboardCannotRaiseSettings(t *testing.T) {
	tables := freshTables(t)
	operator := New(client(t), tables, WithCopyKey(testCopyKey))
	victim := store.Account{ID: "acct-victim", Region: "eu-west-1", Tier: "standard", RateLimit: 10, Allowance: 100, CreatedAt: copyT0}
	rich := store.Account{ID: "acct-rich", Region: "eu-west-1", Tier: "enterprise", RateLimit: 1_000_000, Allowance: 1_000_000_000, CreatedAt: copyT0}
	for i, a := range []store.Account{victim, rich} {
		hash := []string{"h-victim", "h-rich"}[i]
		if err := operator.CreateAccount(t.Context(), a, store.Key{ID: "key-" + hash, Account: a.ID, Hash: hash, CreatedAt: copyT0}); err != nil {
			t.Fatal(err)
		}
	}
	// Sealed while enabled (version 1), then disabled (version 2).
	enabledItem := rawItem(t, operator, tables.Accounts, keyPK("h-victim")).item
	victim.Disabled = true
	if err := operator.UpdateAccount(t.Context(), victim); err != nil {
		t.Fatal(err)
	}
	dashboard := New(client(t), tables)
	if err := dashboard.AddKey(t.Context(), store.Key{ID: "key-added", Account: victim.ID, Hash: "h-added", CreatedAt: copyT0}); err != nil {
		t.Fatal(err)
	}
	genuine := rawItem(t, operator, tables.Accounts, keyPK("h-victim")).item
	richItem := rawItem(t, operator, tables.Accounts, keyPK("h-rich")).item

	for _, tc := range []struct {
		name  string
		item  map[string]types.AttributeValue // the key item the dashboard puts ("" hash: none)
		reads int64                           // the authorizer's requests
	}{
		{"AddedByTheDashboard", nil, 1},
		{"RaisedAllowance", edit(genuine, map[string]types.AttributeValue{layout.CopyAllowance: attrN(1_000_000_000_000)}), 2},
		{"ReEnabled", edit(genuine, map[string]types.AttributeValue{layout.CopyDisabled: attrBool(false)}), 2},
		{"RaisedRateLimitNewerVersion", edit(genuine, map[string]types.AttributeValue{layout.CopyRateLimit: attrN(1 << 40), layout.CopyVersion: attrN(99)}), 2},
		{"ForgedSeal", edit(genuine, map[string]types.AttributeValue{layout.CopyDisabled: attrBool(false), layout.CopyMAC: attrS(seal([]byte("a key the dashboard made up, 32+ bytes"), victim, 2))}), 2},
		{"NoSeal", without(edit(genuine, map[string]types.AttributeValue{layout.CopyDisabled: attrBool(false)}), layout.CopyMAC), 2},
		{"AnotherAccountsSeal", edit(richItem, map[string]types.AttributeValue{attrAcct: attrS(victim.ID), "key_id": attrS("key-forged")}), 2},
		{"OwnSealOfAnotherVersion", edit(genuine, map[string]types.AttributeValue{layout.CopyDisabled: attrBool(false), layout.CopyMAC: enabledItem[layout.CopyMAC]}), 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hash := "h-added"
			if tc.item != nil {
				hash = "h-" + tc.name
				tc.item[layout.PK] = keyPK(hash)[layout.PK]
				if _, err := dashboard.db.PutItem(t.Context(), &dynamodb.PutItemInput{TableName: aws.String(tables.Accounts), Item: tc.item}); err != nil {
					t.Fatal(err)
				}
			}
			var calls atomic.Int64
			c, err := dynalite.Client(t.Context(), endpoint, countCalls(&calls))
			if err != nil {
				t.Fatal(err)
			}
			authorizer := New(c, tables, WithCopyKey(testCopyKey))
			_, got, err := authorizer.KeyAccount(t.Context(), hash)
			if err != nil {
				t.Fatal(err)
			}
			if got.ID != victim.ID || !got.Disabled || got.Allowance != victim.Allowance || got.RateLimit != victim.RateLimit {
				t.Fatalf("KeyAccount = %+v, want the account's own settings %+v", got, victim)
			}
			if calls.Load() != tc.reads {
				t.Fatalf("KeyAccount sent %d requests, want %d", calls.Load(), tc.reads)
			}
		})
	}
	// The seal of version 1 is the enabled account's, as it was: only what a dashboard kept
	// from before the change could be put back (docs/aws.md). Without it there is none to copy.
	if !sealed(testCopyKey, store.Account{ID: victim.ID, Region: victim.Region, Tier: victim.Tier, RateLimit: 10, Allowance: 100, CreatedAt: copyT0}, 1, macOf(enabledItem, layout.CopyMAC)) {
		t.Fatal("the first version's seal does not check")
	}
}

// TestSealedCopiesAcrossUpdatesAndMigration: an operator's store (with the copy key) seals at
// creation, at each update and in CopyAccountsToKeys, so the authorizer reads one item; a store
// without the key (the dashboard's) seals nothing and trusts no copy.
func TestSealedCopiesAcrossUpdatesAndMigration(t *testing.T) {
	tables := freshTables(t)
	a := store.Account{ID: "acct-1", Region: "eu-west-1", Tier: "standard", RateLimit: 10, Allowance: 100, CreatedAt: copyT0}
	unkeyed := New(client(t), tables)
	if err := unkeyed.CreateAccount(t.Context(), a, store.Key{ID: "key-1", Account: a.ID, Hash: "h1", CreatedAt: copyT0}); err != nil {
		t.Fatal(err)
	}
	reads := func(st *Store, want store.Account) int64 {
		t.Helper()
		var calls atomic.Int64
		c, err := dynalite.Client(t.Context(), endpoint, countCalls(&calls))
		if err != nil {
			t.Fatal(err)
		}
		_, got, err := New(c, tables, WithCopyKey(st.copyKey)).KeyAccount(t.Context(), "h1")
		if err != nil || got.Allowance != want.Allowance || got.Disabled != want.Disabled {
			t.Fatalf("KeyAccount = %+v, %v; want %+v", got, err, want)
		}
		return calls.Load()
	}
	keyed := New(client(t), tables, WithCopyKey(testCopyKey))
	for _, step := range []struct {
		name  string
		do    func() error
		st    *Store // whose key the authorizer has
		reads int64
	}{
		{"CreatedWithoutKey", func() error { return nil }, keyed, 2},
		{"NoKeyTrustsNothing", func() error { return nil }, unkeyed, 2},
		{"Migrated", func() error { _, err := keyed.CopyAccountsToKeys(t.Context()); return err }, keyed, 1},
		{"UpdatedWithKey", func() error { a.Allowance = 5; return keyed.UpdateAccount(t.Context(), a) }, keyed, 1},
		{"UpdatedWithoutKey", func() error { a.Disabled = true; return unkeyed.UpdateAccount(t.Context(), a) }, keyed, 2},
		{"MigratedAgain", func() error { _, err := keyed.CopyAccountsToKeys(t.Context()); return err }, keyed, 1},
		{"NewCopyKey", func() error {
			_, err := New(client(t), tables, WithCopyKey([]byte("a new copy key, rotated by the operator"))).CopyAccountsToKeys(t.Context())
			return err
		}, keyed, 2},
	} {
		if err := step.do(); err != nil {
			t.Fatalf("%s: %v", step.name, err)
		}
		if n := reads(step.st, a); n != step.reads {
			t.Errorf("%s: the authorizer sent %d requests, want %d", step.name, n, step.reads)
		}
	}
}

// edit returns a copy of item with set applied.
func edit(item, set map[string]types.AttributeValue) map[string]types.AttributeValue {
	out := maps.Clone(item)
	maps.Copy(out, set)
	return out
}

// without returns item without the attribute name.
func without(item map[string]types.AttributeValue, name string) map[string]types.AttributeValue {
	delete(item, name)
	return item
}
