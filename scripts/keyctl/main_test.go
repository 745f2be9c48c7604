package main

import (
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestExitCodes checks that main passes cli.Run's exit code and output through to the process.
func TestExitCodes(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "keyctl")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	data := t.TempDir()
	for _, tc := range []struct {
		name   string
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{"Help", []string{"-h"}, 0, "Exit codes", ""},
		{"BadFlag", []string{"-bogus"}, 2, "", "keyctl: flag provided but not defined: -bogus"},
		{"Create", []string{"-data", data, "account", "create"}, 0, "shown only this once", ""},
		{"UnknownAccount", []string{"-data", data, "account", "show", "acct_nope"}, 3, "", "keyctl: no account acct_nope"},
		{"NoStore", []string{"-data", t.TempDir(), "account", "show", "acct_nope"}, 4, "", "keyctl: no Sluice store"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command(bin, tc.args...)
			var stdout, stderr strings.Builder
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			code := 0
			var exit *exec.ExitError
			if errors.As(err, &exit) {
				code = exit.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if code != tc.code || !strings.Contains(stdout.String(), tc.stdout) || !strings.Contains(stderr.String(), tc.stderr) {
				t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout.String(), stderr.String())
			}
		})
	}
}
