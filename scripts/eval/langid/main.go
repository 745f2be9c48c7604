// Command langid evaluates routing.language.detect through its service, with the params a client
// would send (candidates: []):
//
//   - accuracy on the lingua test data (langid/lingua-testdata: sentences, word pairs and single
//     words in 75 languages) per category and overall, with the share of "und" answers;
//   - calibration on the same data: a reliability table of the top confidence against being right,
//     and per category how many answers with confidence >= 0.9 are right;
//   - accuracy on paragraphs of 4, 6 and 12 consecutive lingua test sentences, which measures the
//     sampling of texts longer than model.SampleAbove;
//   - accuracy on our own held-out set (internal/services/langid/testdata/heldout.tsv: sentences
//     and short phrases in 27 languages, written by hand and never used to train or tune);
//   - accuracy on single common words (internal/services/langid/testdata/words.tsv: greetings,
//     thanks and the most frequent words of de, en, es, fr, it, nl, pl and pt);
//   - with -adversarial, the adversarial table: the median time of every hostile 100,000-character
//     input and its ratio to ordinary prose.
//
// The side-by-side comparison with lingua-go and whatlanggo is scripts/langid-compare, a module of
// its own so those libraries stay out of Sluice's binaries.
//
//	go run ./scripts/eval/langid [-data DIR] [-heldout FILE] [-words FILE] [-adversarial]
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"log"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/sluice-api/sluice/internal/services/langid"
	"github.com/sluice-api/sluice/internal/services/langid/model"
	"github.com/sluice-api/sluice/internal/services/servicetest"
	"github.com/sluice-api/sluice/scripts/internal/evalkit"
)

var kinds = []string{"sentences", "word-pairs", "single-words"}

type tally struct{ n, ok, und, sure, sureOK int }

func (t *tally) add(got, want string, conf float64) {
	t.n++
	switch got {
	case want:
		t.ok++
	case "und":
		t.und++
	}
	if conf >= 0.9 {
		t.sure++
		if got == want {
			t.sureOK++
		}
	}
}

func (t tally) acc() float64 { return ratio(t.ok, t.n) }

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

func main() {
	log.SetFlags(0)
	data := evalkit.DataFlag()
	heldout := flag.String("heldout", filepath.Join("internal", "services", "langid", "testdata", "heldout.tsv"), "our held-out set (language, kind, text per line)")
	words := flag.String("words", filepath.Join("internal", "services", "langid", "testdata", "words.tsv"), "single common words (language, kind, word per line)")
	adversarial := flag.Bool("adversarial", false, "also print the adversarial timing table (100,000-character hostile inputs)")
	flag.Parse()
	svc, err := langid.New()
	if err != nil {
		log.Fatal(err)
	}
	dir, err := evalkit.Require(*data, "langid", "lingua-testdata")
	if err != nil {
		log.Fatal(err)
	}
	if err := lingua(svc, dir); err != nil {
		log.Fatal(err)
	}
	if err := paragraphs(svc, dir); err != nil {
		log.Fatal(err)
	}
	if err := heldOut(svc, *heldout); err != nil {
		log.Fatal(err)
	}
	if err := commonWords(svc, *words); err != nil {
		log.Fatal(err)
	}
	if *adversarial {
		rows, err := servicetest.Table(svc, servicetest.Config{}, 100_000, 21)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("\n## Adversarial inputs (100,000 code points, median of 21 runs)\n\n")
		var out [][]string
		for _, r := range rows {
			out = append(out, []string{r.Case, r.Median.Round(time.Microsecond).String(), fmt.Sprintf("%.2f", r.ToProse)})
		}
		evalkit.Table(os.Stdout, []string{"input", "median", "× prose"}, out)
	}
}

// detect runs the service on text with the default params.
func detect(svc *langid.Service, text string) (langid.Detection, error) {
	req := servicetest.Config{}.Request(svc.Descriptor(), text)
	res, err := svc.Run(context.Background(), req)
	if err != nil {
		return langid.Detection{}, err
	}
	d, ok := res.Data.(langid.Detection)
	if !ok {
		return langid.Detection{}, fmt.Errorf("data is %T", res.Data)
	}
	return d, nil
}

// paragraphLens are the numbers of consecutive lingua test sentences joined into one paragraph;
// the longer ones pass model.SampleAbove, so the table measures the sampling of long texts.
var paragraphLens = []int{4, 6, 12}

// paragraphs measures texts longer than a sentence: from each language's sentence file, up to
// 40 disjoint runs of 12 sentences, each cut to its first 4, 6 and all 12 sentences.
func paragraphs(svc *langid.Service, dir string) error {
	files, err := filepath.Glob(filepath.Join(dir, "sentences", "*.txt"))
	if err != nil {
		return err
	}
	per := make([]tally, len(paragraphLens))
	bytes := make([]int, len(paragraphLens))
	for _, f := range files {
		lang := strings.TrimSuffix(filepath.Base(f), ".txt")
		lines, err := evalkit.ReadLines(f)
		if err != nil {
			return err
		}
		for i := 0; i+12 <= len(lines) && i < 12*40; i += 12 {
			for j, k := range paragraphLens {
				text := strings.Join(lines[i:i+k], " ")
				d, err := detect(svc, text)
				if err != nil {
					return fmt.Errorf("paragraphs/%s: %w", lang, err)
				}
				per[j].add(d.Language, lang, d.Confidence)
				bytes[j] += len(text)
			}
		}
	}
	fmt.Printf("\n## Paragraphs of lingua test sentences (texts over %d bytes are sampled)\n\n", model.SampleAbove)
	var rows [][]string
	for j, k := range paragraphLens {
		rows = append(rows, []string{fmt.Sprint(k), fmt.Sprint(per[j].n), fmt.Sprint(bytes[j] / max(per[j].n, 1)), evalkit.Pct(per[j].acc())})
	}
	evalkit.Table(os.Stdout, []string{"sentences", "texts", "mean bytes", "accuracy"}, rows)
	return nil
}

func lingua(svc *langid.Service, dir string) error {
	overall := map[string]*tally{}
	var rel evalkit.Reliability
	var all tally
	perLang := map[string]map[string]*tally{}
	for _, k := range kinds {
		overall[k] = &tally{}
		files, err := filepath.Glob(filepath.Join(dir, k, "*.txt"))
		if err != nil {
			return err
		}
		for _, f := range files {
			lang := strings.TrimSuffix(filepath.Base(f), ".txt")
			lines, err := evalkit.ReadLines(f)
			if err != nil {
				return err
			}
			if perLang[lang] == nil {
				perLang[lang] = map[string]*tally{}
			}
			t := &tally{}
			perLang[lang][k] = t
			for _, line := range lines {
				d, err := detect(svc, line)
				if err != nil {
					return fmt.Errorf("%s/%s: %w", k, lang, err)
				}
				t.add(d.Language, lang, d.Confidence)
				overall[k].add(d.Language, lang, d.Confidence)
				all.add(d.Language, lang, d.Confidence)
				rel.Add(d.Confidence, d.Language == lang)
			}
		}
	}
	fmt.Printf("## routing.language.detect on the lingua test data (%d languages)\n\n", len(perLang))
	var rows [][]string
	for _, k := range append(slices.Clone(kinds), "all") {
		t := all
		if k != "all" {
			t = *overall[k]
		}
		rows = append(rows, []string{k, fmt.Sprint(t.n), evalkit.Pct(t.acc()), evalkit.Pct(ratio(t.und, t.n)),
			fmt.Sprintf("%s (%d)", evalkit.Pct(ratio(t.sure, t.n)), t.sure), evalkit.Pct(ratio(t.sureOK, t.sure))})
	}
	evalkit.Table(os.Stdout, []string{"category", "texts", "accuracy", "und", "confidence >= 0.9", "right when >= 0.9"}, rows)
	fmt.Printf("\n### Reliability of the confidence (all categories; und counts as confidence 0 and wrong)\n\n")
	rel.Write(os.Stdout)
	fmt.Printf("\n### Accuracy per language\n\n")
	langs := make([]string, 0, len(perLang))
	for l := range perLang {
		langs = append(langs, l)
	}
	slices.Sort(langs)
	rows = nil
	for _, l := range langs {
		row := []string{l}
		for _, k := range kinds {
			if t := perLang[l][k]; t != nil {
				row = append(row, evalkit.Pct(t.acc()))
			} else {
				row = append(row, "-")
			}
		}
		rows = append(rows, row)
	}
	evalkit.Table(os.Stdout, append([]string{"language"}, kinds...), rows)
	return nil
}

func heldOut(svc *langid.Service, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("held-out set: %w", err)
	}
	defer f.Close()
	by := map[string]*tally{}
	perLang := map[string]map[string]*tally{}
	var misses []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		p := strings.Split(line, "\t")
		if len(p) != 3 {
			return fmt.Errorf("held-out set: bad line %q", line)
		}
		lang, kind, text := p[0], p[1], p[2]
		d, err := detect(svc, text)
		if err != nil {
			return err
		}
		if by[kind] == nil {
			by[kind] = &tally{}
		}
		by[kind].add(d.Language, lang, d.Confidence)
		if perLang[lang] == nil {
			perLang[lang] = map[string]*tally{"sentence": {}, "phrase": {}}
		}
		if t := perLang[lang][kind]; t != nil {
			t.add(d.Language, lang, d.Confidence)
		}
		if d.Language != lang {
			misses = append(misses, fmt.Sprintf("| %s | %s | %s | %s %.2f |", lang, kind, text, d.Language, d.Confidence))
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	fmt.Printf("\n## Our held-out set (%s), through the service\n\n", path)
	var rows [][]string
	for _, k := range []string{"sentence", "phrase"} {
		t := by[k]
		if t == nil {
			continue
		}
		rows = append(rows, []string{k, fmt.Sprint(t.n), fmt.Sprint(t.ok), evalkit.Pct(t.acc()), evalkit.Pct(ratio(t.sureOK, t.sure))})
	}
	evalkit.Table(os.Stdout, []string{"kind", "texts", "right", "accuracy", "right when confidence >= 0.9"}, rows)
	fmt.Printf("\n| language | sentences | phrases |\n| --- | ---: | ---: |\n")
	langs := make([]string, 0, len(perLang))
	for l := range perLang {
		langs = append(langs, l)
	}
	slices.Sort(langs)
	for _, l := range langs {
		s, p := perLang[l]["sentence"], perLang[l]["phrase"]
		fmt.Printf("| %s | %d/%d | %d/%d |\n", l, s.ok, s.n, p.ok, p.n)
	}
	if len(misses) > 0 {
		fmt.Printf("\nMisses:\n\n| language | kind | text | answer |\n| --- | --- | --- | --- |\n%s\n", strings.Join(misses, "\n"))
	}
	return nil
}

// commonWords measures single common words: greetings, thanks and frequent function words, per
// language and kind, with every miss.
func commonWords(svc *langid.Service, path string) error {
	lines, err := evalkit.ReadLines(path)
	if err != nil {
		return fmt.Errorf("common words: %w", err)
	}
	kindsSeen := []string{}
	by := map[string]*tally{}
	perLang := map[string]*tally{}
	var misses []string
	for _, line := range lines {
		if strings.HasPrefix(line, "#") {
			continue
		}
		p := strings.Split(line, "\t")
		if len(p) != 3 {
			return fmt.Errorf("common words: bad line %q", line)
		}
		lang, kind, word := p[0], p[1], p[2]
		d, err := detect(svc, word)
		if err != nil {
			return err
		}
		if by[kind] == nil {
			by[kind] = &tally{}
			kindsSeen = append(kindsSeen, kind)
		}
		if perLang[lang] == nil {
			perLang[lang] = &tally{}
		}
		by[kind].add(d.Language, lang, d.Confidence)
		perLang[lang].add(d.Language, lang, d.Confidence)
		if d.Language != lang {
			misses = append(misses, fmt.Sprintf("%s %s→%s", word, lang, d.Language))
		}
	}
	fmt.Printf("\n## Single common words (%s), through the service\n\n", path)
	var rows [][]string
	var all tally
	for _, k := range kindsSeen {
		t := by[k]
		all.n, all.ok = all.n+t.n, all.ok+t.ok
		rows = append(rows, []string{k, fmt.Sprint(t.n), fmt.Sprint(t.ok), evalkit.Pct(t.acc())})
	}
	rows = append(rows, []string{"all", fmt.Sprint(all.n), fmt.Sprint(all.ok), evalkit.Pct(all.acc())})
	evalkit.Table(os.Stdout, []string{"kind", "words", "right", "accuracy"}, rows)
	fmt.Println()
	rows = nil
	langs := slices.Sorted(maps.Keys(perLang))
	for _, l := range langs {
		t := perLang[l]
		rows = append(rows, []string{l, fmt.Sprintf("%d/%d", t.ok, t.n)})
	}
	evalkit.Table(os.Stdout, []string{"language", "right"}, rows)
	if len(misses) > 0 {
		fmt.Printf("\nMisses (word, language→answer): %s\n", strings.Join(misses, ", "))
	}
	return nil
}
