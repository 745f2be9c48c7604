// Package hygiene checks the module's tests for two habits that make tests flaky or wrong:
// calling t.Fatal (or handing t to a helper that may) from a goroutine the test did not run
// on, and synchronising with time.Sleep.
package hygiene

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// skipped are trees that hold no code of ours.
var skipped = []string{"node_modules/", "cdk.out/", "dist/"}

// root is the module root (two levels above this package).
func root(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", "..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "go.mod")); err != nil {
		t.Fatalf("no go.mod at %s: %v", dir, err)
	}
	return dir
}

// file is one parsed Go file of the module.
type file struct {
	rel  string
	fset *token.FileSet
	ast  *ast.File
}

// files parses every Go file under the module root that keep selects, outside the skipped trees.
func files(t *testing.T, keep func(rel string) bool) []file {
	t.Helper()
	return filesSkipping(t, skipped, keep)
}

// filesSkipping is files with its own list of skipped trees.
func filesSkipping(t *testing.T, skipped []string, keep func(rel string) bool) []file {
	t.Helper()
	base := root(t)
	var out []file
	err := filepath.WalkDir(base, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel := filepath.ToSlash(strings.TrimPrefix(path, base+string(filepath.Separator)))
		if d.IsDir() {
			for _, s := range skipped {
				if rel+"/" == s || strings.HasPrefix(rel+"/", s) {
					return filepath.SkipDir
				}
			}
			if strings.HasPrefix(d.Name(), ".") && path != base {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") || !keep(rel) {
			return nil
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		out = append(out, file{rel: rel, fset: fset, ast: f})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) == 0 {
		t.Fatal("found no files to check")
	}
	return out
}

func isTest(rel string) bool { return strings.HasSuffix(rel, "_test.go") }

// fatal are the testing.T methods that stop the goroutine that calls them.
var fatal = map[string]bool{"Fatal": true, "Fatalf": true, "FailNow": true, "Skip": true, "Skipf": true, "SkipNow": true}

// TestNoFatalInGoroutines: inside a function literal run as a goroutine (a go statement, or
// passed to a Go method such as sync.WaitGroup.Go or errgroup.Group.Go), the test's t may log
// and report errors (t.Error, t.Log, t.Context, ...), but neither stop (t.Fatal, t.FailNow,
// t.Skip) nor be handed to a helper, which may stop it: runtime.Goexit would end the
// goroutine, not the test. Return the error to the test's goroutine instead.
func TestNoFatalInGoroutines(t *testing.T) {
	for _, f := range files(t, isTest) {
		for _, lit := range goroutines(f.ast) {
			ast.Inspect(lit.Body, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				if sel, ok := call.Fun.(*ast.SelectorExpr); ok && isT(sel.X) && fatal[sel.Sel.Name] {
					t.Errorf("%s: t.%s in a goroutine", f.fset.Position(call.Pos()), sel.Sel.Name)
				}
				for _, arg := range call.Args {
					if isT(arg) {
						t.Errorf("%s: t handed to %s in a goroutine; return an error instead", f.fset.Position(call.Pos()), render(call.Fun))
					}
				}
				return true
			})
		}
	}
}

// TestNoSleepInTests: tests and test helpers wait for signals (channels, a server's answer, a
// process's output), never for time to pass.
func TestNoSleepInTests(t *testing.T) {
	keep := func(rel string) bool { return isTest(rel) || strings.HasPrefix(rel, "internal/testutil/") }
	for _, f := range files(t, keep) {
		ast.Inspect(f.ast, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			if sel, ok := call.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "Sleep" {
				if pkg, ok := sel.X.(*ast.Ident); ok && pkg.Name == "time" {
					t.Errorf("%s: time.Sleep; wait for a signal instead", f.fset.Position(call.Pos()))
				}
			}
			return true
		})
	}
}

// goroutines returns the function literals of f that run as goroutines.
func goroutines(f *ast.File) []*ast.FuncLit {
	var out []*ast.FuncLit
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.GoStmt:
			if lit, ok := n.Call.Fun.(*ast.FuncLit); ok {
				out = append(out, lit)
			}
		case *ast.CallExpr:
			if sel, ok := n.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "Go" && len(n.Args) == 1 {
				if lit, ok := n.Args[0].(*ast.FuncLit); ok {
					out = append(out, lit)
				}
			}
		}
		return true
	})
	return out
}

// isT reports whether e is the identifier t (the tests' name for *testing.T).
func isT(e ast.Expr) bool {
	id, ok := e.(*ast.Ident)
	return ok && id.Name == "t"
}

func render(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name
	case *ast.SelectorExpr:
		return render(e.X) + "." + e.Sel.Name
	}
	return "a function"
}

// TestChecksFindTheirTargets keeps the checks honest: each finds what it is meant to find in a
// file written for the purpose.
func TestChecksFindTheirTargets(t *testing.T) {
	src := `package x
func TestX(t *testing.T) {
	go func() { t.Fatal("no") }()
	wg.Go(func() { helper(t) })
	wg.Go(func() { t.Errorf("fine") })
	time.Sleep(time.Second)
}`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "x_test.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	lits := goroutines(f)
	if len(lits) != 3 {
		t.Fatalf("found %d goroutines, want 3", len(lits))
	}
	var fatals, handed int
	for _, lit := range lits {
		ast.Inspect(lit.Body, func(n ast.Node) bool {
			if call, ok := n.(*ast.CallExpr); ok {
				if sel, ok := call.Fun.(*ast.SelectorExpr); ok && isT(sel.X) && fatal[sel.Sel.Name] {
					fatals++
				}
				for _, a := range call.Args {
					if isT(a) {
						handed++
					}
				}
			}
			return true
		})
	}
	if fatals != 1 || handed != 1 {
		t.Fatalf("found %d fatal calls and %d hand-overs, want 1 and 1", fatals, handed)
	}
}

// TestFuzzRunnerFindsEveryTarget: scripts/fuzz.sh (make fuzz) runs every fuzz target of the
// module, the service packages' included.
func TestFuzzRunnerFindsEveryTarget(t *testing.T) {
	var want []string
	for _, f := range filesSkipping(t, []string{"node_modules/", "cdk.out/", "dist/"}, isTest) {
		for _, d := range f.ast.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Recv != nil || !strings.HasPrefix(fn.Name.Name, "Fuzz") || len(fn.Type.Params.List) != 1 {
				continue
			}
			if star, ok := fn.Type.Params.List[0].Type.(*ast.StarExpr); ok && render(star.X) == "testing.F" {
				want = append(want, filepath.Dir(f.rel)+" "+fn.Name.Name)
			}
		}
	}
	slices.Sort(want)
	cmd := exec.Command("bash", filepath.Join(root(t), "scripts", "fuzz.sh"), "-list")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("fuzz.sh -list: %v\n%s", err, stderr.String())
	}
	got := strings.Fields(strings.TrimSpace(string(out)))
	var pairs []string
	for i := 0; i+1 < len(got); i += 2 {
		pairs = append(pairs, got[i]+" "+got[i+1])
	}
	slices.Sort(pairs)
	if !slices.Contains(want, "internal/pipeline FuzzParse") || !slices.Equal(pairs, want) {
		t.Fatalf("fuzz.sh lists %q, the module has %q", pairs, want)
	}
}
