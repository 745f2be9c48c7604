// Command intent evaluates routing.intent.map on data it was neither trained nor tuned on and
// prints markdown tables:
//
//		go run ./scripts/eval/intent [-data DIR] [-misses]
//
//	  - assistant: CLINC150 test (in-scope accuracy: a null answer is wrong) and oos_test (recall
//	    of the null answer), and the trade-off between the two at other thresholds;
//	  - banking: banking77 test.csv (accuracy and macro-F1: a null answer is wrong), and the recall
//	    of the null answer on CLINC150 oos_test, which is out of scope for banking too;
//	  - per catalog, the ten intents with the lowest accuracy on test;
//	  - the hand-written held-out set in internal/services/intent/testdata/heldout.jsonl;
//	  - the latency of one Service.Run call, measured sequentially.
//
// Every answer except the trade-off table goes through Service.Run with the params a client
// sends.
package main

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/sluice-api/sluice/internal/services"
	"github.com/sluice-api/sluice/internal/services/intent"
	"github.com/sluice-api/sluice/internal/services/intent/model"
	"github.com/sluice-api/sluice/scripts/internal/evalkit"
)

// example is one labelled text; label "" means out of scope.
type example struct{ text, label string }

// heldout is a line of the held-out set.
type heldout struct {
	Catalog string  `json:"catalog"`
	Intent  *string `json:"intent"`
	Text    string  `json:"text"`
}

func main() {
	data := evalkit.DataFlag()
	heldoutPath := flag.String("heldout", filepath.Join("internal", "services", "intent", "testdata", "heldout.jsonl"), "hand-written held-out set")
	misses := flag.Bool("misses", false, "list the held-out utterances the service gets wrong")
	flag.Parse()
	log.SetFlags(0)
	if err := run(*data, *heldoutPath, *misses); err != nil {
		log.Fatal(err)
	}
}

func run(data, heldoutPath string, misses bool) error {
	clincDir, err := evalkit.Require(data, "intent", "clinc150")
	if err != nil {
		return err
	}
	bankDir, err := evalkit.Require(data, "intent", "banking77")
	if err != nil {
		return err
	}
	raw, err := evalkit.ReadJSON[map[string][][2]string](filepath.Join(clincDir, "data_full.json"))
	if err != nil {
		return err
	}
	pairs := func(split string, oos bool) ([]example, error) {
		var out []example
		for _, p := range raw[split] {
			e := example{text: p[0]}
			if !oos {
				e.label = p[1]
			}
			out = append(out, e)
		}
		if len(out) == 0 {
			return nil, fmt.Errorf("clinc150: split %s is empty", split)
		}
		return out, nil
	}
	clincTest, err := pairs("test", false)
	if err != nil {
		return err
	}
	oosTest, err := pairs("oos_test", true)
	if err != nil {
		return err
	}
	rows, err := evalkit.ReadCSV(filepath.Join(bankDir, "test.csv"), ',')
	if err != nil {
		return err
	}
	var bankTest []example
	for _, r := range rows {
		bankTest = append(bankTest, example{text: r["text"], label: r["category"]})
	}
	held, err := evalkit.ReadJSONL[heldout](heldoutPath)
	if err != nil {
		return err
	}

	svc, err := intent.New()
	if err != nil {
		return err
	}
	const asst, bank = intent.CatalogAssistant, intent.CatalogBanking
	in, l1, err := predict(svc, asst, clincTest)
	if err != nil {
		return err
	}
	oos, l2, err := predict(svc, asst, oosTest)
	if err != nil {
		return err
	}
	bk, l3, err := predict(svc, bank, bankTest)
	if err != nil {
		return err
	}
	bkOOS, _, err := predict(svc, bank, oosTest)
	if err != nil {
		return err
	}

	fmt.Println("## Test splits (through Service.Run)")
	fmt.Println()
	isNull := func(p pred) bool { return p.got == "" }
	f4 := func(x float64) string { return fmt.Sprintf("%.4f", x) }
	evalkit.Table(os.Stdout, []string{"catalog", "data set", "n", "metric", "value"}, [][]string{
		{asst, "CLINC150 test", fmt.Sprint(len(in)), "in-scope accuracy", f4(accuracy(in, false))},
		{asst, "CLINC150 test", fmt.Sprint(len(in)), "top-1 accuracy (no rejection)", f4(accuracy(in, true))},
		{asst, "CLINC150 test", fmt.Sprint(len(in)), "in-scope answered null", f4(rate(in, isNull))},
		{asst, "CLINC150 oos_test", fmt.Sprint(len(oos)), "oos recall (null)", f4(rate(oos, isNull))},
		{asst, "CLINC150 test + oos_test", fmt.Sprint(len(in) + len(oos)), "overall accuracy", f4(accuracy(append(slices.Clone(in), oos...), false))},
		{bank, "banking77 test", fmt.Sprint(len(bk)), "accuracy", f4(accuracy(bk, false))},
		{bank, "banking77 test", fmt.Sprint(len(bk)), "top-1 accuracy (no rejection)", f4(accuracy(bk, true))},
		{bank, "banking77 test", fmt.Sprint(len(bk)), "macro-F1", f4(macroF1(bk))},
		{bank, "banking77 test", fmt.Sprint(len(bk)), "answered null", f4(rate(bk, isNull))},
		{bank, "CLINC150 oos_test", fmt.Sprint(len(bkOOS)), "oos recall (null)", f4(rate(bkOOS, isNull))},
	})

	fmt.Println()
	fmt.Println("## Threshold trade-off (model probabilities; * = shipped threshold)")
	fmt.Println()
	if err := tradeoff(svc.Model(asst), clincTest, oosTest); err != nil {
		return err
	}
	fmt.Println()
	if err := tradeoff(svc.Model(bank), bankTest, oosTest); err != nil {
		return err
	}

	for _, c := range []struct {
		name, set string
		ps        []pred
	}{{asst, "CLINC150 test", in}, {bank, "banking77 test", bk}} {
		fmt.Println()
		fmt.Printf("## %s: the ten intents with the lowest accuracy on %s\n\n", c.name, c.set)
		worst(c.ps, 10)
	}

	fmt.Println()
	fmt.Println("## Hand-written held-out set (through Service.Run)")
	fmt.Println()
	if err := heldOut(svc, held, misses); err != nil {
		return err
	}

	fmt.Println()
	fmt.Println("## Latency of one Service.Run (sequential)")
	fmt.Println()
	var lrows [][]string
	for _, c := range []struct {
		name string
		l    []time.Duration
	}{{asst, append(slices.Clone(l1), l2...)}, {bank, l3}} {
		mean, p50, p99 := stats(c.l)
		lrows = append(lrows, []string{c.name, fmt.Sprint(len(c.l)), mean.String(), p50.String(), p99.String()})
	}
	evalkit.Table(os.Stdout, []string{"catalog", "utterances", "mean", "p50", "p99"}, lrows)
	return nil
}

type pred struct{ want, got, top string }

func predict(svc *intent.Service, catalog string, exs []example) ([]pred, []time.Duration, error) {
	ctx := context.Background()
	out := make([]pred, 0, len(exs))
	lat := make([]time.Duration, 0, len(exs))
	for _, e := range exs {
		start := time.Now()
		d, err := runOne(ctx, svc, catalog, e.text)
		lat = append(lat, time.Since(start))
		if err != nil {
			return nil, nil, err
		}
		p := pred{want: e.label}
		if d.Intent != nil {
			p.got, p.top = *d.Intent, *d.Intent
		} else if len(d.Alternatives) > 0 {
			p.top = d.Alternatives[0].Intent
		}
		out = append(out, p)
	}
	return out, lat, nil
}

// runOne sends text through Service.Run with the params a client would send.
func runOne(ctx context.Context, svc *intent.Service, catalog, text string) (intent.Data, error) {
	res, err := svc.Run(ctx, services.Request{
		Payload: services.Payload{Type: services.TypeText, Value: text},
		Params:  services.Params{"catalog": catalog},
	})
	if err != nil {
		return intent.Data{}, err
	}
	d, ok := res.Data.(intent.Data)
	if !ok {
		return intent.Data{}, fmt.Errorf("unexpected result data %T", res.Data)
	}
	return d, nil
}

// tradeoff prints in-scope accuracy and out-of-scope recall at several thresholds, with the
// model's own out-of-scope class applied as in the service.
func tradeoff(m *model.Model, in, oos []example) error {
	type scored struct {
		want string
		p    []float64
	}
	score := func(exs []example) ([]scored, error) {
		out := make([]scored, 0, len(exs))
		for _, e := range exs {
			x, err := m.Spec.Extract(context.Background(), e.text)
			if err != nil {
				return nil, err
			}
			out = append(out, scored{e.label, m.Probabilities(x)})
		}
		return out, nil
	}
	si, err := score(in)
	if err != nil {
		return err
	}
	so, err := score(oos)
	if err != nil {
		return err
	}
	shipped := m.Threshold
	ts := []float64{0, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6}
	if !slices.Contains(ts, shipped) {
		ts = append(ts, shipped)
		slices.Sort(ts)
	}
	var rows [][]string
	for _, t := range ts {
		at := *m // a shallow copy shares the read-only weights
		at.Threshold = t
		var acc, rec float64
		for _, s := range si {
			if p := at.Decide(s.p, 1); p.Intent != model.None && m.Intents[p.Intent] == s.want {
				acc++
			}
		}
		for _, s := range so {
			if at.Decide(s.p, 1).Intent == model.None {
				rec++
			}
		}
		name := fmt.Sprintf("%.2f", t)
		if t == shipped {
			name += " *"
		}
		rows = append(rows, []string{name, fmt.Sprintf("%.4f", acc/float64(len(si))), fmt.Sprintf("%.4f", rec/float64(len(so)))})
	}
	fmt.Printf("%s catalog (in scope: its test split; out of scope: CLINC150 oos_test)\n\n", m.Catalog)
	evalkit.Table(os.Stdout, []string{"threshold", "in-scope accuracy", "oos recall"}, rows)
	return nil
}

// worst prints the n intents with the lowest accuracy (recall), with precision, F1 and the
// answer most often given instead.
func worst(ps []pred, n int) {
	type stat struct {
		intent       string
		n, tp, fp    int
		instead      map[string]int
		accuracy, f1 float64
	}
	by := map[string]*stat{}
	get := func(s string) *stat {
		if by[s] == nil {
			by[s] = &stat{intent: s, instead: map[string]int{}}
		}
		return by[s]
	}
	for _, p := range ps {
		s := get(p.want)
		s.n++
		if p.got == p.want {
			s.tp++
			continue
		}
		got := p.got
		if got == "" {
			got = "(null)"
		} else {
			get(p.got).fp++
		}
		s.instead[got]++
	}
	var all []*stat
	for _, s := range by {
		if s.n == 0 {
			continue
		}
		s.accuracy = float64(s.tp) / float64(s.n)
		s.f1 = evalkit.F1(float64(s.tp)/float64(max(1, s.tp+s.fp)), s.accuracy)
		all = append(all, s)
	}
	slices.SortFunc(all, func(a, b *stat) int {
		return cmp.Or(cmp.Compare(a.accuracy, b.accuracy), cmp.Compare(a.f1, b.f1), cmp.Compare(a.intent, b.intent))
	})
	var rows [][]string
	for _, s := range all[:min(n, len(all))] {
		var top string
		topN := 0
		for k, v := range s.instead {
			if v > topN || (v == topN && k < top) {
				top, topN = k, v
			}
		}
		rows = append(rows, []string{s.intent, fmt.Sprint(s.n), fmt.Sprintf("%.3f", s.accuracy), fmt.Sprintf("%.3f", s.f1), fmt.Sprintf("%s (%d)", top, topN)})
	}
	evalkit.Table(os.Stdout, []string{"intent", "n", "accuracy", "F1", "most often answered instead"}, rows)
}

func heldOut(svc *intent.Service, held []heldout, misses bool) error {
	type tally struct{ in, inOK, out, outOK int }
	t := map[string]*tally{intent.CatalogAssistant: {}, intent.CatalogBanking: {}}
	var wrong []string
	for _, h := range held {
		c, ok := t[h.Catalog]
		if !ok {
			return fmt.Errorf("held-out set: unknown catalog %q", h.Catalog)
		}
		d, err := runOne(context.Background(), svc, h.Catalog, h.Text)
		if err != nil {
			return err
		}
		got := "null"
		if d.Intent != nil {
			got = *d.Intent
		}
		want := "null"
		if h.Intent != nil {
			want = *h.Intent
			c.in++
		} else {
			c.out++
		}
		if got == want {
			if h.Intent != nil {
				c.inOK++
			} else {
				c.outOK++
			}
		} else {
			wrong = append(wrong, fmt.Sprintf("| %s | %s | %s | %s (%.2f) |", h.Catalog, h.Text, want, got, d.Confidence))
		}
	}
	var rows [][]string
	for _, name := range []string{intent.CatalogAssistant, intent.CatalogBanking} {
		c := t[name]
		rows = append(rows, []string{name, fmt.Sprint(c.in), evalkit.Pct(float64(c.inOK) / float64(max(1, c.in))),
			fmt.Sprint(c.out), evalkit.Pct(float64(c.outOK) / float64(max(1, c.out)))})
	}
	evalkit.Table(os.Stdout, []string{"catalog", "in-scope requests", "mapped right", "out-of-scope requests", "answered null"}, rows)
	if misses && len(wrong) > 0 {
		fmt.Println()
		fmt.Println("| catalog | text | want | got (confidence) |")
		fmt.Println("| --- | --- | --- | --- |")
		fmt.Println(strings.Join(wrong, "\n"))
	}
	return nil
}

func accuracy(ps []pred, noReject bool) float64 {
	return rate(ps, func(p pred) bool {
		if noReject {
			return p.top == p.want
		}
		return p.got == p.want
	})
}

func rate(ps []pred, ok func(pred) bool) float64 {
	n := 0
	for _, p := range ps {
		if ok(p) {
			n++
		}
	}
	return float64(n) / float64(max(len(ps), 1))
}

// macroF1 averages per-intent F1 over the gold intents; a null answer is a miss.
func macroF1(ps []pred) float64 {
	tp, fp, fn := map[string]int{}, map[string]int{}, map[string]int{}
	classes := map[string]bool{}
	for _, p := range ps {
		classes[p.want] = true
		if p.got == p.want {
			tp[p.want]++
			continue
		}
		fn[p.want]++
		if p.got != "" {
			fp[p.got]++
		}
	}
	var sum float64
	for c := range classes {
		if d := 2*tp[c] + fp[c] + fn[c]; d > 0 {
			sum += 2 * float64(tp[c]) / float64(d)
		}
	}
	return sum / float64(len(classes))
}

func stats(l []time.Duration) (mean, p50, p99 time.Duration) {
	if len(l) == 0 {
		return 0, 0, 0
	}
	s := slices.Clone(l)
	slices.Sort(s)
	var total time.Duration
	for _, d := range s {
		total += d
	}
	r := func(d time.Duration) time.Duration { return d.Round(time.Microsecond / 10) }
	return r(total / time.Duration(len(s))), r(s[len(s)/2]), r(s[len(s)*99/100])
}
