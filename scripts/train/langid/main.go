// Command langid trains the n-gram model of routing.language.detect
// (internal/services/langid/model.bin) by distilling lingua-go's language models.
//
// lingua-go (Apache-2.0) ships, for each of its 75 languages, tables of letter n-grams of one to
// five characters counted in Leipzig news corpora. This command reads them (the model files
// only; lingua-go's code is not used), turns them into the counts of n-grams of words padded with
// a boundary on each side (see derive.go), keeps per language the n-grams whose loss would cost
// the most likelihood, quantises their conditional log probabilities to one byte and writes one
// shared hash table. Languages that own their script (Greek, Hangul, Thai, ...) need no n-grams.
//
//	go run ./scripts/train/langid [-lingua DIR] [-out FILE] [-budget N]
//
// The input is pinned: -lingua defaults to lingua-go v1.4.0's language-models directory in the
// Go module cache (fetch it with `go mod download` in scripts/langid-compare), and the command
// checks the SHA-256 of every file it reads against sha256.txt. The same input gives the same
// bytes.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/sluice-api/sluice/scripts/internal/evalkit"
)

// linguaModule is the lingua-go release the model is distilled from.
const linguaModule = "github.com/pemistahl/lingua-go@v1.4.0"

func main() {
	log.SetFlags(0)
	cfg := defaultConfig()
	lingua := flag.String("lingua", "", "lingua-go's language-models directory (default: "+linguaModule+" in the module cache)")
	out := flag.String("out", filepath.Join("internal", "services", "langid", "model.bin"), "model file to write")
	flag.IntVar(&cfg.Budget, "budget", cfg.Budget, "n-grams of two to five characters kept per language")
	flag.Float64Var(&cfg.Backoff, "backoff", cfg.Backoff, "score lost per order backed off (nats, negative)")
	flag.Float64Var(&cfg.Unseen, "unseen", cfg.Unseen, "score of a character a language does not have (nats, negative)")
	flag.StringVar(&cfg.Cache, "cache", "", "directory to cache derived counts in between runs (for tuning)")
	flag.IntVar(&cfg.MinOrder, "min-order", cfg.MinOrder, "shortest n-gram scored in words of more than one character")
	flag.Float64Var(&cfg.Step, "step", cfg.Step, "quantisation step of the values (nats)")
	dev := flag.Bool("dev", false, "after training, print accuracy on the synthetic and real development sets")
	flag.Float64Var(&cfg.ChatWeight, "chat-weight", cfg.ChatWeight, "share of a language's letters its hand-written chat phrases stand for (0: none)")
	flag.BoolVar(&cfg.NoPrior, "no-prior", false, "give every language the same prior")
	flag.Float64Var(&cfg.PriorScale, "prior-scale", cfg.PriorScale, "multiplies every language's log prior (prior.go)")
	flag.IntVar(&cfg.KeepWords, "keep-words", cfg.KeepWords, "how many of the most frequent words of a language's Tatoeba sentences keep all their n-grams whatever -budget (0: none)")
	flag.Float64Var(&cfg.TatoebaWeight, "tatoeba-weight", cfg.TatoebaWeight, "share of a language's letters its Tatoeba sentences from -data stand for (0: none; de en es fr it nl pl pt)")
	flag.Float64Var(&cfg.WordWeight, "word-weight", cfg.WordWeight, "scale of the whole-word values learned from -data's Tatoeba sentences (0: none; see words.go)")
	flag.IntVar(&cfg.WordMin, "word-min", cfg.WordMin, "fewest occurrences in a language's Tatoeba training lines for a whole-word value")
	flag.BoolVar(&cfg.WordShort, "word-short", cfg.WordShort, "whole-word values for words of up to three letters too (their padded form is an n-gram)")
	flag.Float64Var(&cfg.OneWeight, "one-weight", cfg.OneWeight, "scale of the one-word-message values learned from -data's one-word Tatoeba lines (0: none; see oneword.go)")
	flag.Float64Var(&cfg.OneDiscount, "one-discount", cfg.OneDiscount, "taken off each word's count of one-word lines before its share is computed")
	flag.BoolVar(&cfg.OneChat, "one-chat", cfg.OneChat, "add the one-word turns users typed to chatbots (ConvAbuse's training split in -data, English) to English's one-word lines")
	dump := flag.String("dump", "", "with -dev, write every development result to this file (for calibration)")
	data := evalkit.DataFlag() // -dev's real-text set
	grid := flag.String("grid", "", "tuning: train several models in one pass, \"name:key=value,...;...\" (keys: budget, backoff, unseen, chat, minorder, prior, priorscale, tatoeba, keep, word, wordmin, short, one, onedisc, chat1); each goes to -out with _name before .bin")
	evalkit.ParseFlags()
	cfg.Dev = *dev
	cfg.Data = *data
	dir := *lingua
	if dir == "" {
		var err error
		if dir, err = moduleCacheDir(); err != nil {
			log.Fatal(err)
		}
	}
	if err := checkSums(dir); err != nil {
		log.Fatal(err)
	}
	cfgs := []config{cfg}
	names := []string{""}
	if *grid != "" {
		cfgs, names = nil, nil
		for _, spec := range strings.Split(*grid, ";") {
			name, sets, _ := strings.Cut(spec, ":")
			c := cfg
			if err := c.set(sets); err != nil {
				log.Fatalf("-grid %q: %v", spec, err)
			}
			cfgs = append(cfgs, c)
			names = append(names, name)
		}
	}
	trs, err := train(dir, cfgs)
	if err != nil {
		log.Fatal(err)
	}
	for i, tr := range trs {
		path := *out
		if names[i] != "" {
			path = strings.TrimSuffix(path, ".bin") + "_" + names[i] + ".bin"
			fmt.Printf("\n# %s\n", names[i])
		}
		var buf bytes.Buffer
		if err := tr.encode(&buf); err != nil {
			log.Fatal(err)
		}
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			log.Fatal(err)
		}
		log.Printf("wrote %s: %d bytes, %d n-grams, %d postings", path, buf.Len(), len(tr.entries), tr.postings)
		if *dev {
			d := *dump
			if d != "" && names[i] != "" {
				d += "_" + names[i]
			}
			if err := devEval(buf.Bytes(), tr, *data, d); err != nil {
				log.Fatal(err)
			}
		}
	}
}

// moduleCacheDir finds lingua-go's language-models directory in the Go module cache.
func moduleCacheDir() (string, error) {
	out, err := exec.Command("go", "env", "GOMODCACHE").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMODCACHE: %w", err)
	}
	dir := filepath.Join(strings.TrimSpace(string(out)), filepath.FromSlash(linguaModule), "language-models")
	if _, err := os.Stat(dir); err != nil {
		return "", fmt.Errorf("%s is not in the module cache (%w); run `GOWORK=off go mod download` in scripts/langid-compare, or pass -lingua", linguaModule, err)
	}
	return dir, nil
}
