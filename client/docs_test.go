package client_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestDocsCopyCompiledExamples keeps the Go code in the documentation equal to the Example
// functions, which compile with the tests. A Go block in README.md or docs/api.md preceded by
//
//	<!-- copied from client/example_test.go: NAME -->
//
// must be NAME's body; or, when the block is a whole program, its main's body must be, and the
// program must build.
func TestDocsCopyCompiledExamples(t *testing.T) {
	root := repoRoot(t)
	bodies := exampleBodies(t)
	want := map[string][]string{"README.md": {"Example"}, "docs/api.md": {"Example", "ExampleError"}}
	for doc, names := range want {
		raw, err := os.ReadFile(filepath.Join(root, doc))
		if err != nil {
			t.Fatal(err)
		}
		blocks := copiedBlocks(string(raw))
		var got []string
		for _, b := range blocks {
			got = append(got, b.name)
			body, ok := bodies[b.name]
			if !ok {
				t.Errorf("%s names %s, which is not a function of example_test.go", doc, b.name)
				continue
			}
			code := b.code
			if strings.HasPrefix(code, "package ") {
				code = mainBody(t, doc, code)
			}
			if code != body {
				t.Errorf("%s: the block copied from %s differs from it; copy it again.\n--- %s:\n%s\n--- example_test.go:\n%s", doc, b.name, doc, code, body)
			}
		}
		for _, n := range names {
			if !slices.Contains(got, n) {
				t.Errorf("%s has no Go block copied from %s (marked <!-- copied from client/example_test.go: %s -->)", doc, n, n)
			}
		}
	}
}

type copied struct{ name, code string }

var marker = regexp.MustCompile("(?m)^<!-- copied from client/example_test.go: (\\w+) -->\n```go\n((?s:.*?))```")

func copiedBlocks(doc string) []copied {
	var out []copied
	for _, m := range marker.FindAllStringSubmatch(doc, -1) {
		out = append(out, copied{m[1], m[2]})
	}
	return out
}

// exampleBodies returns each function of example_test.go by name: its body's lines, one tab of
// indentation removed.
func exampleBodies(t *testing.T) map[string]string {
	t.Helper()
	src, err := os.ReadFile("example_test.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "example_test.go", src, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, d := range f.Decls {
		if fn, ok := d.(*ast.FuncDecl); ok {
			out[fn.Name.Name] = bodyText(src, fset, fn.Body)
		}
	}
	return out
}

// bodyText returns the statements of a function body as written, one tab of indentation less.
func bodyText(src []byte, fset *token.FileSet, body *ast.BlockStmt) string {
	text := string(src[fset.Position(body.Lbrace).Offset+1 : fset.Position(body.Rbrace).Offset])
	text = strings.TrimPrefix(text, "\n")
	var b strings.Builder
	for _, line := range strings.SplitAfter(text, "\n") {
		b.WriteString(strings.TrimPrefix(line, "\t"))
	}
	return b.String()
}

// mainBody returns the body of a whole program's main, after building the program against
// this module, as a reader who copies it would.
func mainBody(t *testing.T, doc, code string) string {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, doc, code, 0)
	if err != nil {
		t.Errorf("%s: the Go program does not parse: %v", doc, err)
		return ""
	}
	self, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	mod := "module doccheck\n\ngo 1.24\n\nrequire github.com/sluice-api/sluice/client v0.0.0\n\nreplace github.com/sluice-api/sluice/client => " + self + "\n"
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte(mod), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(code), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "build", "-o", os.DevNull, ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("%s: the Go program does not build: %v\n%s", doc, err, out)
	}
	for _, d := range f.Decls {
		if fn, ok := d.(*ast.FuncDecl); ok && fn.Name.Name == "main" {
			return bodyText([]byte(code), fset, fn.Body)
		}
	}
	t.Errorf("%s: the Go program has no func main", doc)
	return ""
}
