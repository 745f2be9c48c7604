// Command probe scores sentences of our own (one per line of a file; # starts a comment) with
// the embedded toxicity model and with trained candidates, and shows how each model's preparer
// reads them: whether a quoted passage or reported clause became a quote token. It is for
// looking at why a candidate moves on a kind of text with sentences we wrote, never with the
// evaluation suites' cases:
//
//	go run ./scripts/eval/toxicity/probe [-v] [-mode MODE] [-drop TOKENS] -file FILE [DIR ...]
//
// Each DIR holds a candidate written by go run ./scripts/train/toxicity -out DIR; the embedded
// model is always the first column. With -v it also prints each model's prepared text. With
// -drop (comma-separated tokens of the prepared text, e.g. zqneg,zqnegx) each score is followed
// by the score of the prepared text without those tokens, to see what they weigh.
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"

	"github.com/sluice-api/sluice/internal/services/toxicity"
)

func main() {
	file := flag.String("file", "", "sentences to score, one per line (# starts a comment)")
	verbose := flag.Bool("v", false, "print each model's prepared text")
	mode := flag.String("mode", "", "read every model with this implicit-quote mode (off, all, condemned) instead of the one it was trained with")
	drop := flag.String("drop", "", "comma-separated tokens of the prepared text to score without, after each score")
	flag.Parse()
	if *file == "" {
		log.Fatal("probe: -file is required")
	}
	if err := run(*file, *mode, flag.Args(), *verbose, dropSet(*drop)); err != nil {
		log.Fatal(err)
	}
}

// model is one model to probe, through the service, read with the implicit-quote mode it was
// trained with or the one -mode gives.
type model struct {
	name string
	svc  *toxicity.Service
}

func load(name string, svc *toxicity.Service, override string) (model, error) {
	if override != "" {
		mode, err := toxicity.ParseImplicitMode(override)
		if err != nil {
			return model{}, err
		}
		if svc, err = svc.WithImplicitMode(mode); err != nil {
			return model{}, fmt.Errorf("%s: %w", name, err)
		}
	}
	return model{name: name, svc: svc}, nil
}

// dropSet parses -drop.
func dropSet(spec string) map[string]bool {
	out := map[string]bool{}
	for _, t := range strings.Split(spec, ",") {
		if t = strings.TrimSpace(t); t != "" {
			out[t] = true
		}
	}
	return out
}

// without returns prepared with every token in drop removed, and whether it removed any.
func without(prepared string, drop map[string]bool) (string, bool) {
	words := strings.Fields(prepared)
	kept := words[:0]
	for _, w := range words {
		if !drop[w] {
			kept = append(kept, w)
		}
	}
	return strings.Join(kept, " "), len(kept) < len(words)
}

func run(file, mode string, dirs []string, verbose bool, drop map[string]bool) error {
	svc, err := toxicity.New()
	if err != nil {
		return err
	}
	embedded, err := load("embedded", svc, mode)
	if err != nil {
		return err
	}
	models := []model{embedded}
	for _, d := range dirs {
		svc, err := toxicity.LoadDir(d)
		if err != nil {
			return err
		}
		m, err := load(filepath.Base(d), svc, mode)
		if err != nil {
			return err
		}
		models = append(models, m)
	}
	f, err := os.Open(file)
	if err != nil {
		return err
	}
	defer f.Close()
	ctx := context.Background()
	fmt.Print("| sentence |")
	for _, m := range models {
		fmt.Printf(" %s |", m.name)
	}
	fmt.Print("\n| --- |")
	for range models {
		fmt.Print(" ---: |")
	}
	fmt.Println()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fmt.Printf("| %s |", line)
		var prepared []string
		for _, m := range models {
			p, err := m.svc.Prepared(ctx, line)
			if err != nil {
				return err
			}
			prob, err := m.svc.Probability(ctx, line)
			if err != nil {
				return err
			}
			mark := ""
			if strings.Contains(p, toxicity.TokenQuote) {
				mark = " q"
			}
			if d, ok := without(p, drop); ok {
				pd, err := m.svc.PreparedProbability(ctx, d)
				if err != nil {
					return err
				}
				mark += fmt.Sprintf(" (%.3f)", pd)
			}
			fmt.Printf(" %.3f%s |", prob, mark)
			prepared = append(prepared, m.name+": "+p)
		}
		fmt.Println()
		if verbose {
			for _, p := range prepared {
				fmt.Println("    " + p)
			}
		}
	}
	return sc.Err()
}
