// Package langid implements routing.language.detect, an extract service that identifies the
// language of a text: an ISO 639-1 code (or "und"), a calibrated confidence and up to three
// alternatives.
//
// The model (package model, file model.bin) is Sluice's own: character n-grams of one to five
// characters of words padded with boundaries, distilled from lingua-go's Leipzig-trained tables
// by scripts/train/langid and compiled in with go:embed; MODEL.md says how it was built and what
// it achieved. Languages that own their script (Greek, Hangul, Thai, ...) are told by the script
// alone. The model is loaded once per process, on first use.
package langid

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/sluice-api/sluice/internal/services"
	"github.com/sluice-api/sluice/internal/services/langid/model"
)

// Name is the service name.
const Name = "routing.language.detect"

// ModelID names the backend in descriptors and audit traces.
const ModelID = "sluice-langid-ngram-v4"

// Version is the service version in descriptors and audit traces.
const Version = 4

// Result constants, documented in the descriptor.
const (
	// MinConfidence is the confidence below which the answer is "und".
	MinConfidence = 0.2
	// MinAlternative is the smallest confidence an alternative is listed with.
	MinAlternative = 0.01
	// MaxAlternatives is the most alternatives listed.
	MaxAlternatives = 3
)

//go:embed model.bin
var modelFile []byte

// load decodes the embedded model once per process.
var load = sync.OnceValues(func() (*model.Detector, error) {
	m, err := model.Load(modelFile)
	if err != nil {
		return nil, fmt.Errorf("langid: %w", err)
	}
	return model.NewDetector(m)
})

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
	det    *model.Detector
	index  map[string]int // code -> detector language
	all    model.Set
	codes  []string // sorted
	desc   services.Descriptor
	byLang []string // detector language -> code
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

// New returns the service, loading the embedded model on the first call in the process.
func New() (*Service, error) {
	det, err := load()
	if err != nil {
		return nil, err
	}
	s := &Service{det: det, index: map[string]int{}, all: det.All(), byLang: det.Codes()}
	for i, c := range s.byLang {
		s.index[c] = i
	}
	s.codes = slices.Sorted(func(yield func(string) bool) {
		for _, c := range s.byLang {
			if !yield(c) {
				return
			}
		}
	})
	s.desc = services.Descriptor{
		Name:    Name,
		Kind:    services.KindExtract,
		Version: Version,
		Description: fmt.Sprintf("Identifies the language of the text among %d languages (ISO 639-1) with Sluice's "+
			"own character n-gram model; a script that only one supported language uses (Greek, Hangul, "+
			"kana, Thai, ...) decides alone. The result's confidence is the calibrated probability that "+
			"its language is right, given that the text is in one of the candidates; its alternatives are "+
			"up to %d runner-ups with confidence at least %.2f, best first. The language is \"und\" with "+
			"confidence 0 and no alternatives when the text has no letters of a script a candidate is written in, or when the "+
			"best confidence is below %.2f. Texts over %d bytes are judged on %d evenly spaced samples of "+
			"%d bytes.",
			len(s.codes), MaxAlternatives, MinAlternative, MinConfidence, model.SampleAbove, model.Windows, model.WindowBytes),
		Accepts:     []string{services.TypeText},
		Emits:       services.EmitsSame,
		BillingUnit: "characters",
		Languages:   s.codes,
		Params: map[string]services.Param{
			"candidates": {
				Type:        services.ParamArray,
				Items:       services.ParamString,
				Default:     []string{},
				Allowed:     s.codes,
				MaxLength:   services.Ptr(len(s.codes)),
				Description: "ISO 639-1 codes the answer is restricted to; [] means every supported language.",
			},
		},
		OutputSchema: json.RawMessage(outputSchema),
		Model:        services.Model{ID: ModelID, License: "Apache-2.0"},
	}
	return s, nil
}

// Descriptor returns the service descriptor.
func (s *Service) Descriptor() services.Descriptor { return s.desc }

// Codes returns the supported ISO 639-1 codes, sorted.
func (s *Service) Codes() []string { return slices.Clone(s.codes) }

// Run detects the language of the payload.
func (s *Service) Run(ctx context.Context, req services.Request) (services.Result, error) {
	if err := ctx.Err(); err != nil {
		return services.Result{}, err
	}
	cand := s.all
	if cs := req.Params.Strings("candidates"); len(cs) > 0 {
		cand = model.Set{}
		for _, c := range cs {
			i, ok := s.index[c]
			if !ok {
				return services.Result{}, fmt.Errorf("langid: unsupported candidate %q", c)
			}
			cand.Add(i)
		}
	}
	r, err := s.det.Detect(ctx, req.Payload.Value, cand)
	if err != nil {
		return services.Result{}, err
	}
	return services.Result{Payload: req.Payload, Data: s.detection(r)}, nil
}

// detection turns a detector result into the service's data.
func (s *Service) detection(r model.Result) Detection {
	d := Detection{Language: "und", Alternatives: []Alternative{}}
	if len(r.Ranked) == 0 || r.Ranked[0].Confidence < MinConfidence {
		return d
	}
	d.Language = s.byLang[r.Ranked[0].Lang]
	d.Confidence = round(r.Ranked[0].Confidence)
	for _, a := range r.Ranked[1:] {
		if len(d.Alternatives) == MaxAlternatives || a.Confidence < MinAlternative {
			break
		}
		d.Alternatives = append(d.Alternatives, Alternative{Language: s.byLang[a.Lang], Confidence: round(a.Confidence)})
	}
	return d
}

// round keeps four decimals so answers are stable and compact.
func round(f float64) float64 { return math.Round(f*10000) / 10000 }
