package dynalite

import (
	"net"
	"net/url"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

func TestServer(t *testing.T) {
	s, err := Start(t.Context())
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	u, err := url.Parse(s.Endpoint())
	if err != nil || u.Scheme != "http" || u.Hostname() != "127.0.0.1" || u.Port() == "" {
		t.Fatalf("Endpoint() = %q, want http://127.0.0.1:<port>", s.Endpoint())
	}

	c, err := Client(t.Context(), s.Endpoint())
	if err != nil {
		t.Fatalf("Client: %v", err)
	}
	ctx := t.Context()
	_, err = c.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:            aws.String("probe"),
		BillingMode:          types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
	})
	if err != nil {
		t.Fatalf("CreateTable: %v", err)
	}
	out, err := c.ListTables(ctx, &dynamodb.ListTablesInput{})
	if err != nil {
		t.Fatalf("ListTables: %v", err)
	}
	if len(out.TableNames) != 1 || out.TableNames[0] != "probe" {
		t.Fatalf("tables = %v, want [probe]", out.TableNames)
	}

	// A second server is independent (in memory) and listens elsewhere.
	other := StartT(t)
	if other == s.Endpoint() {
		t.Fatalf("two servers share the endpoint %s", other)
	}
	oc, err := Client(t.Context(), other)
	if err != nil {
		t.Fatalf("Client: %v", err)
	}
	if out, err := oc.ListTables(ctx, &dynamodb.ListTablesInput{}); err != nil || len(out.TableNames) != 0 {
		t.Fatalf("ListTables on the second server = %v, %v; want none", out, err)
	}

	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if conn, err := net.DialTimeout("tcp", u.Host, time.Second); err == nil {
		conn.Close()
		t.Fatalf("%s still answers after Close", u.Host)
	}
}

func TestRepoRoot(t *testing.T) {
	root, err := repoRoot()
	if err != nil {
		t.Fatalf("repoRoot: %v", err)
	}
	for _, name := range []string{"go.mod", "package.json", "package-lock.json"} {
		if !isFile(filepath.Join(root, name)) {
			t.Errorf("%s has no %s", root, name)
		}
	}
	t.Run("NoRoot", func(t *testing.T) {
		t.Chdir(t.TempDir())
		if dir, err := repoRoot(); err == nil {
			wd, _ := os.Getwd()
			t.Fatalf("repoRoot from %s = %s, want an error", wd, dir)
		}
	})
}

func TestMissingNode(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	_, err := Start(t.Context())
	if err == nil {
		t.Fatal("Start without node succeeded")
	}
	const want = "dynalite needs Node.js and npm: "
	if got := err.Error(); len(got) < len(want) || got[:len(want)] != want {
		t.Fatalf("error = %q, want it to start with %q", got, want)
	}
}
