// Command toxicity trains the model of security.toxicity.flag and writes
// internal/services/toxicity/toxicity.model. See internal/services/toxicity/MODEL.md for the
// data, the seed and the evaluation the model achieved. The output is deterministic: the same
// data gives the same bytes.
//
// Usage (from the repository root):
//
//	go run ./scripts/train/toxicity [-data DIR] [-out DIR] [-quick] [-dev] [-seed N] [-v]
//
// -dev is for comparing settings; -quick calibrates on a holdout, as the shipped model does (see
// MODEL.md, "Rebuild").
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
	"strings"

	"github.com/sluice-api/sluice/internal/modelfile"
	"github.com/sluice-api/sluice/internal/services/textclass"
	"github.com/sluice-api/sluice/internal/services/toxicity"
	"github.com/sluice-api/sluice/scripts/internal/evalkit"
	"github.com/sluice-api/sluice/scripts/internal/lrtrain"
	"github.com/sluice-api/sluice/scripts/train/toxicity/corpus"
)

// The model's name and the sizes and penalties of its heads: the primary head (toxicity.HeadToxic)
// and one head per label.
const (
	modelID     = "sluice-toxicity-lr-v4"
	primaryBits = 20
	primaryL2   = 1e-6
	labelBits   = 18
	labelL2     = 1e-5
)

// flagAt is the calibrated P(toxic) the shipped score puts at 0.5, the service's default
// threshold: the training data's mix of toxic and clean text is not the mix a guardrail sees,
// so where to flag is chosen on the real-text development sets (scripts/eval/toxicitydev -sweep:
// ToLD-Br validation, ConvAbuse valid, the GermEval dev tenth, the social-media dev split).
const flagAt = 0.5

// Seed is the default of -seed, which fixes the calibration folds, the label heads' holdouts
// and the misspelt copies.
const Seed = 12

// The reading of reported speech the model is trained with: reported speech in a sentence that
// condemns it is read as an implicit quote (toxicity.ImplicitCondemned, with quote cues
// toxicity.QuoteCuesApart, the service's only reading), added to the plain reading at half its
// weight (implicitExtra), and French reported speech left unread (implicitLangs). The reading
// and the languages are recorded in the model, which the service checks and reads them from.
const implicitExtra = 0.5

var implicitLangs = []string{"de", "en", "es", "it", "nl", "pt"}

func main() {
	data := evalkit.DataFlag()
	out := flag.String("out", "internal/services/toxicity", "directory to write toxicity.model and lexicon.tsv to")
	verbose := flag.Bool("v", false, "log every fit")
	quick := flag.Bool("quick", false, "calibrate on a 20% holdout instead of 5 folds, in a third of the time (the shipped model since v4 is trained so: see MODEL.md)")
	dev := flag.Bool("dev", false, "for comparing settings: leave out the dev tenth of every data set (corpus.InDev) to measure on it (go run ./scripts/eval/toxicitydev -sources)")
	seed := flag.Uint64("seed", Seed, "the seed of the calibration folds, the holdouts and the misspelt copies (recorded in the model)")
	evalkit.ParseFlags()
	if err := run(*data, *out, *verbose, *quick, *dev, *seed); err != nil {
		log.Fatal(err)
	}
}

// sourceWeight says how much one example of a data set weighs in training; for "own", the
// hand-written examples, it scales the totals of ownCell. The sets labelled by people since v4:
// ToLD-Br train (toldbr) replaces OfensaBR's model-made labels; ConvAbuse train (convabuse,
// turns typed to chatbots, the closest to a guardrail's traffic) weighs most; Toxic Spans
// (toxicspans, English positives only) weighs little, its negatives being ConvAbuse's clean
// turns, Davidson's "neither", the social-media lines and Tatoeba's everyday sentences
// (tatoeba). Chosen on the real-text development sets (MODEL.md lists the runs).
var sourceWeight = map[string]float64{
	"davidson":   0.25,
	"germeval":   6,
	"gahd":       1.0,
	"mlma":       0.3,
	"own":        0.5,
	"background": 1.0,
	"social":     0.1,
	"toldbr":     1.0,
	"convabuse":  2.0,
	"toxicspans": 0.3,
	"tatoeba":    0.6,
}

// davidsonHateWeight is the weight of a Davidson tweet labelled hate speech. Davidson labels
// nearly all profanity offensive, so its offensive and clean tweets weigh sourceWeight's 0.25;
// its hate speech keeps the weight all of it had before.
const davidsonHateWeight = 0.5

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
		if d.Source == "davidson" && slices.Contains(d.Labels, corpus.IdentityHate) {
			out[i] = davidsonHateWeight
			continue
		}
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

func run(data, out string, verbose, quick, dev bool, seed uint64) error {
	sw, aw, kw := sourceWeight, augmentWeight, kindWeight
	rw := readingWeights{extra: implicitExtra}
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
	lex, err := lexiconTSV(data)
	if err != nil {
		return err
	}
	prep, err := toxicity.NewPreparer(toxicity.GroupsFile, toxicity.PolarityFile, lex)
	if err != nil {
		return err
	}
	plainPrep := prep
	if prep, err = prep.WithImplicitQuotes(toxicity.ReportingForLangs(toxicity.ReportingFile, implicitLangs)); err != nil {
		return err
	}
	var dropped int
	if docs, dropped, err = dropAimedSocial(ctx, docs, plainPrep); err != nil {
		return err
	}
	log.Printf("social, tatoeba: %d lines with a lexicon word (social: a strong one and a \"you\") left out", dropped)
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
	first, err := lrtrain.Train(primary, lrtrain.Config{Bits: primaryBits, L2: primaryL2, Holdout: 0.2, Seed: seed, Log: logf})
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
	cfg := lrtrain.Config{Bits: primaryBits, L2: primaryL2, Folds: 5, Seed: seed, MaxIter: 1000, Log: logf}
	if quick {
		cfg.Folds, cfg.Holdout = 0, 0.2
	}
	fit, err := lrtrain.Train(primary, cfg)
	if err != nil {
		return fmt.Errorf("primary head: %w", err)
	}
	// Move the calibrated score so that it crosses the service's default threshold where a
	// calibrated score crosses flagAt (chosen on the real-text dev sets).
	fit.PlattB -= math.Log(flagAt / (1 - flagAt))
	head, err := fit.Head(toxicity.HeadToxic)
	if err != nil {
		return err
	}
	model := &textclass.Model{ID: modelID, Spec: spec, Heads: []textclass.Head{head}, Lists: modelfile.ListHashes(toxicity.ListFiles(lex)), Meta: map[string]string{
		"command": "go run ./scripts/train/toxicity",
		"seed":    fmt.Sprint(seed),
	}}
	model.Meta[toxicity.MetaImplicit] = toxicity.ImplicitCondemned
	model.Meta[toxicity.MetaQuoteCues] = toxicity.QuoteCuesApart
	model.Meta[toxicity.MetaImplicitLangs] = strings.Join(implicitLangs, ",")
	for _, l := range corpus.AllLabels {
		lf, err := lrtrain.Train(perLabel[l], lrtrain.Config{Bits: labelBits, L2: labelL2, Holdout: 0.2, Seed: seed, Log: logf})
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

// youWords address the reader. A social-media line (source "social") with one of them and a
// word the lexicon marks strong is left out of the ordinary negatives: on the social-media
// development set, a third of such lines were abuse, against one in forty lines without a strong
// word.
var youWords = map[string]bool{"you": true, "your": true, "youre": true, "yourself": true, "u": true, "ur": true, "ya": true, "yall": true}

// dropAimedSocial returns docs without the social-media lines that prep marks with a strong
// lexicon word next to any of youWords in the same text, and without the Tatoeba sentences that
// hold any lexicon word (a few are insults, "you idiot"), and how many it left out.
func dropAimedSocial(ctx context.Context, docs []corpus.Example, prep *toxicity.Preparer) ([]corpus.Example, int, error) {
	kept := docs[:0:0]
	n := 0
	for _, d := range docs {
		if d.Source == "social" || d.Source == "tatoeba" {
			text, err := prep.Prepare(ctx, d.Text, nil)
			if err != nil {
				return nil, 0, err
			}
			strong, mild, you := false, false, false
			for _, w := range strings.Fields(text) {
				strong = strong || w == toxicity.TokenStrong
				mild = mild || w == toxicity.TokenMild
				you = you || youWords[w]
			}
			if d.Source == "social" && strong && you || d.Source == "tatoeba" && (strong || mild) {
				n++
				continue
			}
		}
		kept = append(kept, d)
	}
	return kept, n, nil
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
// than three letters are left out (too many are ordinary words or abbreviations), and so are
// the ordinary words of corpus/ordinary.txt.
func lexiconTSV(data string) (string, error) {
	terms, err := corpus.Lexicons(data)
	if err != nil {
		return "", err
	}
	ordinary, err := corpus.Ordinary()
	if err != nil {
		return "", err
	}
	skip := map[string]bool{}
	for _, o := range ordinary {
		skip[toxicity.NormalForm(o)] = true
	}
	sev := map[string]float64{}
	for _, t := range terms {
		f := toxicity.NormalForm(t.Form)
		if len([]rune(strings.ReplaceAll(f, " ", ""))) < 3 || skip[f] {
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
