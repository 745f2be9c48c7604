package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/sluice-api/sluice/internal/services/pii"
	"github.com/sluice-api/sluice/scripts/internal/devset"
	"github.com/sluice-api/sluice/scripts/internal/evalkit"
	"github.com/sluice-api/sluice/scripts/internal/nerdata"
)

// tokenScore counts person names matched at the level of whole tokens, the way the project's
// outside test splits (WNUT 2017, Broad Twitter Corpus, GermEval 2014) are scored: each
// sentence's tokens joined by single spaces and sent through the name recognizer (pii.Find with
// entities [name], what governance.pii.redact runs), a predicted name read as the tokens it
// overlaps, exact token spans, and names with a handle or hashtag token left out on both sides.
type tokenScore struct{ gold, pred, tp int }

func (s *tokenScore) add(o tokenScore) {
	s.gold, s.pred, s.tp = s.gold+o.gold, s.pred+o.pred, s.tp+o.tp
}

func (s tokenScore) p() float64  { return ratio(s.tp, s.pred) }
func (s tokenScore) r() float64  { return ratio(s.tp, s.gold) }
func (s tokenScore) f1() float64 { return evalkit.F1(s.p(), s.r()) }

func (s tokenScore) row(lang, set string) []string {
	return []string{lang, set, fmt.Sprint(s.gold), fmt.Sprint(s.pred), f3(s.p()), f3(s.r()), f3(s.f1())}
}

var tokenHeader = []string{"lang", "set", "gold", "predicted", "P", "R", "F1"}

// scoreTokens scores tag on sents (see tokenScore).
func scoreTokens(set string, sents []nerdata.Sentence, tag tagger) tokenScore {
	var total tokenScore
	shown := 0
	for _, s := range sents {
		text := joinTokens(s)
		offs := nerdata.Offsets(s)
		keep := func(e nerdata.Entity) bool {
			for i := e.Start; i < e.End; i++ {
				if nerdata.Handle(s, i) {
					return false
				}
			}
			return true
		}
		gold := map[nerdata.Entity]bool{}
		for _, e := range nerdata.Entities(s) {
			if keep(e) {
				gold[e] = true
			}
		}
		pred := map[nerdata.Entity]bool{}
		for _, p := range tag(text) {
			e := nerdata.Entity{Start: -1}
			for i, o := range offs {
				if o[0] < p.end && p.start < o[1] {
					if e.Start < 0 {
						e.Start = i
					}
					e.End = i + 1
				}
			}
			if e.Start >= 0 && keep(e) {
				pred[e] = true
			}
		}
		countMisses(set, s, gold, pred)
		total.gold += len(gold)
		total.pred += len(pred)
		for e := range pred {
			if gold[e] {
				total.tp++
			}
		}
		if showErrors-shown > 0 {
			shown += printTokenErrors(set, text, gold, pred, offs, showErrors-shown)
		}
	}
	return total
}

// printTokenErrors prints the gold names not predicted exactly and the predictions that are no
// gold name.
func printTokenErrors(set, text string, gold, pred map[nerdata.Entity]bool, offs [][2]int, limit int) int {
	runes := []rune(text)
	n := 0
	show := func(kind string, e nerdata.Entity) {
		if n >= limit {
			return
		}
		s, t := offs[e.Start][0], offs[e.End-1][1]
		lo, hi := max(s-40, 0), min(t+40, len(runes))
		fmt.Fprintf(errOut, "%s %s: %q\n", set, kind, string(runes[lo:s])+"[["+string(runes[s:t])+"]]"+string(runes[t:hi]))
		n++
	}
	for e := range gold {
		if !pred[e] {
			show("MISS", e)
		}
	}
	for e := range pred {
		if !gold[e] {
			show("SPURIOUS", e)
		}
	}
	return n
}

// joinTokens is the text of a sentence alone: its tokens joined by single spaces.
func joinTokens(s nerdata.Sentence) string {
	parts := make([]string, len(s))
	for i, t := range s {
		parts[i] = t.Text
	}
	return strings.Join(parts, " ")
}

// socialSets are the development splits scored like the outside test splits.
type socialSet struct {
	lang, name string
	sents      []nerdata.Sentence
}

// loadSocial reads the WNUT 2017 and Broad Twitter Corpus dev splits.
func loadSocial(data string) ([]socialSet, error) {
	var out []socialSet
	wnut, err := evalkit.Require(data, "ner", "wnut17")
	if err != nil {
		return nil, err
	}
	s, err := nerdata.WNUT17(wnut, "dev")
	if err != nil {
		return nil, err
	}
	out = append(out, socialSet{"en", "WNUT 2017 dev", s})
	btc, err := evalkit.Require(data, "ner", "broad-twitter-corpus")
	if err != nil {
		return nil, err
	}
	s, err = nerdata.BTC(btc, "dev")
	if err != nil {
		return nil, err
	}
	out = append(out, socialSet{"en", "Broad Twitter Corpus dev", s})
	return out, nil
}

// socialNames prints the token-level table of the social-media dev splits for tag.
func socialNames(w io.Writer, sets []socialSet, extra [][]string, tag tagger) []tokenScore {
	var rows [][]string
	var scores []tokenScore
	for _, s := range sets {
		sc := scoreTokens(s.name, s.sents, tag)
		scores = append(scores, sc)
		rows = append(rows, sc.row(s.lang, s.name))
	}
	rows = append(rows, extra...)
	fmt.Fprintln(w, "### Person names as the outside test splits are scored (tokens joined by spaces; entities [name]; exact token spans; handles and hashtags left out)")
	fmt.Fprintln(w)
	evalkit.Table(w, tokenHeader, rows)
	fmt.Fprintln(w)
	return scores
}

// handLabelled scores tag on the hand-labelled social-media sample of split (devset.Dev or
// devset.Holdout): person names as code-point spans of each line, exact and overlapping, each
// line sent alone as it was written.
func handLabelled(data, split string, tag tagger) ([]string, error) {
	recs, err := devset.Load(data)
	if err != nil {
		return nil, err
	}
	var s score
	shown := 0
	n := 0
	for _, r := range recs {
		if r.Split != split {
			continue
		}
		n++
		var gold []span
		for _, g := range r.Names {
			gold = append(gold, span{typ: pii.TypeName, start: g.Start, end: g.End})
		}
		pred := tag(r.Text)
		s.add(gold, pred)
		shown += printErrors("devset-"+split, r.Text, gold, pred, showErrors-shown)
	}
	row := scoreRow(fmt.Sprintf("hand-labelled social media, %s (%d lines)", split, n), &s)
	return append([]string{"en"}, row...), nil
}
