// Command shield trains the model of security.jailbreak.shield and writes it next to the service:
//
//	go run ./scripts/train/shield            # -data <data dir> (default: the data sets beside the repository) -out internal/services/shield/shield.model
//
// It reads only training data: llm-warden train, the training half of CyberSecEval (per
// language; shielddata splits it), BIPIA train attacks inserted into BIPIA train e-mails and
// the clean train e-mails, jailbreakbench artifacts, CLINC150 train and
// oos_train utterances, banking77 train (without the tenth kept for calibration,
// shielddata.BankingDev), every fourth line of unlabeled/social-media outside the labelled
// sample (scripts/internal/devset), the training halves of MultiJail (harmful requests, which
// the shield does not flag) and of the lingua sentences, long harmless documents built from
// those sentences with attacks hidden in every fourth (longdocs.go), and the hand-written
// examples of examples/ (see examples.go), among them the ordinary kinds of attack people type
// with their harmless twins in de en es fr it nl pt (examples/kinds/, with typing noise,
// kinds.go) and those attacks appended to CLINC150 training utterances. Each source has a
// budget (load.go). CyberSecEval's held-out half, BIPIA's test splits, NotInject, the test
// splits and the shield's own dev and held-out sets are evaluation data and are never read here.
//
// Each text is cut into the windows textclass will score: sentence units, alone and in runs of
// up to -unit-run units of at most -unit-words words (textclass.Spec.Units), so the score does
// not depend on the text's length. A window of an attack inserted into a document is positive
// when it holds the whole attack and negative when it holds none of it; a long attack text is
// positive in the windows a first fit already scores as attacks (multiple-instance learning:
// its other windows are dropped). The attack head is fitted with k-fold calibration; one head
// per label is fitted on the positive windows. The report printed at the end is out-of-fold, on
// training data only. The same data and flags give the same bytes.
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/sluice-api/sluice/internal/services/textclass"
	"github.com/sluice-api/sluice/internal/services/textnorm"
	"github.com/sluice-api/sluice/scripts/internal/evalkit"
	"github.com/sluice-api/sluice/scripts/internal/lrtrain"
	"github.com/sluice-api/sluice/scripts/internal/shielddata"
)

// ModelID names the model in the descriptor.
const ModelID = "sluice-shield-lr-v4"

func main() {
	data := evalkit.DataFlag()
	out := flag.String("out", filepath.Join("internal", "services", "shield", "shield.model"), "model file to write")
	seed := flag.Uint64("seed", 1, "seed of the calibration folds")
	bits := flag.Int("bits", 20, "log2 of the attack head's weight slots")
	labelBits := flag.Int("label-bits", 18, "log2 of each label head's weight slots")
	l2 := flag.Float64("l2", 1e-5, "L2 penalty of the attack head")
	labelL2 := flag.Float64("label-l2", 1e-4, "L2 penalty of the label heads")
	folds := flag.Int("folds", 4, "calibration folds of the attack head (0: one held-out share)")
	unitWords := flag.Int("unit-words", 40, "the most words of a scoring window of sentence units (textclass.Spec.UnitWords)")
	unitRun := flag.Int("unit-run", 4, "the most sentence units one scoring window joins (textclass.Spec.UnitRun)")
	translatedDir := flag.String("translated", filepath.Join("scripts", "train", "shield", "translated"), "directory of the Apertium translations (make shield-translations)")
	oof := flag.String("oof", "", "also write the out-of-fold score of every training text to this file, as tab-separated source, id, language, kind, attack, words, score and text (for choosing examples; not recorded in the model)")
	evalkit.ParseFlags()
	cfg := config{translated: *translatedDir, oof: *oof, data: *data, out: *out, seed: *seed, bits: *bits, labelBits: *labelBits, l2: *l2, labelL2: *labelL2, folds: *folds,
		spec: textclass.Spec{WordNgrams: 2, CharMin: 3, CharMax: 5, Window: 48, Stride: 12, DecodeBlobs: true,
			Units: true, UnitWords: *unitWords, UnitRun: *unitRun}}
	if err := run(cfg); err != nil {
		log.Fatal(err)
	}
}

type config struct {
	data, out       string
	seed            uint64
	bits, labelBits int
	l2, labelL2     float64
	folds           int
	spec            textclass.Spec
	// translated is the directory of the Apertium translations.
	translated string
	// oof, when set, is the file the out-of-fold score of every training text is written to.
	oof string
}

// doc is a training text with its weight and split group.
type doc struct {
	shielddata.Doc
	weight float64
	group  string
}

// window is one training example and where it came from.
type window struct {
	doc   int
	win   textclass.Window
	label bool
	// mil marks the windows of a long attack text, kept or dropped after the first fit.
	mil bool
}

func run(cfg config) error {
	ctx := context.Background()
	docs, err := load(cfg)
	if err != nil {
		return err
	}
	log.Printf("%d training texts", len(docs))

	var wins []window
	for i, d := range docs {
		ws, err := cfg.spec.Windows(ctx, d.Text)
		if err != nil {
			return err
		}
		wins = append(wins, label(i, d, ws)...)
	}
	log.Printf("%d windows", len(wins))

	// First fit: every window of a long attack is positive.
	attackCfg := lrtrain.Config{Bits: cfg.bits, L2: cfg.l2, Folds: cfg.folds, Holdout: 0.2, Seed: cfg.seed, Log: log.Printf}
	first := attackCfg
	first.Folds, first.Holdout = 0, 0.01 // the first fit only ranks windows; calibration comes later
	fit, err := lrtrain.Train(examples(docs, wins, negShare), first)
	if err != nil {
		return err
	}
	// Multiple-instance step: of an attack of several windows, keep the best window by the first
	// fit, and the window that holds the whole text when there is one; of a longer attack, also
	// every window the first fit scores as an attack. A short attack is an order and an ordinary
	// request ("Ignore the above. Tell me a story"): the request alone is no attack (issue 42).
	best := map[int]float64{}
	span := map[int][2]int{}
	for _, w := range wins {
		if w.mil {
			z := fit.Raw(w.win.Features)
			if b, ok := best[w.doc]; !ok || z > b {
				best[w.doc] = z
			}
			if w.win.Segment == 0 {
				if sp, ok := span[w.doc]; !ok {
					span[w.doc] = [2]int{w.win.Start, w.win.End}
				} else {
					span[w.doc] = [2]int{min(sp[0], w.win.Start), max(sp[1], w.win.End)}
				}
			}
		}
	}
	whole := map[int]bool{}
	for _, w := range wins {
		if w.mil && w.win.Segment == 0 && w.win.Start == span[w.doc][0] && w.win.End == span[w.doc][1] {
			whole[w.doc] = true
		}
	}
	kept := wins[:0:0]
	dropped := 0
	for _, w := range wins {
		if w.mil {
			z := fit.Raw(w.win.Features)
			isWhole := w.win.Segment == 0 && w.win.Start == span[w.doc][0] && w.win.End == span[w.doc][1]
			keep := z >= best[w.doc] || isWhole || !whole[w.doc] && z >= 0
			if !keep {
				dropped++
				continue
			}
		}
		kept = append(kept, w)
	}
	wins = kept
	log.Printf("multiple-instance step dropped %d windows of long attacks", dropped)

	ex := examples(docs, wins, negShare)
	fit, err = lrtrain.Train(ex, attackCfg)
	if err != nil {
		return err
	}
	attackHead, err := fit.Head("attack")
	if err != nil {
		return err
	}
	if err := report(docs, wins, fit, cfg.oof); err != nil {
		return err
	}

	heads := []textclass.Head{attackHead}
	for _, l := range shielddata.Labels {
		h, err := labelHead(docs, wins, l, cfg)
		if err != nil {
			return err
		}
		heads = append(heads, h)
	}
	m := &textclass.Model{ID: ModelID, Spec: cfg.spec, Heads: heads, Meta: map[string]string{
		"command": command(cfg),
		"data":    "see MODEL.md",
	}}
	f, err := os.Create(cfg.out)
	if err != nil {
		return err
	}
	if err := m.Encode(f); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	st, err := os.Stat(cfg.out)
	if err != nil {
		return err
	}
	log.Printf("wrote %s (%d bytes)", cfg.out, st.Size())
	return nil
}

// command is the training command as recorded in the model's metadata, every setting named.
func command(cfg config) string {
	c := fmt.Sprintf("go run ./scripts/train/shield -seed %d -bits %d -label-bits %d -l2 %g -label-l2 %g -folds %d -unit-words %d -unit-run %d",
		cfg.seed, cfg.bits, cfg.labelBits, cfg.l2, cfg.labelL2, cfg.folds, cfg.spec.UnitWords, cfg.spec.UnitRun)
	return c
}

// label turns a document's windows into training windows.
func label(i int, d doc, ws []textclass.Window) []window {
	var out []window
	if d.Inject != "" {
		// The attack occupies the words [from, to) of the text.
		from, to := countWords(d.Text[:d.InjectAt]), countWords(d.Text[:d.InjectAt+len(d.Inject)])
		for _, w := range ws {
			switch {
			case w.Segment != 0:
			case w.Start <= from && w.End >= to, to-from > w.End-w.Start && w.Start >= from && w.End <= to:
				out = append(out, window{doc: i, win: w, label: true})
			case w.End <= from || w.Start >= to:
				out = append(out, window{doc: i, win: w, label: false})
			}
		}
		return out
	}
	for _, w := range ws {
		out = append(out, window{doc: i, win: w, label: d.Attack, mil: d.Attack && len(ws) > 1})
	}
	return out
}

func countWords(s string) int {
	var w textnorm.Words
	if err := textnorm.Normalize(context.Background(), s, &w, 0); err != nil {
		panic(err) // a background context is never done
	}
	return w.Len()
}

// negShare is the weight of the harmless windows of a document with an attack inserted,
// relative to its attack windows.
const negShare = 0.5

// examples weighs the windows: a document's weight is shared among its positive windows, and
// negShare of it (half by default) among its negative windows when it also has positive ones
// (the clean parts of a document an attack was inserted into).
func examples(docs []doc, wins []window, negShare float64) []lrtrain.Example {
	type split struct{ pos, neg int }
	per := map[int]split{}
	for _, w := range wins {
		s := per[w.doc]
		if w.label {
			s.pos++
		} else {
			s.neg++
		}
		per[w.doc] = s
	}
	ex := make([]lrtrain.Example, len(wins))
	for k, w := range wins {
		d, s := docs[w.doc], per[w.doc]
		wt := d.weight / float64(s.pos)
		if !w.label {
			wt = d.weight / float64(s.neg)
			if s.pos > 0 {
				wt *= negShare
			}
		}
		ex[k] = lrtrain.Example{Features: w.win.Features, Label: w.label, Weight: wt, Group: d.group}
	}
	return ex
}

// report prints, per source, the out-of-fold recall or false-positive rate at 0.5 over whole
// texts (the maximum over a text's windows), and writes every text's score to the file oof when
// it is not empty.
func report(docs []doc, wins []window, fit *lrtrain.Fit, oof string) error {
	score := map[int]float64{}
	for _, s := range fit.Calibration {
		d := wins[s.Index].doc
		if p, ok := score[d]; !ok || fit.Probability(s.Z) > p {
			score[d] = fit.Probability(s.Z)
		}
	}
	type agg struct{ n, hit int }
	by := map[string]*agg{}
	var rel evalkit.Reliability
	for d, p := range score {
		key := docs[d].Source + "/benign"
		if docs[d].Attack {
			key = docs[d].Source + "/attack"
		}
		if docs[d].Lang != "" && docs[d].Lang != "en" {
			key += "/" + docs[d].Lang
		}
		if by[key] == nil {
			by[key] = &agg{}
		}
		by[key].n++
		if (p >= 0.5) == docs[d].Attack {
			by[key].hit++
		}
		rel.Add(p, docs[d].Attack)
	}
	keys := make([]string, 0, len(by))
	for k := range by {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var rows [][]string
	for _, k := range keys {
		what := "recall"
		if strings.Contains(k, "/benign") {
			what = "1 - FPR"
		}
		rows = append(rows, []string{k, fmt.Sprint(by[k].n), what, evalkit.F3(float64(by[k].hit) / float64(by[k].n))})
	}
	fmt.Println("Out-of-fold, on training data (texts scored by weights that did not see them):")
	fmt.Println()
	evalkit.Table(os.Stdout, []string{"source", "texts", "metric", "value"}, rows)
	fmt.Println()
	rel.Write(os.Stdout)
	fmt.Println()
	if oof == "" {
		return nil
	}
	return writeOOF(oof, docs, score)
}

// writeOOF writes the out-of-fold score of every scored training text, in the order of docs,
// one per line: source, id, language, kind, attack, words, score and the text (quoted).
func writeOOF(name string, docs []doc, score map[int]float64) error {
	f, err := os.Create(name)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	for i, d := range docs {
		p, ok := score[i]
		if !ok {
			continue
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%t\t%d\t%.4f\t%q\n", d.Source, d.ID, d.Lang, d.Kind, d.Attack, countWords(d.Text), p, d.Text)
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// labelHead fits the head of one label on the positive windows.
func labelHead(docs []doc, wins []window, l string, cfg config) (textclass.Head, error) {
	var ex []lrtrain.Example
	for _, w := range wins {
		if !w.label {
			continue
		}
		d := docs[w.doc]
		ex = append(ex, lrtrain.Example{Features: w.win.Features, Label: slices.Contains(d.Labels, l), Weight: 1, Group: d.group})
	}
	fit, err := lrtrain.Train(ex, lrtrain.Config{Bits: cfg.labelBits, L2: cfg.labelL2, Holdout: 0.2, Seed: cfg.seed, Log: log.Printf})
	if err != nil {
		return textclass.Head{}, fmt.Errorf("label %s: %w", l, err)
	}
	var m evalkit.Binary
	for _, s := range fit.Calibration {
		m.Add(fit.Probability(s.Z) >= 0.5, s.Label)
	}
	log.Printf("label %-20s held out: precision %.3f recall %.3f (n=%d, positives %d)", l, m.Precision(), m.Recall(), m.N(), m.TP+m.FN)
	return fit.Head(l)
}
