// Package localserver builds the local server command (functions/local) and runs it as a process
// for end-to-end tests: on a free loopback port, with its own data directory, stopped when the
// test ends.
package localserver

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

// Build compiles the local server into dir and returns the binary's path.
func Build(dir string) (string, error) {
	bin := filepath.Join(dir, "sluice-local")
	cmd := exec.Command("go", "build", "-o", bin, "github.com/sluice-api/sluice/functions/local")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("localserver: build: %w\n%s", err, out.String())
	}
	return bin, nil
}

// SyncBuffer collects a process's output safely while it runs.
type SyncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *SyncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// String returns what was written so far.
func (s *SyncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// Server is a running local server.
type Server struct {
	Base   string // http://127.0.0.1:PORT
	Data   string // its data directory
	Stdout *SyncBuffer
	Stderr *SyncBuffer // its JSON log lines
}

var listening = regexp.MustCompile(`listening on (http://\S+)`)

// Options are what a test chooses about the server it starts.
type Options struct {
	Data     string   // data directory ("" = a new temporary directory)
	SeedKeys []string // API keys to seed, passed in the environment (SLUICE_SEED_KEYS), never as arguments
	Args     []string // more flags
}

// Start runs binary with -addr 127.0.0.1:0, -data data ("" = a new temporary directory) and args,
// waits until it listens, and stops it (interrupt, then kill) when the test ends.
func Start(t testing.TB, binary, data string, args ...string) *Server {
	t.Helper()
	return Run(t, binary, Options{Data: data, Args: args})
}

// Run starts binary as Start does, with the seed keys of o in its environment.
func Run(t testing.TB, binary string, o Options) *Server {
	t.Helper()
	data := o.Data
	if data == "" {
		data = t.TempDir()
	}
	s := &Server{Data: data, Stdout: &SyncBuffer{}, Stderr: &SyncBuffer{}}
	cmd := exec.Command(binary, append([]string{"-addr", "127.0.0.1:0", "-data", data}, o.Args...)...)
	cmd.Env = append(os.Environ(), "SLUICE_SEED_KEYS="+strings.Join(o.SeedKeys, ","))
	cmd.Stderr = s.Stderr
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
	// The banner starts with "listening on <base>" and ends with the curl example for
	// <base>/v1/services (the only line that names that path); the server is ready, and Stdout
	// holds the whole banner, once that last line has been read.
	ready := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		base, sent := "", false
		for sc.Scan() {
			line := sc.Text()
			_, _ = s.Stdout.Write([]byte(line + "\n"))
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
			t.Fatalf("the server exited before it was ready; stdout:\n%s\nstderr:\n%s", s.Stdout.String(), s.Stderr.String())
		}
		s.Base = base
	case <-time.After(60 * time.Second):
		t.Fatalf("the server did not start; stdout:\n%s\nstderr:\n%s", s.Stdout.String(), s.Stderr.String())
	}
	return s
}
