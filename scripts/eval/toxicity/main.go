// Command toxicity evaluates security.toxicity.flag and prints markdown tables: precision,
// recall, F1, false-positive rate and a reliability (calibration) table on each set, and
// accuracy per functionality on the functional test suites.
//
//   - Davidson et al. 2017, the held-out 20% of the fixed seeded split (toxic = hate speech or
//     offensive language).
//   - GermEval 2018 test (toxic = OFFENSE), with macro-F1 over OFFENSE and OTHER.
//   - GAHD test (toxic = hate).
//   - HateCheck (hateful = toxic): accuracy overall and per functionality.
//   - Multilingual HateCheck: accuracy per language (de, fr, es, it, nl, pt, pl) and per
//     functionality and language.
//   - ToxiGen's human-curated seed sentences (English implicit hate and neutral statements about
//     16 groups; report only: their authors meant them for research, so nothing is trained or
//     tuned on them): precision, recall, F1, FPR, and accuracy per group.
//   - Our own hand-written held-out set (internal/services/toxicity/testdata/heldout.tsv, seven
//     languages), sent through the pipeline engine as a client would send it, with the
//     service's default params; its table counts verdicts.
//
// Everywhere but the held-out set, positive means score >= 0.5 (the default threshold). None of
// these sets is trained on; see scripts/train/toxicity.
//
// Usage: go run ./scripts/eval/toxicity [-data DIR] [-dir DIR] [-sets davidson,germeval,gahd,hatecheck,mhc,toxigen,heldout]
//
// Without -dir it evaluates the embedded model; with -dir, a candidate written there by
// go run ./scripts/train/toxicity -out DIR (toxicity.model and lexicon.tsv), through the same
// service code.
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

	"github.com/sluice-api/sluice/internal/services"
	"github.com/sluice-api/sluice/internal/services/toxicity"
	"github.com/sluice-api/sluice/scripts/internal/evalkit"
	"github.com/sluice-api/sluice/scripts/train/toxicity/corpus"
)

func main() {
	data := evalkit.DataFlag()
	sets := flag.String("sets", "davidson,germeval,gahd,hatecheck,mhc,toxigen,heldout", "comma-separated sets to evaluate")
	heldout := flag.String("heldout", "internal/services/toxicity/testdata/heldout.tsv", "our held-out set (run from the repository root)")
	dir := flag.String("dir", "", "evaluate the candidate in this directory (toxicity.model and lexicon.tsv) instead of the embedded model")
	flag.Parse()
	if err := run(*data, *heldout, *dir, strings.Split(*sets, ",")); err != nil {
		log.Fatal(err)
	}
}

func run(data, heldout, dir string, sets []string) error {
	svc, err := service(dir)
	if err != nil {
		return fmt.Errorf("new service: %w", err)
	}
	d := svc.Descriptor()
	fmt.Printf("# %s v%d (model %s)\n\n", d.Name, d.Version, d.Model.ID)
	e := &evaluator{svc: svc, req: defaultRequest(d)}
	for _, s := range sets {
		var err error
		switch s {
		case "davidson":
			err = e.davidson(data)
		case "germeval":
			err = e.germeval(data)
		case "gahd":
			err = e.gahd(data)
		case "hatecheck":
			err = e.hatecheck(data)
		case "mhc":
			err = e.mhc(data)
		case "toxigen":
			err = e.toxigen(data)
		case "heldout":
			err = e.heldout(heldout)
		default:
			err = fmt.Errorf("unknown set %q", s)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", s, err)
		}
	}
	return nil
}

// service returns the embedded model's service, or with dir the candidate written there.
func service(dir string) (*toxicity.Service, error) {
	if dir == "" {
		return toxicity.New()
	}
	return toxicity.LoadDir(dir)
}

// defaultRequest is a request with the descriptor's default params, as the engine fills them.
func defaultRequest(d services.Descriptor) services.Request {
	p := services.Params{}
	for name, spec := range d.Params {
		p[name] = spec.Default
	}
	return services.Request{Params: p}
}

type evaluator struct {
	svc services.Service
	req services.Request
}

// score runs the service on one text with the default params.
func (e *evaluator) score(text string) (float64, error) {
	req := e.req
	req.Payload = services.Payload{Type: services.TypeText, Value: text}
	res, err := e.svc.Run(context.Background(), req)
	if err != nil {
		return 0, err
	}
	return res.Score, nil
}

// counts scores every example: binary counts at 0.5, a reliability table, and counts per group.
type counts struct {
	all    evalkit.Binary
	rel    evalkit.Reliability
	groups map[string]*evalkit.Binary
	order  []string
}

func (e *evaluator) measure(ex []corpus.Example) (*counts, error) {
	c := &counts{groups: map[string]*evalkit.Binary{}}
	for _, x := range ex {
		s, err := e.score(x.Text)
		if err != nil {
			return nil, err
		}
		pred := s >= services.DefaultThreshold
		c.all.Add(pred, x.Toxic)
		c.rel.Add(s, x.Toxic)
		if x.Group != "" {
			g := c.groups[x.Group]
			if g == nil {
				g = &evalkit.Binary{}
				c.groups[x.Group] = g
				c.order = append(c.order, x.Group)
			}
			g.Add(pred, x.Toxic)
		}
	}
	return c, nil
}

var binaryHeader = []string{"set", "n", "toxic", "accuracy", "precision", "recall", "F1", "FPR"}

func binaryRow(name string, m evalkit.Binary) []string {
	return []string{name, fmt.Sprint(m.N()), fmt.Sprint(m.TP + m.FN), evalkit.F3(m.Accuracy()),
		evalkit.F3(m.Precision()), evalkit.F3(m.Recall()), evalkit.F3(m.F1()), evalkit.F3(m.FPR())}
}

func (e *evaluator) davidson(data string) error {
	_, test, err := corpus.Davidson(data)
	if err != nil {
		return err
	}
	c, err := e.measure(test)
	if err != nil {
		return err
	}
	fmt.Printf("## Davidson held-out 20%% (seed %d; toxic = hate speech or offensive)\n\n", corpus.DavidsonSeed)
	evalkit.Table(os.Stdout, binaryHeader, [][]string{binaryRow("davidson-test", c.all)})
	fmt.Println("\nCalibration:")
	fmt.Println()
	c.rel.Write(os.Stdout)
	fmt.Println()
	return nil
}

func (e *evaluator) germeval(data string) error {
	test, err := corpus.GermEval(data, "test")
	if err != nil {
		return err
	}
	c, err := e.measure(test)
	if err != nil {
		return err
	}
	m := c.all
	other := evalkit.Binary{TP: m.TN, TN: m.TP, FP: m.FN, FN: m.FP} // OTHER as the positive class
	fmt.Println("## GermEval 2018 test (toxic = OFFENSE)")
	fmt.Println()
	evalkit.Table(os.Stdout, binaryHeader, [][]string{binaryRow("germeval-test", m)})
	fmt.Printf("\nF1 OFFENSE %.3f, F1 OTHER %.3f, **macro-F1 %.3f**\n\n", m.F1(), other.F1(), (m.F1()+other.F1())/2)
	rows := [][]string{}
	for _, g := range []string{"abuse", "insult", "profanity", "other"} {
		if b := c.groups[g]; b != nil {
			rows = append(rows, []string{g, fmt.Sprint(b.N()), evalkit.F3(b.Accuracy())})
		}
	}
	evalkit.Table(os.Stdout, []string{"fine label", "n", "accuracy"}, rows)
	fmt.Println("\nCalibration:")
	fmt.Println()
	c.rel.Write(os.Stdout)
	fmt.Println()
	return nil
}

func (e *evaluator) gahd(data string) error {
	test, err := corpus.GAHD(data, "test")
	if err != nil {
		return err
	}
	c, err := e.measure(test)
	if err != nil {
		return err
	}
	fmt.Println("## GAHD test (German, adversarial; toxic = hate)")
	fmt.Println()
	rows := [][]string{binaryRow("gahd-test", c.all)}
	if b := c.groups["contrastive"]; b != nil {
		rows = append(rows, binaryRow("of which contrast pairs", *b))
	}
	evalkit.Table(os.Stdout, binaryHeader, rows)
	fmt.Println("\nCalibration:")
	fmt.Println()
	c.rel.Write(os.Stdout)
	fmt.Println()
	return nil
}

func (e *evaluator) hatecheck(data string) error {
	ex, err := corpus.HateCheck(data)
	if err != nil {
		return err
	}
	c, err := e.measure(ex)
	if err != nil {
		return err
	}
	fmt.Println("## HateCheck (English; hateful = toxic)")
	fmt.Println()
	evalkit.Table(os.Stdout, binaryHeader, [][]string{binaryRow("hatecheck", c.all)})
	fmt.Println()
	rows := [][]string{}
	for _, g := range sortedGroups(c) {
		b := c.groups[g]
		rows = append(rows, []string{g, goldOf(*b), fmt.Sprint(b.N()), evalkit.F3(b.Accuracy())})
	}
	evalkit.Table(os.Stdout, []string{"functionality", "gold", "n", "accuracy"}, rows)
	fmt.Println()
	return nil
}

func (e *evaluator) mhc(data string) error {
	fmt.Println("## Multilingual HateCheck (hateful = toxic)")
	fmt.Println()
	per := map[string]*counts{}
	var rows [][]string
	funcs := map[string]string{}
	for _, l := range corpus.MHCLanguages {
		ex, err := corpus.MHC(data, l.Code)
		if err != nil {
			return err
		}
		c, err := e.measure(ex)
		if err != nil {
			return err
		}
		per[l.Code] = c
		r := binaryRow(l.Code, c.all)
		rows = append(rows, r)
		for g, b := range c.groups {
			funcs[g] = goldOf(*b)
		}
	}
	evalkit.Table(os.Stdout, binaryHeader, rows)
	fmt.Println()
	header := []string{"functionality", "gold"}
	for _, l := range corpus.MHCLanguages {
		header = append(header, l.Code)
	}
	rows = nil
	for _, g := range sortedKeys(funcs) {
		r := []string{g, funcs[g]}
		for _, l := range corpus.MHCLanguages {
			if b := per[l.Code].groups[g]; b != nil {
				r = append(r, evalkit.F3(b.Accuracy()))
			} else {
				r = append(r, "-")
			}
		}
		rows = append(rows, r)
	}
	fmt.Println("Accuracy per functionality and language:")
	fmt.Println()
	evalkit.Table(os.Stdout, header, rows)
	fmt.Println()
	return nil
}

// goldOf names the gold label of a functionality (all its cases share one).
func goldOf(b evalkit.Binary) string {
	if b.TP+b.FN > 0 {
		return "hateful"
	}
	return "non-hateful"
}

func sortedGroups(c *counts) []string { return slices.Sorted(maps.Keys(c.groups)) }

func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }

func (e *evaluator) toxigen(data string) error {
	ex, err := corpus.ToxiGen(data)
	if err != nil {
		return err
	}
	c, err := e.measure(ex)
	if err != nil {
		return err
	}
	fmt.Println("## ToxiGen seed sentences (English, implicit; hate = toxic; report only)")
	fmt.Println()
	evalkit.Table(os.Stdout, binaryHeader, [][]string{binaryRow("toxigen", c.all)})
	fmt.Println()
	rows := [][]string{}
	for _, g := range slices.Sorted(maps.Keys(c.groups)) {
		b := c.groups[g]
		rows = append(rows, []string{g, fmt.Sprint(b.N()), evalkit.F3(b.Accuracy())})
	}
	evalkit.Table(os.Stdout, []string{"group", "n", "accuracy"}, rows)
	fmt.Println()
	return nil
}
