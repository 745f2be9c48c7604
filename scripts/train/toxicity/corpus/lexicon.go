package corpus

import (
	_ "embed"
	"fmt"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/sluice-api/sluice/scripts/internal/evalkit"
)

// Term is one word-list entry: a surface form (not yet normalized), the list it came from, how
// strongly the list marks it as abusive (Severity in (0, 1]) and its kind when the list says.
type Term struct {
	Form     string
	Lang     string
	Source   string // ldnoobw, cuss, surge
	Severity float64
	// Kind is a service label when the list's category maps to one (surge only), else "".
	Kind string
}

// LDNOOBWLanguages are the LDNOOBW lists read, one file per language.
var LDNOOBWLanguages = []string{"de", "en", "es", "fr", "it", "nl", "pl", "pt"}

// Lexicons reads the LDNOOBW lists (CC BY 4.0, Shutterstock), the cuss lists (MIT, Titus
// Wormer) and the Surge AI profanity list (MIT). LDNOOBW marks what one "would not
// autocomplete", anatomy included, so its entries get severity 0.5; cuss rates 2 (likely
// profanity) 1.0, 1 (maybe) 0.5 and 0 (unlikely) is dropped; Surge's mean rating r in [1, 3]
// gives r/3. Entries are sorted by language, form and source.
func Lexicons(data string) ([]Term, error) {
	var out []Term
	for _, lang := range LDNOOBWLanguages {
		path, err := evalkit.Require(data, "toxicity", "ldnoobw", lang)
		if err != nil {
			return nil, err
		}
		lines, err := evalkit.ReadLines(path)
		if err != nil {
			return nil, err
		}
		for _, l := range lines {
			out = append(out, Term{Form: l, Lang: lang, Source: "ldnoobw", Severity: 0.5})
		}
	}
	dir, err := evalkit.Require(data, "toxicity", "cuss")
	if err != nil {
		return nil, err
	}
	files, err := filepath.Glob(filepath.Join(dir, "cuss_*.tsv"))
	if err != nil {
		return nil, fmt.Errorf("cuss: %w", err)
	}
	for _, f := range files {
		lang := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(f), "cuss_"), ".tsv")
		lang, _, _ = strings.Cut(lang, "-") // pt-PT -> pt; ar-Latn -> ar
		recs, err := evalkit.ReadCSV(f, '\t')
		if err != nil {
			return nil, err
		}
		for _, r := range recs {
			sev := map[string]float64{"2": 1, "1": 0.5}[r["rating"]]
			if sev == 0 {
				continue
			}
			out = append(out, Term{Form: r["term"], Lang: lang, Source: "cuss", Severity: sev})
		}
	}
	path, err := evalkit.Require(data, "toxicity", "surge-profanity", "profanity_en.csv")
	if err != nil {
		return nil, err
	}
	recs, err := evalkit.ReadCSV(path, ',')
	if err != nil {
		return nil, err
	}
	for _, r := range recs {
		rating, err := strconv.ParseFloat(r["severity_rating"], 64)
		if err != nil {
			return nil, fmt.Errorf("surge: severity %q: %w", r["severity_rating"], err)
		}
		out = append(out, Term{Form: r["text"], Lang: "en", Source: "surge", Severity: min(rating/3, 1), Kind: surgeKind(r["category_1"])})
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Lang != b.Lang {
			return a.Lang < b.Lang
		}
		if a.Form != b.Form {
			return a.Form < b.Form
		}
		return a.Source < b.Source
	})
	return out, nil
}

// surgeKind maps a Surge category to a service label.
func surgeKind(cat string) string {
	switch cat {
	case "sexual anatomy / sexual acts":
		return Sexual
	case "racial / ethnic slurs", "sexual orientation / gender", "religious offense", "mental disability", "physical disability":
		return IdentityHate
	case "other / general insult", "animal references", "physical attributes", "political":
		return Insult
	case "bodily fluids / excrement":
		return Profanity
	}
	return ""
}

// ordinaryFile lists ordinary words the word lists carry (ordinary.txt).
//
//go:embed ordinary.txt
var ordinaryFile string

// Ordinary returns the forms of ordinary.txt (not yet normalized): words the lexicon leaves out.
func Ordinary() ([]string, error) {
	var out []string
	for i, l := range strings.Split(ordinaryFile, "\n") {
		if l = strings.TrimSpace(l); l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		_, form, ok := strings.Cut(l, "\t")
		if !ok || strings.TrimSpace(form) == "" {
			return nil, fmt.Errorf("ordinary.txt line %d: want language, a tab and a form", i+1)
		}
		out = append(out, strings.TrimSpace(form))
	}
	return out, nil
}
