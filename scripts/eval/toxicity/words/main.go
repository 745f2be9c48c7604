// Command words shows what single words weigh in the toxicity model: for each language, the 20
// words among the most frequent of its training text (without the social-media lines) that score
// highest when sent alone, with the label the service gives each. A word alone is scored through
// the service, so its score holds everything the model attaches to it: its word and character
// n-grams and the lexicon or group token the preparer adds. Ordinary words high in this table are
// candidates for the lexicon's ordinary list (scripts/train/toxicity/corpus/ordinary.txt) or for
// more ordinary training text.
//
// Usage: go run ./scripts/eval/toxicity/words [-data DIR] [-dir DIR] [-top N] [-vocab N]
package main

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"log"
	"maps"
	"os"
	"slices"
	"strings"
	"unicode"

	"github.com/sluice-api/sluice/internal/services"
	"github.com/sluice-api/sluice/internal/services/toxicity"
	"github.com/sluice-api/sluice/scripts/internal/evalkit"
	"github.com/sluice-api/sluice/scripts/train/toxicity/corpus"
)

func main() {
	data := evalkit.DataFlag()
	dir := flag.String("dir", "", "the candidate in this directory (toxicity.model and lexicon.tsv) instead of the embedded model")
	top := flag.Int("top", 20, "words shown per language")
	vocab := flag.Int("vocab", 3000, "most frequent words per language considered")
	flag.Parse()
	if err := run(*data, *dir, *top, *vocab); err != nil {
		log.Fatal(err)
	}
}

func run(data, dir string, top, vocab int) error {
	var svc *toxicity.Service
	var err error
	if dir == "" {
		svc, err = toxicity.New()
	} else {
		svc, err = toxicity.LoadDir(dir)
	}
	if err != nil {
		return err
	}
	docs, err := corpus.Training(data)
	if err != nil {
		return err
	}
	counts := map[string]map[string]int{}
	for _, d := range docs {
		if d.Source == "social" {
			continue
		}
		if counts[d.Lang] == nil {
			counts[d.Lang] = map[string]int{}
		}
		for _, w := range strings.FieldsFunc(strings.ToLower(d.Text), func(r rune) bool { return !unicode.IsLetter(r) && r != '\'' }) {
			if len([]rune(w)) >= 2 {
				counts[d.Lang][w]++
			}
		}
	}
	ctx := context.Background()
	req := services.Request{Params: services.Params{"threshold": 0.0}}
	for _, lang := range slices.Sorted(maps.Keys(counts)) {
		c := counts[lang]
		words := slices.SortedFunc(maps.Keys(c), func(a, b string) int {
			return cmp.Or(c[b]-c[a], strings.Compare(a, b))
		})
		words = words[:min(vocab, len(words))]
		type scored struct {
			word   string
			p      float64
			labels []string
		}
		var out []scored
		for _, w := range words {
			req.Payload = services.Payload{Type: services.TypeText, Value: w}
			res, err := svc.Run(ctx, req)
			if err != nil {
				return err
			}
			out = append(out, scored{w, res.Score, res.Labels})
		}
		slices.SortStableFunc(out, func(a, b scored) int { return cmp.Compare(b.p, a.p) })
		fmt.Printf("## %s: the %d highest of its %d most frequent training words, each sent alone\n\n", lang, top, len(words))
		rows := [][]string{}
		for i, s := range out[:min(top, len(out))] {
			rows = append(rows, []string{fmt.Sprint(i + 1), s.word, fmt.Sprintf("%.3f", s.p), strings.Join(s.labels, " ")})
		}
		evalkit.Table(os.Stdout, []string{"rank", "word", "score", "labels"}, rows)
		fmt.Println()
	}
	return nil
}
