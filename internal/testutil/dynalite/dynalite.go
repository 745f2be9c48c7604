// Package dynalite starts a real DynamoDB-compatible server (the npm package dynalite, pinned in
// the repository's package.json and package-lock.json) for tests, and builds SDK clients for it.
//
// The server runs in memory on a loopback port that the operating system picks: the Node.js
// process listens on 127.0.0.1:0 itself and prints the port it got, so two test binaries can
// never race for a port. It stops when Close is called, and also when the process that started
// it dies (it exits when its standard input closes), so a crashed test binary leaves no server
// behind.
//
// When node_modules/.bin/dynalite is missing (a fresh CI checkout), Start runs
// `npm ci --no-audit --no-fund` in the repository root first. Test binaries of several packages
// run in parallel, so installers are serialised with an advisory lock on a file in the
// temporary directory (not in node_modules, which npm ci deletes). Node.js and npm are required:
// without them Start fails with a clear error; tests never skip.
package dynalite

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

const (
	// startTimeout bounds how long Start waits for the server to listen.
	startTimeout = 30 * time.Second
	// stopTimeout is how long Close waits after SIGTERM before it kills the process group.
	stopTimeout = 3 * time.Second
	// readyPrefix starts the line the launcher prints once the server listens.
	readyPrefix = "sluice-dynalite listening on port "
	// Region is the region of the clients Client builds.
	Region = "us-east-1"
)

// launcher is the Node.js program Start runs (node -e launcher <dynalite dir>). It starts
// dynalite in memory with tables that become ACTIVE at once, listens on a port the system
// picks, prints that port, and exits when its standard input closes (its parent died or
// closed it).
const launcher = `
const dynalite = require(process.argv[1]);
const server = dynalite({createTableMs: 0, deleteTableMs: 0, updateTableMs: 0});
server.on('error', (err) => { console.error(String(err)); process.exit(1); });
server.listen(0, '127.0.0.1', () => {
  console.log('` + readyPrefix + `' + server.address().port);
});
process.stdin.on('end', () => process.exit(0));
process.stdin.on('error', () => process.exit(0));
process.stdin.resume();
`

// Server is a running dynalite process.
type Server struct {
	cmd      *exec.Cmd
	stdin    io.WriteCloser
	endpoint string
	exited   chan struct{} // closed when the process has been waited for
	waitErr  error         // valid once exited is closed
	output   *tailBuffer   // the process's stderr (and stdout after the ready line)

	closeOnce sync.Once
	closeErr  error
}

// Start installs dynalite when it is missing and starts a fresh in-memory server.
func Start(ctx context.Context) (*Server, error) {
	node, err := exec.LookPath("node")
	if err != nil {
		return nil, fmt.Errorf("dynalite needs Node.js and npm: %w", err)
	}
	root, err := repoRoot()
	if err != nil {
		return nil, fmt.Errorf("dynalite: %w", err)
	}
	if err := ensureInstalled(ctx, root); err != nil {
		return nil, err
	}
	return launch(ctx, node, filepath.Join(root, "node_modules", "dynalite"))
}

// StartT starts a server for the test (failing it when that is impossible, never skipping),
// stops it when the test and its subtests end, and returns its endpoint URL.
func StartT(t testing.TB) string {
	t.Helper()
	s, err := Start(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("stop dynalite: %v", err)
		}
	})
	return s.Endpoint()
}

// Endpoint returns the server's URL, http://127.0.0.1:<port>.
func (s *Server) Endpoint() string { return s.endpoint }

// Close stops the server: SIGTERM to its process group, SIGKILL when it has not exited after a
// few seconds. Calling Close again returns the first result.
func (s *Server) Close() error {
	s.closeOnce.Do(func() { s.closeErr = s.stop() })
	return s.closeErr
}

func (s *Server) stop() error {
	_ = s.stdin.Close() // the launcher exits on end of input by itself
	select {
	case <-s.exited:
		return nil
	case <-time.After(100 * time.Millisecond):
	}
	if err := signalGroup(s.cmd.Process, false); err != nil {
		return fmt.Errorf("dynalite: stop: %w", err)
	}
	select {
	case <-s.exited:
		return nil
	case <-time.After(stopTimeout):
	}
	if err := signalGroup(s.cmd.Process, true); err != nil {
		return fmt.Errorf("dynalite: kill: %w", err)
	}
	<-s.exited
	return nil
}

// Client returns a DynamoDB client for endpoint with static dummy credentials and region
// us-east-1, changed by optFns. It never looks anything up on the network (no IMDS, no SSO):
// only the endpoint is contacted.
func Client(ctx context.Context, endpoint string, optFns ...func(*dynamodb.Options)) (*dynamodb.Client, error) {
	cfg, err := config.LoadDefaultConfig(ctx,
		config.WithRegion(Region),
		config.WithCredentialsProvider(credentials.NewStaticCredentialsProvider("sluice-test", "sluice-test", "")),
		config.WithSharedConfigFiles([]string{}),
		config.WithSharedCredentialsFiles([]string{}),
	)
	if err != nil {
		return nil, fmt.Errorf("dynalite: client config: %w", err)
	}
	return dynamodb.NewFromConfig(cfg, append([]func(*dynamodb.Options){func(o *dynamodb.Options) {
		o.BaseEndpoint = aws.String(endpoint)
	}}, optFns...)...), nil
}

// launch starts the launcher with node and waits for its ready line.
func launch(ctx context.Context, node, dir string) (*Server, error) {
	cmd := exec.Command(node, "-e", launcher, dir)
	cmd.Dir = dir
	cmd.SysProcAttr = newProcessGroup()
	out := &tailBuffer{max: 16 << 10}
	cmd.Stderr = out
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("dynalite: stdout pipe: %w", err)
	}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("dynalite: stdin pipe: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("dynalite: start node: %w", err)
	}
	s := &Server{cmd: cmd, stdin: stdin, exited: make(chan struct{}), output: out}

	ports := make(chan int, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			line := sc.Text()
			if rest, ok := strings.CutPrefix(line, readyPrefix); ok {
				if p, err := strconv.Atoi(strings.TrimSpace(rest)); err == nil {
					select {
					case ports <- p:
					default:
					}
					continue
				}
			}
			fmt.Fprintln(out, line)
		}
		// Drain so the process never blocks on a full pipe, then reap it.
		_, _ = io.Copy(out, stdout)
		s.waitErr = cmd.Wait()
		close(s.exited)
	}()

	timer := time.NewTimer(startTimeout)
	defer timer.Stop()
	select {
	case p := <-ports:
		s.endpoint = "http://127.0.0.1:" + strconv.Itoa(p)
		return s, nil
	case <-s.exited:
		return nil, fmt.Errorf("dynalite: exited before listening (%v): %s", s.waitErr, out.String())
	case <-timer.C:
		_ = s.Close()
		return nil, fmt.Errorf("dynalite: not listening after %v: %s", startTimeout, out.String())
	case <-ctx.Done():
		_ = s.Close()
		return nil, fmt.Errorf("dynalite: start: %w", ctx.Err())
	}
}

// repoRoot walks up from the working directory to the directory holding both go.mod and
// package.json.
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("find repository root: %w", err)
	}
	for {
		if isFile(filepath.Join(dir, "go.mod")) && isFile(filepath.Join(dir, "package.json")) {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("find repository root: no directory above the working directory holds go.mod and package.json")
		}
		dir = parent
	}
}

func isFile(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular()
}

// ensureInstalled runs npm ci in root unless node_modules/.bin/dynalite exists. Concurrent
// callers (several test binaries) wait for one another on a lock file, and whoever comes second
// finds dynalite installed.
func ensureInstalled(ctx context.Context, root string) error {
	bin := filepath.Join(root, "node_modules", ".bin", "dynalite")
	if _, err := os.Stat(bin); err == nil {
		return nil
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		return fmt.Errorf("dynalite needs Node.js and npm: %w", err)
	}
	unlock, err := lockInstall(ctx, root)
	if err != nil {
		return fmt.Errorf("dynalite: install: %w", err)
	}
	defer unlock()
	if _, err := os.Stat(bin); err == nil {
		return nil // another process installed it while we waited
	}
	cmd := exec.CommandContext(ctx, npm, "ci", "--no-audit", "--no-fund")
	cmd.Dir = root
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("dynalite: npm ci in %s: %w: %s", root, err, tail(out, 4<<10))
	}
	if _, err := os.Stat(bin); err != nil {
		return fmt.Errorf("dynalite: npm ci in %s did not install %s: %w", root, bin, err)
	}
	return nil
}

// tailBuffer keeps the last max bytes written to it; it is safe for concurrent use.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = append(t.b[:0], t.b[len(t.b)-t.max:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.b)
}

func tail(b []byte, n int) string {
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return string(b)
}
