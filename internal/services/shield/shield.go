// Package shield implements security.jailbreak.shield: a transparent, weighted rule set that
// scores how likely a text is a jailbreak or prompt-injection attempt.
//
// The text is folded by package textnorm (NFKC, case folding, invisible characters removed,
// homoglyphs and leetspeak undone, letter-spaced words re-joined, whitespace collapsed). Each
// rule is a pattern with a label and a weight w in (0, 1); base64 and hex blobs that decode to
// readable text are decoded and scanned too. The score is P(attack) = 1 - prod(1 - w_i) over the
// distinct rules that matched, capped at MaxScore. The verdict comes from services.Classify with
// the threshold parameter and services.UncertaintyBand; labels are the sorted labels of the
// matched rules.
package shield

import (
	"context"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"unicode"

	"github.com/sluice-api/sluice/internal/services"
	"github.com/sluice-api/sluice/internal/services/textnorm"
)

// Name is the service name.
const Name = "security.jailbreak.shield"

// MaxScore caps the score: rules are never certain.
const MaxScore = 0.99

// Weights of the computed obfuscation signals.
const (
	weightInvisible = 0.6  // zero-width or other invisible characters inside the text
	weightHomoglyph = 0.6  // Cyrillic/Greek look-alikes mixed into Latin words
	weightSpaced    = 0.45 // letter-spaced words such as "i g n o r e"
	weightEncoded   = 0.55 // a base64 or hex blob that decodes to readable text, or Morse code
	weightDAN       = 0.85 // the "DAN" persona, upper case
)

var (
	// danName is the "DAN" persona, matched case-sensitively so the name Dan does not count.
	danName = regexp.MustCompile(`\bD\.?A\.?N\b`)
	// morse is a run of Morse code.
	morse      = regexp.MustCompile(`(?:[.\-]{1,7}[ /]{1,3}){16,}`)
	base64Blob = regexp.MustCompile(`[A-Za-z0-9+/_-]{20,}={0,2}`)
	hexBlob    = regexp.MustCompile(`\b(?:[0-9a-fA-F]{2}[ :]?){12,}\b`)
)

// Service is security.jailbreak.shield. It is safe for concurrent use.
type Service struct {
	desc services.Descriptor
}

var _ services.Service = (*Service)(nil)

// New returns the service.
func New() (*Service, error) {
	seen := map[string]bool{}
	for _, rl := range rules {
		if seen[rl.name] || rl.weight <= 0 || rl.weight >= 1 || len(rl.any) == 0 {
			return nil, fmt.Errorf("shield: bad rule %q", rl.name)
		}
		seen[rl.name] = true
	}
	return &Service{desc: services.Descriptor{
		Name:    Name,
		Kind:    services.KindClassify,
		Version: 1,
		Description: "Flags jailbreak and prompt-injection attempts with a transparent weighted rule set " +
			"over normalized text (NFKC, case folding, invisible characters stripped, leetspeak and " +
			"homoglyphs undone, letter spacing re-joined; base64/hex blobs decoded and scanned). " +
			"score = 1 - prod(1 - w) over matched rules, capped at 0.99. Verdict: flag at or above " +
			"threshold + 0.1, pass below threshold - 0.1, uncertain in between.",
		Accepts:     []string{services.TypeText},
		Emits:       services.EmitsSame,
		BillingUnit: "characters",
		Languages:   []string{"en"},
		Params: map[string]services.Param{
			"threshold": {
				Type:        services.ParamNumber,
				Default:     services.DefaultThreshold,
				Minimum:     services.Ptr(0.0),
				Maximum:     services.Ptr(1.0),
				Description: "Score at which the verdict turns to flag (with an uncertainty band of 0.1 either side).",
			},
		},
		Labels: []string{LabelInstructionOverride, LabelObfuscation, LabelPromptLeak, LabelRolePlay},
		Model:  services.Model{ID: "sluice-shield-rules-v1", License: "Apache-2.0"},
	}}, nil
}

// Descriptor returns the service descriptor.
func (s *Service) Descriptor() services.Descriptor { return s.desc }

// Run scores the payload.
func (s *Service) Run(ctx context.Context, req services.Request) (services.Result, error) {
	a, err := s.Analyze(ctx, req.Payload.Value)
	if err != nil {
		return services.Result{}, err
	}
	return services.ClassifyResult(req, a.Score, a.Labels), nil
}

// Analysis explains a score.
type Analysis struct {
	Score  float64
	Labels []string // sorted, distinct
	Rules  []string // names of the matched rules and signals, sorted
}

// Analyze scores text and names the rules that matched.
func (s *Service) Analyze(ctx context.Context, text string) (Analysis, error) {
	hits := map[string]hit{}
	f := textnorm.Fold(text)
	if err := match(ctx, f.Words, hits); err != nil {
		return Analysis{}, err
	}
	if f.Invisible > 0 && invisibleInsideWord(text) {
		hits["invisible_chars"] = hit{LabelObfuscation, weightInvisible}
	}
	if danName.MatchString(text) {
		hits["dan"] = hit{LabelRolePlay, weightDAN}
	}
	if morse.MatchString(text) {
		hits["morse_code"] = hit{LabelObfuscation, weightEncoded}
	}
	if f.Homoglyphs > 0 {
		hits["homoglyphs"] = hit{LabelObfuscation, weightHomoglyph}
	}
	if f.Spaced > 0 {
		hits["letter_spacing"] = hit{LabelObfuscation, weightSpaced}
	}
	for _, decoded := range decodeBlobs(text) {
		if err := ctx.Err(); err != nil {
			return Analysis{}, err
		}
		hits["encoded_payload"] = hit{LabelObfuscation, weightEncoded}
		if err := match(ctx, textnorm.Fold(decoded).Words, hits); err != nil {
			return Analysis{}, err
		}
	}

	a := Analysis{Labels: []string{}, Rules: make([]string, 0, len(hits))}
	keep := 1.0
	labels := map[string]bool{}
	for name, h := range hits {
		keep *= 1 - h.weight
		labels[h.label] = true
		a.Rules = append(a.Rules, name)
	}
	for l := range labels {
		a.Labels = append(a.Labels, l)
	}
	sort.Strings(a.Labels)
	sort.Strings(a.Rules)
	a.Score = min(1-keep, MaxScore)
	a.Score = float64(int64(a.Score*10000+0.5)) / 10000
	return a, nil
}

type hit struct {
	label  string
	weight float64
}

// match adds the rules matching folded words to hits.
func match(ctx context.Context, words string, hits map[string]hit) error {
	for _, rl := range rules {
		if err := ctx.Err(); err != nil {
			return err
		}
		if _, done := hits[rl.name]; done || !containsAny(words, rl.any) {
			continue
		}
		if rl.re.MatchString(words) {
			hits[rl.name] = hit{rl.label, rl.weight}
		}
	}
	return nil
}

func containsAny(s string, subs []string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// invisibleInsideWord reports whether an invisible character sits between two letters, as
// when it is used to split a word past a filter (emoji sequences and BOMs do not count).
func invisibleInsideWord(text string) bool {
	prevLetter, pending := false, false
	for _, r := range text {
		switch {
		case textnorm.IsInvisible(r):
			pending = pending || prevLetter
		case unicode.IsLetter(r):
			if pending {
				return true
			}
			prevLetter = true
		default:
			prevLetter, pending = false, false
		}
	}
	return false
}

// maxBlobs bounds how many encoded blobs are decoded per text.
const maxBlobs = 16

// decodeBlobs returns the readable texts hidden in base64 or hex blobs.
func decodeBlobs(text string) []string {
	var out []string
	for _, m := range base64Blob.FindAllString(text, maxBlobs) {
		if !mixedClasses(m) {
			continue
		}
		raw := strings.TrimRight(m, "=")
		var dec []byte
		var err error
		if strings.ContainsAny(raw, "-_") {
			dec, err = base64.RawURLEncoding.DecodeString(raw)
		} else {
			dec, err = base64.RawStdEncoding.DecodeString(raw)
		}
		if err == nil && readable(dec) {
			out = append(out, string(dec))
		}
	}
	for _, m := range hexBlob.FindAllString(text, maxBlobs) {
		dec, err := hex.DecodeString(strings.NewReplacer(" ", "", ":", "").Replace(m))
		if err == nil && readable(dec) {
			out = append(out, string(dec))
		}
	}
	return out
}

// mixedClasses reports whether s mixes upper case, lower case and digits or symbols, as base64
// of text does and ordinary long words do not.
func mixedClasses(s string) bool {
	var up, lo, other bool
	for _, c := range s {
		switch {
		case c >= 'A' && c <= 'Z':
			up = true
		case c >= 'a' && c <= 'z':
			lo = true
		default:
			other = true
		}
	}
	return up && lo && other || up && lo && len(s) >= 32
}

// readable reports whether b looks like natural-language text: at least 8 bytes, almost all
// printable ASCII, with letters and spaces.
func readable(b []byte) bool {
	if len(b) < 8 {
		return false
	}
	printable, letters, spaces := 0, 0, 0
	for _, c := range b {
		switch {
		case c == ' ':
			spaces++
			printable++
		case c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z':
			letters++
			printable++
		case c >= 0x21 && c <= 0x7e || c == '\n' || c == '\t' || c == '\r':
			printable++
		}
	}
	n := len(b)
	return printable*100 >= n*95 && letters*2 >= n && spaces > 0
}
