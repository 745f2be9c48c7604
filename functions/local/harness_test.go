package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/sluice-api/sluice/internal/account"
	"github.com/sluice-api/sluice/internal/secrets"
	"github.com/sluice-api/sluice/internal/store"
	"github.com/sluice-api/sluice/internal/store/dynamo"
	"github.com/sluice-api/sluice/internal/store/sqlite"
	"github.com/sluice-api/sluice/internal/testutil/dynalite"
	"github.com/sluice-api/sluice/internal/testutil/localserver"
	"github.com/sluice-api/sluice/internal/testutil/openapicheck"
)

// The end-to-end tests build this command, start it as a process on a free port with its own
// data directory, and drive it over HTTP like a client would.

var binary string

// dynamoEndpoint is a dynalite server shared by the tests of the DynamoDB backend.
var dynamoEndpoint string

// spec validates every response the end-to-end tests receive against the OpenAPI document, so
// the document cannot drift from what the server answers.
var spec *openapicheck.Checker

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "sluice-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if spec, err = openapicheck.New(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	dl, err := dynalite.Start(context.Background())
	if err != nil {
		fmt.Fprintln(os.Stderr, "start dynalite:", err)
		os.Exit(1)
	}
	dynamoEndpoint = dl.Endpoint()
	if binary, err = localserver.Build(dir); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	dl.Close()
	os.RemoveAll(dir)
	os.Exit(code)
}

// server is a running local server, with the calls a client makes.
type server struct{ *localserver.Server }

// start runs the server with args plus a free port; data is its data directory ("" = new one).
func start(t *testing.T, data string, args ...string) *server {
	t.Helper()
	return &server{localserver.Start(t, binary, data, args...)}
}

// seed is start with API keys seeded through the environment, as make run passes SLUICE_KEY.
func seed(t *testing.T, data string, keys []string, args ...string) *server {
	t.Helper()
	return &server{localserver.Run(t, binary, localserver.Options{Data: data, SeedKeys: keys, Args: args})}
}

type reply struct {
	status int
	header http.Header
	body   map[string]any
	raw    []byte
}

func (r reply) code() string {
	e, _ := r.body["error"].(map[string]any)
	c, _ := e["code"].(string)
	return c
}

// do sends a request as a client would and decodes the JSON answer; the test fails on any
// error. Call it from the test's goroutine only; other goroutines call try.
func (s *server) do(t *testing.T, method, path, key, body string, headers ...string) reply {
	t.Helper()
	r, err := s.try(method, path, key, body, headers...)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// try is do for any goroutine: it returns what went wrong instead of failing the test.
func (s *server) try(method, path, key, body string, headers ...string) (reply, error) {
	req, err := http.NewRequest(method, s.Base+path, strings.NewReader(body))
	if err != nil {
		return reply{}, err
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return reply{}, fmt.Errorf("%s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return reply{}, fmt.Errorf("%s %s: read the answer: %w", method, path, err)
	}
	if err := spec.Check(req, resp.StatusCode, resp.Header, raw); err != nil {
		return reply{}, fmt.Errorf("OpenAPI: %w", err)
	}
	r := reply{status: resp.StatusCode, header: resp.Header, raw: raw}
	if err := json.Unmarshal(raw, &r.body); err != nil {
		return reply{}, fmt.Errorf("%s %s: body is not a JSON object: %q", method, path, raw)
	}
	return r, nil
}

func (s *server) run(t *testing.T, key, body string, headers ...string) reply {
	t.Helper()
	return s.do(t, http.MethodPost, "/v1/run", key, body, headers...)
}

// tryRun is run for any goroutine.
func tryRun(s *server, key, body string, headers ...string) (reply, error) {
	return s.try(http.MethodPost, "/v1/run", key, body, headers...)
}

// runBody builds a run request body.
func runBody(value string, steps string) string {
	v, _ := json.Marshal(value)
	return `{"request_id":"req-1","input":{"type":"text","value":` + string(v) + `},"pipeline":` + steps + `}`
}

// Keys used by the tests (valid format: sluice_live_ + 32 base62).
const (
	keyA = "sluice_live_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
	keyB = "sluice_live_BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB"
	keyC = "sluice_live_CCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCC"
)

// hashFromData hashes key with the pepper the server keeps in its data directory.
func hashFromData(t *testing.T, data, key string) string {
	t.Helper()
	sec, err := secrets.File{Path: filepath.Join(data, "secrets.json")}.Load(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return account.HashKey(sec.Pepper, key)
}

// backend is a store the local server can run on; every end-to-end test runs on each.
type backend struct {
	name string
	// args returns the server flags for a new, empty store.
	args func(t *testing.T) []string
	// open opens the store a server with those flags uses, as an operator would.
	open func(t *testing.T, s *server, args []string) store.Store
}

var backends = []backend{
	{
		name: "SQLite",
		args: func(*testing.T) []string { return nil },
		open: func(t *testing.T, s *server, _ []string) store.Store {
			st, err := sqlite.Open(filepath.Join(s.Data, "sluice.db"))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { st.Close() })
			return st
		},
	},
	{
		name: "DynamoDB",
		args: func(t *testing.T) []string {
			prefix := fmt.Sprintf("e2e%d_", tablePrefixSeq.Add(1))
			return []string{"-store", "dynamodb", "-dynamodb-endpoint", dynamoEndpoint, "-table-prefix", prefix}
		},
		open: func(t *testing.T, _ *server, args []string) store.Store {
			client, err := dynalite.Client(t.Context(), dynamoEndpoint)
			if err != nil {
				t.Fatal(err)
			}
			return dynamo.New(client, dynamo.TablesWithPrefix(args[len(args)-1]))
		},
	},
}

var tablePrefixSeq atomic.Int64

// eachBackend runs fn once per backend.
func eachBackend(t *testing.T, fn func(t *testing.T, b backend)) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) { fn(t, b) })
	}
}
