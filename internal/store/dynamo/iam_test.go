package dynamo

import (
	"context"
	"errors"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go/middleware"

	"github.com/sluice-api/sluice/internal/store"
	"github.com/sluice-api/sluice/internal/store/dynamo/layout"
	"github.com/sluice-api/sluice/internal/testutil/dynalite"
)

// write is one write request a store sent: its IAM action, partition key and the attribute
// names it names (key, update and condition).
type write struct {
	action, pk string
	attributes []string
}

// writeRecorder records the write requests of an SDK client to one table.
type writeRecorder struct {
	table  string
	mu     sync.Mutex
	writes []write
}

// identifier matches the attribute names written literally in an expression.
var identifier = regexp.MustCompile(`[#:]?[A-Za-z_][A-Za-z0-9_]*`)

// notAttributes are the words of DynamoDB's expression language.
var notAttributes = []string{"SET", "ADD", "REMOVE", "DELETE", "AND", "OR", "NOT", "IN", "BETWEEN",
	"attribute_exists", "attribute_not_exists", "attribute_type", "if_not_exists", "list_append", "begins_with", "contains", "size"}

func names(key map[string]types.AttributeValue, exprNames map[string]string, exprs ...*string) []string {
	var out []string
	for k := range key {
		out = append(out, k)
	}
	for _, e := range exprs {
		if e == nil {
			continue
		}
		for _, w := range identifier.FindAllString(*e, -1) {
			switch {
			case strings.HasPrefix(w, "#"):
				out = append(out, exprNames[w])
			case strings.HasPrefix(w, ":") || slices.Contains(notAttributes, w):
			default:
				out = append(out, w)
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func pkOf(key map[string]types.AttributeValue) string {
	if v, ok := key[layout.PK].(*types.AttributeValueMemberS); ok {
		return v.Value
	}
	return ""
}

func (r *writeRecorder) add(table *string, w write) {
	if table == nil || *table != r.table {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.writes = append(r.writes, w)
}

func (r *writeRecorder) option(o *dynamodb.Options) {
	o.APIOptions = append(o.APIOptions, func(stack *middleware.Stack) error {
		return stack.Initialize.Add(middleware.InitializeMiddlewareFunc("recordWrites", func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
			switch p := in.Parameters.(type) {
			case *dynamodb.UpdateItemInput:
				r.add(p.TableName, write{"dynamodb:UpdateItem", pkOf(p.Key), names(p.Key, p.ExpressionAttributeNames, p.UpdateExpression, p.ConditionExpression)})
			case *dynamodb.PutItemInput:
				r.add(p.TableName, write{"dynamodb:PutItem", pkOf(p.Item), nil})
			case *dynamodb.DeleteItemInput:
				r.add(p.TableName, write{"dynamodb:DeleteItem", pkOf(p.Key), names(p.Key, p.ExpressionAttributeNames, p.ConditionExpression)})
			case *dynamodb.TransactWriteItemsInput, *dynamodb.BatchWriteItemInput:
				r.mu.Lock()
				r.writes = append(r.writes, write{action: "an unexpected batch or transaction"})
				r.mu.Unlock()
			}
			return next.HandleInitialize(ctx, in)
		}), middleware.After)
	})
}

// TestDashboardWritesFitIAM: every write the dashboard's key management sends to the accounts
// table (adding, rotating and revoking keys, including a refused key and a retried revocation)
// fits one of layout.DashboardWrites, from which the CDK app builds the dashboard role's IAM
// statements: a request outside them would be refused by AWS.
func TestDashboardWritesFitIAM(t *testing.T) {
	tables := freshTables(t)
	operator := New(client(t), tables)
	rec := &writeRecorder{table: tables.Accounts}
	c, err := dynalite.Client(t.Context(), endpoint, rec.option)
	if err != nil {
		t.Fatal(err)
	}
	dash := New(c, tables)
	ctx := t.Context()
	at := time.Date(2026, 11, 28, 10, 0, 0, 0, time.UTC)

	if err := operator.CreateAccount(ctx, store.Account{ID: "acct-1", Region: "eu-west-1", Tier: "standard", RateLimit: 10, Allowance: 100, CreatedAt: at},
		store.Key{ID: "key-1", Hash: "h1", CreatedAt: at}); err != nil {
		t.Fatal(err)
	}
	steps := []func() error{
		func() error {
			return dash.AddKey(ctx, store.Key{ID: "key-2", Account: "acct-1", Hash: "h2", CreatedAt: at})
		},
		func() error { // the hash exists: the key-id reservation is released again
			if err := dash.AddKey(ctx, store.Key{ID: "key-3", Account: "acct-1", Hash: "h2", CreatedAt: at}); !errors.Is(err, store.ErrExists) {
				return errors.New("a second key with one hash was accepted")
			}
			return nil
		},
		func() error {
			return dash.RotateKey(ctx, store.Key{ID: "key-4", Account: "acct-1", Hash: "h4", CreatedAt: at}, at)
		},
		func() error { return dash.RevokeKey(ctx, "key-4", at) },
		func() error { return dash.RevokeKey(ctx, "key-4", at.Add(time.Hour)) }, // a retry
		func() error { _, err := dash.ListKeys(ctx, "acct-1"); return err },
	}
	for i, step := range steps {
		if err := step(); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
	}

	allowed := layout.DashboardWrites()
	seen := map[string]bool{}
	for _, w := range rec.writes {
		ok := false
		for _, a := range allowed {
			if w.action == a.Action && strings.HasPrefix(w.pk, a.Prefix) &&
				(a.Attributes == nil || !slices.ContainsFunc(w.attributes, func(n string) bool { return !slices.Contains(a.Attributes, n) })) {
				ok, seen[a.Sid] = true, true
				break
			}
		}
		if !ok {
			t.Errorf("%s on %q naming %v fits no IAM statement of the dashboard", w.action, w.pk, w.attributes)
		}
	}
	for _, a := range allowed {
		if !seen[a.Sid] {
			t.Errorf("statement %s was never needed: drop it, or add the case that needs it", a.Sid)
		}
	}
}
