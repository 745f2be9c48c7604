package main

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/sluice-api/sluice/internal/services/pii/names"
	"github.com/sluice-api/sluice/scripts/internal/devset"
	"github.com/sluice-api/sluice/scripts/internal/evalkit"
	"github.com/sluice-api/sluice/scripts/internal/nerdata"
)

// The -dev, -bias-b, -without and -ablate flags.
var (
	biasB   float64 // NaN: the model's own
	without string
	ablate  bool
)

// devData holds the development sets, read once.
type devData struct {
	data     string
	europe   map[string][]names.Example
	lener    []names.Example
	social   []socialSet
	germeval []nerdata.Sentence
}

func loadDev(data string) (*devData, error) {
	d := &devData{data: data, europe: map[string][]names.Example{}}
	eu, err := evalkit.Require(data, "ner", "europeana-newspapers")
	if err != nil {
		return nil, err
	}
	for _, lang := range nerdata.EuropeanaLanguages {
		_, dev, err := nerdata.EuropeanaDev(eu, lang)
		if err != nil {
			return nil, err
		}
		d.europe[lang] = examples(dev)
	}
	lener, err := evalkit.Require(data, "ner", "lener-br")
	if err != nil {
		return nil, err
	}
	blocks, err := nerdata.LeNERBr(lener, "dev")
	if err != nil {
		return nil, err
	}
	d.lener = examples(blocks)
	if d.social, err = loadSocial(data); err != nil {
		return nil, err
	}
	ge, err := evalkit.Require(data, "ner", "germeval2014")
	if err != nil {
		return nil, err
	}
	if d.germeval, err = nerdata.GermEval(ge); err != nil {
		return nil, err
	}
	return d, nil
}

// figure is one development figure of one model.
type figure struct {
	set string
	f1  float64
}

// devResult is what one model scored on the development sets.
type devResult struct {
	figures  []figure
	germeval *tokenScore // the GermEval fold the model left out, if any
}

// mean is the development F1: the mean of the model's figures.
func (r devResult) mean() float64 {
	s := 0.0
	for _, f := range r.figures {
		s += f.f1
	}
	return s / float64(len(r.figures))
}

// score scores m (trained by `go run ./scripts/train/pii -dev -out dir`) on the development
// sets: the Europeana development blocks and LeNER-Br dev by span overlap, as their targets are;
// the hand-labelled social-media dev split exactly; the WNUT 2017 and BTC dev splits and the
// GermEval fold the run left out (-germeval-fold) at the level of tokens, as the outside test
// splits are scored. All through the name recognizer as the service runs it. With w, it prints
// the tables.
func (d *devData) score(w io.Writer, dir string, m *names.Model) (devResult, error) {
	tag := serviceWith(m)
	var res devResult
	var rows [][]string
	for _, lang := range nerdata.EuropeanaLanguages {
		rows = append(rows, nameRow(lang, "Europeana Newspapers development blocks", d.europe[lang], tag))
	}
	rows = append(rows, nameRow("pt", "LeNER-Br dev (PESSOA)", d.lener, tag))
	for _, r := range rows {
		var f float64
		fmt.Sscan(r[len(r)-1], &f)
		res.figures = append(res.figures, figure{r[0] + " " + r[1] + " (overlap)", f})
	}
	hand, err := handLabelled(d.data, devset.Dev, tag)
	if err != nil {
		return res, err
	}
	rows = append(rows, hand)
	var f float64
	fmt.Sscan(hand[6], &f)
	res.figures = append(res.figures, figure{"en hand-labelled social media dev (exact)", f})
	var extra [][]string
	if raw, err := os.ReadFile(filepath.Join(dir, "germeval-fold")); err == nil {
		k, n, err := nerdata.ParseFold(strings.TrimSpace(string(raw)))
		if err != nil {
			return res, err
		}
		_, test := nerdata.Fold(d.germeval, k, n)
		sc := scoreTokens("germeval", test, tag)
		res.germeval = &sc
		extra = append(extra, sc.row("de", fmt.Sprintf("GermEval 2014 dev, fold %d/%d", k+1, n)))
	}
	out := w
	if out == nil {
		out = io.Discard
	}
	fmt.Fprintf(out, "### Person names, development sets (model in %s)\n\n", dir)
	evalkit.Table(out, []string{"lang", "set", "gold", "predicted", "P exact", "R exact", "F1 exact", "P overlap", "R overlap", "F1 overlap"}, rows)
	fmt.Fprintln(out)
	scores := socialNames(out, d.social, extra, tag)
	for i, s := range d.social {
		res.figures = append(res.figures, figure{s.lang + " " + s.name + " (tokens)", scores[i].f1()})
	}
	if res.germeval != nil {
		res.figures = append(res.figures, figure{"de GermEval 2014 fold (tokens)", res.germeval.f1()})
	}
	return res, nil
}

// devNames scores the name models in dirs (seeds, or the folds of GermEval) on the development
// sets (see devData.score) and prints each figure's mean and range over the models, the
// development F1 (the mean of a model's figures) and GermEval pooled over the folds. With
// -ablate it then switches off each rule after the tagger in turn.
func devNames(w io.Writer, data string, dirs []string) error {
	d, err := loadDev(data)
	if err != nil {
		return err
	}
	var models []*names.Model
	for _, dir := range dirs {
		m, err := loadModel(dir)
		if err != nil {
			return err
		}
		if !math.IsNaN(biasB) {
			m = m.WithBias(biasB)
		}
		if without != "" {
			if m, err = m.WithoutRules(strings.Split(without, ",")...); err != nil {
				return err
			}
		}
		models = append(models, m)
	}
	var results []devResult
	for i, m := range models {
		r, err := d.score(w, dirs[i], m)
		if err != nil {
			return err
		}
		results = append(results, r)
	}
	summary(w, results)
	if ablate {
		return ablation(w, d, dirs, models, results)
	}
	return nil
}

// summary prints each figure's mean, min and max over the models.
func summary(w io.Writer, results []devResult) {
	fmt.Fprintln(w, "### Summary over the models (F1: mean, min, max)")
	fmt.Fprintln(w)
	var rows [][]string
	stat := func(name string, fs []float64) {
		sum, lo, hi := 0.0, fs[0], fs[0]
		for _, f := range fs {
			sum += f
			lo, hi = min(lo, f), max(hi, f)
		}
		rows = append(rows, []string{name, fmt.Sprint(len(fs)), fmt.Sprintf("%.4f", sum/float64(len(fs))), f3(lo), f3(hi)})
	}
	var order []string
	by := map[string][]float64{}
	var means []float64
	var pooled tokenScore
	folds := 0
	for _, r := range results {
		for _, f := range r.figures {
			if _, ok := by[f.set]; !ok {
				order = append(order, f.set)
			}
			by[f.set] = append(by[f.set], f.f1)
		}
		means = append(means, r.mean())
		if r.germeval != nil {
			pooled.add(*r.germeval)
			folds++
		}
	}
	for _, s := range order {
		stat(s, by[s])
	}
	stat("**development F1** (mean of the figures above)", means)
	if folds > 0 {
		rows = append(rows, []string{fmt.Sprintf("de GermEval 2014 dev pooled over %d models' folds (P %.3f, R %.3f)", folds, pooled.p(), pooled.r()),
			fmt.Sprint(folds), fmt.Sprintf("%.4f", pooled.f1()), "", ""})
	}
	evalkit.Table(w, []string{"set", "models", "mean F1", "min", "max"}, rows)
	fmt.Fprintln(w)
}

// ablation switches off each rule after the tagger in turn and prints how the development F1
// (the mean over the models) and each figure change, next to the spread of the development F1
// between the models (max - min), the bar a rule must clear to be kept.
func ablation(w io.Writer, d *devData, dirs []string, models []*names.Model, base []devResult) error {
	lo, hi := base[0].mean(), base[0].mean()
	baseMean := 0.0
	for _, r := range base {
		lo, hi = min(lo, r.mean()), max(hi, r.mean())
		baseMean += r.mean() / float64(len(base))
	}
	spread := hi - lo
	fmt.Fprintf(w, "### Rules after the tagger, each switched off (development F1 %.4f; spread between the models %.4f)\n\n", baseMean, spread)
	header := []string{"rule", "Δ development F1", "kept (|Δ| ≥ spread)"}
	for _, f := range base[0].figures {
		header = append(header, "Δ "+f.set)
	}
	type ruleRow struct {
		delta float64
		row   []string
	}
	var rows []ruleRow
	for _, rule := range names.RuleNames {
		if slices.Contains(strings.Split(without, ","), rule) {
			continue // already off
		}
		delta := 0.0
		deltas := make([]float64, len(base[0].figures))
		for i, m := range models {
			off, err := m.WithoutRules(rule)
			if err != nil {
				return err
			}
			r, err := d.score(nil, dirs[i], off)
			if err != nil {
				return err
			}
			delta += (r.mean() - base[i].mean()) / float64(len(models))
			for k, f := range r.figures {
				if k < len(deltas) {
					deltas[k] += (f.f1 - base[i].figures[k].f1) / float64(len(models))
				}
			}
		}
		keep := "no"
		if math.Abs(delta) >= spread {
			keep = "yes"
		}
		row := []string{rule, fmt.Sprintf("%+.4f", -delta), keep}
		for _, x := range deltas {
			row = append(row, fmt.Sprintf("%+.3f", -x))
		}
		rows = append(rows, ruleRow{-delta, row})
	}
	slices.SortStableFunc(rows, func(a, b ruleRow) int { return cmp.Compare(b.delta, a.delta) })
	var table [][]string
	for _, r := range rows {
		table = append(table, r.row)
	}
	fmt.Fprintln(w, "Δ is what the rule adds: the figure with the rule minus the figure without it.")
	fmt.Fprintln(w)
	evalkit.Table(w, header, table)
	return nil
}
