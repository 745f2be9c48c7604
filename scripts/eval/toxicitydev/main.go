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
	"math"
	"os"
	"path/filepath"
	"sort"

	"github.com/sluice-api/sluice/internal/services/textclass"
	"github.com/sluice-api/sluice/internal/services/toxicity"
	"github.com/sluice-api/sluice/scripts/internal/evalkit"
	"github.com/sluice-api/sluice/scripts/train/toxicity/corpus"
)

func main() {
	data := evalkit.DataFlag()
	dir := flag.String("dir", "", "directory with toxicity.model and lexicon.tsv")
	flag.Parse()
	raw, err := os.ReadFile(filepath.Join(*dir, "toxicity.model"))
	if err != nil {
		log.Fatal(err)
	}
	m, err := textclass.Decode(raw)
	if err != nil {
		log.Fatal(err)
	}
	lex, err := os.ReadFile(filepath.Join(*dir, "lexicon.tsv"))
	if err != nil {
		log.Fatal(err)
	}
	prep, err := toxicity.NewPreparer(toxicity.GroupsFile, toxicity.PolarityFile, string(lex))
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	dv, _, err := corpus.Davidson(*data)
	if err != nil {
		log.Fatal(err)
	}
	var parts [][]corpus.Example
	for _, load := range []func() ([]corpus.Example, error){
		func() ([]corpus.Example, error) { return corpus.GermEval(*data, "train") },
		func() ([]corpus.Example, error) { return corpus.GAHD(*data, "train") },
		func() ([]corpus.Example, error) { return corpus.GAHD(*data, "dev") },
		func() ([]corpus.Example, error) { return corpus.MLMA(*data) },
		corpus.Own,
		func() ([]corpus.Example, error) { return corpus.Background(*data) },
	} {
		p, err := load()
		if err != nil {
			log.Fatal(err)
		}
		parts = append(parts, p)
	}
	type acc struct {
		n, tp, fp, fn, tn int
		ll                float64
	}
	res := map[string]*acc{}
	quote := func(ctx context.Context, p string) (float64, error) { r, err := m.Score(ctx, p); return r.P, err }
	for _, part := range append([][]corpus.Example{dv}, parts...) {
		for _, d := range part {
			if !corpus.InDev(d) {
				continue
			}
			text, err := prep.Prepare(ctx, d.Text, quote)
			if err != nil {
				log.Fatal(err)
			}
			r, err := m.Score(ctx, text)
			if err != nil {
				log.Fatal(err)
			}
			key := d.Source
			if d.Source == "own" {
				key = "own-" + d.Lang
			}
			a := res[key]
			if a == nil {
				a = &acc{}
				res[key] = a
			}
			p := math.Min(math.Max(r.P, 1e-4), 1-1e-4)
			a.n++
			if d.Toxic {
				a.ll -= math.Log(p)
				if r.P >= 0.5 {
					a.tp++
				} else {
					a.fn++
				}
			} else {
				a.ll -= math.Log(1 - p)
				if r.P >= 0.5 {
					a.fp++
				} else {
					a.tn++
				}
			}
		}
	}
	keys := make([]string, 0, len(res))
	for k := range res {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	tot := acc{}
	for _, k := range keys {
		a := res[k]
		acc := float64(a.tp+a.tn) / float64(a.n)
		fmt.Printf("%-10s n=%5d acc=%.3f ll=%.3f\n", k, a.n, acc, a.ll/float64(a.n))
		tot.n += a.n
		tot.tp += a.tp
		tot.tn += a.tn
		tot.ll += a.ll
	}
	fmt.Printf("%-10s n=%5d acc=%.3f ll=%.3f\n", "ALL", tot.n, float64(tot.tp+tot.tn)/float64(tot.n), tot.ll/float64(tot.n))
}
