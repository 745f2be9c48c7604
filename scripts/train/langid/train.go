package main

import (
	"bytes"
	"cmp"
	"encoding/gob"
	"fmt"
	"io"
	"log"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/sluice-api/sluice/internal/services/langid/model"
)

// config holds the training constants.
type config struct {
	Budget      int        // n-grams of order >= 2 kept per language
	HanBudget   int        // characters kept for Chinese and Japanese
	Backoff     float64    // nats per order backed off
	Unseen      float64    // nats for a character a language lacks
	Calibration [4]float64 // softmax temperature: base, slope per letter, cap, letters before the slope starts
	Step        float64    // quantisation step, nats
	MinOrder    int        // shortest n-gram scored (single characters of Han and kana aside)
	Dev         bool       // sample the synthetic development set
	Cache       string     // directory caching the derived counts between runs (tuning only)
	ChatWeight  float64    // share of a language's letters that its chat phrases stand for
	NoPrior     bool       // give every language the same prior
	PriorScale  float64    // multiplies every language's log prior (prior.go)
	// TatoebaWeight is the share of a language's letters that its Tatoeba sentences (tatoeba.go)
	// stand for, 0 for none; Data is the data directory they are read from.
	TatoebaWeight float64
	Data          string
	// KeepWords is how many of the most frequent words of a language's Tatoeba sentences keep
	// every n-gram of their padded form whatever the budget (0: none).
	KeepWords int
	// WordWeight scales the whole-word values (words.go), 0 for none; WordMin is the fewest
	// times a word must occur in a language's Tatoeba training lines to get one.
	WordWeight float64
	WordMin    int
	WordShort  bool // whole-word values for words of up to MaxOrder-2 letters too
	// OneWeight scales the one-word values (oneword.go), 0 for none; OneDiscount is taken off
	// each word's count of one-word lines.
	OneWeight   float64
	OneDiscount float64
	// OneChat adds the one-word turns users typed to chatbots (ConvAbuse's training split,
	// English; oneword.go) to English's one-word lines.
	OneChat bool
}

// load reads lang's lingua tables and derives its padded counts (nil for Chinese and Japanese,
// which have unigrams only), through the cache directory when one is given.
func load(dir, lang, cache string) (linguaTables, map[string]float64, error) {
	path := filepath.Join(cache, lang+".gob")
	if cache != "" {
		if f, err := os.Open(path); err == nil {
			defer f.Close()
			var c struct {
				T      linguaTables
				Counts map[string]float64
			}
			if err := gob.NewDecoder(f).Decode(&c); err == nil {
				return c.T, c.Counts, nil
			}
		}
	}
	t, err := readLingua(dir, lang)
	if err != nil {
		return t, nil, err
	}
	var counts map[string]float64
	if lang != "zh" && lang != "ja" {
		counts = padded(joint(t))
		t = linguaTables{1: t[1]}
	}
	if cache != "" {
		var buf bytes.Buffer
		c := struct {
			T      linguaTables
			Counts map[string]float64
		}{t, counts}
		if err := gob.NewEncoder(&buf).Encode(c); err != nil {
			return t, nil, err
		}
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			return t, nil, err
		}
	}
	return t, counts, nil
}

func defaultConfig() config {
	return config{Budget: 30000, HanBudget: 12000, Backoff: -1, Unseen: -12, Calibration: [4]float64{1.1, 0.1, 2.5, 3}, Step: 0.1, MinOrder: 1, ChatWeight: 0.01, PriorScale: 1, WordWeight: 1, WordMin: 3, WordShort: true, OneWeight: 1, OneChat: true}
}

// Scripts of the languages lingua-go has n-gram models for; every other is Latin.
var nonLatin = map[string]uint32{
	"be": 1 << model.Cyrillic, "bg": 1 << model.Cyrillic, "kk": 1 << model.Cyrillic,
	"mk": 1 << model.Cyrillic, "mn": 1 << model.Cyrillic, "ru": 1 << model.Cyrillic,
	"sr": 1 << model.Cyrillic, "uk": 1 << model.Cyrillic,
	"ar": 1 << model.Arabic, "fa": 1 << model.Arabic, "ur": 1 << model.Arabic,
	"hi": 1 << model.Devanagari, "mr": 1 << model.Devanagari,
	"zh": 1 << model.Han, "ja": 1<<model.Han | 1<<model.Kana,
}

// linguaLanguages are lingua-go's 75 languages (ISO 639-1). Those in scriptOnly own their script
// among them and get no n-grams.
var linguaLanguages = []string{"af", "ar", "az", "be", "bg", "bn", "bs", "ca", "cs", "cy", "da", "de",
	"el", "en", "eo", "es", "et", "eu", "fa", "fi", "fr", "ga", "gu", "he", "hi", "hr", "hu", "hy", "id",
	"is", "it", "ja", "ka", "kk", "ko", "la", "lg", "lt", "lv", "mi", "mk", "mn", "mr", "ms", "nb", "nl",
	"nn", "pa", "pl", "pt", "ro", "ru", "sk", "sl", "sn", "so", "sq", "sr", "st", "sv", "sw", "ta", "te",
	"th", "tl", "tn", "tr", "ts", "uk", "ur", "vi", "xh", "yo", "zh", "zu"}

var scriptOnly = map[string]bool{"bn": true, "el": true, "gu": true, "he": true, "hy": true,
	"ka": true, "ko": true, "pa": true, "ta": true, "te": true, "th": true}

func scriptsOf(lang string) uint32 {
	if s, ok := nonLatin[lang]; ok {
		return s
	}
	return 1 << model.Latin
}

// trained is the result of training, ready to encode.
type trained struct {
	cfg      config
	langs    []string
	scripts  []uint32
	entries  []model.Entry
	postings int
	// synth is the synthetic development set, sampled from the unpruned counts.
	synth []sample
	// tatoeba is the development set cut from the held-out Tatoeba lines.
	tatoeba []sample
	// oneWord is the held-out Tatoeba lines of a single word ("Hola.", "Danke!").
	oneWord []sample
}

// candidate is one n-gram of one language with its conditional log probability and the
// likelihood its loss would cost.
type candidate struct {
	gram string
	lp   float64
	loss float64
}

// train builds one model per configuration; all share one pass over lingua's tables (the
// configurations differ only in how the counts are pruned and scored).
func train(dir string, cfgs []config) ([]*trained, error) {
	trs := make([]*trained, len(cfgs))
	grams := make([]map[string][]model.Posting, len(cfgs))
	for i, cfg := range cfgs {
		trs[i] = &trained{cfg: cfg}
		grams[i] = map[string][]model.Posting{}
	}
	base := cfgs[0]
	var chatTurns map[string]int // one-word turns typed to chatbots (English), when wanted
	var chatTurnsTotal int
	if slices.ContainsFunc(cfgs, func(c config) bool { return c.OneChat }) {
		var err error
		if chatTurns, chatTurnsTotal, err = chatbotTurns(base.Data); err != nil {
			return nil, err
		}
		log.Printf("en: %d one-word turns typed to chatbots", chatTurnsTotal)
	}
	for _, lang := range linguaLanguages {
		if scriptOnly[lang] {
			continue
		}
		t, counts, err := load(dir, lang, base.Cache)
		if err != nil {
			return nil, err
		}
		if lang == "zh" {
			ja, _, err := load(dir, "ja", base.Cache)
			if err != nil {
				return nil, err
			}
			t[1] = simplifiedChinese(t[1], ja[1])
		}
		if base.Dev && counts != nil {
			trs[0].synth = append(trs[0].synth, synthetic(lang, counts, uint64(len(trs[0].langs))+1)...)
		}
		var everyday map[string]float64 // the Tatoeba sentences' counts, when a configuration wants them
		var frequent []string           // their words, most frequent first
		var words []string              // their words, in order
		var alone map[string]int        // their one-word lines, by word
		var aloneTotal int
		if needTatoeba(cfgs) {
			train, heldOut, ok, err := readTatoeba(base.Data, lang)
			if err != nil {
				return nil, err
			}
			if ok {
				words = chatWords(train)
				alone, aloneTotal = oneWordCounts(train)
				everyday = wordCounts(words)
				frequent = byFrequency(words)
				if base.Dev {
					trs[0].tatoeba = append(trs[0].tatoeba, tatoebaDev(lang, heldOut)...)
					trs[0].oneWord = append(trs[0].oneWord, oneWordLines(lang, heldOut)...)
				}
			}
		}
		for i, cfg := range cfgs {
			tr := trs[i]
			li := len(tr.langs)
			tr.langs = append(tr.langs, lang)
			tr.scripts = append(tr.scripts, scriptsOf(lang))
			var kept []candidate
			if lang == "zh" || lang == "ja" {
				kept = unigrams(t, cfg.HanBudget)
			} else {
				c := counts
				if cfg.ChatWeight > 0 || cfg.TatoebaWeight > 0 && everyday != nil {
					c = maps.Clone(counts)
				}
				if cfg.ChatWeight > 0 {
					addChat(c, lang, cfg.ChatWeight)
				}
				if cfg.TatoebaWeight > 0 && everyday != nil {
					addScaled(c, everyday, cfg.TatoebaWeight)
				}
				kept = prune(c, conditional(c), cfg, keepGrams(frequent[:min(cfg.KeepWords, len(frequent))]))
			}
			values := additive(kept, cfg, lang == "zh" || lang == "ja")
			ww := wholeWords(words, kept, cfg)
			for g, v := range ww {
				values[g] += v // a short word's padded form may be a kept n-gram already
			}
			counts, total := alone, aloneTotal
			if cfg.OneChat && lang == "en" {
				counts, total = addCounts(alone, chatTurns), aloneTotal+chatTurnsTotal
			}
			ow := oneWords(counts, total, ww, kept, cfg)
			for g, v := range ow {
				values[g] = v
			}
			for g, v := range values {
				q := int8(min(max(math.Round(v/cfg.Step), -128), 127))
				grams[i][g] = append(grams[i][g], model.Posting{Lang: uint8(li), Score: uint8(q)})
			}
			if i == 0 && len(ww) > 0 {
				log.Printf("%s: %d whole words, %d one-word messages", lang, len(ww), len(ow))
			}
			if i == 0 {
				log.Printf("%s: %d n-grams kept", lang, len(kept))
			}
		}
	}
	for i, tr := range trs {
		keys := make([]string, 0, len(grams[i]))
		for g := range grams[i] {
			keys = append(keys, g)
		}
		slices.Sort(keys)
		tr.entries, tr.postings = dedupe(keys, grams[i])
		tr.synth, tr.tatoeba, tr.oneWord = trs[0].synth, trs[0].tatoeba, trs[0].oneWord
	}
	return trs, nil
}

func (tr *trained) encode(w io.Writer) error {
	p := model.Params{
		Step: float32(tr.cfg.Step), Backoff: float32(tr.cfg.Backoff), Unseen: float32(tr.cfg.Unseen),
		MinOrder: uint32(tr.cfg.MinOrder),
	}
	for i, v := range tr.cfg.Calibration {
		p.Calibration[i] = float32(v)
	}
	prior := make([]float32, len(tr.langs))
	if !tr.cfg.NoPrior {
		for i, l := range tr.langs {
			prior[i] = float32(tr.cfg.PriorScale * priorOf(l))
		}
	}
	return model.Encode(w, tr.langs, tr.scripts, prior, p, tr.entries)
}

// needTatoeba reports whether any configuration trains on, or develops with, the Tatoeba
// sentences.
func needTatoeba(cfgs []config) bool {
	for _, c := range cfgs {
		if c.TatoebaWeight > 0 || c.KeepWords > 0 || c.WordWeight > 0 || c.OneWeight > 0 || c.Dev {
			return true
		}
	}
	return false
}

// conditional returns every padded n-gram with the log probability of its last character given
// the characters before it; unigrams are letters (and the end boundary) among all symbols.
func conditional(counts map[string]float64) map[string]float64 {
	words := counts[" "]
	total := words
	for g, c := range counts {
		if g != " " && utf8.RuneCountInString(g) == 1 {
			total += c
		}
	}
	lp := make(map[string]float64, len(counts))
	for g, c := range counts {
		if c <= 0 {
			continue
		}
		n := utf8.RuneCountInString(g)
		if g == " " {
			lp[g] = math.Log(words / total) // the end boundary as a unigram
			continue
		}
		if n == 1 {
			lp[g] = math.Log(c / total)
			continue
		}
		_, last := utf8.DecodeLastRuneInString(g)
		h := g[:len(g)-last]
		ctx := counts[h]
		if ctx <= 0 || c > ctx*(1+1e-9) {
			continue
		}
		lp[g] = math.Log(min(c/ctx, 1))
	}
	return lp
}

// prune keeps every unigram and the Budget n-grams of order 2 to 5 whose removal would cost the
// most: count × |log P(c|h) - (log P(c|h') + backoff)|, the likelihood lost by backing off from
// n-gram hc to h'c (h' is h without its first character).
func prune(counts, lp map[string]float64, cfg config, keep map[string]bool) []candidate {
	var uni, rest, kept []candidate
	for g, v := range lp {
		n := utf8.RuneCountInString(g)
		if n == 1 {
			uni = append(uni, candidate{gram: g, lp: v})
			continue
		}
		_, first := utf8.DecodeRuneInString(g)
		lower, ok := lp[g[first:]]
		if !ok {
			lower = cfg.Unseen
		}
		c := candidate{gram: g, lp: v, loss: counts[g] * math.Abs(v-(lower+cfg.Backoff))}
		if keep[g] {
			kept = append(kept, c)
			continue
		}
		rest = append(rest, c)
	}
	slices.SortFunc(rest, func(a, b candidate) int {
		if c := cmp.Compare(b.loss, a.loss); c != 0 {
			return c
		}
		return cmp.Compare(a.gram, b.gram)
	})
	if len(rest) > cfg.Budget {
		rest = rest[:cfg.Budget]
	}
	slices.SortFunc(uni, func(a, b candidate) int { return cmp.Compare(a.gram, b.gram) })
	slices.SortFunc(kept, func(a, b candidate) int { return cmp.Compare(a.gram, b.gram) })
	return append(append(uni, rest...), kept...)
}

// unigrams keeps the budget most frequent characters of a unigram-only language (Chinese and
// Japanese), with their log relative frequencies.
func unigrams(t linguaTables, budget int) []candidate {
	var cs []candidate
	for g, p := range t[1] {
		cs = append(cs, candidate{gram: g, lp: math.Log(p), loss: p})
	}
	slices.SortFunc(cs, func(a, b candidate) int {
		if c := cmp.Compare(b.loss, a.loss); c != 0 {
			return c
		}
		return cmp.Compare(a.gram, b.gram)
	})
	if len(cs) > budget {
		cs = cs[:budget]
	}
	return cs
}

// dedupe turns the n-grams into entries. Two n-grams sharing a fingerprint cannot both be looked
// up: it keeps the one more languages have (the first in order on a tie).
func dedupe(keys []string, grams map[string][]model.Posting) ([]model.Entry, int) {
	var es []model.Entry
	byFP := map[uint32]int{}
	for _, g := range keys {
		fp := model.Fingerprint(model.HashString(g))
		if i, dup := byFP[fp]; dup {
			if len(grams[g]) > len(es[i].Postings) {
				es[i] = model.Entry{Gram: g, Postings: grams[g]}
			}
			continue
		}
		byFP[fp] = len(es)
		es = append(es, model.Entry{Gram: g, Postings: grams[g]})
	}
	postings := 0
	for _, e := range es {
		postings += len(e.Postings)
	}
	return es, postings
}

// additive turns one language's kept n-grams into the values the detector adds up. The backoff
// model scores a character by the longest n-gram ending at it that the language has, minus
// Backoff for each order it had to drop; a language without even the character scores Unseen.
// With B(g) that score for the n-gram chain g, suffix(g), ..., it telescopes:
//
//	B(g5) = B(g1) + Σ_{n=2..5} (B(gn) - B(gn-1))
//
// where B(gn) - B(gn-1) is Backoff for a language without gn and lp(gn) - B(gn-1) for one with
// it. Dropping what every language shares (Unseen and the Backoffs), a language's score is the
// sum, over every n-gram of the text it has, of value(g) = lp(g) - B(suffix(g)) - Backoff, and
// lp(g) - Unseen for single characters: the detector adds postings without comparing orders.
func additive(kept []candidate, cfg config, single bool) map[string]float64 {
	lp := make(map[string]float64, len(kept))
	for _, c := range kept {
		lp[c.gram] = c.lp
	}
	minOrder := max(cfg.MinOrder, 1)
	var chain func(g string) float64 // B(g)
	chain = func(g string) float64 {
		if v, ok := lp[g]; ok {
			return v
		}
		if utf8.RuneCountInString(g) <= minOrder {
			return cfg.Unseen
		}
		_, first := utf8.DecodeRuneInString(g)
		return cfg.Backoff + chain(g[first:])
	}
	out := make(map[string]float64, len(kept))
	for _, c := range kept {
		n := utf8.RuneCountInString(c.gram)
		if n < minOrder && !single {
			continue
		}
		if n <= minOrder || single {
			out[c.gram] = c.lp - cfg.Unseen
			continue
		}
		_, first := utf8.DecodeRuneInString(c.gram)
		out[c.gram] = c.lp - chain(c.gram[first:]) - cfg.Backoff
	}
	return out
}

// set applies "key=value,..." overrides (the -grid flag).
func (c *config) set(spec string) error {
	for _, kv := range strings.Split(spec, ",") {
		if kv == "" {
			continue
		}
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return fmt.Errorf("%q is not key=value", kv)
		}
		f, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return fmt.Errorf("%s: %w", k, err)
		}
		switch k {
		case "budget":
			c.Budget = int(f)
		case "backoff":
			c.Backoff = f
		case "unseen":
			c.Unseen = f
		case "chat":
			c.ChatWeight = f
		case "minorder":
			c.MinOrder = int(f)
		case "prior":
			c.NoPrior = f == 0
		case "tatoeba":
			c.TatoebaWeight = f
		case "keep":
			c.KeepWords = int(f)
		case "word":
			c.WordWeight = f
		case "wordmin":
			c.WordMin = int(f)
		case "priorscale":
			c.PriorScale = f
		case "one":
			c.OneWeight = f
		case "onedisc":
			c.OneDiscount = f
		case "chat1":
			c.OneChat = f != 0
		case "short":
			c.WordShort = f != 0
		default:
			return fmt.Errorf("unknown key %q", k)
		}
	}
	return nil
}
