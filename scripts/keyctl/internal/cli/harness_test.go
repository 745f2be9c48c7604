package cli_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/sluice-api/sluice/internal/account"
	"github.com/sluice-api/sluice/internal/secrets"
	"github.com/sluice-api/sluice/internal/store"
	"github.com/sluice-api/sluice/internal/store/dynamo"
	"github.com/sluice-api/sluice/internal/store/sqlite"
	"github.com/sluice-api/sluice/internal/testutil/dynalite"
	"github.com/sluice-api/sluice/internal/testutil/localserver"
	"github.com/sluice-api/sluice/scripts/keyctl/internal/cli"
)

// dynamoEndpoint is a dynalite server shared by the tests; every backend gets its own tables.
var dynamoEndpoint string

// serverBinary is the local server (functions/local), built once for the rotation tests.
var serverBinary string

func TestMain(m *testing.M) {
	os.Exit(testMain(m))
}

func testMain(m *testing.M) int {
	dir, err := os.MkdirTemp("", "keyctl-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	dl, err := dynalite.Start(context.Background())
	if err != nil {
		fmt.Fprintln(os.Stderr, "start dynalite:", err)
		return 1
	}
	defer dl.Close()
	dynamoEndpoint = dl.Endpoint()
	if serverBinary, err = localserver.Build(dir); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return m.Run()
}

// backend is a store keyctl runs on.
type backend struct {
	name string
	// data is the data directory (the SQLite file and secrets.json; secrets.json only for
	// DynamoDB).
	data string
	// flags are keyctl's global flags for the store; server are the local server's.
	flags, server []string
	// st is the store opened as the service opens it, to check what keyctl did.
	st store.Store
	// dump returns every value the store holds, as text.
	dump func(t *testing.T) string
	// cleanup registers with the test that made the backend (it outlives the subtests).
	cleanup func(func())
}

var prefixSeq atomic.Int64

func newSQLite(t *testing.T) *backend {
	data := t.TempDir()
	b := &backend{name: "SQLite", data: data, flags: []string{"-data", data}, cleanup: t.Cleanup}
	b.dump = func(t *testing.T) string {
		var all bytes.Buffer
		for _, f := range []string{"sluice.db", "sluice.db-wal", "secrets.json"} {
			raw, err := os.ReadFile(filepath.Join(data, f))
			if err == nil {
				all.Write(raw)
			}
		}
		return all.String()
	}
	return b
}

// store returns the store, opening the SQLite file once keyctl (or the server) made it.
func (b *backend) store(t *testing.T) store.Store {
	t.Helper()
	if b.st != nil {
		return b.st
	}
	st, err := sqlite.Open(filepath.Join(b.data, cli.DBFile))
	if err != nil {
		t.Fatal(err)
	}
	b.cleanup(func() { st.Close() })
	b.st = st
	return st
}

func newDynamo(t *testing.T) *backend {
	data := t.TempDir()
	prefix := fmt.Sprintf("kc%d_", prefixSeq.Add(1))
	client, err := dynalite.Client(t.Context(), dynamoEndpoint)
	if err != nil {
		t.Fatal(err)
	}
	tables := dynamo.TablesWithPrefix(prefix)
	st := dynamo.New(client, tables)
	if err := st.CreateTables(t.Context()); err != nil {
		t.Fatal(err)
	}
	// The local server makes the pepper file on its first start; so does this test.
	if _, err := (secrets.File{Path: filepath.Join(data, cli.SecretsFile)}).Load(t.Context()); err != nil {
		t.Fatal(err)
	}
	args := []string{"-store", "dynamodb", "-dynamodb-endpoint", dynamoEndpoint, "-table-prefix", prefix}
	b := &backend{name: "DynamoDB", data: data, st: st,
		flags: append([]string{"-data", data}, args...), server: args}
	b.dump = func(t *testing.T) string {
		var all strings.Builder
		for _, name := range []string{tables.Accounts, tables.Idempotency, tables.Usage, tables.RateWindows} {
			out, err := client.Scan(t.Context(), &dynamodb.ScanInput{TableName: aws.String(name)})
			if err != nil {
				t.Fatal(err)
			}
			for _, item := range out.Items {
				for k, v := range item {
					all.WriteString(k + "=" + attrText(v) + "\n")
				}
			}
		}
		return all.String()
	}
	return b
}

func attrText(v types.AttributeValue) string {
	switch v := v.(type) {
	case *types.AttributeValueMemberS:
		return v.Value
	case *types.AttributeValueMemberN:
		return v.Value
	case *types.AttributeValueMemberBOOL:
		return fmt.Sprint(v.Value)
	case *types.AttributeValueMemberM:
		var parts []string
		for k, x := range v.Value {
			parts = append(parts, k+":"+attrText(x))
		}
		sort.Strings(parts)
		return "{" + strings.Join(parts, ",") + "}"
	case *types.AttributeValueMemberL:
		var parts []string
		for _, x := range v.Value {
			parts = append(parts, attrText(x))
		}
		return "[" + strings.Join(parts, ",") + "]"
	}
	return fmt.Sprintf("%T", v)
}

// eachBackend runs fn on a fresh SQLite store and on fresh DynamoDB tables.
func eachBackend(t *testing.T, fn func(t *testing.T, b *backend)) {
	for _, mk := range []func(*testing.T) *backend{newSQLite, newDynamo} {
		b := mk(t)
		t.Run(b.name, func(t *testing.T) { fn(t, b) })
	}
}

// result is one keyctl run.
type result struct {
	args           []string
	code           int
	stdout, stderr string
}

func (r result) String() string {
	return fmt.Sprintf("keyctl %s: exit %d\nstdout:\n%s\nstderr:\n%s", strings.Join(r.args, " "), r.code, r.stdout, r.stderr)
}

// keyctl runs the command with the backend's global flags.
func (b *backend) keyctl(t *testing.T, args ...string) result {
	t.Helper()
	return runKeyctl(t, append(append([]string{}, b.flags...), args...)...)
}

func runKeyctl(t *testing.T, args ...string) result {
	t.Helper()
	var out, errOut bytes.Buffer
	code := cli.Run(t.Context(), args, &out, &errOut, cli.Env{Now: time.Now})
	return result{args: args, code: code, stdout: out.String(), stderr: errOut.String()}
}

// ok runs keyctl and fails the test unless it exits 0.
func (b *backend) ok(t *testing.T, args ...string) result {
	t.Helper()
	r := b.keyctl(t, args...)
	if r.code != cli.ExitOK {
		t.Fatalf("%v", r)
	}
	return r
}

var (
	keyLine     = regexp.MustCompile(`(?m)^  (sluice_live_[0-9A-Za-z]{32})$`)
	accountLine = regexp.MustCompile(`(?m)^Created account (acct_[0-9A-Z]{26})$`)
	anyKey      = regexp.MustCompile(`sluice_live_[0-9A-Za-z]{32}`)
)

// created parses the text output of account create: account id and key.
func created(t *testing.T, r result) (acct, key string) {
	t.Helper()
	a, k := accountLine.FindStringSubmatch(r.stdout), keyLine.FindStringSubmatch(r.stdout)
	if a == nil || k == nil || !strings.Contains(r.stdout, "shown only this once") {
		t.Fatalf("no account, key or notice in:\n%v", r)
	}
	return a[1], k[1]
}

// newKey parses the text output of key create and key rotate.
func newKey(t *testing.T, r result) string {
	t.Helper()
	k := keyLine.FindStringSubmatch(r.stdout)
	if k == nil || !strings.Contains(r.stdout, "shown only this once") {
		t.Fatalf("no key or notice in:\n%v", r)
	}
	return k[1]
}

// authenticates reports whether key authenticates, as the service checks it.
func (b *backend) authenticates(t *testing.T, key string) bool {
	t.Helper()
	sec, err := secrets.File{Path: filepath.Join(b.data, cli.SecretsFile)}.Load(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	_, err = account.NewManager(b.store(t), sec.Pepper, nil).Authenticate(t.Context(), "Bearer "+key)
	return err == nil
}

func writeFile(path string) error { return os.WriteFile(path, []byte("not a directory"), 0o600) }
