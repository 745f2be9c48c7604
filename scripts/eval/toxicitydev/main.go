// Command toxicitydev measures security.toxicity.flag on development data of real text, for
// choosing training settings without touching the evaluation suites:
//
//   - the hand-labelled social-media development set (scripts/internal/devset, the `dev` split by
//     default; `-split holdout` once, to confirm a choice): AUPRC, and at the default threshold
//     (flag means score >= 0.5) precision, recall, F1 and the false-positive rate on clean texts,
//     on clean texts with profanity, and on clean texts that name no group; and how often the
//     labels of flagged or uncertain texts say identity_hate without a group named, or profanity
//     without profanity;
//   - the other real text by strangers that no model trains on (realSets): ToLD-Br validation
//     (Portuguese tweets), ConvAbuse valid (English turns typed to chatbots) and the dev tenth of
//     GermEval 2018 train (corpus.GermEvalDev): AUPRC, precision, recall, F1, FPR and macro-F1
//     at the default threshold, and with -sweep F1 and FPR at other thresholds; and how many of
//     1,000 short everyday sentences per language (Tatoeba, the ones not trained on) flag;
//   - with -sources, the dev tenth of every training source (corpus.InDev) with a model trained
//     without it (go run ./scripts/train/toxicity -dev -out DIR): per source, AUPRC, accuracy
//     and FPR at 0.5.
//
// Usage: go run ./scripts/eval/toxicitydev [-data DIR] [-dir DIR] [-split dev|holdout] [-sweep] [-sources]
//
// Without -dir it measures the embedded model; with -dir, a candidate the trainer wrote there.
// The text of the social-media set is never printed.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"maps"
	"os"
	"slices"
	"sort"

	"github.com/sluice-api/sluice/internal/services"
	"github.com/sluice-api/sluice/internal/services/toxicity"
	"github.com/sluice-api/sluice/scripts/internal/devset"
	"github.com/sluice-api/sluice/scripts/internal/evalkit"
	"github.com/sluice-api/sluice/scripts/train/toxicity/corpus"
)

func main() {
	data := evalkit.DataFlag()
	dir := flag.String("dir", "", "measure the candidate in this directory (toxicity.model and lexicon.tsv) instead of the embedded model")
	split := flag.String("split", devset.Dev, "split of the social-media set: dev, or holdout (only to confirm a choice once)")
	sources := flag.Bool("sources", false, "measure the dev tenth of every training source instead (needs a model trained with -dev)")
	sweep := flag.Bool("sweep", false, "also print F1 and FPR of the real-text sets at thresholds from 0.3 to 0.8")
	flag.Parse()
	svc, err := service(*dir)
	if err != nil {
		log.Fatal(err)
	}
	if *sources {
		err = runSources(svc, *data)
	} else {
		err = runSocial(svc, *data, *split)
		if err == nil {
			err = runReal(svc, *data, *sweep)
		}
	}
	if err != nil {
		log.Fatal(err)
	}
}

func service(dir string) (*toxicity.Service, error) {
	if dir == "" {
		return toxicity.New()
	}
	return toxicity.LoadDir(dir)
}

// scored is one text's score and gold label.
type scored struct {
	p    float64
	gold bool
}

// auprc is the area under the precision-recall curve (average precision) of xs.
func auprc(xs []scored) float64 {
	s := slices.Clone(xs)
	sort.SliceStable(s, func(i, j int) bool { return s[i].p > s[j].p })
	pos := 0
	for _, x := range s {
		if x.gold {
			pos++
		}
	}
	if pos == 0 {
		return 0
	}
	tp, ap := 0, 0.0
	for i, x := range s {
		if x.gold {
			tp++
			ap += float64(tp) / float64(i+1)
		}
	}
	return ap / float64(pos)
}

// group is the figures of one slice of the social-media set.
type group struct {
	all                        []scored
	at                         evalkit.Binary
	profaneClean, profaneFlag  int
	nogroupClean, nogroupFlag  int
	labelled, hateNoGroup      int
	profLabel, profNoProfanity int
}

func runSocial(svc *toxicity.Service, data, split string) error {
	recs, err := devset.Load(data)
	if err != nil {
		return err
	}
	ctx := context.Background()
	req := services.Request{Params: services.Params{"threshold": services.DefaultThreshold}}
	groups := map[string]*group{}
	for _, r := range recs {
		if r.Split != split {
			continue
		}
		req.Payload = services.Payload{Type: services.TypeText, Value: r.Text}
		res, err := svc.Run(ctx, req)
		if err != nil {
			return err
		}
		p, err := svc.Probability(ctx, r.Text)
		if err != nil {
			return err
		}
		lang := "other"
		if r.Lang == "en" {
			lang = "en"
		}
		for _, k := range []string{"all", lang} {
			g := groups[k]
			if g == nil {
				g = &group{}
				groups[k] = g
			}
			flagged := p >= services.DefaultThreshold
			g.all = append(g.all, scored{p, r.Toxic})
			g.at.Add(flagged, r.Toxic)
			if !r.Toxic && r.Profanity {
				g.profaneClean++
				if flagged {
					g.profaneFlag++
				}
			}
			if !r.Toxic && !r.NamesGroup {
				g.nogroupClean++
				if flagged {
					g.nogroupFlag++
				}
			}
			if len(res.Labels) > 0 {
				g.labelled++
				if slices.Contains(res.Labels, toxicity.LabelIdentityHate) && !r.NamesGroup {
					g.hateNoGroup++
				}
				if slices.Contains(res.Labels, toxicity.LabelProfanity) {
					g.profLabel++
					if !r.Profanity {
						g.profNoProfanity++
					}
				}
			}
		}
	}
	fmt.Printf("## Social-media development set, split %s (flag: score >= %g)\n\n", split, services.DefaultThreshold)
	var rows [][]string
	for _, k := range []string{"all", "en", "other"} {
		g := groups[k]
		if g == nil {
			continue
		}
		rows = append(rows, []string{k, fmt.Sprint(len(g.all)), fmt.Sprint(g.at.TP + g.at.FN), evalkit.F3(auprc(g.all)),
			evalkit.F3(g.at.Precision()), evalkit.F3(g.at.Recall()), evalkit.F3(g.at.F1()), evalkit.F3(g.at.FPR()),
			fmt.Sprintf("%d/%d", g.profaneFlag, g.profaneClean), fmt.Sprintf("%d/%d", g.nogroupFlag, g.nogroupClean),
			fmt.Sprintf("%d/%d", g.hateNoGroup, g.labelled), fmt.Sprintf("%d/%d", g.profNoProfanity, g.profLabel)})
	}
	evalkit.Table(os.Stdout, []string{"lang", "n", "toxic", "AUPRC", "precision", "recall", "F1", "clean FPR", "profane clean flagged", "no-group clean flagged", "identity_hate without group / labelled", "profanity label without profanity / profanity labels"}, rows)
	return nil
}

func runSources(svc *toxicity.Service, data string) error {
	docs, err := corpus.Training(data)
	if err != nil {
		return err
	}
	ctx := context.Background()
	by := map[string][]scored{}
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
		by[key] = append(by[key], scored{p, d.Toxic})
	}
	fmt.Printf("## Dev tenth of the training sources (flag: score >= 0.5)\n\n")
	var rows [][]string
	for _, k := range slices.Sorted(maps.Keys(by)) {
		var m evalkit.Binary
		for _, x := range by[k] {
			m.Add(x.p >= 0.5, x.gold)
		}
		rows = append(rows, []string{k, fmt.Sprint(m.N()), fmt.Sprint(m.TP + m.FN), evalkit.F3(auprc(by[k])), evalkit.F3(m.Accuracy()), evalkit.F3(m.F1()), evalkit.F3(m.FPR())})
	}
	evalkit.Table(os.Stdout, []string{"source", "n", "toxic", "AUPRC", "accuracy", "F1", "FPR"}, rows)
	return nil
}

// realSets are the labelled real-text sets settings are chosen on, besides the social-media
// set: none of them is trained on.
var realSets = []struct {
	name string
	load func(data string) ([]corpus.Example, error)
}{
	{"ToLD-Br validation (pt)", func(data string) ([]corpus.Example, error) { return corpus.ToLDBr(data, "validation") }},
	{"ConvAbuse valid (en)", func(data string) ([]corpus.Example, error) { return corpus.ConvAbuse(data, "valid") }},
	{"GermEval 2018 train, dev tenth (de)", func(data string) ([]corpus.Example, error) {
		ge, err := corpus.GermEval(data, "train")
		var dev []corpus.Example
		for _, e := range ge {
			if corpus.GermEvalDev(e) {
				dev = append(dev, e)
			}
		}
		return dev, err
	}},
}

// sweepThresholds are the thresholds -sweep prints.
var sweepThresholds = []float64{0.3, 0.4, 0.5, 0.6, 0.7, 0.8}

func runReal(svc *toxicity.Service, data string, sweep bool) error {
	ctx := context.Background()
	fmt.Printf("\n## Real-text development sets (flag: score >= %g)\n\n", services.DefaultThreshold)
	var rows, sweepRows [][]string
	for _, set := range realSets {
		ex, err := set.load(data)
		if err != nil {
			return err
		}
		var all []scored
		for _, e := range ex {
			p, err := svc.Probability(ctx, e.Text)
			if err != nil {
				return err
			}
			all = append(all, scored{p, e.Toxic})
		}
		at := func(t float64) evalkit.Binary {
			var m evalkit.Binary
			for _, x := range all {
				m.Add(x.p >= t, x.gold)
			}
			return m
		}
		m := at(services.DefaultThreshold)
		rows = append(rows, []string{set.name, fmt.Sprint(m.N()), fmt.Sprint(m.TP + m.FN), evalkit.F3(auprc(all)),
			evalkit.F3(m.Precision()), evalkit.F3(m.Recall()), evalkit.F3(m.F1()), evalkit.F3(m.FPR()), evalkit.F3(macroF1(m))})
		if sweep {
			row := []string{set.name}
			for _, t := range sweepThresholds {
				m := at(t)
				row = append(row, fmt.Sprintf("%s / %s", evalkit.F3(m.F1()), evalkit.F3(m.FPR())))
			}
			sweepRows = append(sweepRows, row)
		}
	}
	evalkit.Table(os.Stdout, []string{"set", "n", "toxic", "AUPRC", "precision", "recall", "F1", "FPR", "macro-F1"}, rows)
	if err := runTatoeba(svc, data); err != nil {
		return err
	}
	if sweep {
		header := []string{"F1 / FPR at"}
		for _, t := range sweepThresholds {
			header = append(header, fmt.Sprint(t))
		}
		fmt.Println()
		evalkit.Table(os.Stdout, header, sweepRows)
	}
	return nil
}

// macroF1 is the mean of the F1 of the toxic class and of the clean class.
func macroF1(m evalkit.Binary) float64 {
	clean := evalkit.Binary{TP: m.TN, TN: m.TP, FP: m.FN, FN: m.FP}
	return (m.F1() + clean.F1()) / 2
}

// tatoebaDevSize is how many Tatoeba sentences not trained on are scored per language.
const tatoebaDevSize = 1000

// runTatoeba prints how many short everyday sentences (Tatoeba, not trained on) flag per
// language. They are not labelled: a few may be insults, so the rate is an upper bound of the
// false alarms.
func runTatoeba(svc *toxicity.Service, data string) error {
	ctx := context.Background()
	fmt.Printf("\nShort everyday sentences (Tatoeba, %d a language, not trained on) flagged at %g:\n\n", tatoebaDevSize, services.DefaultThreshold)
	var header, row []string
	for _, l := range corpus.BackgroundLanguages {
		ex, err := corpus.TatoebaDev(data, l, tatoebaDevSize)
		if err != nil {
			return err
		}
		n := 0
		for _, e := range ex {
			p, err := svc.Probability(ctx, e.Text)
			if err != nil {
				return err
			}
			if p >= services.DefaultThreshold {
				n++
			}
		}
		header = append(header, l)
		row = append(row, fmt.Sprintf("%d/%d", n, len(ex)))
	}
	evalkit.Table(os.Stdout, header, [][]string{row})
	return nil
}
