// Command intent evaluates routing.intent.map on held-out data and prints a markdown table:
//
//	go run ./scripts/eval/intent -data ../shared/data
//
// assistant: CLINC150 test (in-scope accuracy; a null answer counts as wrong) and oos_test (recall
// of the null answer). banking: banking77 test.csv (accuracy and macro-F1; a null answer is wrong).
// Latency is the wall time of one Service.Run call, measured sequentially.
package main

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/sluice-api/sluice/internal/services"
	"github.com/sluice-api/sluice/internal/services/intent"
)

type example struct{ text, label string } // label "" means out of scope

func main() {
	data := flag.String("data", "../shared/data", "directory of the shared labeled data")
	flag.Parse()
	log.SetFlags(0)
	if err := run(*data); err != nil {
		log.Fatal(err)
	}
}

func run(data string) error {
	svc, err := intent.New()
	if err != nil {
		return err
	}
	var raw map[string][][2]string
	b, err := os.ReadFile(filepath.Join(data, "intent", "clinc150", "data_full.json"))
	if err != nil {
		return fmt.Errorf("read clinc150: %w", err)
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return fmt.Errorf("parse clinc150: %w", err)
	}
	pairs := func(split string, oos bool) []example {
		var out []example
		for _, p := range raw[split] {
			e := example{text: p[0]}
			if !oos {
				e.label = p[1]
			}
			out = append(out, e)
		}
		return out
	}
	bank, err := readBanking(filepath.Join(data, "intent", "banking77", "test.csv"))
	if err != nil {
		return err
	}

	test, l1, err := predict(svc, intent.CatalogAssistant, pairs("test", false))
	if err != nil {
		return err
	}
	oos, l2, err := predict(svc, intent.CatalogAssistant, pairs("oos_test", true))
	if err != nil {
		return err
	}
	bk, l3, err := predict(svc, intent.CatalogBanking, bank)
	if err != nil {
		return err
	}
	asstLat := append(slices.Clone(l1), l2...)

	fmt.Println("| catalog | data set | n | metric | value |")
	fmt.Println("| --- | --- | ---: | --- | ---: |")
	row := func(cat, set string, n int, metric string, v float64) {
		fmt.Printf("| %s | %s | %d | %s | %.4f |\n", cat, set, n, metric, v)
	}
	testN, oosN := len(test), len(oos)
	row("assistant", "CLINC150 test", testN, "in-scope accuracy", accuracy(test, false))
	row("assistant", "CLINC150 test", testN, "top-1 accuracy (no rejection)", accuracy(test, true))
	row("assistant", "CLINC150 test", testN, "in-scope wrongly rejected", rate(test, func(p pred) bool { return p.got == "" }))
	row("assistant", "CLINC150 oos_test", oosN, "oos recall", rate(oos, func(p pred) bool { return p.got == "" }))
	row("assistant", "CLINC150 test + oos_test", testN+oosN, "overall accuracy", accuracy(append(slices.Clone(test), oos...), false))
	row("banking", "banking77 test", len(bk), "accuracy", accuracy(bk, false))
	row("banking", "banking77 test", len(bk), "top-1 accuracy (no rejection)", accuracy(bk, true))
	row("banking", "banking77 test", len(bk), "macro-F1", macroF1(bk))
	row("banking", "banking77 test", len(bk), "rejected (null)", rate(bk, func(p pred) bool { return p.got == "" }))
	fmt.Println()
	fmt.Println("| catalog | utterances | mean latency | p50 | p99 |")
	fmt.Println("| --- | ---: | ---: | ---: | ---: |")
	for _, c := range []struct {
		name string
		l    []time.Duration
	}{{"assistant", asstLat}, {"banking", l3}} {
		mean, p50, p99 := stats(c.l)
		fmt.Printf("| %s | %d | %s | %s | %s |\n", c.name, len(c.l), mean, p50, p99)
	}
	return nil
}

type pred struct{ want, got, top string }

func predict(svc *intent.Service, catalog string, exs []example) ([]pred, []time.Duration, error) {
	ctx := context.Background()
	params := services.Params{"catalog": catalog}
	out := make([]pred, 0, len(exs))
	lat := make([]time.Duration, 0, len(exs))
	for _, e := range exs {
		start := time.Now()
		res, err := svc.Run(ctx, services.Request{Payload: services.Payload{Type: services.TypeText, Value: e.text}, Params: params})
		lat = append(lat, time.Since(start))
		if err != nil {
			return nil, nil, err
		}
		d, ok := res.Data.(intent.Data)
		if !ok {
			return nil, nil, fmt.Errorf("unexpected result data %T", res.Data)
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

// macroF1 averages per-class F1 over the gold classes; a null answer is a miss.
func macroF1(ps []pred) float64 {
	tp, fp, fn := map[string]int{}, map[string]int{}, map[string]int{}
	for _, p := range ps {
		if p.got == p.want {
			tp[p.want]++
			continue
		}
		fn[p.want]++
		if p.got != "" {
			fp[p.got]++
		}
	}
	classes := map[string]bool{}
	for _, p := range ps {
		classes[p.want] = true
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

func readBanking(path string) ([]example, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.FieldsPerRecord = 2
	var out []example
	for first := true; ; first = false {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", path, err)
		}
		if !first {
			out = append(out, example{text: rec[0], label: rec[1]})
		}
	}
}
