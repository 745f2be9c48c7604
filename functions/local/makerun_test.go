package main

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sluice-api/sluice/internal/testutil/localserver"
)

// TestMakeRunKeepsKeyOffCommandLine starts the README's `make run` with SLUICE_KEY set and checks
// the command line of every process on the machine while it serves: the key must be in none of
// them (ps shows arguments to every local user), and the seeded key must work.
func TestMakeRunKeepsKeyOffCommandLine(t *testing.T) {
	if _, err := os.Stat("/proc/self/cmdline"); err != nil {
		t.Skip("no /proc here to read command lines from")
	}
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("make is not installed")
	}
	const key = "sluice_live_MakeRunKeyMakeRunKeyMakeRunKey00"
	cmd := exec.Command("make", "--no-print-directory", "run", "ARGS=-addr 127.0.0.1:0 -data "+t.TempDir())
	cmd.Dir = filepath.Join("..", "..")
	cmd.Env = append(os.Environ(), "SLUICE_KEY="+key)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGINT)
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-done
		}
	})
	base := ""
	var banner strings.Builder
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		line := sc.Text()
		banner.WriteString(line + "\n")
		if m := regexp.MustCompile(`listening on (http://\S+)`).FindStringSubmatch(line); m != nil {
			base = m[1]
		}
		if base != "" && strings.Contains(line, base+"/v1/services") {
			break
		}
	}
	if base == "" {
		t.Fatalf("make run did not start the server:\n%s\nstderr:\n%s", banner.String(), stderr.String())
	}
	go func() { // keep draining so the server never blocks on a full pipe
		for sc.Scan() {
		}
	}()

	procs, err := filepath.Glob("/proc/[0-9]*/cmdline")
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	for _, p := range procs {
		b, err := os.ReadFile(p)
		if err != nil || len(b) == 0 {
			continue // gone meanwhile, or a kernel thread
		}
		seen++
		if bytes.Contains(b, []byte(key)) {
			t.Errorf("%s shows the API key: %q", p, bytes.ReplaceAll(b, []byte{0}, []byte{' '}))
		}
	}
	if seen == 0 {
		t.Fatal("read no command line at all")
	}
	s := &server{&localserver.Server{Base: base}}
	if r := s.run(t, key, runBody("x", `[{"id":"p","service":"governance.pii.redact"}]`)); r.status != 200 {
		t.Fatalf("the key seeded by make run answers %d: %s", r.status, r.raw)
	}
}
