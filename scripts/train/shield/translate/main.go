// Command translate makes the shield's machine-translated training text (issue 42): real English
// attacks and real English harmless requests of the shared data, translated offline by Debian's
// Apertium packages into Spanish, Portuguese, French and Italian.
//
//	make shield-translations     # installs the Apertium packages, then runs this command
//	go run ./scripts/train/shield/translate -data <data dir>
//
// It translates only training text: the Gandalf attacks outside their dev share, the 175
// self-instruct seed tasks, the WildGuardMix unharmful prompts outside their dev share and every
// 50th CLINC150 training utterance. Spanish comes from eng-spa, Portuguese and French from the
// Spanish through es-pt and es-fr, Italian from the Catalan of eng-cat through cat-ita; -u keeps
// unknown words unmarked. The output (-out, one TSV file per language: source, id, 0 or 1 for
// harmless or attack, text) and versions.txt, the installed versions of the packages, are read
// by the trainer, so models.lock records their hashes. Only the translated text is used, never
// the packages' data.
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/sluice-api/sluice/scripts/internal/evalkit"
	"github.com/sluice-api/sluice/scripts/internal/shielddata"
)

// Dir is where the translations are written by default, relative to the repository root.
var Dir = filepath.Join("scripts", "train", "shield", "translated")

// Packages are the Debian packages the translations come from (make shield-translations).
var Packages = []string{"apertium", "lttoolbox", "cg3", "apertium-eng-spa", "apertium-es-pt", "apertium-fr-es", "apertium-eng-cat", "apertium-cat-ita"}

// chains are the Apertium pairs each language is reached by, in order.
var chains = map[string][]string{
	"es": {"eng-spa"},
	"pt": {"eng-spa", "es-pt"},
	"fr": {"eng-spa", "es-fr"},
	"it": {"eng-cat", "cat-ita"},
}

// Langs are the languages made, in the order they are written.
var Langs = []string{"es", "fr", "it", "pt"}

// clincEvery picks every n-th CLINC150 training utterance.
const clincEvery = 50

func main() {
	data := evalkit.DataFlag()
	out := flag.String("out", Dir, "directory to write es.tsv, fr.tsv, it.tsv, pt.tsv and versions.txt to")
	flag.Parse()
	if err := run(context.Background(), *data, *out); err != nil {
		log.Fatal(err)
	}
}

func run(ctx context.Context, data, out string) error {
	docs, err := sources(data)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	texts := make([]string, len(docs))
	for i, d := range docs {
		texts[i] = oneLine(d.Text)
	}
	for _, lang := range Langs {
		got, err := translate(ctx, texts, chains[lang])
		if err != nil {
			return fmt.Errorf("%s: %w", lang, err)
		}
		var b strings.Builder
		for i, d := range docs {
			attack := "0"
			if d.Attack {
				attack = "1"
			}
			fmt.Fprintf(&b, "%s\t%s\t%s\t%s\n", d.Source, d.ID, attack, oneLine(got[i]))
		}
		if err := os.WriteFile(filepath.Join(out, lang+".tsv"), []byte(b.String()), 0o644); err != nil {
			return err
		}
		log.Printf("%s: %d texts", lang, len(got))
	}
	v, err := exec.CommandContext(ctx, "dpkg-query", append([]string{"-W", "-f", "${Package} ${Version}\\n"}, Packages...)...).Output()
	if err != nil {
		return fmt.Errorf("dpkg-query (run make shield-translations): %w", err)
	}
	return os.WriteFile(filepath.Join(out, "versions.txt"), v, 0o644)
}

// sources returns the English training texts translated.
func sources(data string) ([]shielddata.Doc, error) {
	gandalf, _, err := shielddata.Gandalf(data)
	if err != nil {
		return nil, err
	}
	seeds, _, err := shielddata.SelfInstruct(data)
	if err != nil {
		return nil, err
	}
	wild, _, _, err := shielddata.WildGuardMix(data)
	if err != nil {
		return nil, err
	}
	clinc, err := shielddata.CLINC(data, "train")
	if err != nil {
		return nil, err
	}
	var picked []shielddata.Doc
	for i, d := range clinc {
		if i%clincEvery == 0 {
			picked = append(picked, d)
		}
	}
	var all []shielddata.Doc
	for _, d := range gandalf {
		if d.Lang == "en" {
			all = append(all, d)
		}
	}
	all = append(all, seeds...)
	all = append(all, wild...)
	return append(all, picked...), nil
}

// oneLine puts a text on one line without tabs.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// translate sends the texts, one a line, through the Apertium pairs in order.
func translate(ctx context.Context, texts []string, pairs []string) ([]string, error) {
	in := []byte(strings.Join(texts, "\n") + "\n")
	for _, p := range pairs {
		cmd := exec.CommandContext(ctx, "apertium", "-u", p)
		cmd.Stdin = bytes.NewReader(in)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		o, err := cmd.Output()
		if err != nil {
			return nil, fmt.Errorf("apertium %s (run make shield-translations): %w: %s", p, err, strings.TrimSpace(stderr.String()))
		}
		in = o
	}
	lines := strings.Split(strings.TrimRight(string(in), "\n"), "\n")
	if len(lines) != len(texts) {
		return nil, fmt.Errorf("apertium gave %d lines for %d texts", len(lines), len(texts))
	}
	return lines, nil
}
