package main

import (
	"bufio"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"

	"github.com/sluice-api/sluice/internal/services/pii/names"
	"github.com/sluice-api/sluice/scripts/internal/devset"
	"github.com/sluice-api/sluice/scripts/internal/evalkit"
	"github.com/sluice-api/sluice/scripts/internal/wordclust"
)

// clusterLanguages are the languages of the language-ID sentences the word clusters read.
var clusterLanguages = []string{"de", "en", "es", "fr", "it", "nl", "pl", "pt"}

// clusterText returns the sentences the word clusters are learned from, as the tagger's
// lower-case words: the unlabeled social-media text (less the hand-labelled development sample,
// which ex names, wherever its lines occur), the
// language-ID sentences of the eight languages, the training text of the NER sets (WNUT 2017 and
// BTC train, GermEval's dev split, Europeana less its held-out fifth, LeNER-Br train), the
// English and German tweets of the toxicity training sets (Davidson, GermEval 2018 training
// file, GAHD's training split), and the banking77 and CLINC150 training utterances. No
// evaluation set's text is read.
func clusterText(data string, corpus []names.Example, ex *devset.Excluder) ([][]string, error) {
	var out [][]string
	add := func(text string) {
		if ex.Excludes(text) {
			return
		}
		if ws := clusterWords(text); len(ws) > 0 {
			out = append(out, ws)
		}
	}
	dir, err := evalkit.Require(data, "unlabeled", "social-media")
	if err != nil {
		return nil, err
	}
	for _, name := range []string{"twitter-palm.txt", "twitter-rigo.txt", "youtube-comments.txt"} {
		if err := eachLine(filepath.Join(dir, name), func(n int, line string) {
			if !ex.Sampled(name, n) {
				add(line)
			}
		}); err != nil {
			return nil, err
		}
	}
	for _, lang := range clusterLanguages {
		path, err := evalkit.Require(data, "langid", "lingua-testdata", "sentences", lang+".txt")
		if err != nil {
			return nil, err
		}
		if err := eachLine(path, func(_ int, line string) { add(line) }); err != nil {
			return nil, err
		}
	}
	for _, ex := range corpus {
		for _, line := range strings.Split(ex.Text, "\n") {
			add(line)
		}
	}
	path, err := evalkit.Require(data, "toxicity", "davidson", "labeled_data.csv")
	if err != nil {
		return nil, err
	}
	rows, err := evalkit.ReadCSV(path, ',')
	if err != nil {
		return nil, err
	}
	for _, r := range rows {
		add(r["tweet"])
	}
	path, err = evalkit.Require(data, "toxicity", "germeval2018", "germeval2018.training.txt")
	if err != nil {
		return nil, err
	}
	if err := eachLine(path, func(_ int, line string) { add(strings.SplitN(line, "\t", 2)[0]) }); err != nil {
		return nil, err
	}
	path, err = evalkit.Require(data, "toxicity", "gahd", "gahd.csv")
	if err != nil {
		return nil, err
	}
	rows, err = evalkit.ReadCSV(path, ',')
	if err != nil {
		return nil, err
	}
	for _, r := range rows {
		if r["split"] == "train" {
			add(r["text"])
		}
	}
	banking, clinc, err := intentTexts(data)
	if err != nil {
		return nil, err
	}
	for _, t := range append(banking, clinc...) {
		add(t)
	}
	return out, nil
}

// eachLine calls fn with each line of path and its 1-based number.
func eachLine(path string, fn func(n int, line string)) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	n := 0
	for sc.Scan() {
		n++
		fn(n, sc.Text())
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	return nil
}

// clusterWords splits text into the words the tagger sees, in lower case: numbers and codes
// become "<num>" and "<code>", a handle or hashtag (a field starting with "@" or "#")
// "<handle>", and web addresses are left out.
func clusterWords(text string) []string {
	var out []string
	for _, f := range strings.Fields(text) {
		switch {
		case strings.Contains(f, "://") || strings.HasPrefix(f, "www."):
			continue
		case len(f) > 1 && (f[0] == '@' || f[0] == '#'):
			out = append(out, "<handle>")
			continue
		}
		for _, t := range names.Tokenize(f) {
			switch t.Kind {
			case names.Number:
				out = append(out, "<num>")
			case names.Code:
				out = append(out, "<code>")
			default:
				out = append(out, names.Lower(f[t.Start:t.End]))
			}
		}
	}
	return out
}

// buildClusters learns word classes at each of sizes from the sentences.
func buildClusters(sents [][]string, sizes []int, minCount, iterations int) (*names.Clusters, error) {
	c := wordclust.NewCorpus()
	tokens := 0
	for _, s := range sents {
		c.Add(s)
		tokens += len(s)
	}
	log.Printf("word clusters: %d sentences, %d words", len(sents), tokens)
	classes := map[string][]int{}
	for _, size := range sizes {
		got, err := c.Cluster(wordclust.Config{Classes: size, MinCount: minCount, Iterations: iterations,
			Progress: func(pass, moved int) { log.Printf("word clusters (%d): pass %d moved %d words", size, pass, moved) }})
		if err != nil {
			return nil, err
		}
		for w, k := range got {
			classes[w] = append(classes[w], k)
		}
	}
	return names.NewClusters(sizes, classes)
}
