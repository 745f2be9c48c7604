package dynamo

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go/middleware"

	"github.com/sluice-api/sluice/internal/store"
	"github.com/sluice-api/sluice/internal/store/dynamo/layout"
	"github.com/sluice-api/sluice/internal/testutil/dynalite"
)

var copyT0 = time.Date(2026, 11, 22, 21, 4, 5, 0, time.UTC)

// afterKeyPut is an SDK option that calls fn once, right after the first PutItem of a key item
// has been answered.
func afterKeyPut(fn func(ctx context.Context)) func(*dynamodb.Options) {
	var done atomic.Bool
	return func(o *dynamodb.Options) {
		o.APIOptions = append(o.APIOptions, func(stack *middleware.Stack) error {
			return stack.Initialize.Add(middleware.InitializeMiddlewareFunc("afterKeyPut", func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
				out, md, err := next.HandleInitialize(ctx, in)
				if p, ok := in.Parameters.(*dynamodb.PutItemInput); ok && err == nil {
					if pk, ok := p.Item[layout.PK].(*types.AttributeValueMemberS); ok && strings.HasPrefix(pk.Value, layout.PrefixKey) && done.CompareAndSwap(false, true) {
						fn(ctx)
					}
				}
				return out, md, err
			}), middleware.After)
		})
	}
}

// TestAddKeyRacesUpdateAccount: an operator disables an account while the dashboard adds a key
// to it, between the key's write and the end of AddKey (after UpdateAccount listed the keys and
// found no item for the new one). AddKey must not leave a key that authenticates with the old
// settings: it revokes the key and answers ErrAccountChanged.
func TestAddKeyRacesUpdateAccount(t *testing.T) {
	tables := freshTables(t)
	operator := New(client(t), tables)
	a := store.Account{ID: "acct-1", Region: "eu-west-1", Tier: "standard", RateLimit: 10, Allowance: 100, CreatedAt: copyT0}
	if err := operator.CreateAccount(t.Context(), a, store.Key{ID: "key-1", Account: "acct-1", Hash: "h1", CreatedAt: copyT0}); err != nil {
		t.Fatal(err)
	}
	disabled := a
	disabled.Disabled = true
	c, err := dynalite.Client(t.Context(), endpoint, afterKeyPut(func(ctx context.Context) {
		if err := operator.UpdateAccount(ctx, disabled); err != nil {
			t.Errorf("UpdateAccount: %v", err)
		}
	}))
	if err != nil {
		t.Fatal(err)
	}
	dashboard := New(c, tables)
	err = dashboard.AddKey(t.Context(), store.Key{ID: "key-2", Account: "acct-1", Hash: "h2", CreatedAt: copyT0})
	if !errors.Is(err, store.ErrAccountChanged) {
		t.Fatalf("AddKey across an UpdateAccount = %v, want ErrAccountChanged", err)
	}
	k, got, err := operator.KeyAccount(t.Context(), "h2")
	if err != nil {
		t.Fatal(err)
	}
	if k.Active() && !got.Disabled {
		t.Fatalf("the key added across the update authenticates with the old settings: %+v of %+v", k, got)
	}
	// Every other key copies the update.
	if _, got, err := operator.KeyAccount(t.Context(), "h1"); err != nil || !got.Disabled {
		t.Fatalf("KeyAccount(h1) = %+v, %v; want the account disabled", got, err)
	}
}

// TestLegacyKeyItems: key items written before the copies (no a_ver) still authenticate, with a
// second read of the account item; CopyAccountsToKeys fills them in, after which one read does,
// and an update reaches them.
func TestLegacyKeyItems(t *testing.T) {
	s := open(t)
	a := store.Account{ID: "acct-1", Region: "eu-west-1", Tier: "standard", RateLimit: 10, Allowance: 100, CreatedAt: copyT0}
	if err := s.CreateAccount(t.Context(), a, store.Key{ID: "key-1", Account: "acct-1", Hash: "h1", CreatedAt: copyT0}); err != nil {
		t.Fatal(err)
	}
	// Make the key item, and the account item, as the store before the copies wrote them.
	remove := "REMOVE " + strings.Join(layout.AccountCopy(), ", ")
	if _, err := s.db.UpdateItem(t.Context(), &dynamodb.UpdateItemInput{TableName: aws.String(s.t.Accounts), Key: keyPK("h1"), UpdateExpression: aws.String(remove)}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.db.UpdateItem(t.Context(), &dynamodb.UpdateItemInput{TableName: aws.String(s.t.Accounts), Key: accountPK("acct-1"), UpdateExpression: aws.String("REMOVE " + attrVersion)}); err != nil {
		t.Fatal(err)
	}
	check := func(want store.Account, copied bool) {
		t.Helper()
		k, got, err := s.KeyAccount(t.Context(), "h1")
		if err != nil || k.ID != "key-1" || got.ID != want.ID || got.Allowance != want.Allowance || got.Disabled != want.Disabled {
			t.Fatalf("KeyAccount = %+v, %+v, %v; want %+v", k, got, err, want)
		}
		item, err := s.db.GetItem(t.Context(), &dynamodb.GetItemInput{TableName: aws.String(s.t.Accounts), Key: keyPK("h1"), ConsistentRead: aws.Bool(true)})
		if err != nil {
			t.Fatal(err)
		}
		if _, has := item.Item[layout.CopyVersion]; has != copied {
			t.Fatalf("the key item has a copy: %v, want %v", has, copied)
		}
	}
	check(a, false)
	n, err := s.CopyAccountsToKeys(t.Context())
	if err != nil || n != 1 {
		t.Fatalf("CopyAccountsToKeys = %d, %v; want 1", n, err)
	}
	check(a, true)
	if n, err := s.CopyAccountsToKeys(t.Context()); err != nil || n != 1 { // again: harmless
		t.Fatalf("CopyAccountsToKeys again = %d, %v", n, err)
	}
	u := a
	u.Allowance, u.Disabled = 5, true
	if err := s.UpdateAccount(t.Context(), u); err != nil {
		t.Fatal(err)
	}
	check(u, true)
}
