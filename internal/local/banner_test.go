package local

import (
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestFreshStart: the banner's command for starting again keeps the flags the server was given,
// swaps -data for a new directory, and survives the user's shell and make: a fake Makefile's run
// target prints the words its command line gets, which must be those flags exactly.
func TestFreshStart(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("make is not installed")
	}
	makefile := filepath.Join(t.TempDir(), "Makefile")
	if err := os.WriteFile(makefile, []byte("run:\n\t@printf '%s\\n' $(ARGS)\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		flags []string
		data  string
		want  []string
	}{
		{"Default", nil, ".data", []string{"-data", ".data-new"}},
		{"KeepsAddr", []string{"-addr", "127.0.0.1:9090", "-data", ".data"}, ".data", []string{"-addr", "127.0.0.1:9090", "-data", ".data-new"}},
		{"TrailingSlash", []string{"-data", "/tmp/x/", "-region", "eu-west-1"}, "/tmp/x/", []string{"-region", "eu-west-1", "-data", "/tmp/x-new"}},
		{"Quoted", []string{"-table-prefix", `a b'c"$HOME` + "`x`\\", "-data", "my data"}, "my data",
			[]string{"-table-prefix", `a b'c"$HOME` + "`x`\\", "-data", "my data-new"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := freshStart(tc.flags, tc.data)
			rest, ok := strings.CutPrefix(cmd, "make run ")
			if !ok {
				t.Fatalf("command %q is not make run", cmd)
			}
			out, err := exec.Command("sh", "-c", "make --no-print-directory -f "+shellWord(makefile)+" run "+rest).CombinedOutput()
			if err != nil {
				t.Fatalf("%s: %v\n%s", cmd, err, out)
			}
			if got := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n"); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("%s gives the server %q, want %q", cmd, got, tc.want)
			}
		})
	}
}

// TestFreshStartIsIgnored: the new data directory the banner suggests for the default .data is
// ignored by the repository's .gitignore, so the next git add does not pick up a database.
func TestFreshStartIsIgnored(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", ".gitignore"))
	if err != nil {
		t.Fatal(err)
	}
	dir := strings.TrimPrefix(freshStart(nil, ".data"), `make run ARGS="-data `)
	dir = strings.TrimSuffix(dir, `"`)
	for _, line := range strings.Split(string(b), "\n") {
		// Only the kind of line that matters here: a root-anchored directory pattern.
		if p, ok := strings.CutPrefix(strings.TrimSpace(line), "/"); ok && strings.HasSuffix(p, "/") {
			if m, _ := path.Match(strings.TrimSuffix(p, "/"), dir); m {
				return
			}
		}
	}
	t.Errorf(".gitignore has no /pattern/ line that ignores the banner's new data directory %q", dir)
}
