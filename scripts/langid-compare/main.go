// Command langid-compare evaluates Sluice's routing.language.detect side by side with
// lingua-go (low- and high-accuracy mode) and whatlanggo on the lingua test data
// (langid/lingua-testdata: sentences, word pairs and single words in 75 languages). In one run
// it prints accuracy per category and per language for every detector, and for each the mean
// time per detection, the heap held after loading, the load time and the peak resident memory.
//
// It is a module of its own so that lingua-go (whose embedded models add about 125 MB to any
// binary that imports it) and whatlanggo never reach the service binaries. Run it from this
// directory:
//
//	go run . [-data DIR] [-detectors sluice,lingua-low,lingua-high,whatlanggo]
//
// Each detector runs in a fresh child process (this program started again with -child), so
// its load time and heap are measured from a cold start and do not share memory with the
// others. Detection is sequential, one text at a time; Sluice is called through its service
// Run method with the default params, as a client's step would be.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/sluice-api/sluice/scripts/internal/evalkit"
)

// kinds are the categories of the lingua test data, each a folder of <iso639-1>.txt files.
var kinds = []string{"sentences", "word-pairs", "single-words"}

// allDetectors lists the detectors in the order their columns are printed.
var allDetectors = []string{"sluice", "lingua-low", "lingua-high", "whatlanggo"}

// tally counts answers: n texts, ok right, und undetermined.
type tally struct {
	N   int `json:"n"`
	OK  int `json:"ok"`
	Und int `json:"und"`
}

func (t tally) acc() float64 {
	if t.N == 0 {
		return 0
	}
	return float64(t.OK) / float64(t.N)
}

// report is what one child process measured for one detector.
type report struct {
	Detector  string                      `json:"detector"`
	LoadNS    int64                       `json:"load_ns"`
	HeapBytes int64                       `json:"heap_bytes"`
	Kinds     map[string]tally            `json:"kinds"`
	KindNS    map[string]int64            `json:"kind_ns"`
	Langs     map[string]map[string]tally `json:"langs"`
	MaxRSS    int64                       `json:"max_rss"` // filled in by the parent
}

func main() {
	log.SetFlags(0)
	data := flag.String("data", defaultDataDir(), "directory of the public data sets (holds langid/lingua-testdata)")
	only := flag.String("detectors", strings.Join(allDetectors, ","), "comma-separated detectors to compare: "+strings.Join(allDetectors, ", "))
	child := flag.String("child", "", "internal: measure one detector and print its report as JSON")
	flag.Parse()
	dir, err := evalkit.Require(*data, "langid", "lingua-testdata")
	if err != nil {
		log.Fatal(err)
	}
	if *child != "" {
		if err := runChild(*child, dir, os.Stdout); err != nil {
			log.Fatalf("%s: %v", *child, err)
		}
		return
	}
	var names []string
	for _, n := range strings.Split(*only, ",") {
		n = strings.TrimSpace(n)
		if !slices.Contains(allDetectors, n) {
			log.Fatalf("unknown detector %q (want some of %s)", n, strings.Join(allDetectors, ", "))
		}
		names = append(names, n)
	}
	var reports []report
	for _, n := range names {
		log.Printf("measuring %s ...", n)
		r, err := runParent(n, *data)
		if err != nil {
			log.Fatalf("%s: %v", n, err)
		}
		reports = append(reports, r)
	}
	print(os.Stdout, reports)
}

// defaultDataDir is the data sets directory beside the Sluice repository: it walks up from the working
// directory to the go.mod of module github.com/sluice-api/sluice (this command's own go.mod is a
// nested module, so evalkit's default would stop one level too early).
func defaultDataDir() string {
	dir, err := os.Getwd()
	if err != nil {
		return evalkit.DefaultDataDir()
	}
	for {
		b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && bytes.HasPrefix(b, []byte("module github.com/sluice-api/sluice\n")) {
			return filepath.Join(filepath.Dir(dir), "shared", "data")
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return evalkit.DefaultDataDir()
		}
		dir = parent
	}
}

// runParent starts this program again to measure one detector and reads its report.
func runParent(name, data string) (report, error) {
	exe, err := os.Executable()
	if err != nil {
		return report{}, fmt.Errorf("find executable: %w", err)
	}
	cmd := exec.Command(exe, "-child", name, "-data", data)
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		return report{}, fmt.Errorf("child: %w", err)
	}
	var r report
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		return report{}, fmt.Errorf("child report: %w", err)
	}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		r.MaxRSS = ru.Maxrss * 1024 // kilobytes on Linux
	}
	return r, nil
}

// texts holds the test data: kind -> language -> lines.
type texts map[string]map[string][]string

func readTexts(dir string) (texts, []string, error) {
	t := texts{}
	var langs []string
	for _, k := range kinds {
		t[k] = map[string][]string{}
		files, err := filepath.Glob(filepath.Join(dir, k, "*.txt"))
		if err != nil {
			return nil, nil, err
		}
		if len(files) == 0 {
			return nil, nil, fmt.Errorf("no test files in %s", filepath.Join(dir, k))
		}
		for _, f := range files {
			lang := strings.TrimSuffix(filepath.Base(f), ".txt")
			lines, err := evalkit.ReadLines(f)
			if err != nil {
				return nil, nil, err
			}
			t[k][lang] = lines
			if !slices.Contains(langs, lang) {
				langs = append(langs, lang)
			}
		}
	}
	slices.Sort(langs)
	return t, langs, nil
}

// runChild loads one detector, measures load time and heap, then detects every text.
func runChild(name, dir string, w io.Writer) error {
	t, langs, err := readTexts(dir)
	if err != nil {
		return err
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	start := time.Now()
	detect, err := load(name)
	if err != nil {
		return err
	}
	loadNS := time.Since(start).Nanoseconds()
	runtime.GC()
	runtime.ReadMemStats(&after)
	r := report{
		Detector: name, LoadNS: loadNS, HeapBytes: int64(after.HeapAlloc) - int64(before.HeapAlloc),
		Kinds: map[string]tally{}, KindNS: map[string]int64{}, Langs: map[string]map[string]tally{},
	}
	for _, l := range langs {
		r.Langs[l] = map[string]tally{}
	}
	for _, k := range kinds {
		var kt tally
		var ns int64
		for _, lang := range langs {
			lt := tally{}
			lines := t[k][lang]
			start := time.Now()
			for _, line := range lines {
				got, err := detect(line)
				if err != nil {
					return err
				}
				lt.N++
				switch got {
				case lang:
					lt.OK++
				case "und":
					lt.Und++
				}
			}
			ns += time.Since(start).Nanoseconds()
			r.Langs[lang][k] = lt
			kt.N += lt.N
			kt.OK += lt.OK
			kt.Und += lt.Und
		}
		r.Kinds[k] = kt
		r.KindNS[k] = ns
	}
	runtime.KeepAlive(detect)
	return json.NewEncoder(w).Encode(r)
}

func print(w io.Writer, rs []report) {
	fmt.Fprintf(w, "## Accuracy on lingua test data (an `und` answer counts as wrong)\n\n")
	header := append([]string{"detector"}, kinds...)
	header = append(header, "mean", "µs per detection", "heap after load", "load time", "peak RSS")
	var rows [][]string
	for _, r := range rs {
		row := []string{r.Detector}
		var sum float64
		var n int
		var ns int64
		for _, k := range kinds {
			row = append(row, evalkit.Pct(r.Kinds[k].acc()))
			sum += r.Kinds[k].acc()
			n += r.Kinds[k].N
			ns += r.KindNS[k]
		}
		row = append(row, evalkit.Pct(sum/float64(len(kinds))),
			fmt.Sprintf("%.1f", float64(ns)/float64(max(n, 1))/1e3),
			mb(r.HeapBytes), fmt.Sprintf("%.0f ms", float64(r.LoadNS)/1e6), mb(r.MaxRSS))
		rows = append(rows, row)
	}
	evalkit.Table(w, header, rows)

	fmt.Fprintf(w, "\n## Time per detection by category (µs, sequential)\n\n")
	header = []string{"detector"}
	header = append(header, kinds...)
	rows = nil
	for _, r := range rs {
		row := []string{r.Detector}
		for _, k := range kinds {
			row = append(row, fmt.Sprintf("%.1f", float64(r.KindNS[k])/float64(max(r.Kinds[k].N, 1))/1e3))
		}
		rows = append(rows, row)
	}
	evalkit.Table(w, header, rows)

	fmt.Fprintf(w, "\n## Undetermined answers (`und`) by category\n\n")
	rows = nil
	for _, r := range rs {
		row := []string{r.Detector}
		for _, k := range kinds {
			row = append(row, evalkit.Pct(float64(r.Kinds[k].Und)/float64(max(r.Kinds[k].N, 1))))
		}
		rows = append(rows, row)
	}
	evalkit.Table(w, header, rows)

	fmt.Fprintf(w, "\n## Accuracy per language (sentences / word pairs / single words)\n\n")
	header = []string{"language"}
	for _, r := range rs {
		header = append(header, r.Detector)
	}
	rows = nil
	if len(rs) > 0 {
		var langs []string
		for l := range rs[0].Langs {
			langs = append(langs, l)
		}
		slices.Sort(langs)
		for _, l := range langs {
			row := []string{l}
			for _, r := range rs {
				var parts []string
				for _, k := range kinds {
					parts = append(parts, fmt.Sprintf("%.1f", 100*r.Langs[l][k].acc()))
				}
				row = append(row, strings.Join(parts, " / "))
			}
			rows = append(rows, row)
		}
	}
	evalkit.Table(w, header, rows)
}

func mb(b int64) string { return fmt.Sprintf("%.1f MB", float64(b)/(1<<20)) }
