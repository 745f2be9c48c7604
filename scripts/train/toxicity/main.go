// Command toxicity trains the model of security.toxicity.flag and writes
// internal/services/toxicity/toxicity.model. See internal/services/toxicity/MODEL.md for the
// data, the seed and the evaluation the model achieved. The output is deterministic: the same
// data gives the same bytes.
//
// Usage (from the repository root): go run ./scripts/train/toxicity [-data DIR] [-out FILE]
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"log"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/sluice-api/sluice/internal/services/textclass"
	"github.com/sluice-api/sluice/internal/services/toxicity"
	"github.com/sluice-api/sluice/scripts/internal/evalkit"
	"github.com/sluice-api/sluice/scripts/internal/lrtrain"
	"github.com/sluice-api/sluice/scripts/internal/mlptrain"
	"github.com/sluice-api/sluice/scripts/train/toxicity/corpus"
)

// Seed is the default of -seed, which fixes the calibration folds, the first pass's and the label
// heads' holdouts and the misspelt copies.
const Seed = 12

// The reading of reported speech the model is trained with, the defaults of -implicit,
// -implicit-extra, -quote-cues and -implicit-langs (see MODEL.md, "Round 12"): reported speech
// in a sentence that condemns it is read as an implicit quote, added to the plain reading at half
// its weight, with quoted passages read apart, and French reported speech left unread.
const (
	defaultImplicit      = "condemned"
	defaultImplicitExtra = 0.5
	defaultQuoteCues     = "apart"
	defaultImplicitLangs = "de,en,es,it,nl,pt"
)

func main() {
	data := evalkit.DataFlag()
	out := flag.String("out", "internal/services/toxicity", "directory to write toxicity.model and lexicon.tsv to")
	verbose := flag.Bool("v", false, "log every fit")
	quick := flag.Bool("quick", false, "for experiments: calibrate on a 20% holdout instead of 5 folds")
	l2 := flag.Float64("l2", toxicity.PrimaryL2, "for experiments: L2 penalty of the primary head")
	dev := flag.Bool("dev", false, "for experiments: leave out the dev tenth of every data set (corpus.InDev) to measure on it")
	weight := flag.String("weight", "", "for experiments: source=w,... overriding the weight of one example of a source (davidson, germeval, gahd, mlma, background) or scaling the hand-written examples (own)")
	aug := flag.String("augment", "", "for experiments: source=w,... adds a misspelt copy (two words run together, two letters swapped or a letter dropped) of every toxic example of these sources, weighing w times its original")
	kinds := flag.String("kind-weight", "", "for experiments: kind=w,... overrides the factor on the weight of the hand-written examples of a kind (the KIND of a section in corpus/examples, with _contrast for the harmless side of a pair)")
	implicit := flag.String("implicit", defaultImplicit, "read reported speech as an implicit quote: off, all, or condemned (only in a sentence that condemns it); recorded in the model; off also turns off the defaults of -implicit-extra, -quote-cues and -implicit-langs")
	plain := flag.Float64("implicit-plain", 0, "for experiments, with -implicit: the share of a document's weight given to its plain reading (implicit quotes off) when the two readings differ, so the model still reads counter-speech whose frame the lists miss")
	extra := flag.Float64("implicit-extra", defaultImplicitExtra, "with -implicit: when the two readings differ, a document keeps its plain reading (implicit quotes off) at its full weight and adds its implicit reading at this multiple of its weight; excludes -implicit-plain (setting only -implicit-plain makes it 0)")
	quoteCues := flag.String("quote-cues", defaultQuoteCues, "with -implicit: next to which quote tokens a judgement gets a quote cue: all, implicit (reported speech only, so a quoted passage's frame reads as with -implicit off), or apart (implicit, and a condemning word next to reported speech gets its own token, so reported speech does not retrain the one next to quoted passages); recorded in the model")
	langsFlag := flag.String("implicit-langs", defaultImplicitLangs, "with -implicit: comma-separated languages whose lines of the reporting list (reporting.txt) are used, or all; the default leaves French reported speech unread; recorded in the model")
	var dc deepConfig
	flag.BoolVar(&dc.on, "deep", false, "for experiments (round 13): add a deep part to the primary head, a small network over the same window features trained on what the linear head's out-of-fold scores get wrong (see MODEL.md, \"Round 13\"); off by default")
	flag.IntVar(&dc.bits, "deep-bits", 15, "with -deep: log2 of the embedding rows")
	flag.IntVar(&dc.dim, "deep-dim", 8, "with -deep: embedding width")
	flag.IntVar(&dc.hidden, "deep-hidden", 8, "with -deep: hidden units (0: the bag goes straight through the ReLU)")
	flag.IntVar(&dc.epochs, "deep-epochs", 8, "with -deep: most epochs (early stopping on a held-back fifth of the training groups)")
	flag.Float64Var(&dc.rate, "deep-rate", 0.01, "with -deep: first SGD step (falls linearly to 0)")
	flag.Float64Var(&dc.l2, "deep-l2", 1e-5, "with -deep: L2 decay")
	flag.IntVar(&dc.minCount, "deep-min-count", 0, "with -deep: leave the embedding of a slot at 0 unless this many training windows hold it (0: every slot learns)")
	unaimed := flag.Float64("unaimed-weight", 1, "for experiments (round 14): multiplies the weight of the outside training examples (Davidson) whose only offence is profanity aimed at no one (see unaimed.go); 0 leaves them out; 1, the default, changes nothing")
	unaimedShow := flag.Int("unaimed-show", 0, "for experiments (round 14): print how many training examples -unaimed-weight reweighs and this many of them, drawn with the seed, then exit without training")
	maskSources := flag.String("mask-curses", "", "for experiments: sources (davidson,...) whose examples lose the curse words that can be exclamations, unless an address follows (see mask.go)")
	curses := flag.Bool("curse-token", false, "for experiments (round 16): follow the curse words that can be exclamations (curses.txt of the toxicity package) with a strength token of their own instead of the lexicon's, unless an address follows; recorded in the model; off by default")
	seed := flag.Uint64("seed", Seed, "for experiments: the seed of the calibration folds, the holdouts and the misspelt copies (recorded in the model), to see how much a figure moves between trainings")
	flag.Parse()
	set := map[string]bool{}
	flag.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if err := checkDeepFlags(set, dc.on); err != nil {
		log.Fatal(err)
	}
	if *implicit == "off" || *implicit == "" {
		// The defaults of the flags that refine the implicit reading go with it; given
		// explicitly, they are refused below.
		if !set["implicit-extra"] {
			*extra = 0
		}
		if !set["quote-cues"] {
			*quoteCues = "all"
		}
		if !set["implicit-langs"] {
			*langsFlag = "all"
		}
	}
	if set["implicit-plain"] && !set["implicit-extra"] {
		*extra = 0
	}
	mode, err := toxicity.ParseImplicitMode(*implicit)
	if err != nil {
		log.Fatal(err)
	}
	cues, err := toxicity.ParseQuoteCues(*quoteCues)
	if err != nil {
		log.Fatal(err)
	}
	if cues != toxicity.QuoteCuesAll && mode == toxicity.ImplicitOff {
		log.Fatal("-quote-cues: needs -implicit")
	}
	langs, err := toxicity.ParseImplicitLangs(*langsFlag, toxicity.ReportingFile)
	if err != nil {
		log.Fatal(err)
	}
	if langs != nil && mode == toxicity.ImplicitOff {
		log.Fatal("-implicit-langs: needs -implicit")
	}
	kw, err := parseKinds(*kinds)
	if err != nil {
		log.Fatal(err)
	}
	sw, err := parseWeights(*weight)
	if err != nil {
		log.Fatal(err)
	}
	aw, err := parseOverrides("-augment", "source", *aug, augmentWeight, true)
	if err != nil {
		log.Fatal(err)
	}
	if *plain < 0 || *plain >= 1 || *plain > 0 && mode == toxicity.ImplicitOff {
		log.Fatal("-implicit-plain: want a share in [0, 1), and -implicit")
	}
	if *extra < 0 || *extra > 0 && (mode == toxicity.ImplicitOff || *plain > 0) {
		log.Fatal("-implicit-extra: want a weight >= 0, -implicit, and no -implicit-plain")
	}
	if err := checkUnaimedWeight(*unaimed); err != nil {
		log.Fatal(err)
	}
	if *unaimedShow > 0 {
		if err := showUnaimed(os.Stdout, *data, *unaimedShow, *seed); err != nil {
			log.Fatal(err)
		}
		return
	}
	rw := readingWeights{plainShare: *plain, extra: *extra}
	masked := map[string]bool{}
	for _, src := range strings.Split(*maskSources, ",") {
		if src != "" {
			masked[src] = true
		}
	}
	if err := run(*data, *out, *verbose, *quick, *dev, *l2, sw, aw, kw, mode, cues, langs, rw, *seed, dc, *unaimed, masked, *curses); err != nil {
		log.Fatal(err)
	}
}

// sourceWeight says how much one example of a data set weighs in training; for "own", the
// hand-written examples, it scales the totals of ownCell.
var sourceWeight = map[string]float64{
	"davidson":   0.5,
	"germeval":   6,
	"gahd":       1.0,
	"mlma":       0.3,
	"own":        0.5,
	"background": 1.0,
}

// augmentWeight says, per source, how much each misspelt copy of an example weighs relative
// to the example (see augment); 0 makes none.
var augmentWeight = map[string]float64{
	"davidson": 0, "germeval": 0, "gahd": 0, "mlma": 0, "own": 0.5, "background": 0,
}

// kindWeight multiplies the weight of the hand-written examples of a kind. Profanity aimed at no
// one ("exclaim") and the pairs that aim the same curse at a person or a thing ("aimed" and its
// harmless side) weigh three times their share: against Davidson and GermEval, which label
// nearly all profanity offensive, a smaller share hardly moved the model.
var kindWeight = map[string]float64{"exclaim": 3, "aimed": 3, "aimed_contrast": 3}

// parseWeights returns sourceWeight with the overrides of a -weight flag ("source=w,...")
// applied. An unknown source, a repeated one, or a weight that is not a finite number >= 0 is
// an error.
func parseWeights(spec string) (map[string]float64, error) {
	return parseOverrides("-weight", "source", spec, sourceWeight, true)
}

// parseOverrides returns a copy of def with the overrides of a flag ("key=w,...") applied. A key
// given twice, an empty key, or a weight that is not a finite number >= 0 is an error; so is a
// key def lacks when closed.
func parseOverrides(name, what, spec string, def map[string]float64, closed bool) (map[string]float64, error) {
	out := maps.Clone(def)
	if strings.TrimSpace(spec) == "" {
		return out, nil
	}
	seen := map[string]bool{}
	for _, kv := range strings.Split(spec, ",") {
		k, v, ok := strings.Cut(kv, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" {
			return nil, fmt.Errorf("%s: %q is not %s=weight", name, kv, what)
		}
		if _, known := def[k]; closed && !known {
			return nil, fmt.Errorf("%s: unknown %s %q (want one of %s)", name, what, k, strings.Join(slices.Sorted(maps.Keys(def)), ", "))
		}
		if seen[k] {
			return nil, fmt.Errorf("%s: %s %q given twice", name, what, k)
		}
		seen[k] = true
		w, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil || math.IsNaN(w) || math.IsInf(w, 0) || w < 0 {
			return nil, fmt.Errorf("%s: %s: want a finite number >= 0, got %q", name, k, v)
		}
		out[k] = w
	}
	return out, nil
}

// ownCell is the total weight of the hand-written examples of one language in one cell: toxic
// or not, about a group of people or not. Texts about groups weigh most, with the toxic side a
// little heavier: the model must judge what is said about a group, and a group name must not
// pull a text towards "not toxic" just because more harmless templates name groups.
var ownCell = map[[2]bool]float64{ // {toxic, about a group}
	{true, true}: 1800, {false, true}: 1500, {true, false}: 1000, {false, false}: 800,
}

// groupKinds are the kinds of hand-written examples that are about a group of people.
var groupKinds = map[string]bool{
	"identity_hate": true, "identity_hate_contrast": true, "threat_group": true, "threat_group_contrast": true,
	"slur": true, "identity_neutral": true, "identity_positive": true, "negation": true,
	"counter_quote": true, "counter_reference": true, "negate_pos": true, "negate_pos_contrast": true,
	"derog_impl": true, "ref_subs": true,
}

// weights returns each document's training weight: sw per example, except for the
// hand-written examples, where each language's cells (ownCell, times sw["own"]) have fixed
// totals, shared among the kinds of a cell in proportion to the square root of their size.
func weights(docs []corpus.Example, sw map[string]float64) []float64 {
	type cell struct {
		lang string
		key  [2]bool
	}
	cellOf := func(d corpus.Example) cell { return cell{d.Lang, [2]bool{d.Toxic, groupKinds[d.Group]}} }
	kinds := map[cell]map[string]int{}
	for _, d := range docs {
		if d.Source != "own" {
			continue
		}
		k := cellOf(d)
		if kinds[k] == nil {
			kinds[k] = map[string]int{}
		}
		kinds[k][d.Group]++
	}
	norm := map[cell]float64{}
	for k, m := range kinds {
		// Sum in a fixed order: map order would change the last bits, and the model's bytes.
		for _, g := range slices.Sorted(maps.Keys(m)) {
			norm[k] += math.Sqrt(float64(m[g]))
		}
	}
	out := make([]float64, len(docs))
	for i, d := range docs {
		if d.Source != "own" {
			out[i] = sw[d.Source]
			continue
		}
		k := cellOf(d)
		n := float64(kinds[k][d.Group])
		out[i] = sw["own"] * ownCell[k.key] * math.Sqrt(n) / norm[k] / n
	}
	return out
}

// parseKinds returns kindWeight with the overrides of a -kind-weight flag ("kind=w,...")
// applied: a kind given twice, or a weight that is not a finite number >= 0, is an error.
// Whether the kinds exist is checked by scaleKinds.
func parseKinds(spec string) (map[string]float64, error) {
	return parseOverrides("-kind-weight", "kind", spec, kindWeight, false)
}

// scaleKinds multiplies the weight of every hand-written example of a kind in kw by its factor.
// A kind no hand-written example has is an error (most likely a typing mistake).
func scaleKinds(docs []corpus.Example, dw []float64, kw map[string]float64) error {
	seen := map[string]bool{}
	for i, d := range docs {
		if f, ok := kw[d.Group]; ok && d.Source == "own" {
			dw[i] *= f
			seen[d.Group] = true
		}
	}
	for _, k := range slices.Sorted(maps.Keys(kw)) {
		if !seen[k] {
			return fmt.Errorf("-kind-weight: no hand-written example of kind %q", k)
		}
	}
	return nil
}

func run(data, out string, verbose, quick, dev bool, l2 float64, sw, aw, kw map[string]float64, mode toxicity.ImplicitMode, cues toxicity.QuoteCues, langs []string, rw readingWeights, seed uint64, dc deepConfig, unaimed float64, masked map[string]bool, curses bool) error {
	ctx := context.Background()
	docs, err := corpus.Training(data)
	if err != nil {
		return err
	}
	if dev {
		kept := docs[:0]
		for _, d := range docs {
			if !corpus.InDev(d) {
				kept = append(kept, d)
			}
		}
		docs = kept
	}
	if len(masked) > 0 {
		log.Printf("mask-curses: %d examples lost a curse word", maskCurses(docs, masked))
	}
	lex, err := lexiconTSV(data)
	if err != nil {
		return err
	}
	prep, err := toxicity.NewPreparer(toxicity.GroupsFile, toxicity.PolarityFile, lex)
	if err != nil {
		return err
	}
	meta := map[string]string{}
	if prep, err = curseReading(prep, meta, curses); err != nil {
		return err
	}
	plainPrep := prep
	if prep, err = prep.WithImplicitQuotes(mode, toxicity.ReportingForLangs(toxicity.ReportingFile, langs)); err != nil {
		return err
	}
	prep = prep.WithQuoteCues(cues)
	if err := os.WriteFile(filepath.Join(out, toxicity.LexiconFileName), []byte(lex), 0o644); err != nil {
		return err
	}
	spec := toxicity.Spec
	logf := func(string, ...any) {}
	if verbose {
		logf = log.Printf
	}
	dw := weights(docs, sw)
	if err := scaleKinds(docs, dw, kw); err != nil {
		return err
	}
	if unaimed != 1 {
		det, err := newUnaimedDetector(toxicity.GroupsFile, toxicity.PolarityFile, lex)
		if err != nil {
			return err
		}
		var n int
		docs, dw, n = reweighUnaimed(det, docs, dw, unaimed)
		log.Printf("unaimed: %d examples of %v whose only offence is profanity aimed at no one, weight times %g", n, slices.Sorted(maps.Keys(unaimedSources)), unaimed)
	}
	// A document's key groups its windows for the calibration folds; a misspelt copy shares its
	// original's, so the two never fall on different sides of a fold.
	keys := make([]string, len(docs))
	for i, d := range docs {
		keys[i] = d.Source + ":" + d.Text
	}
	if extra := augment(docs, aw, seed); len(extra) > 0 {
		n := len(docs)
		for _, a := range extra {
			docs = append(docs, a.doc)
			dw = append(dw, dw[a.from]*aw[a.doc.Source])
			keys = append(keys, keys[a.from])
		}
		keepBalance(docs[:n], dw[:n], extra, dw[n:])
		log.Printf("augment: %d misspelt copies", len(extra))
	}

	// Pass 1: a model that reads quotes as plain text, to tell which quoted passages are toxic.
	primary, _, _, err := featurize(ctx, spec, docs, dw, keys, prep, nil, nil, readingWeights{})
	if err != nil {
		return err
	}
	first, err := lrtrain.Train(primary, lrtrain.Config{Bits: toxicity.PrimaryBits, L2: l2, Holdout: 0.2, Seed: seed, Log: logf})
	if err != nil {
		return fmt.Errorf("pass 1: %w", err)
	}
	quoteScore := func(ctx context.Context, prepared string) (float64, error) {
		ws, err := spec.Windows(ctx, prepared)
		if err != nil {
			return 0, err
		}
		best := 0.0
		for _, w := range ws {
			best = max(best, first.Probability(first.Raw(w.Features)))
		}
		return best, nil
	}

	// Pass 2: the model itself, with quoted passages replaced by their kind.
	primary, perLabel, counts, err := featurize(ctx, spec, docs, dw, keys, prep, quoteScore, plainPrep, rw)
	if err != nil {
		return err
	}
	srcs := make([]string, 0, len(counts))
	for s := range counts {
		srcs = append(srcs, s)
	}
	sort.Strings(srcs)
	for _, s := range srcs {
		log.Printf("%-10s %6d not toxic, %6d toxic", s, counts[s][0], counts[s][1])
	}
	cfg := lrtrain.Config{Bits: toxicity.PrimaryBits, L2: l2, Folds: 5, Seed: seed, MaxIter: 1000, Log: logf}
	if quick {
		cfg.Folds, cfg.Holdout = 0, 0.2
	}
	fit, err := lrtrain.Train(primary, cfg)
	if err != nil {
		return fmt.Errorf("primary head: %w", err)
	}
	head, err := fit.Head(toxicity.HeadToxic)
	if err != nil {
		return err
	}
	model := &textclass.Model{ID: toxicity.ModelID, Spec: spec, Heads: []textclass.Head{head}, Meta: map[string]string{
		"command": "go run ./scripts/train/toxicity",
		"seed":    fmt.Sprint(seed),
	}}
	if mode != toxicity.ImplicitOff {
		model.Meta[toxicity.MetaImplicit] = mode.String()
	}
	if cues != toxicity.QuoteCuesAll {
		model.Meta[toxicity.MetaQuoteCues] = cues.String()
	}
	if langs != nil {
		model.Meta[toxicity.MetaImplicitLangs] = strings.Join(langs, ",")
	}
	maps.Copy(model.Meta, meta)
	if dc.on {
		if err := addDeep(model, primary, fit, dc, seed); err != nil {
			return err
		}
	}
	for _, l := range corpus.AllLabels {
		lf, err := lrtrain.Train(perLabel[l], lrtrain.Config{Bits: toxicity.LabelBits, L2: toxicity.LabelL2, Holdout: 0.2, Seed: seed, Log: logf})
		if err != nil {
			return fmt.Errorf("label %s: %w", l, err)
		}
		h, err := lf.Head(l)
		if err != nil {
			return err
		}
		model.Heads = append(model.Heads, h)
	}
	var buf bytes.Buffer
	if err := model.Encode(&buf); err != nil {
		return err
	}
	file := filepath.Join(out, toxicity.ModelFileName)
	if err := os.WriteFile(file, buf.Bytes(), 0o644); err != nil {
		return err
	}
	log.Printf("wrote %s (%d bytes): %s", file, buf.Len(), strings.Join(headNames(model), ", "))
	return nil
}

// curseReading returns prep with the curse token when on (round 16, -curse-token), and records
// it in the model's metadata meta, so the service reads the model as it was trained; when off
// it returns prep and leaves meta alone, so the model file is what it was without the flag.
func curseReading(prep *toxicity.Preparer, meta map[string]string, on bool) (*toxicity.Preparer, error) {
	if !on {
		return prep, nil
	}
	meta[toxicity.MetaCurseToken] = "on"
	return prep.WithCurses(toxicity.CursesFile)
}

// featurize turns documents into training windows for the primary head and, for the toxic
// documents whose labels are known, for each label head. keys[i] groups document i's windows.
//
// A document that plain (a preparer without implicit quotes) prepares differently from prep
// is weighed as rw says.
func featurize(ctx context.Context, spec textclass.Spec, docs []corpus.Example, dw []float64, keys []string, prep *toxicity.Preparer, score toxicity.ScoreFunc, plain *toxicity.Preparer, rw readingWeights) (primary []lrtrain.Example, perLabel map[string][]lrtrain.Example, counts map[string][2]int, err error) {
	perLabel = map[string][]lrtrain.Example{}
	counts = map[string][2]int{}
	for di, d := range docs {
		text, err := prep.Prepare(ctx, d.Text, score)
		if err != nil {
			return nil, nil, nil, err
		}
		ws, err := spec.Windows(ctx, text)
		if err != nil {
			return nil, nil, nil, err
		}
		if len(ws) == 0 {
			continue
		}
		share, plainWeight := 1.0, 0.0 // of the document's weight, on ws and on plainWs
		var plainWs []textclass.Window
		if rw.changes() {
			pt, err := plain.Prepare(ctx, d.Text, score)
			if err != nil {
				return nil, nil, nil, err
			}
			if pt != text {
				if plainWs, err = spec.Windows(ctx, pt); err != nil {
					return nil, nil, nil, err
				}
				if len(plainWs) > 0 {
					share, plainWeight = rw.split()
				}
			}
		}
		c := counts[d.Source]
		if d.Toxic {
			c[1]++
		} else {
			c[0]++
		}
		counts[d.Source] = c
		group := keys[di]
		add := func(ws []textclass.Window, share float64) {
			w := dw[di] * share / float64(len(ws))
			for _, win := range ws {
				primary = append(primary, lrtrain.Example{Features: win.Features, Label: d.Toxic, Weight: w, Group: group})
				if d.Toxic && len(d.Labels) > 0 {
					for _, l := range corpus.AllLabels {
						perLabel[l] = append(perLabel[l], lrtrain.Example{Features: win.Features, Label: slices.Contains(d.Labels, l), Weight: w, Group: group})
					}
				}
			}
		}
		if share > 0 {
			add(ws, share)
		}
		if plainWeight > 0 {
			add(plainWs, plainWeight)
		}
	}
	return primary, perLabel, counts, nil
}

// readingWeights says how a document that reads differently with and without implicit quotes
// is weighed: with plainShare > 0 its weight is split, plainShare on the plain reading and the
// rest on the implicit one; with extra > 0 the plain reading keeps the whole weight and the
// implicit reading is added at extra times it. With neither, only the implicit reading is
// trained.
type readingWeights struct {
	plainShare, extra float64
}

func (rw readingWeights) changes() bool { return rw.plainShare > 0 || rw.extra > 0 }

// split returns the multiples of a changed document's weight on its implicit and its plain
// reading.
func (rw readingWeights) split() (implicit, plain float64) {
	if rw.extra > 0 {
		return rw.extra, 1
	}
	return 1 - rw.plainShare, rw.plainShare
}

func headNames(m *textclass.Model) []string {
	var out []string
	for _, h := range m.Heads {
		out = append(out, h.Name)
	}
	return out
}

// strongSeverity is the severity from which a word-list entry is marked strong.
const strongSeverity = 0.8

// lexiconTSV builds lexicon.tsv from the word lists: one line per normal form (sorted), with
// "strong" when any list rates it at least strongSeverity and "mild" otherwise. Forms shorter
// than three letters are left out (too many are ordinary words or abbreviations).
func lexiconTSV(data string) (string, error) {
	terms, err := corpus.Lexicons(data)
	if err != nil {
		return "", err
	}
	sev := map[string]float64{}
	for _, t := range terms {
		f := toxicity.NormalForm(t.Form)
		if len([]rune(strings.ReplaceAll(f, " ", ""))) < 3 {
			continue
		}
		sev[f] = max(sev[f], t.Severity)
	}
	forms := make([]string, 0, len(sev))
	for f := range sev {
		forms = append(forms, f)
	}
	sort.Strings(forms)
	var b strings.Builder
	b.WriteString("# Built by scripts/train/toxicity from the LDNOOBW (CC BY 4.0), cuss (MIT) and Surge AI\n")
	b.WriteString("# profanity (MIT) word lists: normal form, strong or mild.\n")
	for _, f := range forms {
		s := "mild"
		if sev[f] >= strongSeverity {
			s = "strong"
		}
		fmt.Fprintf(&b, "%s\t%s\n", f, s)
	}
	return b.String(), nil
}

// deepConfig holds the -deep flags.
type deepConfig struct {
	on                        bool
	bits, dim, hidden, epochs int
	minCount                  int
	rate, l2                  float64
}

// checkDeepFlags refuses a -deep-* flag (in set, the flags given) without -deep: the flag
// would do nothing.
func checkDeepFlags(set map[string]bool, on bool) error {
	for _, name := range slices.Sorted(maps.Keys(set)) {
		if strings.HasPrefix(name, "deep-") && !on {
			return fmt.Errorf("-%s: needs -deep", name)
		}
	}
	return nil
}

// addDeep trains a deep part on the primary examples with the linear head's out-of-fold (or
// held-out, with -quick) scores as its offset, sets it on model and recalibrates the primary
// head on the deep part's held-back examples. The flags go into the model's meta.
func addDeep(model *textclass.Model, primary []lrtrain.Example, fit *lrtrain.Fit, dc deepConfig, seed uint64) error {
	ex := make([]mlptrain.Example, 0, len(fit.Calibration))
	for _, s := range fit.Calibration {
		e := primary[s.Index]
		ex = append(ex, mlptrain.Example{Features: e.Features, Z: s.Z, Label: e.Label, Weight: e.Weight, Group: e.Group})
	}
	res, err := mlptrain.Train(ex, mlptrain.Config{Bits: dc.bits, Dim: dc.dim, Hidden: dc.hidden, PlattA: fit.PlattA, PlattB: fit.PlattB,
		Epochs: dc.epochs, Rate: dc.rate, L2: dc.l2, MinCount: dc.minCount, Seed: seed, Log: log.Printf})
	if err != nil {
		return fmt.Errorf("deep part: %w", err)
	}
	log.Printf("deep part: weights after epoch %.2f kept; held-back log loss %.5f with the linear head alone, %.5f with the float network, %.5f quantized and recalibrated (%.5f for the linear head recalibrated there; a %.4f, b %.4f; linear a %.4f, b %.4f)",
		float64(res.Check)/mlptrain.ChecksPerEpoch, res.LinearLoss, res.FloatLoss, res.QuantizedLoss, res.RecalLinLoss, res.PlattA, res.PlattB, fit.PlattA, fit.PlattB)
	model.Deep = res.Deep
	model.Heads[0].PlattA, model.Heads[0].PlattB = res.PlattA, res.PlattB
	model.Meta["deep"] = fmt.Sprintf("bits=%d,dim=%d,hidden=%d,epochs=%d,rate=%g,l2=%g", dc.bits, dc.dim, dc.hidden, dc.epochs, dc.rate, dc.l2)
	if dc.minCount > 0 {
		model.Meta["deep"] += fmt.Sprintf(",min_count=%d", dc.minCount)
	}
	return nil
}
