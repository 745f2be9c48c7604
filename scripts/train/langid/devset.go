package main

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/sluice-api/sluice/internal/services/langid/model"
	"github.com/sluice-api/sluice/scripts/internal/devset"
	"github.com/sluice-api/sluice/scripts/internal/evalkit"
)

// The development sets tune the training constants; the lingua test data is never used here.
// The synthetic set samples words from each language's full (unpruned) padded n-gram counts, so
// it measures what pruning and quantisation lose; the real set is text from other data sets in
// the data directory (multilingual prompts), cut into sentences, word pairs and single words.

var devKinds = []string{"sentences", "word-pairs", "single-words"}

// sample is one development text.
type sample struct {
	lang, kind, text string
}

// synthetic samples words from counts with a five-character Markov chain over padded words.
func synthetic(lang string, counts map[string]float64, seed uint64) []sample {
	type next struct {
		c   string
		cum float64
	}
	idx := map[string][]next{}
	for _, g := range sortedKeys(counts) {
		if utf8.RuneCountInString(g) < 2 {
			continue
		}
		_, last := utf8.DecodeLastRuneInString(g)
		h := g[:len(g)-last]
		l := idx[h]
		cum := counts[g]
		if len(l) > 0 {
			cum += l[len(l)-1].cum
		}
		idx[h] = append(l, next{g[len(g)-last:], cum})
	}
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	word := func() string {
		w := " "
		for range 30 {
			ctx := w
			for utf8.RuneCountInString(ctx) > model.MaxOrder-1 {
				_, n := utf8.DecodeRuneInString(ctx)
				ctx = ctx[n:]
			}
			l := idx[ctx]
			if len(l) == 0 {
				break
			}
			x := rng.Float64() * l[len(l)-1].cum
			i, _ := slices.BinarySearchFunc(l, x, func(a next, t float64) int {
				if a.cum < t {
					return -1
				}
				return 1
			})
			i = min(i, len(l)-1)
			if l[i].c == " " {
				break
			}
			w += l[i].c
		}
		return strings.TrimSpace(w)
	}
	words := func(n int) string {
		var ws []string
		for len(ws) < n {
			if w := word(); w != "" {
				ws = append(ws, w)
			}
		}
		return strings.Join(ws, " ")
	}
	var out []sample
	for range 100 {
		out = append(out, sample{lang, "sentences", words(6 + rng.IntN(12))})
	}
	for range 300 {
		out = append(out, sample{lang, "word-pairs", words(2)})
	}
	for range 300 {
		out = append(out, sample{lang, "single-words", words(1)})
	}
	return out
}

// realText reads multilingual prompts from the data directory: MultiJail (human translations)
// and CyberSecEval's machine-translated prompt injections.
func realText(data string) ([]sample, error) {
	var texts []sample
	mj, err := evalkit.Require(data, "jailbreak", "multijail", "MultiJail.csv")
	if err != nil {
		return nil, err
	}
	rows, err := evalkit.ReadCSV(mj, ',')
	if err != nil {
		return nil, err
	}
	for _, r := range rows {
		for _, l := range []string{"en", "zh", "it", "vi", "ar", "ko", "th", "bn", "sw"} {
			if t := strings.TrimSpace(r[l]); t != "" {
				texts = append(texts, sample{l, "sentences", t})
			}
		}
	}
	cs, err := evalkit.Require(data, "jailbreak", "cyberseceval-prompt-injection", "prompt_injection_multilingual_machine_translated.json")
	if err != nil {
		return nil, err
	}
	type prompt struct {
		System   string `json:"test_case_prompt"`
		Language string `json:"speaking_language"`
	}
	ps, err := evalkit.ReadJSON[[]prompt](cs)
	if err != nil {
		return nil, err
	}
	codes := map[string]string{"Hindi": "hi", "Bengali": "bn", "Turkish": "tr", "Arabic": "ar",
		"Italian": "it", "Spanish": "es", "Vietnamese": "vi", "French": "fr", "Russian": "ru",
		"Filipino/Tagalog": "tl", "Portuguese": "pt", "Japanese": "ja", "Korean": "ko", "German": "de",
		"Chinese": "zh", "Indonesian": "id", "Thai": "th"}
	for _, p := range ps {
		if c, ok := codes[p.Language]; ok && strings.TrimSpace(p.System) != "" {
			texts = append(texts, sample{c, "sentences", strings.TrimSpace(p.System)})
		}
	}
	// Cut word pairs and single words from the sentences, at seeded positions.
	rng := rand.New(rand.NewPCG(7, 7))
	var out []sample
	for _, t := range texts {
		out = append(out, t)
		ws := strings.FieldsFunc(t.text, func(r rune) bool { return model.ScriptOf(r) == model.NoScript && r != '\'' })
		if len(ws) >= 2 {
			i := rng.IntN(len(ws) - 1)
			out = append(out, sample{t.lang, "word-pairs", ws[i] + " " + ws[i+1]})
		}
		if len(ws) >= 1 {
			out = append(out, sample{t.lang, "single-words", ws[rng.IntN(len(ws))]})
		}
	}
	return out, nil
}

// socialOneWordFile holds hand labels of the one-word lines of unlabeled/social-media.
const socialOneWordFile = "scripts/train/langid/social-oneword.tsv"

// socialOneWord reads the labelled one-word messages (socialOneWordFile) from the data
// directory, checking each line's hash; lines labelled skip are left out.
func socialOneWord(data string) ([]sample, error) {
	rows, err := evalkit.ReadLines(socialOneWordFile)
	if err != nil {
		return nil, err
	}
	files := map[string][][]byte{}
	var out []sample
	for _, r := range rows {
		if strings.HasPrefix(r, "#") {
			continue
		}
		f := strings.Split(r, "\t")
		if len(f) != 4 {
			return nil, fmt.Errorf("%s: bad row %q", socialOneWordFile, r)
		}
		if f[3] == "skip" {
			continue
		}
		lines, ok := files[f[0]]
		if !ok {
			path, err := evalkit.Require(data, devset.Dir, f[0])
			if err != nil {
				return nil, err
			}
			b, err := os.ReadFile(path)
			if err != nil {
				return nil, err
			}
			lines = devset.Lines(b)
			files[f[0]] = lines
		}
		n, err := strconv.Atoi(f[1])
		if err != nil || n < 1 || n > len(lines) || devset.Hash(lines[n-1]) != f[2] {
			return nil, fmt.Errorf("%s: %s line %s is not the labelled line (%v)", socialOneWordFile, f[0], f[1], err)
		}
		out = append(out, sample{f[3], "single-words", strings.TrimSpace(string(lines[n-1]))})
	}
	return out, nil
}

// devEval prints accuracy on the synthetic and the real development sets.
func devEval(file []byte, tr *trained, data, dump string) error {
	m, err := model.Load(file)
	if err != nil {
		return err
	}
	// Accuracy does not depend on the calibration; the dump wants raw scores (temperature 1).
	m.Params.Calibration = [8]float32{1}
	d, err := model.NewDetector(m)
	if err != nil {
		return err
	}
	all := d.All()
	real, err := realText(data)
	if err != nil {
		return err
	}
	social, err := socialOneWord(data)
	if err != nil {
		return err
	}
	var dw *os.File
	if dump != "" {
		if dw, err = os.Create(dump); err != nil {
			return err
		}
		defer dw.Close()
	}
	for _, set := range []struct {
		name    string
		samples []sample
	}{{"synthetic", tr.synth}, {"real", real}, {"Tatoeba held-out", tr.tatoeba}, {"Tatoeba held-out one-word lines", tr.oneWord}, {"social-media one-word messages (labelled by hand)", social}} {
		type tally struct{ n, ok int }
		by := map[string]*tally{}
		perLang := map[string]map[string]*tally{}
		for _, s := range set.samples {
			r, err := d.Detect(context.Background(), s.text, all)
			if err != nil {
				return err
			}
			got := "und"
			if len(r.Ranked) > 0 {
				got = d.Codes()[r.Ranked[0].Lang]
			}
			if dw != nil {
				fmt.Fprintf(dw, "%s\t%s\t%s\t%d\t%v", set.name, s.lang, s.kind, r.Letters, r.ByScript)
				for i, x := range r.Ranked {
					if i == 8 {
						break
					}
					fmt.Fprintf(dw, "\t%s:%.4f", d.Codes()[x.Lang], math.Log(max(x.Confidence, 1e-300)))
				}
				fmt.Fprintln(dw)
			}
			for _, key := range []string{s.kind} {
				if by[key] == nil {
					by[key] = &tally{}
				}
				by[key].n++
				if got == s.lang {
					by[key].ok++
				}
			}
			if perLang[s.lang] == nil {
				perLang[s.lang] = map[string]*tally{}
			}
			t := perLang[s.lang][s.kind]
			if t == nil {
				t = &tally{}
				perLang[s.lang][s.kind] = t
			}
			t.n++
			if got == s.lang {
				t.ok++
			}
		}
		fmt.Fprintf(os.Stdout, "\n%s development set\n\n", set.name)
		var rows [][]string
		row := []string{"all"}
		for _, k := range devKinds {
			t := by[k]
			if t == nil {
				row = append(row, "-")
				continue
			}
			row = append(row, evalkit.Pct(float64(t.ok)/float64(t.n)))
		}
		rows = append(rows, row)
		if os.Getenv("DEV_PER_LANG") != "" {
			langs := make([]string, 0, len(perLang))
			for l := range perLang {
				langs = append(langs, l)
			}
			slices.Sort(langs)
			for _, l := range langs {
				row := []string{l}
				for _, k := range devKinds {
					t := perLang[l][k]
					if t == nil {
						row = append(row, "-")
						continue
					}
					row = append(row, evalkit.Pct(float64(t.ok)/float64(t.n)))
				}
				rows = append(rows, row)
			}
		}
		evalkit.Table(os.Stdout, append([]string{"language"}, devKinds...), rows)
	}
	return nil
}
