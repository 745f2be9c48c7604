// Package toxicity implements security.toxicity.flag: a trained, calibrated, multilingual
// classifier that scores how likely a text is toxic (insults, threats, identity-directed hate,
// harassment, sexual harassment, profanity aimed at someone) and says which kinds it found.
// Profanity aimed at no one ("holy shit, we won") is not toxic by itself.
//
// The model (toxicity.model, trained by scripts/train/toxicity; see MODEL.md) is a textclass
// model: logistic regression over hashed word 1-3-grams and in-word character n-grams of
// normalized text (leetspeak, homoglyphs, letter spacing, invisible characters and accents
// undone), scored over overlapping word windows with the maximum taken, so long inputs are never
// truncated and cost linear time. Its primary head gives P(toxic), Platt-calibrated on held-out
// folds; one head per label says which kinds of toxicity the best window holds.
package toxicity

import (
	"context"
	_ "embed"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/sluice-api/sluice/internal/modelfile"
	"github.com/sluice-api/sluice/internal/services"
	"github.com/sluice-api/sluice/internal/services/textclass"
)

// Name is the service name.
const Name = "security.toxicity.flag"

// Labels the service can return.
const (
	LabelHarassment   = "harassment"
	LabelIdentityHate = "identity_hate"
	LabelInsult       = "insult"
	LabelProfanity    = "profanity"
	LabelSexual       = "sexual"
	LabelThreat       = "threat"
)

// Labels lists every label, sorted.
var Labels = []string{LabelHarassment, LabelIdentityHate, LabelInsult, LabelProfanity, LabelSexual, LabelThreat}

// HeadToxic is the name of the model's primary head, which gives P(toxic).
const HeadToxic = "toxic"

// Spec is how the model turns text into features and windows.
//
// A window of 32 words (stride 16) rather than 48 keeps one abusive sentence from being diluted
// in a long comment, and a long ordinary comment from adding up many weak cues: on the
// social-media development set it held long texts better.
var Spec = textclass.Spec{WordNgrams: 3, CharMin: 3, CharMax: 5, Window: 32, Stride: 16}

//go:embed toxicity.model
var modelFile []byte

// GroupsFile is the embedded list of group names (groups.txt).
//
//go:embed groups.txt
var GroupsFile string

// PolarityFile is the embedded list of judgement, violence, negation and address words
// (polarity.txt).
//
//go:embed polarity.txt
var PolarityFile string

// ReportingFile is the embedded list of reporting constructs (reporting.txt), with which
// condemned reported speech is read as an implicit quote (MetaImplicit).
//
//go:embed reporting.txt
var ReportingFile string

//go:embed lexicon.tsv
var lexiconFile string

var (
	loadModel    = sync.OnceValues(func() (*textclass.Model, error) { return textclass.Decode(modelFile) })
	loadPreparer = sync.OnceValues(func() (*Preparer, error) { return NewPreparer(GroupsFile, PolarityFile, lexiconFile) })
)

// Service is security.toxicity.flag. It is safe for concurrent use: the model is read-only.
type Service struct {
	prep   *Preparer
	model  *textclass.Model
	labels []int // head index of each label in Labels
	desc   services.Descriptor
}

var _ services.Service = (*Service)(nil)

// New loads the embedded model (once per process) and returns the service.
func New() (*Service, error) {
	m, err := loadModel()
	if err != nil {
		return nil, fmt.Errorf("toxicity: load model: %w", err)
	}
	prep, err := loadPreparer()
	if err != nil {
		return nil, fmt.Errorf("toxicity: %w", err)
	}
	return build(m, prep, lexiconFile)
}

// Load returns the service with a model file and lexicon other than the embedded ones, as the
// trainer writes them: for tools that compare trained candidates through the service's own
// scoring.
func Load(model []byte, lexicon string) (*Service, error) {
	m, err := textclass.Decode(model)
	if err != nil {
		return nil, fmt.Errorf("toxicity: load model: %w", err)
	}
	prep, err := NewPreparer(GroupsFile, PolarityFile, lexicon)
	if err != nil {
		return nil, fmt.Errorf("toxicity: %w", err)
	}
	return build(m, prep, lexicon)
}

// The files the trainer (scripts/train/toxicity) writes and this package embeds.
const (
	ModelFileName   = "toxicity.model"
	LexiconFileName = "lexicon.tsv"
)

// LoadDir returns the service with the model and lexicon a training run wrote to dir
// (ModelFileName, LexiconFileName): Load for the evaluation tools.
func LoadDir(dir string) (*Service, error) {
	model, err := os.ReadFile(filepath.Join(dir, ModelFileName))
	if err != nil {
		return nil, fmt.Errorf("toxicity: %w", err)
	}
	lexicon, err := os.ReadFile(filepath.Join(dir, LexiconFileName))
	if err != nil {
		return nil, fmt.Errorf("toxicity: %w", err)
	}
	return Load(model, string(lexicon))
}

// ListFiles returns the word lists the preparer reads, by file name, with lexicon as
// LexiconFileName: the trainer records their SHA-256 in the model (textclass.Model.Lists) and
// loading refuses a model whose recorded lists differ (modelfile.CheckLists).
func ListFiles(lexicon string) map[string][]byte {
	return map[string][]byte{
		"groups.txt":    []byte(GroupsFile),
		"polarity.txt":  []byte(PolarityFile),
		"reporting.txt": []byte(ReportingFile),
		LexiconFileName: []byte(lexicon),
	}
}

// build checks the model's heads and the reading of quotes it was trained with (MetaImplicit,
// MetaQuoteCues: only the pinned values load), reads the languages of its reporting list
// (MetaImplicitLangs) and assembles the service and its descriptor.
func build(m *textclass.Model, prep *Preparer, lexicon string) (*Service, error) {
	if err := modelfile.CheckLists(m.Lists, ListFiles(lexicon)); err != nil {
		return nil, fmt.Errorf("toxicity: model: %w", err)
	}
	if m.Heads[0].Name != HeadToxic {
		return nil, fmt.Errorf("toxicity: model's primary head is %q, want %q", m.Heads[0].Name, HeadToxic)
	}
	for key, want := range map[string]string{MetaImplicit: ImplicitCondemned, MetaQuoteCues: QuoteCuesApart} {
		if got := m.Meta[key]; got != want {
			return nil, fmt.Errorf("toxicity: model: %s is %q, want %q", key, got, want)
		}
	}
	langs, err := parseImplicitLangs(m.Meta[MetaImplicitLangs], ReportingFile)
	if err != nil {
		return nil, fmt.Errorf("toxicity: model: %w", err)
	}
	prep, err = prep.WithImplicitQuotes(ReportingForLangs(ReportingFile, langs))
	if err != nil {
		return nil, fmt.Errorf("toxicity: %w", err)
	}
	s := &Service{model: m, prep: prep}
	for _, l := range Labels {
		i := m.Head(l)
		if i < 1 {
			return nil, fmt.Errorf("toxicity: model has no head for label %q", l)
		}
		s.labels = append(s.labels, i)
	}
	s.desc = services.Descriptor{
		Name:        Name,
		Kind:        services.KindClassify,
		Version:     4,
		Description: "Flags toxic text (insults, threats, identity hate, harassment, sexual harassment, profanity aimed at someone) in seven languages, with a calibrated score. The profanity label marks a strong swear word even in text that passes.",
		Accepts:     []string{services.TypeText},
		Emits:       services.EmitsSame,
		BillingUnit: "characters",
		Languages:   []string{"de", "en", "es", "fr", "it", "nl", "pt"},
		Params: map[string]services.Param{
			"threshold": services.ThresholdParam(),
		},
		Labels: Labels,
		Model:  services.Model{ID: m.ID, License: "CC BY-SA 4.0 (share-alike: trained on ToLD-Br); other training data CC BY 4.0, CC BY 2.0 FR, CC0, MIT, Apache-2.0; see NOTICE"},
	}
	return s, nil
}

// scoreQuote scores a quoted passage on its own.
func (s *Service) scoreQuote(ctx context.Context, prepared string) (float64, error) {
	res, err := s.model.Score(ctx, prepared)
	return res.P, err
}

// Descriptor returns the service descriptor.
func (s *Service) Descriptor() services.Descriptor { return s.desc }

// prepare returns the text the model scores for text (groups, cues and quoted passages marked),
// for tools that show how the service reads a text.
func (s *Service) prepare(ctx context.Context, text string) (string, error) {
	prepared, err := s.prep.Prepare(ctx, text, s.scoreQuote)
	if err != nil {
		return "", fmt.Errorf("toxicity: %w", err)
	}
	return prepared, nil
}

// score prepares text (groups, cues, quoted passages) and scores it with the model. It returns
// the prepared text too, for the label rules of Run.
func (s *Service) score(ctx context.Context, text string) (textclass.Result, string, error) {
	prepared, err := s.prepare(ctx, text)
	if err != nil {
		return textclass.Result{}, "", err
	}
	res, err := s.model.Score(ctx, prepared)
	if err != nil {
		return textclass.Result{}, "", fmt.Errorf("toxicity: %w", err)
	}
	return res, prepared, nil
}

// Probability returns the calibrated P(toxic) of text, unrounded: the service's score before
// rounding, for evaluation tools.
func (s *Service) Probability(ctx context.Context, text string) (float64, error) {
	res, _, err := s.score(ctx, text)
	return res.P, err
}

// Run scores the payload. A text scored within the uncertainty band of the threshold or above
// gets labels: every kind whose head reaches 0.5 on the best window, or else the single most
// likely kind; but identity_hate only when the text names a group (a phrase of groups.txt) and
// profanity only when it holds a word of the abuse lexicon (lexicon.tsv), whatever the heads say.
// Whatever the score, a text that holds a word the lexicon marks strong gets profanity: a swear
// word is reported, and the model, trained on people's judgements, decides whether it makes the
// text toxic ("shit, I forgot my keys" passes with profanity).
func (s *Service) Run(ctx context.Context, req services.Request) (services.Result, error) {
	threshold := services.Threshold(req.Params)
	res, prepared, err := s.score(ctx, req.Payload.Value)
	if err != nil {
		return services.Result{}, err
	}
	score := math.Round(res.P*10000) / 10000
	labels := []string{}
	if score >= threshold-services.UncertaintyBand && res.Windows > 0 {
		labels = s.labelsOf(res, allowedLabels(prepared))
	}
	if hasToken(prepared, TokenStrong) && !slices.Contains(labels, LabelProfanity) {
		labels = append(labels, LabelProfanity)
		slices.Sort(labels)
	}
	return services.ClassifyResult(req, score, labels), nil
}

// hasToken reports whether tok is one of the words of prepared.
func hasToken(prepared, tok string) bool {
	for w := range strings.FieldsSeq(prepared) {
		if w == tok {
			return true
		}
	}
	return false
}

// labelsOf applies the label rule of Run to the heads' probabilities on res's best window,
// among the labels allowed (by index in Labels).
func (s *Service) labelsOf(res textclass.Result, allowed [6]bool) []string {
	probs := s.model.HeadProbabilities(res)
	var labels []string
	best, bestP := -1, 0.0
	for k, i := range s.labels {
		if !allowed[k] {
			continue
		}
		if probs[i] >= 0.5 {
			labels = append(labels, Labels[k])
		}
		if probs[i] > bestP {
			best, bestP = k, probs[i]
		}
	}
	if len(labels) == 0 && best >= 0 {
		labels = append(labels, Labels[best])
	}
	return labels
}

// allowedLabels says, by index in Labels, which labels a prepared text may get: identity_hate
// needs the group token, profanity a lexicon token.
func allowedLabels(prepared string) [6]bool {
	var group, lexicon bool
	for _, w := range strings.Fields(prepared) {
		switch w {
		case tokenGroup:
			group = true
		case TokenStrong, TokenMild:
			lexicon = true
		}
	}
	var out [6]bool
	for k, l := range Labels {
		switch l {
		case LabelIdentityHate:
			out[k] = group
		case LabelProfanity:
			out[k] = lexicon
		default:
			out[k] = true
		}
	}
	return out
}
