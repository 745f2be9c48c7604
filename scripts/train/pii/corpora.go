package main

import (
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/sluice-api/sluice/internal/services/pii/names"
	"github.com/sluice-api/sluice/scripts/internal/evalkit"
	"github.com/sluice-api/sluice/scripts/internal/nerdata"
)

// Ordinary English chat without names, as negative training text and as the source of the
// common-word flag: the banking77 training utterances (capitalised customer messages) and the
// CLINC150 training utterances (lower-case assistant requests). Utterances with a word that is a
// given name and never written in lower case elsewhere are dropped, as they may name a person
// ("text john i'm late").
func intentTexts(data string) (banking, clinc []string, err error) {
	path, err := evalkit.Require(data, "intent", "banking77", "train.csv")
	if err != nil {
		return nil, nil, err
	}
	rows, err := evalkit.ReadCSV(path, ',')
	if err != nil {
		return nil, nil, err
	}
	for _, r := range rows {
		banking = append(banking, r["text"])
	}
	path, err = evalkit.Require(data, "intent", "clinc150", "data_full.json")
	if err != nil {
		return nil, nil, err
	}
	full, err := evalkit.ReadJSON[map[string][][2]string](path)
	if err != nil {
		return nil, nil, err
	}
	for _, pair := range full["train"] {
		clinc = append(clinc, pair[0])
	}
	return banking, clinc, nil
}

// vocabulary counts the words written in lower case in texts (letters only, two or more).
type vocabulary map[string]int

func (v vocabulary) addText(text string) {
	for _, t := range names.Tokenize(text) {
		if t.Kind != names.Word {
			continue
		}
		w := text[t.Start:t.End]
		r, _ := utf8.DecodeRuneInString(w)
		if !unicode.IsLower(r) || utf8.RuneCountInString(w) < 2 {
			continue
		}
		v[w]++
	}
}

// addCapitals counts, by their lower-case form, the words written with a capital in the middle of
// a sentence (not first in the text, a line or a sentence, nor after a colon or a quote).
func (v vocabulary) addCapitals(text string) {
	const starts = names.GapStart | names.GapNewline | names.GapSent | names.GapColon | names.GapQuote
	for _, t := range names.Tokenize(text) {
		if t.Kind != names.Word || t.Gap&starts != 0 {
			continue
		}
		w := text[t.Start:t.End]
		if r, _ := utf8.DecodeRuneInString(w); !unicode.IsUpper(r) || utf8.RuneCountInString(w) < 2 {
			continue
		}
		v[names.Lower(w)]++
	}
}

// hasUpper reports whether text has an upper-case letter.
func hasUpper(text string) bool {
	for _, r := range text {
		if unicode.IsUpper(r) {
			return true
		}
	}
	return false
}

// common returns the words seen at least min times, sorted.
func (v vocabulary) common(min int) []string {
	var out []string
	for w, n := range v {
		if n >= min {
			out = append(out, w)
		}
	}
	sort.Strings(out)
	return out
}

// filterNamed drops the texts with a word the gazetteer knows as a given name but not as a
// common word.
func filterNamed(texts []string, g *names.Gazetteer) []string {
	var out []string
next:
	for _, t := range texts {
		for _, tok := range names.Tokenize(t) {
			f := g.Flags(names.Lower(t[tok.Start:tok.End]))
			if f&names.Given != 0 && f&names.Common == 0 {
				continue next
			}
		}
		out = append(out, t)
	}
	return out
}

// phraseWords are the common English words that capitalised phrases (titles, bands, places,
// teams, events) are made of: words of three or more letters that are not function words.
func phraseWords(v vocabulary) []string {
	var out []string
	for _, w := range v.common(3) {
		if utf8.RuneCountInString(w) >= 3 && names.Lookup(w)&names.ClsFunction == 0 && !strings.ContainsAny(w, "'-") {
			out = append(out, w)
		}
	}
	return out
}

// proseTexts are English texts read only for the common-word flag (which words are written in
// lower case): the llm-warden training prompts, the JailbreakBench prompts and the WildGuardMix
// sample (a training set). They are not training texts: they are unlabelled and may contain
// names. (llm-warden's test split, the CyberSecEval cases and BIPIA are evaluation sets of the
// shield and are not read.)
func proseTexts(data string) ([]string, error) {
	var out []string
	path, err := evalkit.Require(data, "jailbreak", "llm-warden", "train.csv")
	if err != nil {
		return nil, err
	}
	rows, err := evalkit.ReadCSV(path, ',')
	if err != nil {
		return nil, err
	}
	for _, r := range rows {
		out = append(out, r["prompt"])
	}
	path, err = evalkit.Require(data, "jailbreak", "jailbreakbench-artifacts", "jbb_prompts.jsonl")
	if err != nil {
		return nil, err
	}
	jbb, err := evalkit.ReadJSONL[struct {
		Goal   string `json:"goal"`
		Prompt string `json:"prompt"`
	}](path)
	if err != nil {
		return nil, err
	}
	for _, p := range jbb {
		out = append(out, p.Goal, p.Prompt)
	}
	path, err = evalkit.Require(data, "jailbreak", "wildguardmix-sample", "wildguardmix_sample.jsonl")
	if err != nil {
		return nil, err
	}
	wild, err := evalkit.ReadJSONL[struct {
		Text string `json:"text"`
	}](path)
	if err != nil {
		return nil, err
	}
	for _, p := range wild {
		out = append(out, p.Text)
	}
	return out, nil
}

// socialCorpus returns the training sentences of WNUT 2017 and the Broad Twitter Corpus (each
// o.socialRepeat times) and GermEval 2014's development split (o.germevalRepeat times, without
// the fold o.germevalFold leaves out), one example per sentence, as nerdata.ForTraining writes
// them (handles joined and never names). The WNUT and BTC dev splits are never read here: they
// are for choosing settings.
func socialCorpus(data string, o options) ([]names.Example, error) {
	var out []names.Example
	add := func(sents []nerdata.Sentence, times int) {
		for range times {
			for _, s := range sents {
				out = append(out, nerdata.Example([]nerdata.Sentence{nerdata.ForTraining(s)}))
			}
		}
	}
	if o.socialRepeat > 0 {
		dir, err := evalkit.Require(data, "ner", "wnut17")
		if err != nil {
			return nil, err
		}
		wnut, err := nerdata.WNUT17(dir, "train")
		if err != nil {
			return nil, err
		}
		dir, err = evalkit.Require(data, "ner", "broad-twitter-corpus")
		if err != nil {
			return nil, err
		}
		btc, err := nerdata.BTC(dir, "train")
		if err != nil {
			return nil, err
		}
		add(wnut, o.socialRepeat)
		add(btc, o.socialRepeat)
	}
	if o.germevalRepeat > 0 {
		dir, err := evalkit.Require(data, "ner", "germeval2014")
		if err != nil {
			return nil, err
		}
		ge, err := nerdata.GermEval(dir)
		if err != nil {
			return nil, err
		}
		if o.germevalFold != "" {
			k, n, err := nerdata.ParseFold(o.germevalFold)
			if err != nil {
				return nil, err
			}
			ge, _ = nerdata.Fold(ge, k, n)
		}
		add(ge, o.germevalRepeat)
	}
	return out, nil
}
