package main

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/sluice-api/sluice/internal/services"
	"github.com/sluice-api/sluice/internal/services/builtin"
)

func root(parts ...string) string { return filepath.Join(append([]string{"..", ".."}, parts...)...) }

// TestServicesDocUpToDate fails when docs/services.md differs from what the descriptors say.
func TestServicesDocUpToDate(t *testing.T) {
	reg, err := builtin.New()
	if err != nil {
		t.Fatal(err)
	}
	old, err := os.ReadFile(root(Target))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(old, Render(reg)) {
		t.Fatalf("%s is out of date: run go run ./scripts/docgen", Target)
	}
}

func TestBounds(t *testing.T) {
	one, two, lo, hi := 1, 200, 0.0, 1.0
	for _, tc := range []struct {
		p    services.Param
		want string
	}{
		{services.Param{Type: services.ParamString, MinLength: &one}, "at least 1 character"},
		{services.Param{Type: services.ParamString, MaxLength: &two}, "at most 200 characters"},
		{services.Param{Type: services.ParamArray, MaxLength: &one}, "at most 1 item"},
		{services.Param{Type: services.ParamArray, MaxLength: &two, ItemMinLength: &one, ItemMaxLength: &two},
			"at most 200 items; each item 1 to 200 characters"},
		{services.Param{Type: services.ParamArray, ItemMaxLength: &one}, "each item at most 1 character"},
		{services.Param{Type: services.ParamNumber, Minimum: &lo, Maximum: &hi}, "0 to 1"},
		{services.Param{Type: services.ParamString, Allowed: []string{"a"}, MaxLength: &two}, "one of `a`; at most 200 characters"},
		{services.Param{Type: services.ParamString, Allowed: []string{"a", "b"}}, "one of `a`, `b`"},
		{services.Param{Type: services.ParamString}, "any"},
	} {
		if got := bounds(tc.p); got != tc.want {
			t.Errorf("bounds(%+v) = %q, want %q", tc.p, got, tc.want)
		}
	}
}

// TestNoPluralAfterOne: the catalog never writes "1 characters" or the like.
func TestNoPluralAfterOne(t *testing.T) {
	reg, err := builtin.New()
	if err != nil {
		t.Fatal(err)
	}
	if m := regexp.MustCompile(`(?:^|[^\d,.])1 (characters|items|languages|words|bytes|intents)\b`).Find(Render(reg)); m != nil {
		t.Errorf("%s says %q", Target, m)
	}
}

// TestDescriptionsStartWithCapitals: every sentence of every service's and parameter's
// description starts with a capital letter (or a digit or symbol), and no sentence or clause
// starts with the bare name of a result field ("intent is null ...", "; changes is ...").
func TestDescriptionsStartWithCapitals(t *testing.T) {
	reg, err := builtin.New()
	if err != nil {
		t.Fatal(err)
	}
	lower := regexp.MustCompile(`(?:^|[^.][.!?] +)(\p{Ll}\S*)`) // "... x" is no sentence end
	for _, name := range reg.Names() {
		_, d, _ := reg.Lookup(name)
		fields := []string{"changes", "map", "verdict", "score", "labels"}
		fields = append(fields, schemaFields(t, d.OutputSchema)...)
		clause := regexp.MustCompile(`(?:^|[.!?;:] +)(` + strings.Join(fields, "|") + `)\b`)
		texts := map[string]string{name: d.Description}
		for p, spec := range d.Params {
			texts[name+" param "+p] = spec.Description
		}
		for what, text := range texts {
			for _, m := range lower.FindAllStringSubmatchIndex(text, -1) {
				if before := text[:m[2]]; !strings.HasSuffix(before, "e.g. ") && !strings.HasSuffix(before, "i.e. ") {
					t.Errorf("%s: a sentence starts in lower case: %q", what, text[m[0]:m[3]])
				}
			}
			for _, m := range clause.FindAllString(text, -1) {
				t.Errorf("%s: a clause starts with a field name: %q", what, m)
			}
		}
	}
}

// schemaFields lists the property names of a JSON schema, nested ones included.
func schemaFields(t *testing.T, schema []byte) []string {
	t.Helper()
	if len(schema) == 0 {
		return nil
	}
	var names []string
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			if props, ok := v["properties"].(map[string]any); ok {
				for name := range props {
					names = append(names, regexp.QuoteMeta(name))
				}
			}
			for _, child := range v {
				walk(child)
			}
		case []any:
			for _, child := range v {
				walk(child)
			}
		}
	}
	var doc any
	if err := json.Unmarshal(schema, &doc); err != nil {
		t.Fatal(err)
	}
	walk(doc)
	return names
}

// TestReadmeAgreesWithRegistry checks the README's service list against the registry: every
// service named once with its kind, and every language count it states equal to the descriptor's.
func TestReadmeAgreesWithRegistry(t *testing.T) {
	reg, err := builtin.New()
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile(root("README.md"))
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile("(?m)^\\| `([a-z]+\\.[a-z.]+)` \\| ([a-z]+) \\| (.*) \\|$")
	seen := map[string]bool{}
	for _, m := range row.FindAllStringSubmatch(string(readme), -1) {
		name, kind, rest := m[1], m[2], m[3]
		_, d, ok := reg.Lookup(name)
		if !ok {
			t.Errorf("README lists %s, which the registry does not have", name)
			continue
		}
		if seen[name] {
			t.Errorf("README lists %s twice", name)
		}
		seen[name] = true
		if kind != d.Kind {
			t.Errorf("README says %s is %s; the descriptor says %s", name, kind, d.Kind)
		}
		for _, n := range regexp.MustCompile(`(\d+) languages`).FindAllStringSubmatch(rest, -1) {
			if got, _ := strconv.Atoi(n[1]); got != len(d.Languages) {
				t.Errorf("README says %s covers %d languages; the descriptor lists %d", name, got, len(d.Languages))
			}
		}
	}
	for _, name := range reg.Names() {
		if !seen[name] {
			t.Errorf("README's service list misses %s", name)
		}
	}
}

// TestReadmeNamesToxicityCategories: the README's row of the toxicity flag names the kinds of
// toxicity its descriptor lists ("Flags toxic text (insults, threats, ...)") in the same words.
func TestReadmeNamesToxicityCategories(t *testing.T) {
	reg, err := builtin.New()
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile(root("README.md"))
	if err != nil {
		t.Fatal(err)
	}
	const name = "security.toxicity.flag"
	_, d, _ := reg.Lookup(name)
	kinds := regexp.MustCompile(`^Flags toxic text \(([^)]+)\)`).FindStringSubmatch(d.Description)
	if kinds == nil {
		t.Fatalf("the descriptor of %s no longer lists its kinds first: %q", name, d.Description)
	}
	row := regexp.MustCompile("(?m)^\\| `" + regexp.QuoteMeta(name) + "` \\|.*$").FindString(string(readme))
	if row == "" {
		t.Fatalf("README has no row for %s", name)
	}
	for _, kind := range strings.Split(kinds[1], ", ") {
		if !strings.Contains(row, kind) {
			t.Errorf("README's row of %s does not name %q, which the descriptor lists:\n%s", name, kind, row)
		}
	}
}

// TestReadmeSaysWhatNeedsTheKey: where the README names GET /v1/openapi.json, it says that
// the route needs an API key (every /v1 route does).
func TestReadmeSaysWhatNeedsTheKey(t *testing.T) {
	readme, err := os.ReadFile(root("README.md"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, line := range strings.Split(string(readme), "\n") {
		if strings.Contains(line, "GET /v1/openapi.json") {
			n++
			if !strings.Contains(line, "API key") {
				t.Errorf("README names GET /v1/openapi.json without saying that it needs an API key:\n%s", line)
			}
		}
	}
	if n == 0 {
		t.Error("README does not name GET /v1/openapi.json")
	}
}

// TestNoDocSendsReadersOutside keeps the project's documents and comments self-contained:
// nothing points to the team's design inputs outside the repository.
func TestNoDocSendsReadersOutside(t *testing.T) {
	var files []string
	err := filepath.WalkDir(root(), func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || d.Name() == "cdk.out" || strings.HasPrefix(d.Name(), ".")) && path != root() {
			return filepath.SkipDir
		}
		if !d.IsDir() && (strings.HasSuffix(path, ".md") || strings.HasSuffix(path, ".go") && filepath.Base(path) != "docgen_test.go") {
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 10 {
		t.Fatalf("found only %v", files)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, bad := range []string{"../shared", "DESIGN.md", "spec/interface.md"} {
			if strings.Contains(string(b), bad) {
				t.Errorf("%s mentions %s; the project's docs must say what users need themselves", f, bad)
			}
		}
	}
}
