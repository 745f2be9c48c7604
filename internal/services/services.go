// Package services defines what a Sluice processing service is: its descriptor (the public
// contract clients build chains from), the request it receives and the result it returns, and a
// registry that looks services up by name. The six built-in services live in sub-packages and are
// wired together by package builtin.
package services

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
)

// Kinds of service. The kind fixes the shape of a step's result.
const (
	KindTransform = "transform"
	KindClassify  = "classify"
	KindExtract   = "extract"
)

// Payload types. Only text exists today; the others are reserved by the interface.
const (
	TypeText = "text"
	// EmitsSame in a descriptor's Emits means the payload type is unchanged.
	EmitsSame = "same"
)

// Verdicts of a classify service. Flag always means the guarded-against thing was found.
const (
	VerdictPass      = "pass"
	VerdictFlag      = "flag"
	VerdictUncertain = "uncertain"
)

// Parameter types a descriptor may declare.
const (
	ParamString = "string"
	ParamNumber = "number"
	ParamArray  = "array" // an array of strings
)

// Param describes one step parameter. Default is always set; Allowed lists the closed set of
// values (for a string) or of items (for an array) where there is one.
type Param struct {
	Type      string   `json:"type"`
	Items     string   `json:"items,omitempty"` // element type of an array param
	Default   any      `json:"default"`
	Allowed   []string `json:"allowed,omitempty"`
	Minimum   *float64 `json:"minimum,omitempty"`
	Maximum   *float64 `json:"maximum,omitempty"`
	MinLength *int     `json:"min_length,omitempty"` // strings: code points
	MaxLength *int     `json:"max_length,omitempty"` // strings: code points; arrays: items
	// ItemMinLength and ItemMaxLength bound each item of an array param, in code points.
	ItemMinLength *int   `json:"item_min_length,omitempty"`
	ItemMaxLength *int   `json:"item_max_length,omitempty"`
	Description   string `json:"description"`
}

// Model names the backend a service runs.
type Model struct {
	ID      string `json:"id"`
	License string `json:"license"`
}

// Descriptor is the public description of a service, served by GET /v1/services/{name}.
type Descriptor struct {
	Name         string           `json:"name"`
	Kind         string           `json:"kind"`
	Version      int              `json:"version"`
	Description  string           `json:"description"`
	Accepts      []string         `json:"accepts"`
	Emits        string           `json:"emits"`
	BillingUnit  string           `json:"billing_unit"`
	Languages    []string         `json:"languages"`
	Params       map[string]Param `json:"params"`
	Labels       []string         `json:"labels,omitempty"`
	OutputSchema json.RawMessage  `json:"output_schema,omitempty"`
	Model        Model            `json:"model"`
}

// Payload is the data flowing between steps.
type Payload struct {
	Type  string `json:"type"`
	Value string `json:"value"`
}

// Params holds a step's parameters after validation against the descriptor, with defaults filled
// in: strings are string, numbers float64, arrays []string.
type Params map[string]any

// String returns the string parameter name.
func (p Params) String(name string) string { s, _ := p[name].(string); return s }

// Number returns the number parameter name.
func (p Params) Number(name string) float64 { f, _ := p[name].(float64); return f }

// Strings returns the array parameter name.
func (p Params) Strings(name string) []string { s, _ := p[name].([]string); return s }

// Request is one step's input.
type Request struct {
	Payload Payload
	Params  Params
	// Account is the calling account's id; services that derive per-account values use it.
	Account string
	// TokenKey is the secret key for deterministic tokenization.
	TokenKey []byte
	// MaxOutputChars bounds a transform's output in code points (0: no bound). A transform whose
	// output would be longer stops as soon as it knows and returns ErrOutputTooLarge, so that a
	// step cannot grow the payload (and the memory it takes) without bound.
	MaxOutputChars int
}

// ErrOutputTooLarge is returned by a transform whose output would exceed Request.MaxOutputChars.
var ErrOutputTooLarge = errors.New("services: the output would exceed the payload limit")

// Result is one step's output. Which fields matter depends on the service's kind.
type Result struct {
	// Payload is the payload as the step leaves it. Transform services set it; for classify and
	// extract services the engine passes the input on unchanged.
	Payload Payload
	Changes int               // transform
	Map     map[string]string // transform: tokenize only (token -> original value)
	Verdict string            // classify
	Score   float64           // classify: probability of flag, in [0, 1]
	Labels  []string          // classify
	Data    any               // extract: validated against the descriptor's OutputSchema
}

// Service is one processing step implementation.
type Service interface {
	Descriptor() Descriptor
	// Run processes one payload. It must honour ctx's deadline in any long loop and must never
	// log or keep the payload.
	Run(ctx context.Context, req Request) (Result, error)
}

// Registry maps service names to services. Each service's descriptor is taken once, when the
// registry is built, so validating a request does not rebuild descriptors; they are shared and
// must be treated as read-only.
type Registry struct {
	byName map[string]entry
}

type entry struct {
	svc  Service
	desc Descriptor
}

// NewRegistry returns a registry of the given services. It fails on duplicate names.
func NewRegistry(svcs ...Service) (*Registry, error) {
	r := &Registry{byName: make(map[string]entry, len(svcs))}
	for _, s := range svcs {
		d := s.Descriptor()
		if _, dup := r.byName[d.Name]; dup {
			return nil, fmt.Errorf("services: duplicate service name %q", d.Name)
		}
		r.byName[d.Name] = entry{svc: s, desc: d}
	}
	return r, nil
}

// Lookup returns the service called name and its descriptor.
func (r *Registry) Lookup(name string) (Service, Descriptor, bool) {
	e, ok := r.byName[name]
	return e.svc, e.desc, ok
}

// Names returns the registered names in sorted order.
func (r *Registry) Names() []string {
	names := make([]string, 0, len(r.byName))
	for n := range r.byName {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Classify turns a score into a verdict using threshold and the uncertainty band around it:
// scores within band of the threshold are uncertain, above it flag, below it pass.
func Classify(score, threshold, band float64) string {
	hi, lo := min(threshold+band, 1), max(threshold-band, 0)
	switch {
	case score >= hi:
		return VerdictFlag
	case score < lo:
		return VerdictPass
	default:
		return VerdictUncertain
	}
}

// DefaultThreshold is the classify services' default threshold param.
const DefaultThreshold = 0.5

// ThresholdParam is the threshold param every classify service offers.
func ThresholdParam() Param {
	return Param{
		Type:        ParamNumber,
		Default:     DefaultThreshold,
		Minimum:     Ptr(0.0),
		Maximum:     Ptr(1.0),
		Description: fmt.Sprintf("Score at which the verdict turns to flag (uncertain within %g either side).", UncertaintyBand),
	}
}

// Threshold is the step's threshold param, DefaultThreshold when absent.
func Threshold(p Params) float64 {
	if v, ok := p["threshold"].(float64); ok {
		return v
	}
	return DefaultThreshold
}

// ClassifyResult is the result of a classify service that scored req's payload score with labels,
// judged against the step's threshold param (DefaultThreshold when absent). The payload passes
// on unchanged.
func ClassifyResult(req Request, score float64, labels []string) Result {
	threshold := Threshold(req.Params)
	return Result{
		Payload: req.Payload, Verdict: Classify(score, threshold, UncertaintyBand),
		Score: score, Labels: labels,
	}
}

// UncertaintyBand is the half-width of the band around a classify threshold in which the
// built-in classifiers answer uncertain.
const UncertaintyBand = 0.1

// Ptr returns a pointer to v; handy for descriptor bounds.
func Ptr[T any](v T) *T { return &v }
