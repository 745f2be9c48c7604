package main

import (
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/sluice-api/sluice/internal/local"
)

// TestOperatorsFlagTable holds docs/operators.md's table of the local server's flags to the flags
// the server defines: every flag has a row with its default, and every row is a flag. The
// removed -seed-key is refused, and the text below the table says so instead.
func TestOperatorsFlagTable(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "operators.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(b), "## The local server and its flags")
	if !ok {
		t.Fatal(`docs/operators.md has no section "The local server and its flags"`)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	row := regexp.MustCompile("(?m)^\\| `-([a-z-]+)[^`]*` \\| ([^|]+) \\|")
	documented := map[string]string{}
	for _, m := range row.FindAllStringSubmatch(section, -1) {
		documented[m[1]] = strings.Trim(strings.TrimSpace(m[2]), "`")
	}
	if len(documented) == 0 {
		t.Fatal("docs/operators.md's flag table has no rows")
	}

	fs := flag.NewFlagSet("sluice-local", flag.ContinueOnError)
	var cfg local.Config
	defineFlags(fs, &cfg)
	fs.VisitAll(func(f *flag.Flag) {
		if f.Name == "seed-key" {
			return
		}
		def, ok := documented[f.Name]
		delete(documented, f.Name)
		want := f.DefValue
		if want == "" {
			want = "none"
		}
		switch {
		case !ok:
			t.Errorf("docs/operators.md's flag table lacks -%s (default %q: %s)", f.Name, want, f.Usage)
		case def != want:
			t.Errorf("docs/operators.md says -%s defaults to %q; the server's default is %q", f.Name, def, want)
		}
	})
	for name := range documented {
		t.Errorf("docs/operators.md's flag table lists -%s, which the server does not define", name)
	}
}
