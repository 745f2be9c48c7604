package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/sluice-api/sluice/internal/pipeline"
	"github.com/sluice-api/sluice/internal/services"
	"github.com/sluice-api/sluice/scripts/internal/evalkit"
)

// caseRow is one case of our held-out set: lang, toxic (1/0), kind, expected labels (comma
// separated, "-" for none) and the text, tab-separated.
type caseRow struct {
	lang, kind string
	toxic      bool
	labels     []string
	text       string
}

func readHeldout(path string) ([]caseRow, error) {
	lines, err := evalkit.ReadLines(path)
	if err != nil {
		return nil, err
	}
	var out []caseRow
	for i, l := range lines {
		if strings.HasPrefix(l, "#") {
			continue
		}
		f := strings.SplitN(l, "\t", 5)
		if len(f) != 5 || (f[1] != "0" && f[1] != "1") {
			return nil, fmt.Errorf("%s:%d: want lang, 0/1, kind, labels, text", path, i+1)
		}
		c := caseRow{lang: f[0], toxic: f[1] == "1", kind: f[2], text: f[4]}
		if f[3] != "-" {
			c.labels = strings.Split(f[3], ",")
		}
		out = append(out, c)
	}
	return out, nil
}

// wireResult is the part of a run response a client reads for a classify step.
type wireResult struct {
	Status  string `json:"status"`
	Results map[string]struct {
		Verdict string   `json:"verdict"`
		Score   float64  `json:"score"`
		Labels  []string `json:"labels"`
	} `json:"results"`
}

// heldout sends every case through the pipeline engine as a one-step run with no params (the
// service's defaults) and reads the verdict from the rendered wire response.
func (e *evaluator) heldout(path string) error {
	cases, err := readHeldout(path)
	if err != nil {
		return err
	}
	reg, err := services.NewRegistry(e.svc)
	if err != nil {
		return err
	}
	eng, err := pipeline.New(reg)
	if err != nil {
		return err
	}
	name := e.svc.Descriptor().Name
	type tally struct {
		flag                evalkit.Binary // flag = positive, uncertain = negative
		lenient             evalkit.Binary // flag or uncertain = positive
		uncertain, labelsOK int
		withLabels          int
	}
	all := &tally{}
	byLang, byKind := map[string]*tally{}, map[string]*tally{}
	var rel evalkit.Reliability
	var misses []string
	for _, c := range cases {
		body, err := json.Marshal(map[string]any{
			"input":    map[string]string{"type": "text", "value": c.text},
			"pipeline": []map[string]string{{"id": "tox", "service": name}},
		})
		if err != nil {
			return err
		}
		plan, perr := eng.Parse(body)
		if perr != nil {
			return fmt.Errorf("parse: %v", perr)
		}
		out := eng.Execute(context.Background(), plan, pipeline.Env{TraceID: "sluice_eval", Budget: 1 << 40, ReceivedAt: time.Now()})
		raw, err := json.Marshal(out.Render("", 0))
		if err != nil {
			return err
		}
		var w wireResult
		if err := json.Unmarshal(raw, &w); err != nil {
			return err
		}
		r, ok := w.Results["tox"]
		if w.Status != pipeline.StatusCompleted || !ok {
			return fmt.Errorf("run status %q", w.Status)
		}
		rel.Add(r.Score, c.toxic)
		for _, t := range []*tally{all, get(byLang, c.lang), get(byKind, c.kind)} {
			t.flag.Add(r.Verdict == services.VerdictFlag, c.toxic)
			t.lenient.Add(r.Verdict != services.VerdictPass, c.toxic)
			if r.Verdict == services.VerdictUncertain {
				t.uncertain++
			}
			if c.toxic && len(c.labels) > 0 {
				t.withLabels++
				if slices.ContainsFunc(c.labels, func(l string) bool { return slices.Contains(r.Labels, l) }) {
					t.labelsOK++
				}
			}
		}
		if (r.Verdict == services.VerdictFlag) != c.toxic {
			misses = append(misses, fmt.Sprintf("| %s | %s | %v | %s | %.2f | %s |", c.lang, c.kind, c.toxic, r.Verdict, r.Score, strings.ReplaceAll(c.text, "|", "/")))
		}
	}
	header := []string{"", "n", "toxic", "precision", "recall", "F1", "FPR", "uncertain", "F1 (uncertain = flag)", "FPR (uncertain = flag)", "expected label found"}
	row := func(name string, t *tally) []string {
		lab := "-"
		if t.withLabels > 0 {
			lab = fmt.Sprintf("%d/%d", t.labelsOK, t.withLabels)
		}
		m := t.flag
		return []string{name, fmt.Sprint(m.N()), fmt.Sprint(m.TP + m.FN), evalkit.F3(m.Precision()), evalkit.F3(m.Recall()),
			evalkit.F3(m.F1()), evalkit.F3(m.FPR()), fmt.Sprint(t.uncertain), evalkit.F3(t.lenient.F1()), evalkit.F3(t.lenient.FPR()), lab}
	}
	rows := [][]string{row("**all**", all)}
	for _, l := range sortedKeys(byLang) {
		rows = append(rows, row(l, byLang[l]))
	}
	fmt.Printf("## Our held-out set (%s; through the engine, default params; positive = verdict flag)\n\n", path)
	evalkit.Table(os.Stdout, header, rows)
	fmt.Println()
	rows = nil
	for _, k := range sortedKeys(byKind) {
		rows = append(rows, row(k, byKind[k]))
	}
	evalkit.Table(os.Stdout, header, rows)
	fmt.Println("\nCalibration:")
	fmt.Println()
	rel.Write(os.Stdout)
	fmt.Println("\nCases answered wrongly (uncertain counts as not flagged):")
	fmt.Println()
	fmt.Println("| lang | kind | toxic | verdict | score | text |")
	fmt.Println("| --- | --- | --- | --- | ---: | --- |")
	for _, m := range misses {
		fmt.Println(m)
	}
	fmt.Println()
	return nil
}

func get[T any](m map[string]*T, k string) *T {
	if m[k] == nil {
		m[k] = new(T)
	}
	return m[k]
}
