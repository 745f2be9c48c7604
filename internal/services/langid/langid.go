// Package langid implements routing.language.detect, a language identifier built on
// github.com/abadojack/whatlanggo (trigram profiles for script-shared languages, script
// detection for single-language scripts).
//
// Confidence. whatlanggo scores the best language against the runner-up with a number c in
// [0, 1] (1 = the best profile is clearly closer than the second; single-script languages such
// as Greek or Japanese get 1). Alternatives are found by re-running the detector with the
// previous winners removed from the allowed set; run k yields language L_k and its confidence
// c_k against the languages still left. The reported confidences are p_1 = c_1 and
// p_k = p_{k-1} * (1 - c_{k-1}): an alternative is as plausible as the language before it,
// discounted by how sure the detector was in preferring that one. They are in [0, 1] and never
// increase down the list; they are scores, not a distribution, so they need not sum to 1.
// Alternatives with p_k below MinAlternative are left out.
//
// The answer is "und" with confidence 0 when the text has fewer than MinLetters letters (one
// letter suffices for CJK, Hangul and kana), when no allowed language matches, or when c_1 is
// below MinConfidence. Only the first MaxAnalyzed code points are analysed.
package langid

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"unicode"

	"github.com/abadojack/whatlanggo"

	"github.com/sluice-api/sluice/internal/services"
)

// Name is the service name.
const Name = "routing.language.detect"

// Tuning constants, documented in the descriptor.
const (
	// MinConfidence is the detector confidence below which the answer is "und".
	MinConfidence = 0.05
	// MinAlternative is the smallest alternative confidence reported.
	MinAlternative = 0.01
	// MaxAlternatives is the most alternatives reported.
	MaxAlternatives = 3
	// MinLetters is the fewest letters needed for an answer (alphabetic scripts).
	MinLetters = 3
	// MaxAnalyzed is how many code points of the text are analysed; the detector's
	// accuracy does not improve beyond a few thousand.
	MaxAnalyzed = 10000
)

// iso6391 maps whatlanggo's ISO 639-3 languages to ISO 639-1. Macrolanguage members are mapped
// to their macrolanguage's code as whatlanggo itself does for arb->ar and azj->az (pes->fa,
// ydd->yi, cmn->zh). Languages without a current 639-1 code (ceb, ilo, mai, skr, and bho whose
// "bh" was withdrawn) are not offered.
var iso6391 = func() map[whatlanggo.Lang]string {
	m := map[whatlanggo.Lang]string{whatlanggo.Pes: "fa", whatlanggo.Ydd: "yi"}
	for l := whatlanggo.Afr; l <= whatlanggo.Zul; l++ {
		if c := l.Iso6391(); c != "" && c != "bh" {
			m[l] = c
		}
	}
	return m
}()

// byCode is the inverse of iso6391.
var byCode = func() map[string]whatlanggo.Lang {
	m := make(map[string]whatlanggo.Lang, len(iso6391))
	for l, c := range iso6391 {
		m[c] = l
	}
	return m
}()

// Codes returns the supported ISO 639-1 codes, sorted.
func Codes() []string {
	cs := make([]string, 0, len(byCode))
	for c := range byCode {
		cs = append(cs, c)
	}
	sort.Strings(cs)
	return cs
}

// Alternative is one runner-up language.
type Alternative struct {
	Language   string  `json:"language"`
	Confidence float64 `json:"confidence"`
}

// Detection is the data of a result.
type Detection struct {
	Language     string        `json:"language"`
	Confidence   float64       `json:"confidence"`
	Alternatives []Alternative `json:"alternatives"`
}

// Service is routing.language.detect. It is safe for concurrent use.
type Service struct {
	desc services.Descriptor
}

var _ services.Service = (*Service)(nil)

const outputSchema = `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "type": "object",
  "additionalProperties": false,
  "required": ["language", "confidence", "alternatives"],
  "properties": {
    "language": {"type": "string", "pattern": "^([a-z]{2}|und)$"},
    "confidence": {"type": "number", "minimum": 0, "maximum": 1},
    "alternatives": {
      "type": "array",
      "maxItems": 3,
      "items": {
        "type": "object",
        "additionalProperties": false,
        "required": ["language", "confidence"],
        "properties": {
          "language": {"type": "string", "pattern": "^[a-z]{2}$"},
          "confidence": {"type": "number", "minimum": 0, "maximum": 1}
        }
      }
    }
  }
}`

// New returns the service.
func New() (*Service, error) {
	if !json.Valid([]byte(outputSchema)) {
		return nil, fmt.Errorf("langid: output schema is not valid JSON")
	}
	codes := Codes()
	return &Service{desc: services.Descriptor{
		Name:    Name,
		Kind:    services.KindExtract,
		Version: 1,
		Description: fmt.Sprintf("Identifies the language of the text (ISO 639-1, or \"und\"). "+
			"Confidence is whatlanggo's confidence of the best language against the runner-up; "+
			"alternatives (up to %d) come from re-running with earlier winners excluded; each gets the "+
			"previous confidence times (1 - the detector's confidence in preferring the previous). Answers \"und\" with "+
			"confidence 0 for text with fewer than %d letters (1 for CJK, kana, Hangul), no letters, "+
			"no matching candidate, or confidence below %.2f. Only the first %d characters are analysed.",
			MaxAlternatives, MinLetters, MinConfidence, MaxAnalyzed),
		Accepts:     []string{services.TypeText},
		Emits:       services.EmitsSame,
		BillingUnit: "characters",
		Languages:   codes,
		Params: map[string]services.Param{
			"candidates": {
				Type:        services.ParamArray,
				Items:       services.ParamString,
				Default:     []string{},
				Allowed:     codes,
				Description: "ISO 639-1 codes the answer is restricted to; [] means every supported language.",
			},
		},
		OutputSchema: json.RawMessage(outputSchema),
		Model:        services.Model{ID: "whatlanggo-1.0.1", License: "MIT"},
	}}, nil
}

// Descriptor returns the service descriptor.
func (s *Service) Descriptor() services.Descriptor { return s.desc }

// Run detects the language of the payload.
func (s *Service) Run(ctx context.Context, req services.Request) (services.Result, error) {
	if err := ctx.Err(); err != nil {
		return services.Result{}, err
	}
	allowed, err := allowedSet(req.Params.Strings("candidates"))
	if err != nil {
		return services.Result{}, err
	}
	d, err := Detect(ctx, req.Payload.Value, allowed)
	if err != nil {
		return services.Result{}, err
	}
	return services.Result{Payload: req.Payload, Data: d}, nil
}

// allowedSet turns candidate codes into detector languages; empty means all.
func allowedSet(candidates []string) (map[whatlanggo.Lang]bool, error) {
	set := make(map[whatlanggo.Lang]bool, len(iso6391))
	if len(candidates) == 0 {
		for l := range iso6391 {
			set[l] = true
		}
		return set, nil
	}
	for _, c := range candidates {
		l, ok := byCode[c]
		if !ok {
			return nil, fmt.Errorf("langid: unsupported candidate %q", c)
		}
		set[l] = true
	}
	return set, nil
}

// undetermined is the answer when no language can be given.
func undetermined() Detection {
	return Detection{Language: "und", Alternatives: []Alternative{}}
}

// Detect identifies the language of text among the allowed languages.
func Detect(ctx context.Context, text string, allowed map[whatlanggo.Lang]bool) (Detection, error) {
	text, letters, ideographic := prepare(text)
	if letters == 0 || letters < MinLetters && !ideographic {
		return undetermined(), nil
	}
	left := make(map[whatlanggo.Lang]bool, len(allowed))
	for l := range allowed {
		left[l] = true
	}
	var (
		langs []whatlanggo.Lang
		confs []float64
		next  float64 // confidence the next alternative gets
	)
	for len(langs) <= MaxAlternatives && len(left) > 0 {
		if err := ctx.Err(); err != nil {
			return Detection{}, err
		}
		info := whatlanggo.DetectWithOptions(text, whatlanggo.Options{Whitelist: left})
		// Single-language scripts ignore the whitelist; check the answer ourselves.
		if info.Lang < 0 || !left[info.Lang] || slices.Contains(langs, info.Lang) {
			break
		}
		c := min(max(info.Confidence, 0), 1)
		p := c
		if len(langs) == 0 {
			if c < MinConfidence {
				return undetermined(), nil
			}
		} else {
			p = next
			if p < MinAlternative {
				break
			}
		}
		langs = append(langs, info.Lang)
		confs = append(confs, p)
		next = p * (1 - c)
		delete(left, info.Lang)
	}
	if len(langs) == 0 {
		return undetermined(), nil
	}
	d := Detection{Language: iso6391[langs[0]], Confidence: round(confs[0]), Alternatives: []Alternative{}}
	for i := 1; i < len(langs); i++ {
		d.Alternatives = append(d.Alternatives, Alternative{Language: iso6391[langs[i]], Confidence: round(confs[i])})
	}
	return d, nil
}

// prepare truncates text to MaxAnalyzed code points and counts its letters.
func prepare(text string) (out string, letters int, ideographic bool) {
	n := 0
	for i, r := range text {
		if n == MaxAnalyzed {
			text = text[:i]
			break
		}
		n++
		if unicode.IsLetter(r) {
			letters++
			if unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul) {
				ideographic = true
			}
		}
	}
	return text, letters, ideographic
}

// round keeps four decimals so answers are stable and compact.
func round(f float64) float64 { return float64(int64(f*10000+0.5)) / 10000 }
