// Command toxicity evaluates security.toxicity.flag and prints markdown tables:
//
//   - HateCheck (toxicity/hatecheck/test_suite_cases.csv, CC BY 4.0, Röttger et al. 2021):
//     hateful = flag; accuracy, precision, recall and F1 overall and per functionality.
//   - Davidson et al. 2017 (toxicity/davidson/labeled_data.csv, MIT): hate_speech + offensive =
//     toxic; precision, recall and F1 on a fixed held-out 20% split (indices shuffled with
//     math/rand/v2 PCG seeded with -seed). -split train evaluates the other 80%, the part used to
//     tune weights.
//
// Positive means score >= 0.5 (the default threshold).
package main

import (
	"context"
	"encoding/csv"
	"flag"
	"fmt"
	"io"
	"log"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"

	"github.com/sluice-api/sluice/internal/services/toxicity"
)

type example struct {
	text  string
	toxic bool
	group string
}

func main() {
	data := flag.String("data", "../shared/data", "path to the shared data directory")
	split := flag.String("split", "test", "davidson split to evaluate: test (held-out 20%) or train (80%)")
	seed := flag.Uint64("seed", 20170101, "seed of the davidson split")
	flag.Parse()
	if err := run(*data, *split, *seed); err != nil {
		log.Fatal(err)
	}
}

func run(data, split string, seed uint64) error {
	svc, err := toxicity.New()
	if err != nil {
		return fmt.Errorf("new service: %w", err)
	}
	hc, err := readCSV(filepath.Join(data, "toxicity", "hatecheck", "test_suite_cases.csv"), func(rec map[string]string) example {
		return example{text: rec["test_case"], toxic: rec["label_gold"] == "hateful", group: rec["functionality"]}
	})
	if err != nil {
		return err
	}
	dv, err := readCSV(filepath.Join(data, "toxicity", "davidson", "labeled_data.csv"), func(rec map[string]string) example {
		return example{text: rec["tweet"], toxic: rec["class"] != "2"}
	})
	if err != nil {
		return err
	}
	dv = davidsonSplit(dv, split, seed)

	overall, groups, err := measure(svc, hc)
	if err != nil {
		return err
	}
	fmt.Println("### HateCheck (hateful = flag; positive = score >= 0.5)")
	fmt.Println()
	fmt.Println("| functionality | n | hateful | accuracy | precision | recall | F1 |")
	fmt.Println("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
	fmt.Println(overall.row("**overall**"))
	names := make([]string, 0, len(groups))
	for g := range groups {
		names = append(names, g)
	}
	sort.Strings(names)
	for _, g := range names {
		fmt.Println(groups[g].row(g))
	}
	d, _, err := measure(svc, dv)
	if err != nil {
		return err
	}
	fmt.Println()
	fmt.Printf("### Davidson %s split (seed %d; hate_speech + offensive = toxic)\n\n", split, seed)
	fmt.Println("| split | n | toxic | accuracy | precision | recall | F1 |")
	fmt.Println("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
	fmt.Println(d.row(split))
	return nil
}

// davidsonSplit returns the held-out 20% ("test") or the remaining 80% ("train").
func davidsonSplit(ex []example, split string, seed uint64) []example {
	idx := make([]int, len(ex))
	for i := range idx {
		idx[i] = i
	}
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	rng.Shuffle(len(idx), func(i, j int) { idx[i], idx[j] = idx[j], idx[i] })
	cut := len(idx) / 5
	pick := idx[:cut]
	if split == "train" {
		pick = idx[cut:]
	}
	sort.Ints(pick)
	out := make([]example, 0, len(pick))
	for _, i := range pick {
		out = append(out, ex[i])
	}
	return out
}

type metrics struct{ tp, fp, tn, fn int }

func (m metrics) row(name string) string {
	n := m.tp + m.fp + m.tn + m.fn
	acc := float64(m.tp+m.tn) / float64(max(n, 1))
	p, r, f := "-", "-", "-"
	if m.tp+m.fp > 0 {
		p = fmt.Sprintf("%.3f", float64(m.tp)/float64(m.tp+m.fp))
	}
	if m.tp+m.fn > 0 {
		r = fmt.Sprintf("%.3f", float64(m.tp)/float64(m.tp+m.fn))
	}
	if m.tp > 0 {
		pp := float64(m.tp) / float64(m.tp+m.fp)
		rr := float64(m.tp) / float64(m.tp+m.fn)
		f = fmt.Sprintf("%.3f", 2*pp*rr/(pp+rr))
	}
	return fmt.Sprintf("| %s | %d | %d | %.3f | %s | %s | %s |", name, n, m.tp+m.fn, acc, p, r, f)
}

func (m *metrics) add(pred, gold bool) {
	switch {
	case pred && gold:
		m.tp++
	case pred:
		m.fp++
	case gold:
		m.fn++
	default:
		m.tn++
	}
}

func measure(svc *toxicity.Service, ex []example) (metrics, map[string]*metrics, error) {
	var all metrics
	groups := map[string]*metrics{}
	for _, e := range ex {
		a, err := svc.Analyze(context.Background(), e.text)
		if err != nil {
			return all, nil, fmt.Errorf("analyze: %w", err)
		}
		pred := a.Score >= 0.5
		all.add(pred, e.toxic)
		if e.group != "" {
			if groups[e.group] == nil {
				groups[e.group] = &metrics{}
			}
			groups[e.group].add(pred, e.toxic)
		}
	}
	return all, groups, nil
}

func readCSV(path string, conv func(map[string]string) example) ([]example, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open data: %w", err)
	}
	defer f.Close()
	rd := csv.NewReader(f)
	rd.FieldsPerRecord = -1
	head, err := rd.Read()
	if err != nil {
		return nil, fmt.Errorf("read header of %s: %w", path, err)
	}
	var out []example
	for {
		rec, err := rd.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", path, err)
		}
		m := make(map[string]string, len(head))
		for i, h := range head {
			if i < len(rec) {
				m[h] = rec[i]
			}
		}
		out = append(out, conv(m))
	}
	return out, nil
}
