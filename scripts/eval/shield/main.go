// Command shield evaluates security.jailbreak.shield: precision, recall, F1 and accuracy at the
// default threshold on jailbreak/llm-warden test.csv, and recall on the attack-only
// jailbreak/giskard-prompt-injections set. It prints markdown tables.
//
// With -tune it instead reports, on llm-warden train.csv (the only data used to set weights),
// how often each rule fires on jailbreak and benign prompts.
package main

import (
	"context"
	"encoding/csv"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"
	"sort"

	"github.com/sluice-api/sluice/internal/services"
	"github.com/sluice-api/sluice/internal/services/shield"
)

type example struct {
	text   string
	attack bool
}

func main() {
	data := flag.String("data", "../shared/data", "path to the shared data directory")
	tune := flag.Bool("tune", false, "print per-rule statistics on llm-warden train.csv")
	flag.Parse()
	if err := run(*data, *tune); err != nil {
		log.Fatal(err)
	}
}

func run(data string, tune bool) error {
	svc, err := shield.New()
	if err != nil {
		return fmt.Errorf("new service: %w", err)
	}
	warden := filepath.Join(data, "jailbreak", "llm-warden")
	if tune {
		train, err := readCSV(filepath.Join(warden, "train.csv"), "prompt", "type", "jailbreak")
		if err != nil {
			return err
		}
		return tuneReport(svc, train)
	}
	test, err := readCSV(filepath.Join(warden, "test.csv"), "prompt", "type", "jailbreak")
	if err != nil {
		return err
	}
	giskard, err := readCSV(filepath.Join(data, "jailbreak", "giskard-prompt-injections", "prompt_injections.csv"), "prompt", "", "")
	if err != nil {
		return err
	}
	fmt.Println("Positive = score >= threshold 0.5 (verdict flag, or uncertain at/above the threshold).")
	fmt.Println()
	fmt.Println("| data set | n | attacks | precision | recall | F1 | accuracy | flag / uncertain / pass |")
	fmt.Println("| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |")
	for _, set := range []struct {
		name string
		ex   []example
	}{{"llm-warden test.csv", test}, {"giskard prompt_injections.csv (attacks only)", giskard}} {
		m, err := measure(svc, set.ex)
		if err != nil {
			return err
		}
		fmt.Printf("| %s | %d | %d | %s | %.3f | %s | %s | %d / %d / %d |\n", set.name, m.n, m.tp+m.fn,
			m.precision(), m.recall(), m.f1(), m.accuracy(), m.verdicts[services.VerdictFlag],
			m.verdicts[services.VerdictUncertain], m.verdicts[services.VerdictPass])
	}
	return nil
}

type metrics struct {
	n, tp, fp, tn, fn int
	verdicts          map[string]int
}

func (m metrics) recall() float64 { return float64(m.tp) / float64(max(m.tp+m.fn, 1)) }
func (m metrics) precision() string {
	if m.tp+m.fp == 0 {
		return "-"
	}
	return fmt.Sprintf("%.3f", float64(m.tp)/float64(m.tp+m.fp))
}
func (m metrics) f1() string {
	if m.tp+m.fp == 0 || m.tn+m.fp == 0 {
		return "-"
	}
	p := float64(m.tp) / float64(m.tp+m.fp)
	r := m.recall()
	return fmt.Sprintf("%.3f", 2*p*r/max(p+r, 1e-9))
}
func (m metrics) accuracy() string {
	return fmt.Sprintf("%.3f", float64(m.tp+m.tn)/float64(max(m.n, 1)))
}

func measure(svc *shield.Service, ex []example) (metrics, error) {
	m := metrics{verdicts: map[string]int{}}
	for _, e := range ex {
		res, err := svc.Run(context.Background(), services.Request{
			Payload: services.Payload{Type: services.TypeText, Value: e.text},
			Params:  services.Params{"threshold": 0.5},
		})
		if err != nil {
			return m, fmt.Errorf("run: %w", err)
		}
		m.n++
		m.verdicts[res.Verdict]++
		pred := res.Score >= 0.5
		switch {
		case pred && e.attack:
			m.tp++
		case pred:
			m.fp++
		case e.attack:
			m.fn++
		default:
			m.tn++
		}
	}
	return m, nil
}

func tuneReport(svc *shield.Service, train []example) error {
	type stat struct{ attack, benign int }
	stats := map[string]*stat{}
	for _, e := range train {
		a, err := svc.Analyze(context.Background(), e.text)
		if err != nil {
			return err
		}
		for _, r := range a.Rules {
			if stats[r] == nil {
				stats[r] = &stat{}
			}
			if e.attack {
				stats[r].attack++
			} else {
				stats[r].benign++
			}
		}
	}
	names := make([]string, 0, len(stats))
	for n := range stats {
		names = append(names, n)
	}
	sort.Strings(names)
	fmt.Println("| rule | jailbreak hits | benign hits | P(attack) (+1 smoothed) |")
	fmt.Println("| --- | ---: | ---: | ---: |")
	for _, n := range names {
		s := stats[n]
		fmt.Printf("| %s | %d | %d | %.2f |\n", n, s.attack, s.benign, float64(s.attack+1)/float64(s.attack+s.benign+2))
	}
	m, err := measure(svc, train)
	if err != nil {
		return err
	}
	fmt.Printf("\ntrain: precision %s recall %.3f F1 %s accuracy %s\n", m.precision(), m.recall(), m.f1(), m.accuracy())
	return nil
}

// readCSV reads textCol from a CSV file; labelCol == positive marks attacks ("" = all are).
func readCSV(path, textCol, labelCol, positive string) ([]example, error) {
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
	col := map[string]int{}
	for i, h := range head {
		col[h] = i
	}
	ti, ok := col[textCol]
	if !ok {
		return nil, fmt.Errorf("%s: no column %q", path, textCol)
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
		e := example{text: rec[ti], attack: true}
		if labelCol != "" {
			e.attack = rec[col[labelCol]] == positive
		}
		out = append(out, e)
	}
	return out, nil
}
