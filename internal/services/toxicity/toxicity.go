// Package toxicity implements security.toxicity.flag: a lexicon and rules classifier that scores
// how likely a text is toxic (insults, profanity, threats, identity-directed hate, sexual
// content).
//
// The text is folded by package textnorm (NFKC, case folding, invisible characters removed,
// homoglyphs and leetspeak undone, letter-spaced words re-joined). Whole words and phrases of
// up to four words are looked up in a lexicon derived from surge-ai/profanity (lexicon.tsv, built
// by scripts/train/toxicity) plus a few hand-written entries; a word that misses is retried with
// letter runs squeezed ("fuuuuck") and with a plural or verb suffix removed. Matching whole words
// avoids the Scunthorpe problem. Hand-written patterns add threats and identity-directed hate,
// and an insult right after "you"/"your" counts as a directed insult.
//
// Every lexicon entry and pattern has a weight w; the score is P(toxic) = 1 - prod(1 - w_i) over
// the distinct entries and patterns matched, capped at MaxScore. Labels are the sorted labels of
// what matched; the verdict comes from services.Classify.
package toxicity

import (
	"bufio"
	"context"
	_ "embed"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/sluice-api/sluice/internal/services"
	"github.com/sluice-api/sluice/internal/services/textnorm"
)

// Name is the service name.
const Name = "security.toxicity.flag"

// MaxScore caps the score.
const MaxScore = 0.99

// maxPhrase is the longest lexicon phrase in words.
const maxPhrase = 4

// weightDirected is the weight of an insult aimed at the reader ("you idiot").
const weightDirected = 0.5

// ctxEvery is how many words are processed between context checks.
const ctxEvery = 4096

//go:embed lexicon.tsv
var lexiconTSV string

type lexEntry struct {
	form   string
	label  string
	weight float64
}

// Service is security.toxicity.flag. It is safe for concurrent use: all state is read-only
// after New.
type Service struct {
	desc     services.Descriptor
	lex      map[string]lexEntry // folded form -> entry
	squeezed map[string]lexEntry // single-word form with letter runs squeezed -> entry
}

var _ services.Service = (*Service)(nil)

// New loads the embedded lexicon and returns the service.
func New() (*Service, error) {
	lex, err := parseLexicon(lexiconTSV)
	if err != nil {
		return nil, fmt.Errorf("toxicity: %w", err)
	}
	for _, e := range extraWords {
		if old, ok := lex[e.form]; !ok || old.weight < e.weight {
			lex[e.form] = e
		}
	}
	squeezed := make(map[string]lexEntry, len(lex))
	for form, e := range lex {
		if strings.Contains(form, " ") {
			continue
		}
		k := squeeze(form)
		if old, ok := squeezed[k]; !ok || old.weight < e.weight || old.weight == e.weight && old.form > e.form {
			squeezed[k] = e
		}
	}
	return &Service{
		lex:      lex,
		squeezed: squeezed,
		desc: services.Descriptor{
			Name:    Name,
			Kind:    services.KindClassify,
			Version: 1,
			Description: "Flags toxic text (insults, profanity, threats, identity-directed hate, sexual " +
				"content) with a lexicon derived from surge-ai/profanity plus hand-written threat and " +
				"hate patterns, matched on whole words of normalized text (leetspeak, repeated letters, " +
				"invisible characters and letter spacing undone). score = 1 - prod(1 - w) over matches, " +
				"capped at 0.99. Verdict: flag at or above threshold + 0.1, pass below threshold - 0.1, " +
				"uncertain in between. Negation, quotation and counter-speech are not understood.",
			Accepts:     []string{services.TypeText},
			Emits:       services.EmitsSame,
			BillingUnit: "characters",
			Languages:   []string{"en"},
			Params: map[string]services.Param{
				"threshold": {
					Type:        services.ParamNumber,
					Default:     services.DefaultThreshold,
					Minimum:     services.Ptr(0.0),
					Maximum:     services.Ptr(1.0),
					Description: "Score at which the verdict turns to flag (with an uncertainty band of 0.1 either side).",
				},
			},
			Labels: []string{LabelIdentityHate, LabelInsult, LabelProfanity, LabelSexual, LabelThreat},
			Model:  services.Model{ID: "sluice-toxicity-lexicon-v1", License: "MIT (lexicon derived from surge-ai/profanity)"},
		},
	}, nil
}

func parseLexicon(tsv string) (map[string]lexEntry, error) {
	lex := map[string]lexEntry{}
	sc := bufio.NewScanner(strings.NewReader(tsv))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 4 {
			return nil, fmt.Errorf("lexicon line %d: want 4 fields, got %d", n, len(f))
		}
		w, err := strconv.ParseFloat(f[2], 64)
		if err != nil || w <= 0 || w >= 1 {
			return nil, fmt.Errorf("lexicon line %d: bad weight %q", n, f[2])
		}
		switch f[1] {
		case LabelIdentityHate, LabelInsult, LabelProfanity, LabelSexual, LabelThreat:
		default:
			return nil, fmt.Errorf("lexicon line %d: unknown label %q", n, f[1])
		}
		lex[f[0]] = lexEntry{form: f[0], label: f[1], weight: w}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read lexicon: %w", err)
	}
	if len(lex) == 0 {
		return nil, fmt.Errorf("lexicon is empty")
	}
	return lex, nil
}

// Descriptor returns the service descriptor.
func (s *Service) Descriptor() services.Descriptor { return s.desc }

// Run scores the payload.
func (s *Service) Run(ctx context.Context, req services.Request) (services.Result, error) {
	a, err := s.Analyze(ctx, req.Payload.Value)
	if err != nil {
		return services.Result{}, err
	}
	return services.ClassifyResult(req, a.Score, a.Labels), nil
}

// Analysis explains a score.
type Analysis struct {
	Score   float64
	Labels  []string // sorted, distinct
	Matches []string // matched lexicon forms and rule names, sorted
}

type hit struct {
	label  string
	weight float64
}

// Analyze scores text and names what matched.
func (s *Service) Analyze(ctx context.Context, text string) (Analysis, error) {
	words := textnorm.Fold(text).Words
	hits := map[string]hit{}
	toks := strings.Fields(words)
	for i := range toks {
		if i%ctxEvery == 0 {
			if err := ctx.Err(); err != nil {
				return Analysis{}, err
			}
		}
		e, ok := s.lookup(toks, i)
		if !ok {
			continue
		}
		hits["lex:"+e.form] = hit{e.label, e.weight}
		if e.label == LabelInsult && directed(toks, i) {
			hits["directed_insult"] = hit{LabelInsult, weightDirected}
		}
	}
	padded := " " + words + " "
	for _, rl := range rules {
		if err := ctx.Err(); err != nil {
			return Analysis{}, err
		}
		if _, done := hits[rl.name]; done || !containsAny(padded, rl.any) {
			continue
		}
		if rl.re.MatchString(words) {
			hits[rl.name] = hit{rl.label, rl.weight}
		}
	}

	a := Analysis{Labels: []string{}, Matches: make([]string, 0, len(hits))}
	keep := 1.0
	labels := map[string]bool{}
	for name, h := range hits {
		keep *= 1 - h.weight
		labels[h.label] = true
		a.Matches = append(a.Matches, name)
	}
	for l := range labels {
		a.Labels = append(a.Labels, l)
	}
	sort.Strings(a.Labels)
	sort.Strings(a.Matches)
	a.Score = float64(int64(min(1-keep, MaxScore)*10000+0.5)) / 10000
	return a, nil
}

// lookup finds the longest lexicon phrase starting at toks[i].
func (s *Service) lookup(toks []string, i int) (lexEntry, bool) {
	for n := min(maxPhrase, len(toks)-i); n >= 2; n-- {
		if e, ok := s.lex[strings.Join(toks[i:i+n], " ")]; ok {
			return e, true
		}
	}
	w := toks[i]
	if e, ok := s.lex[w]; ok {
		return e, true
	}
	if sq := squeeze(w); sq != w && hasRun3(w) {
		if e, ok := s.squeezed[sq]; ok {
			return e, true
		}
	}
	for _, suf := range []string{"ing", "in", "ers", "er", "ed", "es", "s", "y"} {
		stem, ok := strings.CutSuffix(w, suf)
		if !ok || len(stem) < 3 {
			continue
		}
		if e, ok := s.lex[stem]; ok {
			return e, true
		}
	}
	return lexEntry{}, false
}

// directed reports whether toks[i] follows a second-person word closely ("you stupid idiot").
func directed(toks []string, i int) bool {
	for j := max(0, i-3); j < i; j++ {
		switch toks[j] {
		case "you", "u", "youre", "ur", "your", "yo", "ya":
			return true
		}
	}
	return false
}

// squeeze collapses runs of a repeated character to one.
func squeeze(w string) string {
	var b strings.Builder
	var prev rune = -1
	for _, r := range w {
		if r != prev {
			b.WriteRune(r)
		}
		prev = r
	}
	return b.String()
}

// hasRun3 reports whether w repeats a character three or more times in a row.
func hasRun3(w string) bool {
	rs := []rune(w)
	for i := 2; i < len(rs); i++ {
		if rs[i] == rs[i-1] && rs[i] == rs[i-2] {
			return true
		}
	}
	return false
}

func containsAny(s string, subs []string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}
