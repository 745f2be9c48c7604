// Command pii measures governance.pii.redact and .tokenize on held-out data and prints markdown
// tables:
//
//   - the presidio-research synthetic set: precision, recall and F1 per entity type (PERSON ->
//     name, EMAIL_ADDRESS -> email, IBAN_CODE -> iban, CREDIT_CARD -> card, PHONE_NUMBER -> phone,
//     IP_ADDRESS -> ip, US_SSN -> id), with exact and overlapping spans;
//   - person names on WikiGold (en), on the held-out fifth of Europeana Newspapers (de, fr, nl)
//     and on the LeNER-Br test split (pt);
//   - person names on the WNUT 2017 and Broad Twitter Corpus dev splits, scored as the outside
//     test splits are (each sentence's tokens joined by spaces, exact token spans, handles and
//     hashtags left out), and on the hand-labelled social-media sample (dev and holdout);
//   - a generated multilingual set of checksum-valid values (seeded): recall per type and locale,
//     and how many look-alike distractors (bad checksums, order numbers, dates, versions) are
//     reported;
//   - the project's own held-out set (internal/services/pii/testdata/heldout.jsonl): chat and
//     e-mail texts in eight languages run through the redaction service with the params a client
//     would send, scored as values removed and distractors kept.
//
// None of these sets is used for training (see scripts/train/pii); the WNUT and BTC dev splits
// and the hand-labelled dev split are the sets settings are chosen on.
//
// Usage: go run ./scripts/eval/pii [-data DIR] [-seed 1] [-only SECTIONS] [-without RULES]
//
// With -dev DIRS it instead scores the name models that `go run ./scripts/train/pii -dev -out
// DIR` wrote (seeds, or GermEval folds with -germeval-fold K/5) on the development sets: the
// Europeana development blocks, the LeNER-Br dev split, the hand-labelled dev split, the WNUT
// and BTC dev splits and the GermEval fold each run left out, pooled over the runs. -ablate
// then switches off each rule after the tagger in turn; -bias-b scores with another bias of
// the tagger's B score.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log"
	"math"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/sluice-api/sluice/internal/services/pii"
	"github.com/sluice-api/sluice/internal/services/pii/names"
	"github.com/sluice-api/sluice/scripts/internal/devset"
	"github.com/sluice-api/sluice/scripts/internal/evalkit"
	"github.com/sluice-api/sluice/scripts/internal/nerdata"
)

// presidioTypes maps the synthetic set's entity types to Sluice entity types.
var presidioTypes = map[string]string{
	"PERSON":        pii.TypeName,
	"EMAIL_ADDRESS": pii.TypeEmail,
	"IBAN_CODE":     pii.TypeIBAN,
	"CREDIT_CARD":   pii.TypeCard,
	"PHONE_NUMBER":  pii.TypePhone,
	"IP_ADDRESS":    pii.TypeIP,
	"US_SSN":        pii.TypeID,
}

func main() {
	data := evalkit.DataFlag()
	seed := flag.Uint64("seed", 1, "seed of the generated checksum set")
	only := flag.String("only", "", "comma-separated sections to run: presidio, names, social, checksums, heldout (default all)")
	flag.IntVar(&showErrors, "errors", 0, "print up to this many missed and spurious names per set to stderr")
	dev := flag.String("dev", "", "instead: score the name models in these directories (comma-separated; trained with -dev) on the development sets")
	flag.Float64Var(&biasB, "bias-b", math.NaN(), "with -dev: score with this bias of the tagger's B score instead of the model's own (for choosing it)")
	flag.StringVar(&without, "without", "", "switch off these rules after the tagger (comma-separated names; see names.RuleNames)")
	showMisses := flag.Bool("misses", false, "print, for each set scored like the outside test splits, the kinds of names missed (lower case, first names alone, next to emoji or hashtags, common words, other scripts)")
	flag.BoolVar(&ablate, "ablate", false, "with -dev: switch off each rule after the tagger in turn and print what it changes")
	flag.Parse()
	var err error
	if without != "" && *dev == "" {
		m, err := names.Default()
		if err != nil {
			log.Fatal("eval pii: ", err)
		}
		if evalModel, err = m.WithoutRules(strings.Split(without, ",")...); err != nil {
			log.Fatal("eval pii: ", err)
		}
	}
	if *showMisses {
		m, err := names.Default()
		if err != nil {
			log.Fatal("eval pii: ", err)
		}
		misses.gaz = m.Gazetteer()
	}
	if *dev != "" {
		err = devNames(os.Stdout, *data, strings.Split(*dev, ","))
	} else {
		err = run(os.Stdout, *data, *seed, *only)
	}
	if err != nil {
		log.Fatal("eval pii: ", err)
	}
	printMisses(os.Stdout)
}

func run(w io.Writer, data string, seed uint64, only string) error {
	want := func(s string) bool { return only == "" || strings.Contains(","+only+",", ","+s+",") }
	if want("presidio") {
		if err := presidio(w, data); err != nil {
			return err
		}
	}
	if want("names") {
		if err := personNames(w, data); err != nil {
			return err
		}
	}
	if want("social") {
		sets, err := loadSocial(data)
		if err != nil {
			return err
		}
		// GermEval's dev split is training data of the shipped tagger: it is scored by folds
		// (go run ./scripts/train/pii -dev -germeval-fold K/5, then -dev DIRS here).
		socialNames(w, sets, nil, serviceNames)
		var rows [][]string
		for _, split := range []string{devset.Dev, devset.Holdout} {
			row, err := handLabelled(data, split, serviceNames)
			if err != nil {
				return err
			}
			rows = append(rows, row)
		}
		fmt.Fprintln(w, "### Person names in the hand-labelled social-media sample (each line as written; code-point spans)")
		fmt.Fprintln(w)
		evalkit.Table(w, []string{"lang", "set", "gold", "predicted", "P exact", "R exact", "F1 exact", "P overlap", "R overlap", "F1 overlap"}, rows)
		fmt.Fprintln(w)
	}
	if want("checksums") {
		if err := checksums(w, seed); err != nil {
			return err
		}
	}
	if want("heldout") {
		if err := heldout(w); err != nil {
			return err
		}
	}
	return nil
}

// span is a gold or predicted entity: code points [start, end) of a text.
type span struct {
	typ        string
	start, end int
}

// score counts matches of one entity type under exact and overlap matching.
type score struct {
	gold, pred             int
	predExact, predOverlap int // predicted spans that match a gold span
	goldExact, goldOverlap int // gold spans matched by a prediction
}

func (s *score) add(gold, pred []span) {
	s.gold += len(gold)
	s.pred += len(pred)
	for _, p := range pred {
		e, o := match(p, gold)
		s.predExact += b2i(e)
		s.predOverlap += b2i(o)
	}
	for _, g := range gold {
		e, o := match(g, pred)
		s.goldExact += b2i(e)
		s.goldOverlap += b2i(o)
	}
}

func (s *score) merge(o *score) {
	s.gold += o.gold
	s.pred += o.pred
	s.predExact += o.predExact
	s.predOverlap += o.predOverlap
	s.goldExact += o.goldExact
	s.goldOverlap += o.goldOverlap
}

func match(s span, others []span) (exact, overlap bool) {
	for _, o := range others {
		if o.typ != s.typ {
			continue
		}
		if o.start == s.start && o.end == s.end {
			exact = true
		}
		if o.start < s.end && s.start < o.end {
			overlap = true
		}
	}
	return exact, overlap
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

func f3(x float64) string { return fmt.Sprintf("%.3f", x) }

func scoreRow(name string, s *score) []string {
	pe, re := ratio(s.predExact, s.pred), ratio(s.goldExact, s.gold)
	po, ro := ratio(s.predOverlap, s.pred), ratio(s.goldOverlap, s.gold)
	return []string{name, fmt.Sprint(s.gold), fmt.Sprint(s.pred), f3(pe), f3(re), f3(evalkit.F1(pe, re)),
		f3(po), f3(ro), f3(evalkit.F1(po, ro))}
}

var scoreHeader = []string{"entity", "gold", "predicted", "P exact", "R exact", "F1 exact", "P overlap", "R overlap", "F1 overlap"}

// evalModel is the name tagger the sets are scored with: nil for the embedded one, or the
// embedded one without the rules -without names.
var evalModel *names.Model

// find runs the detector with code-point offsets.
func find(text string, types []string) []span {
	ents, err := pii.Find(context.Background(), text, pii.Options{Types: types, Names: evalModel})
	if err != nil {
		log.Fatal(err)
	}
	out := make([]span, len(ents))
	for i, e := range ents {
		out[i] = span{typ: e.Type, start: e.Start, end: e.End}
	}
	return out
}

type presidioSample struct {
	FullText string `json:"full_text"`
	Spans    []struct {
		EntityType string `json:"entity_type"`
		Start      int    `json:"start_position"`
		End        int    `json:"end_position"`
	} `json:"spans"`
}

func presidio(w io.Writer, data string) error {
	path, err := evalkit.Require(data, "pii", "presidio-research", "synth_dataset_v2.json")
	if err != nil {
		return err
	}
	samples, err := evalkit.ReadJSON[[]presidioSample](path)
	if err != nil {
		return err
	}
	scores := map[string]*score{}
	for _, t := range pii.Types() {
		scores[t] = &score{}
	}
	shown := 0
	for _, smp := range samples {
		gold := map[string][]span{}
		for _, s := range smp.Spans {
			if t, ok := presidioTypes[s.EntityType]; ok {
				gold[t] = append(gold[t], span{typ: t, start: s.Start, end: s.End})
			}
		}
		pred := map[string][]span{}
		for _, s := range find(smp.FullText, pii.Types()) {
			pred[s.typ] = append(pred[s.typ], s)
		}
		for _, t := range pii.Types() {
			scores[t].add(gold[t], pred[t])
		}
		shown += printErrors("presidio", smp.FullText, gold[pii.TypeName], pred[pii.TypeName], showErrors-shown)
	}
	fmt.Fprintf(w, "### presidio-research synth_dataset_v2 (%d samples, all entity types requested)\n\n", len(samples))
	var rows [][]string
	var total score
	for _, t := range pii.Types() {
		rows = append(rows, scoreRow(t, scores[t]))
		total.merge(scores[t])
	}
	rows = append(rows, scoreRow("**all**", &total))
	evalkit.Table(w, scoreHeader, rows)
	fmt.Fprintln(w)
	return nil
}

// personNames scores the name recognizer (through pii.Find with entities [name]) on the NER
// sets.
func personNames(w io.Writer, data string) error {
	var rows [][]string
	wg, err := evalkit.Require(data, "pii", "wikigold", "wikigold.conll.txt")
	if err != nil {
		return err
	}
	docs, err := wikigold(wg)
	if err != nil {
		return err
	}
	rows = append(rows, nameRow("en", "WikiGold (all, I-PER)", docs, serviceNames))
	eu, err := evalkit.Require(data, "ner", "europeana-newspapers")
	if err != nil {
		return err
	}
	for _, lang := range nerdata.EuropeanaLanguages {
		_, test, err := nerdata.Europeana(eu, lang)
		if err != nil {
			return err
		}
		rows = append(rows, nameRow(lang, "Europeana Newspapers held-out fifth", examples(test), serviceNames))
	}
	lener, err := evalkit.Require(data, "ner", "lener-br")
	if err != nil {
		return err
	}
	blocks, err := nerdata.LeNERBr(lener, "test")
	if err != nil {
		return err
	}
	rows = append(rows, nameRow("pt", "LeNER-Br test (PESSOA)", examples(blocks), serviceNames))
	fmt.Fprintln(w, "### Person names (entities [name]; span-level)")
	fmt.Fprintln(w)
	evalkit.Table(w, []string{"lang", "set", "gold", "predicted", "P exact", "R exact", "F1 exact", "P overlap", "R overlap", "F1 overlap"}, rows)
	fmt.Fprintln(w)
	return nil
}

// serviceWith finds names the way the service does, with m as the tagger.
func serviceWith(m *names.Model) tagger {
	return func(text string) []span {
		ents, err := pii.Find(context.Background(), text, pii.Options{Types: []string{pii.TypeName}, Names: m})
		if err != nil {
			log.Fatal(err)
		}
		out := make([]span, len(ents))
		for i, e := range ents {
			out[i] = span{typ: e.Type, start: e.Start, end: e.End}
		}
		return out
	}
}

// loadModel reads the model file the trainer wrote to dir.
func loadModel(dir string) (*names.Model, error) {
	b, err := os.ReadFile(filepath.Join(dir, "tagger.model"))
	if err != nil {
		return nil, err
	}
	return names.Decode(b)
}

// examples turns blocks of annotated sentences into texts with their names.
func examples(blocks [][]nerdata.Sentence) []names.Example {
	exs := make([]names.Example, len(blocks))
	for i, b := range blocks {
		exs[i] = nerdata.Example(b)
	}
	return exs
}

// showErrors is the -errors flag.
var showErrors int

// tagger finds the names of a text as code-point spans.
type tagger func(text string) []span

// serviceNames finds names the way the service does (pii.Find with entities [name]).
func serviceNames(text string) []span { return find(text, []string{pii.TypeName}) }

func nameRow(lang, set string, exs []names.Example, tag tagger) []string {
	var s score
	shown := 0
	for _, ex := range exs {
		var gold []span
		for _, n := range ex.Names {
			gold = append(gold, span{typ: pii.TypeName, start: utf8.RuneCountInString(ex.Text[:n.Start]), end: utf8.RuneCountInString(ex.Text[:n.End])})
		}
		pred := tag(ex.Text)
		s.add(gold, pred)
		shown += printErrors(lang, ex.Text, gold, pred, showErrors-shown)
	}
	row := scoreRow(set, &s)
	return append([]string{lang}, row...)
}

// wikigold reads WikiGold's documents (split at -DOCSTART-), sentences on their own lines and
// tokens joined by spaces, with I-PER mentions as names.
func wikigold(path string) ([]names.Example, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []names.Example
	var b strings.Builder
	var spans []names.Span
	inPer, newSentence := false, false
	flush := func() {
		if b.Len() > 0 {
			out = append(out, names.Example{Text: b.String(), Names: spans})
		}
		b.Reset()
		spans, inPer, newSentence = nil, false, false
	}
	for _, line := range strings.Split(string(raw), "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "-DOCSTART-") {
			flush()
			continue
		}
		if line == "" {
			newSentence, inPer = true, false
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		if i < 0 {
			return nil, fmt.Errorf("wikigold: malformed line %q", line)
		}
		tok, tag := line[:i], line[i+1:]
		switch {
		case b.Len() > 0 && newSentence:
			b.WriteByte('\n')
		case b.Len() > 0:
			b.WriteByte(' ')
		}
		newSentence = false
		start := b.Len()
		b.WriteString(tok)
		if tag == "I-PER" {
			if inPer {
				spans[len(spans)-1].End = b.Len()
			} else {
				spans = append(spans, names.Span{Start: start, End: b.Len()})
			}
		}
		inPer = tag == "I-PER"
	}
	flush()
	return out, nil
}

// errOut receives the -errors listing.
var errOut io.Writer = os.Stderr

// repoPath finds path relative to the repository root (the directory holding go.mod), from any
// working directory inside the repository.
func repoPath(path string) (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Join(dir, path), nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("%s: not inside the repository", path)
		}
		dir = parent
	}
}

// printErrors prints, to stderr, up to limit gold names not overlapped by a prediction and
// predictions overlapping no gold name, with some context; it returns how many it printed.
func printErrors(set, text string, gold, pred []span, limit int) int {
	if limit <= 0 {
		return 0
	}
	runes := []rune(text)
	n := 0
	show := func(kind string, s span) {
		lo, hi := max(s.start-40, 0), min(s.end+40, len(runes))
		ctx := string(runes[lo:s.start]) + "[[" + string(runes[s.start:s.end]) + "]]" + string(runes[s.end:hi])
		fmt.Fprintf(errOut, "%s %s: %q\n", set, kind, ctx)
		n++
	}
	for _, g := range gold {
		if _, o := match(g, pred); !o && n < limit {
			show("MISS", g)
		}
	}
	for _, p := range pred {
		if _, o := match(p, gold); !o && n < limit {
			show("SPURIOUS", p)
		}
	}
	return n
}
