// Command pii trains the person-name tagger of governance.pii.redact and .tokenize: its word
// classes, its gazetteer and its weights, written as one model file to
// internal/services/pii/names/tagger.model. The run is deterministic: the same data and flags
// give the same bytes.
//
// Training data: the WNUT 2017 and Broad Twitter Corpus training splits and GermEval 2014's
// dev split (ner/*; each sentence seen 3 times per epoch), the training part of
// ner/europeana-newspapers (de, fr, nl; the last fifth of each file is held out, see
// scripts/internal/nerdata) and the train split of ner/lener-br (pt), each seen 5 times,
// sentences generated from templates with names from names/* (faker, faker-js, mimesis,
// popular-names-by-country), and banking77 and CLINC150 utterances as text without names. The
// word classes are learned from unlabeled text (see clusterText), the common-word flag of the
// gazetteer from text without labels (see proseTexts). No test or evaluation split is read:
// WikiGold, the presidio-research set, Europeana's held-out fifth, the LeNER-Br test split, the
// WNUT and BTC dev splits and the hand-labelled social-media sample are never trained on (the
// dev splits and the sample are development sets), nor are the other models' test sets.
//
// Usage: go run ./scripts/models lock pii (or make train-pii) trains with the flags models.lock
// records and records the run; go run ./scripts/train/pii [-data DIR] [-out DIR] trains with
// the defaults, which are the locked flags.
//
// For choosing settings, -dev leaves the Europeana development blocks out and -germeval-fold
// K/5 a fifth of GermEval; go run ./scripts/eval/pii -dev DIR scores what such a run wrote.
package main

import (
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/sluice-api/sluice/internal/services/pii/names"
	"github.com/sluice-api/sluice/scripts/internal/devset"
	"github.com/sluice-api/sluice/scripts/internal/evalkit"
	"github.com/sluice-api/sluice/scripts/internal/nerdata"
)

func main() {
	data := evalkit.DataFlag()
	out := flag.String("out", filepath.Join("internal", "services", "pii", "names"), "directory to write the model and gazetteer to")
	seed := flag.Uint64("seed", 1, "random seed for sentence generation and training order")
	epochs := flag.Int("epochs", 8, "training passes")
	bits := flag.Uint("bits", 19, "log2 of the number of feature buckets")
	perLang := flag.Int("synth", 1000, "generated texts per language (English gets twice as many)")
	repeat := flag.Int("corpus-repeat", 5, "how many times each NER corpus text is seen per epoch")
	dropout := flag.Float64("gaz-dropout", 0.05, "share of words whose name flags are hidden in each epoch")
	ensemble := flag.Int("ensemble", 5, "train this many taggers (seeds seed, seed+1, ...) and average their weights")
	dev := flag.Bool("dev", false, "for choosing settings: leave out the Europeana development blocks (score them with go run ./scripts/eval/pii -dev DIR)")
	var o options
	flag.IntVar(&o.socialRepeat, "social-repeat", 3, "how many times each WNUT 2017 and Broad Twitter Corpus training sentence is seen per epoch")
	flag.IntVar(&o.germevalRepeat, "germeval-repeat", 3, "how many times each GermEval 2014 sentence is seen per epoch")
	flag.StringVar(&o.clusterSizes, "clusters", "64,256,1024", "numbers of word classes to learn from unlabeled text, one granularity each (empty: no word-class features)")
	flag.IntVar(&o.clusterMin, "cluster-min", 3, "words seen fewer times in the unlabeled text get no class")
	flag.IntVar(&o.clusterIters, "cluster-iters", 12, "passes of the exchange algorithm over the vocabulary")
	flag.Float64Var(&o.biasB, "bias-b", 48, "bias of the tagger's B score, recorded in the model (chosen on the development sets with go run ./scripts/eval/pii -dev DIRS -bias-b B)")
	flag.StringVar(&o.germevalFold, "germeval-fold", "", "k/n: leave fold k of n of GermEval out of training, to score it with go run ./scripts/eval/pii -dev DIR")
	evalkit.ParseFlags()
	if *ensemble < 1 {
		log.Fatalf("-ensemble %d: want 1 or more", *ensemble)
	}
	if err := run(*data, *out, *seed, *epochs, *bits, *perLang, *repeat, *dropout, *dev, *ensemble, o); err != nil {
		log.Fatal(err)
	}
}

// options are the training settings of the social-media and GermEval data.
type options struct {
	socialRepeat, germevalRepeat int
	germevalFold                 string
	clusterSizes                 string
	clusterMin, clusterIters     int
	biasB                        float64
}

func run(data, out string, seed uint64, epochs int, bits uint, perLang, repeat int, dropout float64, dev bool, ensemble int, o options) error {
	p, err := loadPools(data)
	if err != nil {
		return err
	}
	banking, clinc, err := intentTexts(data)
	if err != nil {
		return err
	}
	eu, err := evalkit.Require(data, "ner", "europeana-newspapers")
	if err != nil {
		return err
	}
	var corpus []names.Example
	for _, lang := range nerdata.EuropeanaLanguages {
		split := nerdata.Europeana
		if dev {
			split = nerdata.EuropeanaDev
		}
		train, _, err := split(eu, lang)
		if err != nil {
			return err
		}
		for _, b := range train {
			corpus = append(corpus, nerdata.Example(b))
		}
	}
	lener, err := evalkit.Require(data, "ner", "lener-br")
	if err != nil {
		return err
	}
	blocks, err := nerdata.LeNERBr(lener, "train")
	if err != nil {
		return err
	}
	for _, b := range blocks {
		corpus = append(corpus, nerdata.Example(b))
	}
	social, err := socialCorpus(data, o)
	if err != nil {
		return err
	}
	if o.germevalFold != "" {
		if err := os.MkdirAll(out, 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(out, "germeval-fold"), []byte(o.germevalFold+"\n"), 0o644); err != nil {
			return err
		}
	}
	// Common words: written in lower case at least twice in the English chat, the NER
	// corpora's training parts or the templates.
	// A word the gazetteer knows as a name counts only where the writer used capitals
	// elsewhere in the same text: CLINC's queries are all in lower case, so "kevin" in "tell
	// kevin i'm late" says nothing about whether kevin is an ordinary word. And it is common
	// only if it is written in lower case at least as often as with a capital mid-sentence:
	// "will" and "rose" are, "john" is not.
	english, other, cased, capitals := vocabulary{}, vocabulary{}, vocabulary{}, vocabulary{}
	prose, err := proseTexts(data)
	if err != nil {
		return err
	}
	for _, t := range append(append(slices.Clone(banking), clinc...), prose...) {
		english.addText(t)
		if hasUpper(t) {
			cased.addText(t)
			capitals.addCapitals(t)
		}
	}
	for _, ex := range append(slices.Clone(corpus), social...) {
		other.addText(ex.Text)
		cased.addText(ex.Text)
		capitals.addCapitals(ex.Text)
	}
	for _, lines := range templates {
		other.addText(lines)
		other.addText(lines)
		cased.addText(lines)
		cased.addText(lines)
	}
	for _, v := range []vocabulary{english, other} {
		for _, w := range v.common(2) {
			if p.builder.Flags(w)&(names.Given|names.Surname) != 0 && (cased[w] < 2 || cased[w] < capitals[w]) {
				continue
			}
			p.builder.Add(w, names.Common)
		}
	}
	gaz := p.builder.Build()
	log.Printf("gazetteer: %d words", gaz.Len())
	var clusters *names.Clusters
	if o.clusterSizes != "" {
		sizes, err := parseSizes(o.clusterSizes)
		if err != nil {
			return fmt.Errorf("-clusters: %w", err)
		}
		once := o
		once.socialRepeat, once.germevalRepeat = min(o.socialRepeat, 1), min(o.germevalRepeat, 1)
		text, err := socialCorpus(data, once)
		if err != nil {
			return err
		}
		ex, err := devset.NewExcluder(data)
		if err != nil {
			return err
		}
		sents, err := clusterText(data, append(slices.Clone(corpus), text...), ex)
		if err != nil {
			return err
		}
		if clusters, err = buildClusters(sents, sizes, o.clusterMin, o.clusterIters); err != nil {
			return err
		}
		log.Printf("word clusters: %d words", clusters.Len())
	}

	neg := append(slices.Clone(banking), filterNamed(clinc, gaz)...)
	members := make([]*names.Model, ensemble)
	for k := range members {
		// Member k generates its texts and orders its passes with seed+k; member 0 is the
		// single model of -ensemble 1.
		s := seed + uint64(k)
		var examples []names.Example
		g := newGenerator(s, p, phraseWords(english))
		for _, lang := range synthLanguages {
			n := perLang
			if lang == "en" {
				n *= 2
			}
			for range n {
				examples = append(examples, g.example(lang))
			}
		}
		synth := len(examples)
		for range repeat {
			examples = append(examples, corpus...)
		}
		examples = append(examples, social...)
		for _, t := range neg {
			examples = append(examples, names.Example{Text: t})
		}
		log.Printf("member %d of %d: %d generated texts, %d from the NER corpora, %d English chat without names",
			k+1, ensemble, synth, len(corpus), len(neg))
		members[k] = names.Train(examples, names.TrainConfig{
			Bits: bits, Epochs: epochs, Seed: s, Gazetteer: gaz, Clusters: clusters, GazDropout: dropout,
			Progress: func(epoch int, errRate float64) {
				log.Printf("epoch %d: %.4f of scored tokens mislabelled", epoch, errRate)
			},
		})
	}
	m, err := names.Average(members)
	if err != nil {
		return err
	}
	m = m.WithBias(o.biasB).WithGazetteer(gaz).WithClusters(clusters)
	raw, err := m.Encode()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	path := filepath.Join(out, "tagger.model")
	if err := os.WriteFile(path, raw, 0o644); err != nil {
		return err
	}
	log.Printf("wrote %s (%d bytes)", path, len(raw))
	return nil
}

// parseSizes reads a comma-separated list of class counts.
func parseSizes(list string) ([]int, error) {
	var sizes []int
	for _, f := range strings.Split(list, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 2 {
			return nil, fmt.Errorf("%q: want numbers of classes, 2 or more", list)
		}
		sizes = append(sizes, n)
	}
	return sizes, nil
}
