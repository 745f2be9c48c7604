// Command probe scores sentences of our own (one per line of a file; # starts a comment) with
// the embedded toxicity model and with trained candidates, and shows how each model's preparer
// reads them: whether a quoted passage or reported clause became a quote token. It is for
// looking at why a candidate moves on a kind of text with sentences we wrote, never with the
// evaluation suites' cases:
//
//	go run ./scripts/eval/toxicity/probe [-v] [-mode MODE] -file FILE [DIR ...]
//
// Each DIR holds a candidate written by go run ./scripts/train/toxicity -out DIR; the embedded
// model is always the first column. With -v it also prints each model's prepared text.
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

	"github.com/sluice-api/sluice/internal/services/textclass"
	"github.com/sluice-api/sluice/internal/services/toxicity"
)

func main() {
	file := flag.String("file", "", "sentences to score, one per line (# starts a comment)")
	verbose := flag.Bool("v", false, "print each model's prepared text")
	mode := flag.String("mode", "", "read every model with this implicit-quote mode (off, all, condemned) instead of the one it was trained with")
	flag.Parse()
	if *file == "" {
		log.Fatal("probe: -file is required")
	}
	if err := run(*file, *mode, flag.Args(), *verbose); err != nil {
		log.Fatal(err)
	}
}

// model is one model to probe with its preparer, set to the implicit-quote mode it was
// trained with.
type model struct {
	name string
	m    *textclass.Model
	prep *toxicity.Preparer
}

func load(name string, raw []byte, lexicon, override string) (model, error) {
	m, err := textclass.Decode(raw)
	if err != nil {
		return model{}, fmt.Errorf("%s: %w", name, err)
	}
	trained := m.Meta[toxicity.MetaImplicit]
	if override != "" {
		trained = override
	}
	mode, err := toxicity.ParseImplicitMode(trained)
	if err != nil {
		return model{}, fmt.Errorf("%s: %w", name, err)
	}
	prep, err := toxicity.NewPreparer(toxicity.GroupsFile, toxicity.PolarityFile, lexicon)
	if err != nil {
		return model{}, fmt.Errorf("%s: %w", name, err)
	}
	if prep, err = prep.WithImplicitQuotes(mode, toxicity.ReportingFile); err != nil {
		return model{}, fmt.Errorf("%s: %w", name, err)
	}
	return model{name: name, m: m, prep: prep}, nil
}

func run(file, mode string, dirs []string, verbose bool) error {
	raw, err := os.ReadFile("internal/services/toxicity/" + toxicity.ModelFileName)
	if err != nil {
		return fmt.Errorf("run from the repository root: %w", err)
	}
	lex, err := os.ReadFile("internal/services/toxicity/" + toxicity.LexiconFileName)
	if err != nil {
		return err
	}
	embedded, err := load("embedded", raw, string(lex), mode)
	if err != nil {
		return err
	}
	models := []model{embedded}
	for _, d := range dirs {
		raw, err := os.ReadFile(filepath.Join(d, toxicity.ModelFileName))
		if err != nil {
			return err
		}
		lex, err := os.ReadFile(filepath.Join(d, toxicity.LexiconFileName))
		if err != nil {
			return err
		}
		m, err := load(filepath.Base(d), raw, string(lex), mode)
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
			score := func(ctx context.Context, p string) (float64, error) {
				r, err := m.m.Score(ctx, p)
				return r.P, err
			}
			p, err := m.prep.Prepare(ctx, line, score)
			if err != nil {
				return err
			}
			r, err := m.m.Score(ctx, p)
			if err != nil {
				return err
			}
			mark := ""
			if strings.Contains(p, toxicity.TokenQuote) {
				mark = " q"
			}
			fmt.Printf(" %.3f%s |", r.P, mark)
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
