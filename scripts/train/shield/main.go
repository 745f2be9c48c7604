// Command shield trains the model of security.jailbreak.shield and writes it next to the service:
//
//	go run ./scripts/train/shield            # -data <data dir> (default: the data sets beside the repository) -out internal/services/shield/shield.model
//
// It reads only training data: llm-warden train, the training half of CyberSecEval (per
// language), BIPIA train attacks inserted into BIPIA train e-mails and into hand-written
// documents, the clean BIPIA train e-mails, jailbreakbench artifacts, CLINC150 and banking77
// train utterances, the training half of MultiJail (harmful requests, which the shield does not
// flag) and of the lingua sentences, the CyberSecEval system prompts of its training half, and
// the hand-written examples in examples/, examples/more/ (attacks and harmless look-alikes in ar
// bn id ja ko ru th tr vi zh, and more English harmless look-alikes), examples/extra/ (short
// harmless requests in 17 languages, long harmless English documents, attacks hidden in Italian
// and Portuguese reviews), examples/r7/ (English attacks of the kinds CyberSecEval's training
// half still missed, their harmless twins, English look-alikes full of trigger words),
// examples/r9/ (harmless role-play and persona requests in en de fr es it nl pt) and
// examples/r10ml/ (the kinds of examples/r7/ in bn ko ru th tr vi zh, with harmless twins) and the
// English ones of examples/r12/ (long harmless task prompts of 100 to 300 words around a passage
// and personas with a chat history, and a few attacks hidden in the same long frames; round 12c),
// each set weighed by budgets of its own. It also builds 40 long harmless documents per language from
// the lingua training sentences and hides attacks of the same language in every fourth
// (longdocs.go). -r12-examples=false -budget bipia=0.33,bipia-email=0.20 gives the weights of the
// round-10 model; every older model below needs those two flags as well (bipia=0.28 for round 5):
// -r10-ml-examples=false -budget llm-warden-train/benign=0.45 gives the weights of
// the round-9 model; -r9-examples=false as well those of the round-8 model; -r7-examples=false
// -r9-examples=false -r10-ml-examples=false -budget
// llm-warden-train/benign=0.45,hand/attack-more=0.15,clinc150-train=0.25,hand/benign=0.5,hand/benign-extra=0.25
// give the weights of the round-6 model; -more-examples=false, -extra-examples=false and
// -long-docs 0 as well, with cyberseceval=0.3,bipia=0.28 added to -budget, those of the round-5
// model (see MODEL.md).
//
// Experiments, off by default and not used for the committed model (MODEL.md gives their
// figures): -r8-examples adds examples/r8/ (the kinds of examples/r7/ in de fr es it nl pt);
// -r10-examples adds examples/r10/ (long harmless persona and "act as" prompts with rules and
// formats in en de fr es it nl pt, and a few attacks in the same frames); -r11-examples adds
// examples/r11/ (short and medium harmless task prompts around a passage in en de fr es it nl
// pt, and a few attacks hidden in the same frames); -r13-examples adds examples/r13/ (English
// requests for a person's private data or the guarded password inside a frame that hides them,
// and harmless look-alikes in the same frames); -r13-ml-examples adds examples/r13ml/ (that kind
// in Arabic, Indonesian, Japanese and Tagalog, with harmless twins); -r12-langs= (empty) adds the examples of
// examples/r12/ in de fr es it nl pt to the English ones (round 12);
// -mixed (issue 11) builds harmless documents that switch language, hides attacks in some of
// them (mixed.go) and reads the hand-written messages.
// -budget and -neg-share change source budgets and the weight of the clean windows of injected
// documents, -script, -norm-power and -norm-knee the scoring (textclass.Spec), for experiments.
// The split of every set is made by package shielddata, which the evaluation command shares.
//
// Each text is cut into the windows textclass will score. A window of an attack inserted into a
// document is positive when it holds the whole attack and negative when it holds none of it; a
// long attack text is positive in the windows a first fit already scores as attacks (multiple-
// instance learning: its other windows are dropped). The attack head is fitted with k-fold
// calibration; one head per label is fitted on the positive windows. The report printed at the
// end is out-of-fold, on training data only: the held-out evaluation sets are never read here.
// The same data and flags give the same bytes.
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
const ModelID = "sluice-shield-lr-v2"

func main() {
	data := evalkit.DataFlag()
	out := flag.String("out", filepath.Join("internal", "services", "shield", "shield.model"), "model file to write")
	seed := flag.Uint64("seed", 1, "seed of the calibration folds")
	bits := flag.Int("bits", 20, "log2 of the attack head's weight slots")
	labelBits := flag.Int("label-bits", 18, "log2 of each label head's weight slots")
	l2 := flag.Float64("l2", 3e-5, "L2 penalty of the attack head")
	labelL2 := flag.Float64("label-l2", 1e-4, "L2 penalty of the label heads")
	folds := flag.Int("folds", 4, "calibration folds of the attack head (0: one held-out share)")
	window := flag.Int("window", 48, "words per window")
	stride := flag.Int("stride", 12, "words between window starts")
	long := flag.Int("long", 40, "words from which a text counts as a long document (textclass.Spec.LongSegment)")
	noLabels := flag.Bool("no-labels", false, "skip the label heads (for quick experiments; the model then lacks them)")
	mixed := flag.Bool("mixed", false, "also train on harmless documents that switch language, the hand-written messages, and attacks hidden in such documents (an experiment for text that switches language; the committed model is trained without it, see MODEL.md)")
	longPerLang := flag.Int("long-docs", 40, "long harmless documents per language built from lingua training sentences (0: none; see longdocs.go)")
	longBudget := flag.Float64("long-budget", 0.3, "total weight of the long harmless documents")
	longInjBudget := flag.Float64("long-injected-budget", 0.05, "total weight of the attacks hidden in long documents (0: none)")
	negShare := flag.Float64("neg-share", 0.5, "weight of the harmless windows of a document with an attack inserted, relative to its attack windows")
	moreExamples := flag.Bool("more-examples", true, "also train on the hand-written examples of examples/more/ (more languages and harmless look-alikes; budgets hand/attack-more and hand/benign-more)")
	extraExamples := flag.Bool("extra-examples", true, "also train on the hand-written examples of examples/extra/ (short harmless requests in 17 languages, long harmless documents, attacks hidden in reviews; budgets hand/benign-extra, hand/context-extra and hand/injected-extra)")
	script := flag.Bool("script", false, "give every window a feature per script, valued at the script's share of its words (textclass.Spec.Script): an offset per script")
	normPower := flag.Float64("norm-power", 0.5, "power of a window's feature count that divides its features (textclass.Spec.NormPower): 0.5 is the square root, 1 the mean, which does not grow with the window's length")
	normKnee := flag.Int("norm-knee", 0, "feature count below which a window's features are divided by the count, not its square root (textclass.Spec.NormKnee): short texts then score their mean weight whatever their length; 0 (default): no knee")
	rounds := map[string]*bool{}
	for _, r := range exampleRounds {
		rounds[r.dir] = flag.Bool(r.flag, r.on, r.usage)
	}
	r12Langs := flag.String("r12-langs", "en", "with -r12-examples, train only on the examples of examples/r12/ in these languages, as a comma-separated list of file names; empty (-r12-langs=): every language")
	budgetFlag := flag.String("budget", "", "override source budgets, as name=weight,name=weight (see budgets in load.go; for experiments)")
	oof := flag.String("oof", "", "also write the out-of-fold score of every training text to this file, as tab-separated source, id, language, kind, attack, words, score and text (for choosing examples; not recorded in the model)")
	flag.Parse()
	if *normPower == 0.5 {
		*normPower = 0 // the square root, stored as before the option existed
	}
	cfg := config{noLabels: *noLabels, mixed: *mixed, moreExamples: *moreExamples, extraExamples: *extraExamples, rounds: map[string]bool{}, longPerLang: *longPerLang, longBudget: *longBudget, longInjBudget: *longInjBudget, budgets: *budgetFlag, oof: *oof, negShare: *negShare, data: *data, out: *out, seed: *seed, bits: *bits, labelBits: *labelBits, l2: *l2, labelL2: *labelL2, folds: *folds,
		spec: textclass.Spec{WordNgrams: 2, CharMin: 3, CharMax: 5, Window: *window, Stride: *stride, DecodeBlobs: true, LongSegment: *long, Script: *script, NormPower: *normPower, NormKnee: *normKnee}}
	for dir, on := range rounds {
		cfg.rounds[dir] = *on
	}
	if *r12Langs != "" {
		cfg.r12Langs = strings.Split(*r12Langs, ",")
	}
	if err := run(cfg); err != nil {
		log.Fatal(err)
	}
}

// exampleRound is one set of hand-written examples: its directory of examples/, its flag, the
// flag's default and its usage text.
type exampleRound struct {
	dir, flag string
	on        bool
	usage     string
}

// exampleRounds are the sets of hand-written examples added round by round, one directory of
// examples/ each, whose sources' names end in "-" and the directory (load.go), in the order the
// training command records their flags. on is the flag's default.
var exampleRounds = []exampleRound{
	{"r7", "r7-examples", true, "also train on the hand-written examples of examples/r7/ (English attacks of the kinds CyberSecEval's training half misses, harmless English requests full of trigger words; budgets hand/attack-r7 and hand/benign-r7)"},
	{"r8", "r8-examples", false, "also train on the hand-written examples of examples/r8/ (the kinds of examples/r7/ in de fr es it nl pt, with harmless twins; budgets hand/attack-r8 and hand/benign-r8)"},
	{"r9", "r9-examples", true, "train on the hand-written examples of examples/r9/ (harmless role-play and persona requests in en de fr es it nl pt; budget hand/benign-r9)"},
	{"r10", "r10-examples", false, "also train on the hand-written examples of examples/r10/ (harmless persona and \"act as\" prompts with rules and formats in en de fr es it nl pt, and attacks in the same frames; budgets hand/attack-r10 and hand/benign-r10)"},
	{"r10ml", "r10-ml-examples", true, "train on the hand-written examples of examples/r10ml/ (the kinds of examples/r7/ in bn ko ru th tr vi zh, with harmless twins; budgets hand/attack-r10ml and hand/benign-r10ml)"},
	{"r11", "r11-examples", false, "also train on the hand-written examples of examples/r11/ (short and medium harmless task prompts around a passage in en de fr es it nl pt, and attacks hidden in the same frames; budgets hand/attack-r11 and hand/benign-r11)"},
	{"r12", "r12-examples", true, "train on the hand-written examples of examples/r12/ (long harmless task prompts of 100 to 300 words around a passage and personas with a chat history in en de fr es it nl pt, and attacks hidden in the same long frames; budgets hand/attack-r12 and hand/benign-r12)"},
	{"r13", "r13-examples", false, "also train on the hand-written examples of examples/r13/ (English requests for a person's private data or the guarded password inside a frame that hides them, and harmless look-alikes in the same frames; budgets hand/attack-r13 and hand/benign-r13)"},
	{"r13ml", "r13-ml-examples", false, "also train on the hand-written examples of examples/r13ml/ (the kind of examples/r13/ in ar id ja tl, with harmless twins; budgets hand/attack-r13ml and hand/benign-r13ml)"},
}

type config struct {
	noLabels, mixed bool
	// moreExamples adds the hand-written examples of examples/more/ (load.go).
	moreExamples bool
	// extraExamples adds the hand-written examples of examples/extra/ (load.go).
	extraExamples bool
	// rounds says, per directory of exampleRounds, whether its examples are trained on.
	rounds map[string]bool
	// r12Langs, when not empty, keeps only the examples of examples/r12/ in these languages.
	r12Langs        []string
	data, out       string
	seed            uint64
	bits, labelBits int
	l2, labelL2     float64
	folds           int
	spec            textclass.Spec
	// long documents (longdocs.go): how many per language, and the budgets
	longPerLang               int
	longBudget, longInjBudget float64
	// budgets overrides source budgets: name=weight,...
	budgets string
	// oof, when set, is the file the out-of-fold score of every training text is written to.
	oof string
	// negShare is the weight of the clean windows of an injected document, relative to its
	// attack windows.
	negShare float64
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
	fit, err := lrtrain.Train(examples(docs, wins, cfg.negShare), first)
	if err != nil {
		return err
	}
	// Multiple-instance step: of a long attack, keep the windows the first fit scores as attacks
	// (and always the best one).
	best := map[int]float64{}
	for _, w := range wins {
		if w.mil {
			best[w.doc] = max(best[w.doc], fit.Raw(w.win.Features))
		}
	}
	kept := wins[:0:0]
	dropped := 0
	for _, w := range wins {
		if w.mil {
			if z := fit.Raw(w.win.Features); z < 0 && z < best[w.doc] {
				dropped++
				continue
			}
		}
		kept = append(kept, w)
	}
	wins = kept
	log.Printf("multiple-instance step dropped %d windows of long attacks", dropped)

	ex := examples(docs, wins, cfg.negShare)
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
		if cfg.noLabels {
			break
		}
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

// command is the training command as recorded in the model's metadata: every flag that is not
// at its default value (-mixed, -script, -norm-power and -norm-knee only when set), and the example sets and
// long documents whatever their value.
func command(cfg config) string {
	c := fmt.Sprintf("go run ./scripts/train/shield -seed %d -bits %d -label-bits %d -l2 %g -label-l2 %g -folds %d -window %d -stride %d -long %d",
		cfg.seed, cfg.bits, cfg.labelBits, cfg.l2, cfg.labelL2, cfg.folds, cfg.spec.Window, cfg.spec.Stride, cfg.spec.LongSegment)
	if cfg.mixed {
		c += " -mixed"
	}
	if cfg.spec.Script {
		c += " -script"
	}
	if cfg.spec.NormPower != 0 {
		c += fmt.Sprintf(" -norm-power %g", cfg.spec.NormPower)
	}
	if cfg.spec.NormKnee != 0 {
		c += fmt.Sprintf(" -norm-knee %d", cfg.spec.NormKnee)
	}
	if cfg.moreExamples {
		c += " -more-examples"
	} else {
		c += " -more-examples=false"
	}
	if cfg.extraExamples {
		c += " -extra-examples"
	} else {
		c += " -extra-examples=false"
	}
	for _, r := range exampleRounds {
		if cfg.rounds[r.dir] {
			c += " -" + r.flag
		}
	}
	if len(cfg.r12Langs) > 0 {
		c += " -r12-langs " + strings.Join(cfg.r12Langs, ",")
	}
	if cfg.budgets != "" {
		c += " -budget " + cfg.budgets
	}
	if cfg.negShare != 0.5 {
		c += fmt.Sprintf(" -neg-share %g", cfg.negShare)
	}
	if cfg.longPerLang > 0 {
		c += fmt.Sprintf(" -long-docs %d -long-budget %g -long-injected-budget %g", cfg.longPerLang, cfg.longBudget, cfg.longInjBudget)
	} else {
		c += " -long-docs 0"
	}
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

// isRound reports whether dir is the directory of a round of exampleRounds.
func isRound(dir string) bool {
	return slices.ContainsFunc(exampleRounds, func(r exampleRound) bool { return r.dir == dir })
}

// roundOff reports whether source name holds the examples of a round of exampleRounds that is
// off ("hand/attack-r8" without -r8-examples).
func (c config) roundOff(name string) bool {
	for _, r := range exampleRounds {
		if strings.HasSuffix(name, "-"+r.dir) && !c.rounds[r.dir] {
			return true
		}
	}
	return false
}
