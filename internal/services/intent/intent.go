// Package intent implements routing.intent.map, an extract service that maps a short text to one
// intent of a fixed catalog: "assistant" (the 150 CLINC150 intents) or "banking" (the 77
// banking77 intents). It answers a null intent when nothing in the catalog matches well enough.
//
// The models are TF-IDF class prototypes (see package model), trained by
// scripts/train/intent and embedded in the binary; scripts/eval/intent measures them.
package intent

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"math"

	"github.com/sluice-api/sluice/internal/services"
	"github.com/sluice-api/sluice/internal/services/intent/model"
)

// Name is the service's public name.
const Name = "routing.intent.map"

// ModelID names the backend in descriptors and audit traces.
const ModelID = "sluice-intent-softmax-v2"

// Catalogs.
const (
	CatalogAssistant = "assistant"
	CatalogBanking   = "banking"
	// DefaultCatalog is used when the step names none.
	DefaultCatalog = CatalogAssistant
)

// maxAlternatives is how many runner-up intents a result lists.
const maxAlternatives = 3

var (
	//go:embed assistant.model
	assistantModel []byte
	//go:embed banking.model
	bankingModel []byte
)

// outputSchema is the JSON Schema (draft 2020-12) of Data.
const outputSchema = `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "type": "object",
  "additionalProperties": false,
  "required": ["catalog", "intent", "confidence", "alternatives"],
  "properties": {
    "catalog": {"type": "string", "enum": ["assistant", "banking"]},
    "intent": {"type": ["string", "null"]},
    "confidence": {"type": "number", "minimum": 0, "maximum": 1},
    "alternatives": {
      "type": "array",
      "maxItems": 3,
      "items": {
        "type": "object",
        "additionalProperties": false,
        "required": ["intent", "confidence"],
        "properties": {
          "intent": {"type": "string"},
          "confidence": {"type": "number", "minimum": 0, "maximum": 1}
        }
      }
    }
  }
}`

// Data is the extract result of one run.
type Data struct {
	Catalog string `json:"catalog"`
	// Intent is nil when the text is out of scope: no intent of the catalog fits.
	Intent *string `json:"intent"`
	// Confidence is the probability of Intent; when Intent is nil, the probability that the
	// best intent of the catalog is not the right one (1 minus its probability).
	Confidence float64 `json:"confidence"`
	// Alternatives are the next three intents by probability, best first: the runner-ups of
	// Intent, or the three best intents when Intent is nil.
	Alternatives []Alternative `json:"alternatives"`
}

// Alternative is a runner-up intent.
type Alternative struct {
	Intent     string  `json:"intent"`
	Confidence float64 `json:"confidence"`
}

// Service is routing.intent.map. It is read-only after New and safe for concurrent use.
type Service struct {
	models map[string]*model.Model
}

var _ services.Service = (*Service)(nil)

// New loads the embedded catalog models.
func New() (*Service, error) {
	s := &Service{models: make(map[string]*model.Model, 2)}
	for _, c := range []struct {
		name string
		data []byte
	}{{CatalogAssistant, assistantModel}, {CatalogBanking, bankingModel}} {
		m, err := model.Decode(c.data)
		if err != nil {
			return nil, fmt.Errorf("%s: load %s catalog: %w", Name, c.name, err)
		}
		if m.Catalog != c.name {
			return nil, fmt.Errorf("%s: model file for %s holds catalog %q", Name, c.name, m.Catalog)
		}
		s.models[c.name] = m
	}
	return s, nil
}

// Intents returns the intent names of catalog, or nil for an unknown catalog.
func (s *Service) Intents(catalog string) []string {
	m, ok := s.models[catalog]
	if !ok {
		return nil
	}
	return append([]string(nil), m.Intents...)
}

// Model returns the loaded model of catalog, or nil for an unknown catalog. It is shared and
// must not be changed; the evaluation command uses it to measure other thresholds.
func (s *Service) Model(catalog string) *model.Model { return s.models[catalog] }

// Descriptor returns the public description of the service.
func (s *Service) Descriptor() services.Descriptor {
	return services.Descriptor{
		Name:    Name,
		Kind:    services.KindExtract,
		Version: 2,
		Description: "Maps a short English text to one intent of a catalog: assistant (150 CLINC150 " +
			"intents across 10 domains) or banking (77 banking77 intents). The result's intent is " +
			"null when the text is out of scope for the catalog; its confidence is the probability " +
			"of that intent (when the intent is null, 1 minus the probability of the best intent); " +
			"its alternatives are the next three intents by probability. Only the first 450 characters of a text are " +
			"classified (cut back to a word boundary), at most 90 words.",
		Accepts:     []string{services.TypeText},
		Emits:       services.EmitsSame,
		BillingUnit: "characters",
		Languages:   []string{"en"},
		Params: map[string]services.Param{
			"catalog": {
				Type:        services.ParamString,
				Default:     DefaultCatalog,
				Allowed:     []string{CatalogAssistant, CatalogBanking},
				Description: "Intent catalog to map to: assistant (150 CLINC150 intents) or banking (77 banking77 intents).",
			},
		},
		OutputSchema: json.RawMessage(outputSchema),
		Model: services.Model{
			ID: ModelID,
			License: "Model Apache-2.0; trained on CLINC150 (CC BY 3.0, Larson et al. 2019) and " +
				"banking77 (CC BY 4.0, Casanueva et al. 2020)",
		},
	}
}

// Run maps req's text to an intent of the requested catalog.
func (s *Service) Run(ctx context.Context, req services.Request) (services.Result, error) {
	catalog := req.Params.String("catalog")
	if catalog == "" {
		catalog = DefaultCatalog
	}
	m, ok := s.models[catalog]
	if !ok {
		return services.Result{}, fmt.Errorf("%s: unknown catalog %q", Name, catalog)
	}
	p, err := m.Predict(ctx, req.Payload.Value, maxAlternatives+1)
	if err != nil {
		return services.Result{}, fmt.Errorf("%s: %w", Name, err)
	}
	d := Data{Catalog: catalog, Confidence: round(p.Confidence), Alternatives: make([]Alternative, 0, maxAlternatives)}
	alts := p.Ranked
	if p.Intent != model.None {
		name := m.Intents[p.Intent]
		d.Intent = &name
		alts = alts[1:]
	}
	for _, a := range alts[:min(len(alts), maxAlternatives)] {
		d.Alternatives = append(d.Alternatives, Alternative{Intent: m.Intents[a.Intent], Confidence: round(a.Confidence)})
	}
	return services.Result{Payload: req.Payload, Data: d}, nil
}

// round keeps four decimals, enough for a probability and stable to read.
func round(p float64) float64 { return math.Round(min(max(p, 0), 1)*1e4) / 1e4 }
