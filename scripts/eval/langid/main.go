// Command langid evaluates routing.language.detect on the lingua test data
// (langid/lingua-testdata: sentences, word-pairs, single-words) and prints a markdown table of
// accuracy per input kind, overall and per language, for the languages both the data and the
// detector cover. An "und" answer counts as wrong.
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/sluice-api/sluice/internal/services"
	"github.com/sluice-api/sluice/internal/services/langid"
)

var kinds = []string{"sentences", "word-pairs", "single-words"}

type tally struct{ n, ok, und int }

func (t tally) acc() string {
	if t.n == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f%%", 100*float64(t.ok)/float64(t.n))
}

func main() {
	data := flag.String("data", "../shared/data", "path to the shared data directory")
	flag.Parse()
	if err := run(*data); err != nil {
		log.Fatal(err)
	}
}

func run(data string) error {
	svc, err := langid.New()
	if err != nil {
		return fmt.Errorf("new service: %w", err)
	}
	dir := filepath.Join(data, "langid", "lingua-testdata")
	per := map[string]map[string]*tally{} // lang -> kind -> tally
	overall := map[string]*tally{}
	for _, k := range kinds {
		overall[k] = &tally{}
	}
	for _, code := range langid.Codes() {
		for _, k := range kinds {
			lines, err := readLines(filepath.Join(dir, k, code+".txt"))
			if os.IsNotExist(err) {
				continue
			}
			if err != nil {
				return err
			}
			if per[code] == nil {
				per[code] = map[string]*tally{}
			}
			t := &tally{}
			per[code][k] = t
			for _, line := range lines {
				res, err := svc.Run(context.Background(), services.Request{
					Payload: services.Payload{Type: services.TypeText, Value: line},
					Params:  services.Params{"candidates": []string{}},
				})
				if err != nil {
					return fmt.Errorf("run %s/%s: %w", k, code, err)
				}
				got := res.Data.(langid.Detection).Language
				t.n++
				overall[k].n++
				switch got {
				case code:
					t.ok++
					overall[k].ok++
				case "und":
					t.und++
					overall[k].und++
				}
			}
		}
	}
	langs := make([]string, 0, len(per))
	for c := range per {
		langs = append(langs, c)
	}
	sort.Strings(langs)

	fmt.Printf("Languages evaluated (in data and detector): %d (%s)\n\n", len(langs), strings.Join(langs, " "))
	fmt.Println("| input kind | lines | accuracy | und rate |")
	fmt.Println("| --- | ---: | ---: | ---: |")
	for _, k := range kinds {
		t := overall[k]
		fmt.Printf("| %s | %d | %s | %.1f%% |\n", k, t.n, t.acc(), 100*float64(t.und)/float64(max(t.n, 1)))
	}
	fmt.Println()
	fmt.Println("| language | sentences | word-pairs | single-words |")
	fmt.Println("| --- | ---: | ---: | ---: |")
	for _, c := range langs {
		row := []string{c}
		for _, k := range kinds {
			t := tally{}
			if p := per[c][k]; p != nil {
				t = *p
			}
			row = append(row, t.acc())
		}
		fmt.Printf("| %s |\n", strings.Join(row, " | "))
	}
	return nil
}

func readLines(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		if l := strings.TrimSpace(sc.Text()); l != "" {
			out = append(out, l)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return out, nil
}
