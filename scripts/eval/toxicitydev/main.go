// Command toxicitydev scores the dev tenth of every training source of the toxicity model
// (corpus.InDev) with a model trained without it, for tuning training settings without
// touching the evaluation sets:
//
//	go run ./scripts/train/toxicity -quick -dev -l2 1e-6 -out DIR
//	go run ./scripts/eval/toxicitydev -dir DIR
//
// It prints, per source (per language for our hand-written examples), accuracy at 0.5 and
// mean log-loss.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"maps"
	"math"
	"slices"

	"github.com/sluice-api/sluice/internal/services/toxicity"
	"github.com/sluice-api/sluice/scripts/internal/evalkit"
	"github.com/sluice-api/sluice/scripts/train/toxicity/corpus"
)

func main() {
	data := evalkit.DataFlag()
	dir := flag.String("dir", "", "directory with toxicity.model and lexicon.tsv")
	flag.Parse()
	if err := run(*data, *dir); err != nil {
		log.Fatal(err)
	}
}

// tally is one source's dev examples: how many, how many judged right at 0.5, and the sum of
// their log-losses.
type tally struct {
	n, right int
	loss     float64
}

func (t tally) String() string {
	return fmt.Sprintf("n=%5d acc=%.3f ll=%.3f", t.n, float64(t.right)/float64(t.n), t.loss/float64(t.n))
}

func run(data, dir string) error {
	svc, err := toxicity.LoadDir(dir)
	if err != nil {
		return err
	}
	docs, err := corpus.Training(data)
	if err != nil {
		return err
	}
	ctx := context.Background()
	bySource := map[string]*tally{}
	var all tally
	for _, d := range docs {
		if !corpus.InDev(d) {
			continue
		}
		p, err := svc.Probability(ctx, d.Text)
		if err != nil {
			return err
		}
		key := d.Source
		if d.Source == "own" {
			key = "own-" + d.Lang
		}
		t := bySource[key]
		if t == nil {
			t = &tally{}
			bySource[key] = t
		}
		right := p < 0.5
		if d.Toxic {
			right = !right
		}
		p = math.Min(math.Max(p, 1e-4), 1-1e-4)
		loss := -math.Log(1 - p)
		if d.Toxic {
			loss = -math.Log(p)
		}
		for _, t := range []*tally{t, &all} {
			t.n++
			t.loss += loss
			if right {
				t.right++
			}
		}
	}
	for _, k := range slices.Sorted(maps.Keys(bySource)) {
		fmt.Printf("%-10s %v\n", k, bySource[k])
	}
	fmt.Printf("%-10s %v\n", "ALL", all)
	return nil
}
