package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sluice-api/sluice/internal/account"
	"github.com/sluice-api/sluice/internal/secrets"
	"github.com/sluice-api/sluice/internal/store"
	"github.com/sluice-api/sluice/internal/store/dynamo"
	"github.com/sluice-api/sluice/internal/store/sqlite"
	"github.com/sluice-api/sluice/internal/testutil/dynalite"
)

// The end-to-end tests build this command, start it as a process on a free port with its own
// data directory, and drive it over HTTP like a client would.

var binary string

// dynamoEndpoint is a dynalite server shared by the tests of the DynamoDB backend.
var dynamoEndpoint string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "sluice-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	dl, err := dynalite.Start(context.Background())
	if err != nil {
		fmt.Fprintln(os.Stderr, "start dynalite:", err)
		os.Exit(1)
	}
	dynamoEndpoint = dl.Endpoint()
	binary = filepath.Join(dir, "sluice-local")
	build := exec.Command("go", "build", "-o", binary, ".")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build local server:", err)
		os.Exit(1)
	}
	code := m.Run()
	dl.Close()
	os.RemoveAll(dir)
	os.Exit(code)
}

// syncBuffer collects a process's output safely while it runs.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

type server struct {
	base   string
	data   string
	stdout *syncBuffer
	stderr *syncBuffer
}

var listening = regexp.MustCompile(`listening on (http://\S+)`)

// start runs the server with args plus a free port; data is its data directory ("" = new one).
func start(t *testing.T, data string, args ...string) *server {
	t.Helper()
	if data == "" {
		data = t.TempDir()
	}
	s := &server{data: data, stdout: &syncBuffer{}, stderr: &syncBuffer{}}
	cmd := exec.Command(binary, append([]string{"-addr", "127.0.0.1:0", "-data", data}, args...)...)
	cmd.Stderr = s.stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	})
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		sent := false
		for sc.Scan() {
			line := sc.Text()
			s.stdout.Write([]byte(line + "\n"))
			if m := listening.FindStringSubmatch(line); m != nil && !sent {
				found <- m[1]
				sent = true
			}
		}
		if !sent {
			close(found)
		}
	}()
	select {
	case base, ok := <-found:
		if !ok {
			t.Fatalf("server exited before listening; stderr:\n%s", s.stderr.String())
		}
		s.base = base
	case <-time.After(60 * time.Second):
		t.Fatalf("server did not start; stderr:\n%s", s.stderr.String())
	}
	// The banner is printed after seeding; give the rest of it a moment to arrive.
	time.Sleep(50 * time.Millisecond)
	return s
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

func (s *server) do(t *testing.T, method, path, key, body string, headers ...string) reply {
	t.Helper()
	req, err := http.NewRequest(method, s.base+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
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
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	r := reply{status: resp.StatusCode, header: resp.Header, raw: raw}
	if err := json.Unmarshal(raw, &r.body); err != nil {
		t.Fatalf("%s %s: body is not a JSON object: %q", method, path, raw)
	}
	return r
}

func (s *server) run(t *testing.T, key, body string, headers ...string) reply {
	t.Helper()
	return s.do(t, http.MethodPost, "/v1/run", key, body, headers...)
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
			st, err := sqlite.Open(filepath.Join(s.data, "sluice.db"))
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
