// Package shield implements security.jailbreak.shield: a trained, calibrated, multilingual
// detector of jailbreaks and prompt injections, including injections hidden in documents.
//
// The model (shield.model, see MODEL.md) is a textclass model: logistic regression over
// hashed word 1-2-grams and in-word character 3-5-grams of text normalized by textnorm (NFKC,
// case folding, invisible characters removed, Latin accents stripped, Cyrillic and Greek
// homoglyphs and leetspeak undone, letter spacing re-joined; base64 and hex blobs that decode to
// readable text are scored too). The text is cut into sentence units, and every unit and every
// run of up to four units of at most 40 words is scored; the highest counts. So an attack scores
// the same alone as inside a long harmless text, a long harmless text does not drift up with its
// length, and nothing is truncated. The score is the calibrated probability of an attack (Platt
// scaling fitted on out-of-fold scores).
//
// The verdict comes from services.Classify with the threshold param and services.UncertaintyBand:
// flag at or above threshold+0.1, pass below threshold-0.1, uncertain in between. Labels are
// given when the verdict is not pass: every kind whose head, read on the highest window, gives a
// probability of at least 0.5 (the most likely kind when none does), plus obfuscation when that
// window's text was disguised (invisible characters inside words, homoglyphs, leetspeak, letter
// spacing, or an encoded blob).
package shield

import (
	"context"
	_ "embed"
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/sluice-api/sluice/internal/services"
	"github.com/sluice-api/sluice/internal/services/textclass"
	"github.com/sluice-api/sluice/internal/services/textnorm"
)

// Name is the service name.
const Name = "security.jailbreak.shield"

// Labels the shield can return.
const (
	LabelFakeSystemMessage   = "fake_system_message"
	LabelIndirectInjection   = "indirect_injection"
	LabelInstructionOverride = "instruction_override"
	LabelObfuscation         = "obfuscation"
	LabelPromptLeak          = "prompt_leak"
	LabelRolePlay            = "role_play"
)

// labels lists them sorted, as the descriptor does.
var labels = []string{LabelFakeSystemMessage, LabelIndirectInjection, LabelInstructionOverride, LabelObfuscation, LabelPromptLeak, LabelRolePlay}

// Languages are those the shield was trained and measured on with hand-written attacks and
// look-alikes as well as public data (see MODEL.md).
var Languages = []string{"de", "en", "es", "fr", "it", "nl", "pt"}

// LabelThreshold is the probability at which a kind's head adds its label.
const LabelThreshold = 0.5

//go:embed shield.model
var modelFile []byte

// loadModel decodes the embedded model once per process.
var loadModel = sync.OnceValues(func() (*textclass.Model, error) { return decode(modelFile) })

// decode reads a model file and checks that it has the heads the service reads: attack first,
// then one per label.
func decode(file []byte) (*textclass.Model, error) {
	m, err := textclass.Decode(file)
	if err != nil {
		return nil, err
	}
	if m.Heads[0].Name != "attack" {
		return nil, fmt.Errorf("first head is %q, want attack", m.Heads[0].Name)
	}
	for _, l := range labels {
		if m.Head(l) < 0 {
			return nil, fmt.Errorf("no head for label %q", l)
		}
	}
	return m, nil
}

// Service is security.jailbreak.shield. It is safe for concurrent use.
type Service struct {
	model *textclass.Model
	desc  services.Descriptor
}

var _ services.Service = (*Service)(nil)

// New returns the service, decoding the embedded model on first use.
func New() (*Service, error) {
	m, err := loadModel()
	if err != nil {
		return nil, fmt.Errorf("shield: model: %w", err)
	}
	return withModel(m), nil
}

// NewWithModel returns the service scoring with the given model file instead of the embedded
// one (a candidate written by the training command), decoded on every call. It is for the
// evaluation command, which must measure a candidate through the service exactly as clients
// would see it; the file must hold the attack head and one head per label.
func NewWithModel(file []byte) (*Service, error) {
	m, err := decode(file)
	if err != nil {
		return nil, fmt.Errorf("shield: model: %w", err)
	}
	return withModel(m), nil
}

// withModel builds the service around a decoded model.
func withModel(m *textclass.Model) *Service {
	return &Service{model: m, desc: services.Descriptor{
		Name:    Name,
		Kind:    services.KindClassify,
		Version: 4,
		Description: "Detects jailbreaks and prompt injections, including instructions hidden in e-mails, " +
			"reviews, code and JSON, in English, German, French, Spanish, Italian, Dutch and Portuguese. " +
			"A calibrated linear model over word and character n-grams of normalized text (invisible " +
			"characters, homoglyphs, leetspeak and letter spacing undone; base64 and hex blobs decoded and " +
			"scored too). Every sentence, and every run of up to four sentences of at most 40 words, is scored " +
			"and the highest counts, so an attack scores the same alone as inside a long text and nothing is " +
			"truncated. The score is the probability of an attack. Verdict: flag at or above " +
			"threshold + 0.1, pass below threshold - 0.1, uncertain in between. Labels name the kinds of " +
			"attack found when the verdict is not pass. Plain harmful requests without an attack on the " +
			"instructions are not flagged.",
		Accepts:     []string{services.TypeText},
		Emits:       services.EmitsSame,
		BillingUnit: "characters",
		Languages:   Languages,
		Params: map[string]services.Param{
			"threshold": services.ThresholdParam(),
		},
		Labels: labels,
		Model: services.Model{ID: m.ID, License: "Model Apache-2.0; trained on llm-warden (MIT), CyberSecEval (MIT), " +
			"BIPIA (MIT), JailbreakBench artifacts (MIT), MultiJail (MIT), CLINC150 (CC BY 3.0), banking77 (CC BY 4.0), lingua test sentences " +
			"(Apache-2.0), WNUT 2017 social-media text (CC BY 4.0), Gandalf attacks (MIT), Self-Instruct seed tasks (Apache-2.0), " +
			"WildGuardMix (ODC-By 1.0), Apertium translations of some of these, and hand-written examples; see NOTICE"},
	}}
}

// Descriptor returns the service descriptor.
func (s *Service) Descriptor() services.Descriptor { return s.desc }

// Run scores the payload.
func (s *Service) Run(ctx context.Context, req services.Request) (services.Result, error) {
	threshold := services.Threshold(req.Params)
	a, err := s.analyze(ctx, req.Payload.Value, threshold-services.UncertaintyBand)
	if err != nil {
		return services.Result{}, err
	}
	return services.ClassifyResult(req, a.Score, a.Labels), nil
}

// Analysis explains a score.
type Analysis struct {
	// Score is the calibrated probability of an attack, rounded to four decimals.
	Score float64
	// Labels are the kinds of attack, sorted (empty below the label floor Analyze was given).
	Labels []string
	// Kinds holds every kind's probability on the highest window.
	Kinds map[string]float64
	// Disguised reports that the highest window's text was disguised or decoded.
	Disguised bool
	// Windows is how many windows were scored.
	Windows int
}

// Analyze scores text and names the kinds of attack for any score (the service names them only
// when the verdict is not pass). It is for evaluation and debugging.
func (s *Service) Analyze(ctx context.Context, text string) (Analysis, error) {
	return s.analyze(ctx, text, 0)
}

// analyze scores text; kinds are read only when the score reaches labelFloor.
func (s *Service) analyze(ctx context.Context, text string, labelFloor float64) (Analysis, error) {
	res, err := s.model.Score(ctx, text)
	if err != nil {
		return Analysis{}, fmt.Errorf("shield: %w", err)
	}
	a := Analysis{
		Score:     math.Round(res.P*1e4) / 1e4,
		Labels:    []string{},
		Disguised: res.Flags&textnorm.Obfuscation != 0,
		Windows:   res.Windows,
	}
	if a.Score < labelFloor {
		return a, nil
	}
	probs := s.model.HeadProbabilities(res)
	a.Kinds = make(map[string]float64, len(labels))
	best, bestP := "", -1.0
	for _, l := range labels {
		p := probs[s.model.Head(l)]
		a.Kinds[l] = p
		if p >= LabelThreshold || l == LabelObfuscation && a.Disguised {
			a.Labels = append(a.Labels, l)
		}
		if p > bestP {
			best, bestP = l, p
		}
	}
	if len(a.Labels) == 0 {
		a.Labels = append(a.Labels, best)
	}
	slices.Sort(a.Labels)
	return a, nil
}
