package devset

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sluice-api/sluice/scripts/internal/evalkit"
)

// writeData writes files (base name to content) under a temporary data directory's Dir.
func writeData(t *testing.T, files map[string]string) string {
	t.Helper()
	data := t.TempDir()
	dir := filepath.Join(data, Dir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return data
}

func TestLines(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     []string
	}{
		{"Empty", "", nil},
		{"FinalNewline", "a\nb\n", []string{"a", "b"}},
		{"NoFinalNewline", "a\nb", []string{"a", "b"}},
		{"BlankLinesKept", "a\n\n  \nb\n", []string{"a", "", "  ", "b"}},
		{"CarriageReturnKept", "a\r\n", []string{"a\r"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, l := range Lines([]byte(tc.in)) {
				got = append(got, string(l))
			}
			if !slices.Equal(got, tc.want) {
				t.Fatalf("Lines(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestSplitOf(t *testing.T) {
	for _, tc := range []struct {
		name, sum, want string
	}{
		{"Zero", strings.Repeat("0", 64), Holdout},                            // 0 % 3 == 0
		{"One", strings.Repeat("0", 15) + "1" + strings.Repeat("0", 48), Dev}, // 1
		{"Three", strings.Repeat("0", 15) + "3" + strings.Repeat("f", 48), Holdout},
		{"OnlyFirstEightBytesCount", strings.Repeat("0", 16) + strings.Repeat("f", 48), Holdout},
		{"Short", "abc", ""},
		{"NotHex", strings.Repeat("g", 64), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := SplitOf(tc.sum); got != tc.want {
				t.Fatalf("SplitOf(%s) = %q, want %q", tc.sum, got, tc.want)
			}
		})
	}
	// About a third of real hashes are holdout.
	n := 0
	for i := range 3000 {
		if SplitOf(Hash(fmt.Appendf(nil, "line %d", i))) == Holdout {
			n++
		}
	}
	if n < 900 || n > 1100 {
		t.Fatalf("%d of 3000 hashes are holdout, want about 1000", n)
	}
}

func TestDrawSkipsBlankAndDuplicateLines(t *testing.T) {
	seen := map[string]bool{}
	first := draw("a.txt", []byte("x\n  \nshared\n\ny\nx\n"), 10, seen)
	second := draw("b.txt", []byte(" shared \nz\n"), 10, seen)
	lines := func(rs []Ref) []int {
		var out []int
		for _, r := range rs {
			out = append(out, r.Line)
		}
		return out
	}
	if got := lines(first); !slices.Equal(got, []int{1, 3, 5}) {
		t.Errorf("first file drew lines %v, want [1 3 5] (no blank line, no repeat of x)", got)
	}
	if got := lines(second); !slices.Equal(got, []int{2}) {
		t.Errorf("second file drew lines %v, want [2] (its line 1 repeats the first file's, trimmed)", got)
	}
	for _, r := range append(first, second...) {
		if r.SHA256 == "" || r.Split != SplitOf(r.SHA256) {
			t.Errorf("%s:%d: sha %q split %q", r.File, r.Line, r.SHA256, r.Split)
		}
	}
}

func TestDrawIsReproducibleAndRanked(t *testing.T) {
	var b strings.Builder
	for i := range 200 {
		fmt.Fprintf(&b, "text number %d\n", i)
	}
	a := draw("f.txt", []byte(b.String()), 20, map[string]bool{})
	again := draw("f.txt", []byte(b.String()), 20, map[string]bool{})
	if !slices.Equal(a, again) {
		t.Fatal("two draws of the same content differ")
	}
	if len(a) != 20 {
		t.Fatalf("drew %d lines, want 20", len(a))
	}
	ranks := make([]int, 0, len(a))
	for i, r := range a {
		if i > 0 && r.Line <= a[i-1].Line {
			t.Fatalf("refs not in line order at %d", i)
		}
		ranks = append(ranks, r.Rank)
	}
	slices.Sort(ranks)
	for i, r := range ranks {
		if r != i {
			t.Fatalf("ranks %v, want 0..19 once each", ranks)
		}
	}
	// A larger draw starts with the smaller one: ranks are a prefix order.
	bigger := draw("f.txt", []byte(b.String()), 40, map[string]bool{})
	for _, r := range a {
		if !slices.ContainsFunc(bigger, func(x Ref) bool { return x == r }) {
			t.Fatalf("line %d of the 20-line draw is not in the 40-line draw with the same rank", r.Line)
		}
	}
	// Another file name draws other lines.
	other := draw("g.txt", []byte(b.String()), 20, map[string]bool{})
	same := 0
	for _, r := range other {
		if slices.ContainsFunc(a, func(x Ref) bool { return x.Line == r.Line }) {
			same++
		}
	}
	if same == 20 {
		t.Fatal("the file name does not enter the draw")
	}
}

func TestSampleNeedsEnoughLines(t *testing.T) {
	files := map[string]string{}
	for _, s := range Sources {
		files[s.Name] = "only\none\n"
	}
	if _, err := Sample(writeData(t, files)); err == nil {
		t.Fatal("Sample drew from files with too few lines")
	}
	if _, err := Sample(t.TempDir()); err == nil {
		t.Fatal("Sample read files that do not exist")
	}
}

// fakeData writes Sources with enough distinct lines for a full sample, some of them
// duplicated and blank, and returns the data directory.
func fakeData(t *testing.T) string {
	t.Helper()
	files := map[string]string{}
	for i, s := range Sources {
		var b strings.Builder
		for j := range s.PerFile * 2 {
			fmt.Fprintf(&b, "file %d line %d\n", i, j)
			if j%7 == 0 {
				b.WriteString("\n  a repeated line  \n")
			}
		}
		files[s.Name] = b.String()
	}
	return writeData(t, files)
}

func TestExcluder(t *testing.T) {
	data := fakeData(t)
	refs, err := Sample(data)
	if err != nil {
		t.Fatal(err)
	}
	e, err := NewExcluder(data)
	if err != nil {
		t.Fatal(err)
	}
	want := 0
	for _, s := range Sources {
		want += s.PerFile
	}
	if e.Len() != want || len(refs) != want {
		t.Fatalf("excluder holds %d lines, sample %d, want %d", e.Len(), len(refs), want)
	}
	for _, s := range Sources {
		b, err := os.ReadFile(filepath.Join(data, Dir, s.Name))
		if err != nil {
			t.Fatal(err)
		}
		for i, l := range Lines(b) {
			in := slices.ContainsFunc(refs, func(r Ref) bool { return r.File == s.Name && r.Line == i+1 })
			if got := e.Sampled(filepath.Join("any", "dir", s.Name), i+1); got != in {
				t.Fatalf("Sampled(%s, %d) = %v, want %v", s.Name, i+1, got, in)
			}
			if in && !e.Excludes("  "+string(l)+"\t") {
				t.Fatalf("Excludes misses sampled line %s:%d once padded with spaces", s.Name, i+1)
			}
		}
	}
	if e.Excludes("a text that is in no file") {
		t.Fatal("Excludes a text that is in no file")
	}
	if e.Sampled("other.txt", 1) {
		t.Fatal("Sampled a file that is not a source")
	}
}

// TestRealSample checks the draw on the shared data: its size and split shares, and that every
// labelled row is a sampled line with the same hash and split. Skipped without the data.
func TestRealSample(t *testing.T) {
	data := evalkit.DefaultDataDir()
	if _, err := os.Stat(filepath.Join(data, Dir)); err != nil {
		t.Skipf("social-media data not found under %s", data)
	}
	refs, err := Sample(data)
	if err != nil {
		t.Fatal(err)
	}
	holdout := 0
	byKey := map[lineKey]Ref{}
	for _, r := range refs {
		byKey[lineKey{r.File, r.Line}] = r
		if r.Split == Holdout {
			holdout++
		}
	}
	if len(byKey) != 1800 {
		t.Fatalf("sample holds %d distinct lines, want 1800", len(byKey))
	}
	if holdout < 500 || holdout > 700 {
		t.Fatalf("%d holdout lines of 1800, want about 600", holdout)
	}
	labels, err := Labels()
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range labels {
		r, ok := byKey[lineKey{l.File, l.Line}]
		if !ok {
			t.Fatalf("%s line %d is labelled but not in the sample", l.File, l.Line)
		}
		if r.SHA256 != l.SHA256 || r.Split != l.Split {
			t.Fatalf("%s line %d: label has %s/%s, sample %s/%s", l.File, l.Line, l.SHA256, l.Split, r.SHA256, r.Split)
		}
	}
}
