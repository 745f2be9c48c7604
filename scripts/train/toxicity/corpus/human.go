package corpus

import (
	"compress/gzip"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/sluice-api/sluice/scripts/internal/evalkit"
)

// This file loads the data sets labelled by people that the model has trained on since v4:
// ToLD-Br (Portuguese tweets, CC BY-SA 4.0), ConvAbuse (English turns typed to chatbots,
// CC BY 4.0) and Toxic Spans (English comments rated toxic, CC0), and ToxiGen's seed sentences,
// which are for reporting only.

// ToLDBr returns one split of ToLD-Br, "train" or "validation": Brazilian Portuguese tweets,
// toxic when at least two of three annotators said so. The split "validation" is never trained
// on: settings are chosen on it.
func ToLDBr(data, split string) ([]Example, error) {
	name := map[string]string{"train": "ptbr_train_2annotator.csv", "validation": "ptbr_validation_2annotator.csv"}[split]
	if name == "" {
		return nil, fmt.Errorf("toldbr: unknown split %q", split)
	}
	path, err := evalkit.Require(data, "toxicity", "told-br-train", name)
	if err != nil {
		return nil, err
	}
	recs, err := evalkit.ReadCSV(path, ',')
	if err != nil {
		return nil, err
	}
	out := make([]Example, 0, len(recs))
	for i, r := range recs {
		switch r["toxic"] {
		case "0", "1":
		default:
			return nil, fmt.Errorf("toldbr %s row %d: toxic %q", split, i+1, r["toxic"])
		}
		out = append(out, Example{Text: r["text"], Toxic: r["toxic"] == "1", Lang: "pt", Source: "toldbr"})
	}
	return out, nil
}

// convAbuseRow is one line of convabuse_majority.jsonl.
type convAbuseRow struct {
	Split string `json:"split"`
	Text  string `json:"text"`
	Label string `json:"label"`
}

// ConvAbuse returns the user turns of one ConvAbuse split ("train", "valid" or "test"): toxic
// when more than half of the annotators rated the turn abusive (the majority label of the
// shared copy). The kind of abuse is left unknown. Only "train" is trained on; "valid" chooses
// settings.
func ConvAbuse(data, split string) ([]Example, error) {
	path, err := evalkit.Require(data, "toxicity", "convabuse", "convabuse_majority.jsonl")
	if err != nil {
		return nil, err
	}
	rows, err := evalkit.ReadJSONL[convAbuseRow](path)
	if err != nil {
		return nil, err
	}
	var out []Example
	for i, r := range rows {
		if r.Split != split {
			continue
		}
		if r.Label != "abusive" && r.Label != "not_abusive" {
			return nil, fmt.Errorf("convabuse row %d: label %q", i+1, r.Label)
		}
		out = append(out, Example{Text: r.Text, Toxic: r.Label == "abusive", Lang: "en", Source: "convabuse"})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("convabuse: no rows in split %q", split)
	}
	return out, nil
}

// toxicSpanKinds maps the span types of Toxic Spans to labels ("Other Toxicity" has none).
var toxicSpanKinds = map[string]string{
	"Insult": Insult, "Identity based Attack": IdentityHate, "Threat": Threat, "Profane/Obscene": Profanity,
}

// ToxicSpans returns the posts of Toxic Spans (Civil Comments, English, CC0) as toxic examples.
// Every post was rated toxic by Civil Comments raters; a post that most of its span raters
// marked "not toxic" is borderline and left out. A post's labels are the span types that at
// least two of its raters marked (Insult, Identity based Attack, Threat, Profane/Obscene).
// Posts that occur twice are read once.
func ToxicSpans(data string) ([]Example, error) {
	comments, err := readToxicSpans(data, "comments.csv")
	if err != nil {
		return nil, err
	}
	anns, err := readToxicSpans(data, "annotations.csv")
	if err != nil {
		return nil, err
	}
	spans, err := readToxicSpans(data, "spans.csv")
	if err != nil {
		return nil, err
	}
	type rating struct{ raters, notToxic int }
	ratings := map[string]*rating{}
	commentOf := map[string]string{} // annotation -> comment id
	for _, a := range anns {
		r := ratings[a["comment_id"]]
		if r == nil {
			r = &rating{}
			ratings[a["comment_id"]] = r
		}
		r.raters++
		if a["not toxic"] == "True" {
			r.notToxic++
		}
		commentOf[a["annotation"]] = a["comment_id"]
	}
	// kinds[comment][label] = the annotations that marked a span of that kind.
	kinds := map[string]map[string]map[string]bool{}
	for _, s := range spans {
		l, ok := toxicSpanKinds[s["type"]]
		if !ok {
			continue
		}
		c := commentOf[s["annotation"]]
		if kinds[c] == nil {
			kinds[c] = map[string]map[string]bool{}
		}
		if kinds[c][l] == nil {
			kinds[c][l] = map[string]bool{}
		}
		kinds[c][l][s["annotation"]] = true
	}
	seen := map[string]bool{}
	var out []Example
	for _, c := range comments {
		id, text := c["comment_id"], c["comment_text"]
		r := ratings[id]
		if r == nil || 2*r.notToxic >= r.raters || seen[text] {
			continue
		}
		seen[text] = true
		e := Example{Text: text, Toxic: true, Lang: "en", Source: "toxicspans"}
		for l, anns := range kinds[id] {
			if len(anns) >= 2 {
				e.Labels = append(e.Labels, l)
			}
		}
		sort.Strings(e.Labels)
		out = append(out, e)
	}
	return out, nil
}

func readToxicSpans(data, name string) ([]map[string]string, error) {
	path, err := evalkit.Require(data, "toxicity", "toxic-spans", name)
	if err != nil {
		return nil, err
	}
	recs, err := evalkit.ReadCSV(path, ',')
	if err != nil {
		return nil, fmt.Errorf("toxic spans: %w", err)
	}
	return recs, nil
}

// toxiGenRow is one line of toxigen_prompt_sentences.jsonl.
type toxiGenRow struct {
	Text   string   `json:"text"`
	Label  string   `json:"label"`
	Groups []string `json:"groups"`
}

// ToxiGen returns ToxiGen's human-curated seed sentences (English, implicit hate and neutral
// statements about 16 groups). Its authors meant them for research: they are reported on,
// never trained or tuned on. Group is the first group a sentence is about.
func ToxiGen(data string) ([]Example, error) {
	path, err := evalkit.Require(data, "toxicity", "toxigen-prompts", "toxigen_prompt_sentences.jsonl")
	if err != nil {
		return nil, err
	}
	rows, err := evalkit.ReadJSONL[toxiGenRow](path)
	if err != nil {
		return nil, err
	}
	out := make([]Example, 0, len(rows))
	for i, r := range rows {
		if r.Label != "hate" && r.Label != "neutral" {
			return nil, fmt.Errorf("toxigen row %d: label %q", i+1, r.Label)
		}
		e := Example{Text: r.Text, Toxic: r.Label == "hate", Lang: "en", Source: "toxigen"}
		if len(r.Groups) > 0 {
			e.Group = r.Groups[0]
		}
		out = append(out, e)
	}
	return out, nil
}

// GermEvalDev reports whether a GermEval 2018 training example is in the tenth kept out of
// training to choose settings on (InDev of the example).
func GermEvalDev(e Example) bool { return e.Source == "germeval" && InDev(e) }

// TatoebaPerLanguage is how many Tatoeba sentences of each of BackgroundLanguages train as
// ordinary text.
const TatoebaPerLanguage = 3000

// Tatoeba returns short everyday sentences (unlabeled/tatoeba, CC BY 2.0 FR) in
// BackgroundLanguages as non-toxic examples: per language the TatoebaPerLanguage sentences with
// the lowest FNV-1a hash, so the choice does not depend on file order. Short sentences that
// address someone ("ti ho visto", "je te crois") were too rare in the other ordinary text, and
// the model took the pronoun for abuse. The trainer leaves out the ones with a word of the abuse
// lexicon.
func Tatoeba(data string) ([]Example, error) {
	var out []Example
	for _, l := range BackgroundLanguages {
		lines, err := tatoebaByHash(data, l)
		if err != nil {
			return nil, err
		}
		for _, s := range lines[:min(TatoebaPerLanguage, len(lines))] {
			out = append(out, Example{Text: s, Lang: l, Source: "tatoeba"})
		}
	}
	return out, nil
}

// TatoebaDev returns n Tatoeba sentences of language lang that Tatoeba does not train on (the
// next ones in hash order), unlabelled (Toxic is false): a check that short everyday sentences
// do not flag.
func TatoebaDev(data, lang string, n int) ([]Example, error) {
	lines, err := tatoebaByHash(data, lang)
	if err != nil {
		return nil, err
	}
	lines = lines[min(TatoebaPerLanguage, len(lines)):]
	out := make([]Example, 0, n)
	for _, s := range lines[:min(n, len(lines))] {
		out = append(out, Example{Text: s, Lang: lang, Source: "tatoeba"})
	}
	return out, nil
}

// tatoebaByHash returns the distinct non-blank Tatoeba sentences of a language, sorted by their
// FNV-1a hash (ties by text), so any share of them is chosen independently of file order.
func tatoebaByHash(data, lang string) ([]string, error) {
	path, err := evalkit.Require(data, "unlabeled", "tatoeba", lang+".txt.gz")
	if err != nil {
		return nil, err
	}
	lines, err := readGzipLines(path)
	if err != nil {
		return nil, err
	}
	type hashed struct {
		h uint32
		s string
	}
	seen := map[string]bool{}
	hs := make([]hashed, 0, len(lines))
	for _, s := range lines {
		if s = strings.TrimSpace(s); s != "" && !seen[s] {
			seen[s] = true
			hs = append(hs, hashed{fnv32(s), s})
		}
	}
	sort.Slice(hs, func(i, j int) bool {
		if hs[i].h != hs[j].h {
			return hs[i].h < hs[j].h
		}
		return hs[i].s < hs[j].s
	})
	out := make([]string, len(hs))
	for i, x := range hs {
		out[i] = x.s
	}
	return out, nil
}

func fnv32(s string) uint32 {
	h := fnv.New32a()
	h.Write([]byte(s))
	return h.Sum32()
}

// readGzipLines returns the lines of a gzip-compressed text file.
func readGzipLines(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return strings.Split(string(b), "\n"), nil
}
