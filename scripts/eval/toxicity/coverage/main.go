// Command coverage counts how often the toxicity preparer reads reported speech as an implicit
// quote (see internal/services/toxicity/implicit.go) on the functional test suites, per
// functionality and language, in each mode: the share of cases whose prepared text gains a
// quote token. It reads no verdicts and prints no case, so it can be run on the evaluation
// suites to see where the construct lists fire before any training. With -own it counts on
// our hand-written training examples instead, per kind (toxic ones marked "+"), so the lists can
// be widened and measured on our own phrasing, not tuned on the suites:
//
//	go run ./scripts/eval/toxicity/coverage [-data DIR] [-lexicon FILE] [-own]
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/sluice-api/sluice/internal/services/toxicity"
	"github.com/sluice-api/sluice/scripts/internal/evalkit"
	"github.com/sluice-api/sluice/scripts/train/toxicity/corpus"
)

func main() {
	data := evalkit.DataFlag()
	lexicon := flag.String("lexicon", "internal/services/toxicity/lexicon.tsv", "lexicon file (run from the repository root)")
	own := flag.Bool("own", false, "count on our hand-written training examples instead of the test suites")
	flag.Parse()
	if err := run(*data, *lexicon, *own); err != nil {
		log.Fatal(err)
	}
}

// ownLanguages are the languages of the hand-written examples, in the order of the suites.
var ownLanguages = []string{"en", "de", "fr", "es", "it", "nl", "pt"}

var modes = []toxicity.ImplicitMode{toxicity.ImplicitAll, toxicity.ImplicitCondemned}

func run(data, lexicon string, own bool) error {
	lex, err := os.ReadFile(lexicon)
	if err != nil {
		return err
	}
	base, err := toxicity.NewPreparer(toxicity.GroupsFile, toxicity.PolarityFile, string(lex))
	if err != nil {
		return err
	}
	preps := make([]*toxicity.Preparer, len(modes))
	for i, m := range modes {
		if preps[i], err = base.WithImplicitQuotes(m, toxicity.ReportingFile); err != nil {
			return err
		}
	}
	sets := []struct {
		lang string
		load func() ([]corpus.Example, error)
	}{{"en", func() ([]corpus.Example, error) { return corpus.HateCheck(data) }}}
	for _, l := range corpus.MHCLanguages {
		sets = append(sets, struct {
			lang string
			load func() ([]corpus.Example, error)
		}{l.Code, func() ([]corpus.Example, error) { return corpus.MHC(data, l.Code) }})
	}
	if own {
		all, err := corpus.Own()
		if err != nil {
			return err
		}
		sets = sets[:0]
		for _, l := range ownLanguages {
			var ex []corpus.Example
			for _, e := range all {
				if e.Lang == l {
					if e.Toxic {
						e.Group += " +"
					}
					ex = append(ex, e)
				}
			}
			sets = append(sets, struct {
				lang string
				load func() ([]corpus.Example, error)
			}{l, func() ([]corpus.Example, error) { return ex, nil }})
		}
	}
	ctx := context.Background()
	// Every passage scores 0: only whether a quote token appears matters here.
	score := func(context.Context, string) (float64, error) { return 0, nil }
	type tally struct{ n, fired [2]int }
	share := map[string]map[string]*tally{} // functionality -> lang -> tally
	var langs []string
	for _, set := range sets {
		ex, err := set.load()
		if err != nil {
			return err
		}
		langs = append(langs, set.lang)
		for _, e := range ex {
			plain, err := base.Prepare(ctx, e.Text, score)
			if err != nil {
				return err
			}
			if share[e.Group] == nil {
				share[e.Group] = map[string]*tally{}
			}
			t := share[e.Group][set.lang]
			if t == nil {
				t = &tally{}
				share[e.Group][set.lang] = t
			}
			for i, p := range preps {
				q, err := p.Prepare(ctx, e.Text, score)
				if err != nil {
					return err
				}
				t.n[i]++
				if strings.Count(q, toxicity.TokenQuote) > strings.Count(plain, toxicity.TokenQuote) {
					t.fired[i]++
				}
			}
		}
	}
	for i, m := range modes {
		fmt.Printf("## Share of cases with an implicit quote, mode %s\n\n", m)
		fmt.Printf("| functionality | %s |\n| --- |%s\n", strings.Join(langs, " | "), strings.Repeat(" ---: |", len(langs)))
		for _, g := range slices.Sorted(maps.Keys(share)) {
			row := []string{}
			for _, l := range langs {
				t := share[g][l]
				if t == nil || t.n[i] == 0 {
					row = append(row, "-")
					continue
				}
				row = append(row, fmt.Sprintf("%.2f", float64(t.fired[i])/float64(t.n[i])))
			}
			fmt.Printf("| %s | %s |\n", g, strings.Join(row, " | "))
		}
		fmt.Println()
	}
	return nil
}
