package dynamo

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/sluice-api/sluice/internal/store"
	"github.com/sluice-api/sluice/internal/store/storetest"
	"github.com/sluice-api/sluice/internal/testutil/dynalite"
	"github.com/sluice-api/sluice/internal/testutil/faultproxy"
)

// endpoint is the one dynalite server of this test binary, started by TestMain.
var endpoint string

// tableSets numbers the table sets the tests create, so every store gets fresh tables.
var tableSets atomic.Int64

func TestMain(m *testing.M) {
	os.Exit(runMain(m))
}

func runMain(m *testing.M) int {
	srv, err := dynalite.Start(context.Background())
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer srv.Close()
	endpoint = srv.Endpoint()
	return m.Run()
}

// client returns a new SDK client for the test server: a new client stands for another Lambda
// container.
func client(t *testing.T) *dynamodb.Client {
	t.Helper()
	c, err := dynalite.Client(t.Context(), endpoint)
	if err != nil {
		t.Fatalf("dynalite.Client: %v", err)
	}
	return c
}

// freshTables creates a new set of tables and returns their names.
func freshTables(t *testing.T) Tables {
	t.Helper()
	tables := TablesWithPrefix(fmt.Sprintf("sluice-test-%d-", tableSets.Add(1)))
	if err := New(client(t), tables).CreateTables(t.Context()); err != nil {
		t.Fatalf("CreateTables: %v", err)
	}
	return tables
}

// open returns a store on fresh tables.
func open(t *testing.T) *Store {
	t.Helper()
	s := New(client(t), freshTables(t))
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return s
}

func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) store.Store { return open(t) })
}

// lossShare is the share of successful writes whose answer the lossy tests lose.
const lossShare = 0.15

// TestConformanceLostAnswers runs the whole conformance suite through a proxy that loses the
// answers of 15% of the writes after dynalite applied them: the SDK retries each such call, and
// every retry must recognise the effect of its own first attempt.
func TestConformanceLostAnswers(t *testing.T) {
	p := faultproxy.StartT(t, endpoint, faultproxy.Config{Share: lossShare, Seed: 8})
	storetest.Run(t, func(t *testing.T) store.Store {
		c, err := dynalite.Client(t.Context(), p.URL())
		if err != nil {
			t.Fatalf("dynalite.Client: %v", err)
		}
		return New(c, freshTables(t))
	})
	s := p.Stats()
	t.Logf("through the proxy: %d requests, %d successful writes, %d answers lost (%v)", s.Requests, s.Writes, s.Dropped, s.ByOp)
	if s.Dropped == 0 {
		t.Fatal("the proxy lost no answer: the test proves nothing")
	}
}

// TestSharedTables races two stores with their own clients on one set of tables, as two Lambda
// containers would.
func TestSharedTables(t *testing.T) {
	for _, tc := range []struct {
		name string
		run  func(t *testing.T, stores []store.Store)
	}{
		{"Settle", func(t *testing.T, stores []store.Store) { storetest.AllowanceRace(t, stores, 50, 30, 1000) }},
		{"Claim", func(t *testing.T, stores []store.Store) { storetest.ClaimRace(t, stores, 32) }},
		{"Hit", func(t *testing.T, stores []store.Store) { storetest.HitRace(t, stores, 64, 40) }},
		{"Enter", func(t *testing.T, stores []store.Store) { storetest.EnterRace(t, stores, 64, 40) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tables := freshTables(t)
			a, b := New(client(t), tables), New(client(t), tables)
			tc.run(t, []store.Store{a, b})
		})
	}
}

func TestCreateTablesIdempotent(t *testing.T) {
	tables := freshTables(t)
	s := New(client(t), tables)
	if err := s.CreateTables(t.Context()); err != nil {
		t.Fatalf("CreateTables on existing tables: %v", err)
	}
	out, err := s.db.DescribeTable(t.Context(), &dynamodb.DescribeTableInput{TableName: &tables.Accounts})
	if err != nil {
		t.Fatalf("DescribeTable: %v", err)
	}
	if got := out.Table.TableStatus; got != types.TableStatusActive {
		t.Errorf("accounts table status = %s, want ACTIVE", got)
	}
	if n := len(out.Table.GlobalSecondaryIndexes); n != 1 || *out.Table.GlobalSecondaryIndexes[0].IndexName != indexByAccount {
		t.Errorf("accounts table indexes = %+v, want only %s", out.Table.GlobalSecondaryIndexes, indexByAccount)
	}
}

func TestTablesWithPrefix(t *testing.T) {
	got := TablesWithPrefix("prod-eu-")
	want := Tables{Accounts: "prod-eu-accounts", Idempotency: "prod-eu-idempotency", Usage: "prod-eu-usage", RateWindows: "prod-eu-rate_windows", Sessions: "prod-eu-sessions"}
	if got != want {
		t.Errorf("TablesWithPrefix = %+v, want %+v", got, want)
	}
}

// missingPass is a pass as Enter would make it, for calls that cannot reach a table.
var missingPass = store.Pass{Account: "acct-1", Month: "2026-11", Admitted: true, Ref: ref("slot1", slotValue(kindAdmit, "tok", 0))}

// TestMissingTable checks that every port reports a missing table as a wrapped SDK error:
// never a panic, and never one of the store's sentinel errors.
func TestMissingTable(t *testing.T) {
	s := New(client(t), TablesWithPrefix("sluice-missing-"))
	at := time.Date(2026, 11, 22, 21, 4, 5, 0, time.UTC)
	k := store.Key{ID: "key-1", Account: "acct-1", Hash: "h1", CreatedAt: at}
	for _, tc := range []struct {
		name string
		call func(ctx context.Context) error
	}{
		{"CreateAccount", func(ctx context.Context) error {
			return s.CreateAccount(ctx, store.Account{ID: "acct-1", CreatedAt: at}, k)
		}},
		{"GetAccount", func(ctx context.Context) error { _, err := s.GetAccount(ctx, "acct-1"); return err }},
		{"UpdateAccount", func(ctx context.Context) error { return s.UpdateAccount(ctx, store.Account{ID: "acct-1"}) }},
		{"HasAccounts", func(ctx context.Context) error { _, err := s.HasAccounts(ctx); return err }},
		{"AddKey", func(ctx context.Context) error { return s.AddKey(ctx, k) }},
		{"KeyByHash", func(ctx context.Context) error { _, err := s.KeyByHash(ctx, "h1"); return err }},
		{"ListKeys", func(ctx context.Context) error { _, err := s.ListKeys(ctx, "acct-1"); return err }},
		{"RevokeKey", func(ctx context.Context) error { return s.RevokeKey(ctx, "key-1", at) }},
		{"RotateKey", func(ctx context.Context) error { return s.RotateKey(ctx, k, at) }},
		{"Hit", func(ctx context.Context) error { _, _, err := s.Hit(ctx, "acct-1", at, 10); return err }},
		{"KeyAccount", func(ctx context.Context) error { _, _, err := s.KeyAccount(ctx, "h1"); return err }},
		{"Enter", func(ctx context.Context) error {
			_, err := s.Enter(ctx, store.Entry{Account: "acct-1", Month: "2026-11", Window: at, Limit: 10})
			return err
		}},
		{"Claim", func(ctx context.Context) error {
			_, err := s.Claim(ctx, store.Claim{Account: "acct-1", Key: "k", Lease: "l", Now: at, TTL: time.Hour, LeaseTTL: time.Minute, Pass: missingPass})
			return err
		}},
		{"Release", func(ctx context.Context) error { return s.Release(ctx, "acct-1", "k", "l") }},
		{"Usage", func(ctx context.Context) error { _, err := s.Usage(ctx, "acct-1", "2026-11"); return err }},
		{"Settle", func(ctx context.Context) error {
			_, _, err := s.Settle(ctx, store.Settlement{Pass: missingPass, Characters: 1, Limit: 10, TraceID: "sluice_t"})
			return err
		}},
		{"SettleWithKey", func(ctx context.Context) error {
			_, _, err := s.Settle(ctx, store.Settlement{Pass: missingPass, Characters: 1, Limit: 10,
				Idem: &store.IdemCompletion{Key: "k", Lease: "l"}})
			return err
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.call(t.Context())
			var rnf *types.ResourceNotFoundException
			if !errors.As(err, &rnf) {
				t.Fatalf("err = %v, want a wrapped ResourceNotFoundException", err)
			}
			if !strings.HasPrefix(err.Error(), "dynamo: ") {
				t.Errorf("err = %q, want context (dynamo: ...)", err)
			}
			for _, sentinel := range []error{store.ErrNotFound, store.ErrExists, store.ErrLeaseLost, store.ErrAccountChanged} {
				if errors.Is(err, sentinel) {
					t.Errorf("err = %v, is %v", err, sentinel)
				}
			}
		})
	}
}
