package client_test

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// The end-to-end tests build the local server (functions/local) from the repository around this
// module and run it as a process, as internal/testutil/localserver does for the main module's
// tests. That package is internal to the main module, and this module imports nothing but the
// standard library, so the few lines are repeated here.

var (
	buildOnce sync.Once
	buildDir  string
	binary    string
	buildErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if buildDir != "" {
		os.RemoveAll(buildDir)
	}
	os.Exit(code)
}

// serverBinary builds the local server once per test binary.
func serverBinary(t *testing.T) string {
	t.Helper()
	root := repoRoot(t)
	buildOnce.Do(func() {
		if buildDir, buildErr = os.MkdirTemp("", "sluice-client-e2e-"); buildErr != nil {
			return
		}
		bin := filepath.Join(buildDir, "sluice-local")
		cmd := exec.Command("go", "build", "-o", bin, "./functions/local")
		cmd.Dir = root
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil {
			buildErr = fmt.Errorf("build the local server: %w\n%s", err, out.String())
			return
		}
		binary = bin
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binary
}

var listening = regexp.MustCompile(`listening on (http://\S+)`)

// startServer runs the local server on a free port with a new data directory, the API keys in
// SLUICE_SEED_KEYS and args, and returns its base URL once it serves. It is stopped when the
// test ends.
func startServer(t *testing.T, keys []string, args ...string) string {
	t.Helper()
	bin := serverBinary(t)
	cmd := exec.Command(bin, append([]string{"-addr", "127.0.0.1:0", "-data", t.TempDir()}, args...)...)
	cmd.Env = append(os.Environ(), "SLUICE_SEED_KEYS="+strings.Join(keys, ","))
	var stderr syncBuffer
	cmd.Stderr = &stderr
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
	// The banner names the base URL first and ends with the curl example for <base>/v1/services.
	ready := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		base, sent := "", false
		for sc.Scan() {
			line := sc.Text()
			if m := listening.FindStringSubmatch(line); m != nil && base == "" {
				base = m[1]
			}
			if base != "" && !sent && strings.Contains(line, base+"/v1/services") {
				ready <- base
				sent = true
			}
		}
		if !sent {
			close(ready)
		}
	}()
	select {
	case base, ok := <-ready:
		if !ok {
			t.Fatalf("the server exited before it served; stderr:\n%s", stderr.String())
		}
		return base
	case <-time.After(60 * time.Second):
		t.Fatalf("the server did not start within a minute; stderr:\n%s", stderr.String())
	}
	return ""
}

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
