// Package corpus loads the public toxicity data sets that train and evaluate
// security.toxicity.flag, in one shape, with the deterministic splits both the training and the
// evaluation command rely on:
//
//   - Davidson et al. 2017 (English tweets, MIT): a fixed, seeded 80/20 split; the 20% is
//     evaluation only. toxic = hate_speech or offensive_language.
//   - GermEval 2018 (German tweets, CC BY 4.0): the training file trains but for a tenth kept
//     out to choose settings on (GermEvalDev), the test file is evaluation only. toxic = OFFENSE.
//   - GAHD (German, adversarial, CC BY 4.0): train and dev train, test is evaluation only.
//     toxic = hate.
//   - MLMA (French tweets, MIT): toxic = anything but a single "normal" label.
//   - ToLD-Br (Portuguese tweets, CC BY-SA 4.0), ConvAbuse (English turns typed to chatbots,
//     CC BY 4.0) and Toxic Spans (English toxic comments, CC0), labelled by people (human.go):
//     ToLD-Br validation and ConvAbuse valid choose settings and are never trained on.
//   - ToxiGen's seed sentences (English, implicit hate): reported on only.
//   - HateCheck (English, CC BY 4.0) and Multilingual HateCheck (CC BY 4.0): evaluation only,
//     never trained on.
//
// Dev splits for tuning and calibration are taken by a hash of the text (see InDev), so they
// do not depend on file order and duplicates stay on one side.
package corpus

import (
	"fmt"
	"hash/fnv"
	"html"
	"math/rand/v2"
	"os"
	"slices"
	"sort"
	"strings"

	"github.com/sluice-api/sluice/scripts/internal/devset"
	"github.com/sluice-api/sluice/scripts/internal/evalkit"
)

// Labels of a toxic example (the service's labels).
const (
	Harassment   = "harassment"
	IdentityHate = "identity_hate"
	Insult       = "insult"
	Profanity    = "profanity"
	Sexual       = "sexual"
	Threat       = "threat"
)

// AllLabels lists the labels in sorted order.
var AllLabels = []string{Harassment, IdentityHate, Insult, Profanity, Sexual, Threat}

// Example is one labelled text.
type Example struct {
	Text  string
	Toxic bool
	// Labels are the kinds of toxicity when the source says (sorted); empty when unknown or
	// not toxic.
	Labels []string
	Lang   string // ISO 639-1
	Source string // data set name: davidson, germeval, gahd, mlma, hatecheck, mhc, own
	// Group is the HateCheck functionality, or the kind of a hand-written example.
	Group string
}

// DavidsonSeed seeds the fixed 80/20 split of the Davidson data (the split v1 was measured on).
const DavidsonSeed uint64 = 20170101

// Davidson returns the 80% training part and the 20% held-out part of Davidson et al. 2017.
// Indices are shuffled with math/rand/v2's PCG seeded with DavidsonSeed; the first fifth is the
// held-out part. Both parts keep file order.
func Davidson(data string) (train, test []Example, err error) {
	path, err := evalkit.Require(data, "toxicity", "davidson", "labeled_data.csv")
	if err != nil {
		return nil, nil, err
	}
	recs, err := evalkit.ReadCSV(path, ',')
	if err != nil {
		return nil, nil, err
	}
	all := make([]Example, 0, len(recs))
	for _, r := range recs {
		var labels []string
		switch r["class"] {
		case "0":
			labels = []string{IdentityHate}
		case "1", "2":
		default:
			return nil, nil, fmt.Errorf("davidson: class %q", r["class"])
		}
		all = append(all, Example{
			Text: html.UnescapeString(html.UnescapeString(r["tweet"])), Toxic: r["class"] != "2",
			Labels: labels, Lang: "en", Source: "davidson",
		})
	}
	idx := make([]int, len(all))
	for i := range idx {
		idx[i] = i
	}
	rng := rand.New(rand.NewPCG(DavidsonSeed, DavidsonSeed^0x9e3779b97f4a7c15))
	rng.Shuffle(len(idx), func(i, j int) { idx[i], idx[j] = idx[j], idx[i] })
	cut := len(idx) / 5
	testIdx, trainIdx := idx[:cut], idx[cut:]
	sort.Ints(testIdx)
	sort.Ints(trainIdx)
	for _, i := range trainIdx {
		train = append(train, all[i])
	}
	for _, i := range testIdx {
		test = append(test, all[i])
	}
	return train, test, nil
}

// GermEval returns GermEval 2018's "train" or "test" file. toxic = OFFENSE; the fine labels map
// INSULT to insult, PROFANITY to profanity and ABUSE (degrading a person for a group identity
// or an ideology) to identity_hate.
func GermEval(data, split string) ([]Example, error) {
	name := map[string]string{"train": "germeval2018.training.txt", "test": "germeval2018.test.txt"}[split]
	if name == "" {
		return nil, fmt.Errorf("germeval: unknown split %q", split)
	}
	path, err := evalkit.Require(data, "toxicity", "germeval2018", name)
	if err != nil {
		return nil, err
	}
	lines, err := evalkit.ReadLines(path)
	if err != nil {
		return nil, err
	}
	out := make([]Example, 0, len(lines))
	for i, l := range lines {
		f := strings.Split(l, "\t")
		if len(f) != 3 {
			return nil, fmt.Errorf("germeval %s line %d: %d fields, want 3", split, i+1, len(f))
		}
		var labels []string
		switch f[2] {
		case "INSULT":
			labels = []string{Insult}
		case "PROFANITY":
			labels = []string{Profanity}
		case "ABUSE":
			labels = []string{IdentityHate}
		case "OTHER":
		default:
			return nil, fmt.Errorf("germeval %s line %d: fine label %q", split, i+1, f[2])
		}
		out = append(out, Example{
			Text: html.UnescapeString(f[0]), Toxic: f[1] == "OFFENSE", Labels: labels,
			Lang: "de", Source: "germeval", Group: strings.ToLower(f[2]),
		})
	}
	return out, nil
}

// GAHD returns the German adversarial hate speech data of one split: "train", "dev" or
// "test". toxic = hate (identity_hate).
func GAHD(data, split string) ([]Example, error) {
	path, err := evalkit.Require(data, "toxicity", "gahd", "gahd.csv")
	if err != nil {
		return nil, err
	}
	recs, err := evalkit.ReadCSV(path, ',')
	if err != nil {
		return nil, err
	}
	var out []Example
	for _, r := range recs {
		if r["split"] != split {
			continue
		}
		e := Example{Text: r["text"], Toxic: r["label"] == "1", Lang: "de", Source: "gahd"}
		if e.Toxic {
			e.Labels = []string{IdentityHate}
		}
		if r["contrastive_gahd_id"] != "" {
			e.Group = "contrastive"
		}
		out = append(out, e)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("gahd: no rows in split %q", split)
	}
	return out, nil
}

// MLMA returns the French part of MLMA. A tweet whose only hostility label is "normal" is not
// toxic; every other tweet is. Hateful tweets aimed at a protected attribute get identity_hate,
// offensive ones insult. The tweets were keyword-sampled, so nearly all are hostile; weight them
// low.
func MLMA(data string) ([]Example, error) {
	path, err := evalkit.Require(data, "toxicity", "mlma", "fr_dataset.csv")
	if err != nil {
		return nil, err
	}
	recs, err := evalkit.ReadCSV(path, ',')
	if err != nil {
		return nil, err
	}
	out := make([]Example, 0, len(recs))
	for _, r := range recs {
		kinds := strings.Split(r["sentiment"], "_")
		e := Example{Text: r["tweet"], Lang: "fr", Source: "mlma", Group: r["sentiment"]}
		e.Toxic = !(len(kinds) == 1 && kinds[0] == "normal")
		if e.Toxic {
			set := map[string]bool{}
			for _, k := range kinds {
				switch {
				case k == "hateful" && r["target"] != "other":
					set[IdentityHate] = true
				case k == "offensive" || k == "abusive":
					set[Insult] = true
				}
			}
			for l := range set {
				e.Labels = append(e.Labels, l)
			}
			sort.Strings(e.Labels)
		}
		out = append(out, e)
	}
	return out, nil
}

// HateCheck returns the English HateCheck suite (evaluation only). Group is the functionality.
func HateCheck(data string) ([]Example, error) {
	path, err := evalkit.Require(data, "toxicity", "hatecheck", "test_suite_cases.csv")
	if err != nil {
		return nil, err
	}
	recs, err := evalkit.ReadCSV(path, ',')
	if err != nil {
		return nil, err
	}
	out := make([]Example, 0, len(recs))
	for _, r := range recs {
		out = append(out, Example{
			Text: r["test_case"], Toxic: r["label_gold"] == "hateful", Lang: "en",
			Source: "hatecheck", Group: r["functionality"],
		})
	}
	return out, nil
}

// MHCLanguages are the Multilingual HateCheck languages the evaluation reports, in the order it
// prints them, with their file names.
var MHCLanguages = []struct{ Code, File string }{
	{"de", "german"}, {"fr", "french"}, {"es", "spanish"}, {"it", "italian"}, {"nl", "dutch"},
	{"pt", "portuguese"}, {"pl", "polish"},
}

// MHC returns Multilingual HateCheck for one language code of MHCLanguages (evaluation only).
func MHC(data, lang string) ([]Example, error) {
	file := ""
	for _, l := range MHCLanguages {
		if l.Code == lang {
			file = l.File
		}
	}
	if file == "" {
		return nil, fmt.Errorf("mhc: unknown language %q", lang)
	}
	path, err := evalkit.Require(data, "toxicity", "multilingual-hatecheck", "hatecheck_cases_final_"+file+".csv")
	if err != nil {
		return nil, err
	}
	recs, err := evalkit.ReadCSV(path, ',')
	if err != nil {
		return nil, err
	}
	out := make([]Example, 0, len(recs))
	for _, r := range recs {
		out = append(out, Example{
			Text: r["test_case"], Toxic: r["label_gold"] == "hateful", Lang: lang,
			Source: "mhc", Group: r["functionality"],
		})
	}
	return out, nil
}

// InDev reports whether e falls in the dev tenth of its source: FNV-1a of source and text,
// modulo 10, is 0. Training commands hold the dev part out for tuning and calibration.
func InDev(e Example) bool {
	h := fnv.New32a()
	h.Write([]byte(e.Source))
	h.Write([]byte{0})
	h.Write([]byte(e.Text))
	return h.Sum32()%10 == 0
}

// BackgroundLanguages are the languages whose ordinary sentences train the non-toxic side.
var BackgroundLanguages = []string{"de", "en", "es", "fr", "it", "nl", "pt"}

// Background returns ordinary web sentences (lingua-go test data, Apache-2.0, from Leipzig
// Wortschatz corpora) in BackgroundLanguages, as non-toxic examples: the languages with no
// labelled toxicity data would otherwise be seen mostly in toxic templates.
func Background(data string) ([]Example, error) {
	var out []Example
	for _, l := range BackgroundLanguages {
		path, err := evalkit.Require(data, "langid", "lingua-testdata", "sentences", l+".txt")
		if err != nil {
			return nil, err
		}
		lines, err := evalkit.ReadLines(path)
		if err != nil {
			return nil, err
		}
		for _, s := range lines {
			out = append(out, Example{Text: s, Lang: l, Source: "background"})
		}
	}
	return out, nil
}

// Training returns every example the model trains on, in a fixed order: Davidson's training
// side, GermEval 2018 train without its dev tenth (GermEvalDev), GAHD train and dev, MLMA, our
// hand-written examples, the background sentences, ToLD-Br train, ConvAbuse train, Toxic Spans,
// the Tatoeba sentences and the social-media lines. The dev tenth of the other sources (InDev)
// is included; a caller that tunes on it leaves it out.
//
// OfensaBR-10k, trained on up to v3, is no longer: its labels were a model's guesses, and they
// taught that every Portuguese swear word is toxic. ToLD-Br's labels are people's.
func Training(data string) ([]Example, error) {
	dv, _, err := Davidson(data)
	if err != nil {
		return nil, err
	}
	all := dv
	for _, load := range []func() ([]Example, error){
		func() ([]Example, error) {
			ge, err := GermEval(data, "train")
			return slices.DeleteFunc(ge, GermEvalDev), err
		},
		func() ([]Example, error) { return GAHD(data, "train") },
		func() ([]Example, error) { return GAHD(data, "dev") },
		func() ([]Example, error) { return MLMA(data) },
		Own,
		func() ([]Example, error) { return Background(data) },
		func() ([]Example, error) { return ToLDBr(data, "train") },
		func() ([]Example, error) { return ConvAbuse(data, "train") },
		func() ([]Example, error) { return ToxicSpans(data) },
		func() ([]Example, error) { return Tatoeba(data) },
		func() ([]Example, error) { return Social(data) },
	} {
		part, err := load()
		if err != nil {
			return nil, err
		}
		all = append(all, part...)
	}
	return all, nil
}

// SocialFiles are the files of unlabeled/social-media read as ordinary text.
var SocialFiles = []string{"twitter-palm.txt", "twitter-rigo.txt", "youtube-comments.txt"}

// SocialShare is the share of the social-media lines that train (by a hash of the text): all
// would add little but training time.
const SocialShare = 2

// Social returns real tweets and YouTube comments (unlabeled/social-media, CC BY 4.0) as
// non-toxic examples: one line in SocialShare, by FNV-1a of its text, leaving out every line of
// the hand-labelled development sample (devset.NewExcluder) and blank lines. The lines are not
// all clean (a few percent are abuse, see scripts/internal/devset), so they weigh little; what
// they teach is that profanity, slang and chat aimed at no one are ordinary.
func Social(data string) ([]Example, error) {
	ex, err := devset.NewExcluder(data)
	if err != nil {
		return nil, err
	}
	var out []Example
	for _, name := range SocialFiles {
		path, err := evalkit.Require(data, "unlabeled", "social-media", name)
		if err != nil {
			return nil, err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("social: %w", err)
		}
		for i, l := range devset.Lines(b) {
			t := strings.TrimSpace(string(l))
			if t == "" || ex.Sampled(name, i+1) || ex.Excludes(t) {
				continue
			}
			h := fnv.New32a()
			h.Write([]byte(t))
			if h.Sum32()%SocialShare != 0 {
				continue
			}
			out = append(out, Example{Text: t, Lang: "en", Source: "social"})
		}
	}
	return out, nil
}
