package pipeline

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/sluice-api/sluice/internal/errcode"
	"github.com/sluice-api/sluice/internal/services"
)

// Limits of a run request.
const (
	MaxInputChars   = 100_000 // code points of input.value
	MaxBodyBytes    = 1 << 20 // bytes of the request body
	MaxSteps        = 32      // steps in one pipeline
	MaxRequestIDLen = 255     // code points of request_id
)

// stepIDPattern keeps step ids safe to echo in traces and logs.
var stepIDPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}$`)

// Plan is a run request that passed validation: everything needed to execute it.
type Plan struct {
	RequestID  string
	Input      services.Payload
	InputChars int64
	Steps      []Step
	// doc is the body as it was decoded: the plan and its fingerprint come from it alone.
	doc value
}

// Fingerprint returns the hex SHA-256 of the canonical JSON of the body the plan was parsed
// from (objects with sorted keys, no insignificant whitespace, numbers as written): bodies that
// differ only in formatting, key order or string escapes share it, so a retry that re-serialises
// its body is still a repeat. It is computed from the same decoding as the plan.
func (p *Plan) Fingerprint() (string, error) {
	fp, err := p.doc.fingerprint()
	if err != nil {
		return "", fmt.Errorf("pipeline: fingerprint: %w", err)
	}
	return fp, nil
}

// Step is one validated pipeline step.
type Step struct {
	ID         string
	Service    services.Service
	Descriptor services.Descriptor
	Params     services.Params
	StopIf     *StopIf
}

// StopIf is a validated stop condition of a classify step: exactly one field is set.
type StopIf struct {
	Verdict  string   `json:"verdict,omitempty"`
	ScoreGTE *float64 `json:"score_gte,omitempty"`
	ScoreLTE *float64 `json:"score_lte,omitempty"`
}

// Fires reports whether the condition holds for a classify result.
func (s *StopIf) Fires(r services.Result) bool {
	switch {
	case s == nil:
		return false
	case s.Verdict != "":
		return r.Verdict == s.Verdict
	case s.ScoreGTE != nil:
		return r.Score >= *s.ScoreGTE
	default:
		return r.Score <= *s.ScoreLTE
	}
}

// Parse validates a run request body completely, in the order of the API's checks (body size,
// JSON, shape, input type, input size, then the pipeline step by step), and returns the first
// failure. The body is decoded once, strictly (see decodeBody): only JSON whitespace around one
// object, no repeated member names, valid UTF-8 in every string. The plan holds the request's
// own strings; nothing here logs them.
func (e *Engine) Parse(body []byte) (*Plan, *errcode.Error) {
	p, _, err := e.Check(body)
	return p, err
}

// Check is Parse that also returns, when it refuses the body, the request_id to echo in the
// rejection: the body's request_id when the body decoded as a JSON object whose request_id is a
// string of at most MaxRequestIDLen characters, else "". (A plan's is Plan.RequestID.)
func (e *Engine) Check(body []byte) (plan *Plan, requestID string, err *errcode.Error) {
	if len(body) > MaxBodyBytes {
		return nil, "", errcode.New(errcode.BodyTooLarge, "the request body is larger than %d bytes", MaxBodyBytes)
	}
	top, derr := decodeBody(body)
	if derr != nil {
		return nil, "", derr
	}
	if top.kind != '{' {
		return nil, "", errcode.New(errcode.InvalidJSON, "the request body must be a JSON object")
	}
	if v, ok := top.get("request_id"); ok && v.kind == '"' && utf8.RuneCountInString(v.text) <= MaxRequestIDLen {
		requestID = v.text
	}
	p, perr := e.plan(top)
	if perr != nil {
		return nil, requestID, perr
	}
	return p, requestID, nil
}

// plan validates a decoded body and builds its plan.
func (e *Engine) plan(top value) (*Plan, *errcode.Error) {
	p := &Plan{doc: top}
	if err := checkKeys(top, "", "request_id", "input", "pipeline"); err != nil {
		return nil, err
	}
	// input: unsupported types answer before any other shape error.
	in, ierr := parseInput(top)
	if ierr != nil {
		return nil, ierr
	}
	if raw, ok := top.get("request_id"); ok {
		if raw.kind != '"' {
			return nil, errcode.At(errcode.InvalidRequest, "/request_id", "request_id must be a string")
		}
		p.RequestID = raw.text
		if utf8.RuneCountInString(p.RequestID) > MaxRequestIDLen {
			return nil, errcode.At(errcode.InvalidRequest, "/request_id", "request_id is longer than %d characters", MaxRequestIDLen)
		}
	}
	rawSteps, perr := parseSteps(top)
	if perr != nil {
		return nil, perr
	}
	p.Input = in
	p.InputChars = int64(utf8.RuneCountInString(in.Value))
	if p.InputChars > MaxInputChars {
		return nil, errcode.At(errcode.InputTooLarge, "/input/value", "input.value has %d characters; the limit is %d", p.InputChars, MaxInputChars)
	}
	steps, serr := e.validateSteps(in.Type, rawSteps)
	if serr != nil {
		return nil, serr
	}
	p.Steps = steps
	return p, nil
}

// rawStep is a step whose shape is valid but whose meaning is not checked yet.
type rawStep struct {
	id, service string
	params      *value // nil when absent or null
	stopIf      *value
}

func parseInput(top value) (services.Payload, *errcode.Error) {
	in, ok := top.get("input")
	if !ok {
		return services.Payload{}, errcode.At(errcode.InvalidRequest, "/input", "input is required")
	}
	if in.kind != '{' {
		return services.Payload{}, errcode.At(errcode.InvalidRequest, "/input", "input must be an object")
	}
	for _, reserved := range []string{"uri", "base64"} {
		if slices.Contains(in.names(), reserved) {
			return services.Payload{}, errcode.At(errcode.UnsupportedInputType, "/input/"+reserved, "input.%s is reserved for media types and not supported yet", reserved)
		}
	}
	var p services.Payload
	if rawType, ok := in.get("type"); ok {
		if rawType.kind != '"' {
			return p, errcode.At(errcode.InvalidRequest, "/input/type", "input.type must be a string")
		}
		p.Type = rawType.text
		if p.Type != services.TypeText {
			return p, errcode.At(errcode.UnsupportedInputType, "/input/type", "input.type %q is not supported; the only supported type is \"text\"", p.Type)
		}
	}
	if err := checkKeys(in, "/input", "type", "value"); err != nil {
		return p, err
	}
	if p.Type == "" {
		return p, errcode.At(errcode.InvalidRequest, "/input/type", "input.type is required")
	}
	rawValue, ok := in.get("value")
	if !ok {
		return p, errcode.At(errcode.InvalidRequest, "/input/value", "input.value is required")
	}
	if rawValue.kind != '"' {
		return p, errcode.At(errcode.InvalidRequest, "/input/value", "input.value must be a string")
	}
	p.Value = rawValue.text
	return p, nil
}

func parseSteps(top value) ([]rawStep, *errcode.Error) {
	raw, ok := top.get("pipeline")
	if !ok {
		return nil, errcode.At(errcode.InvalidRequest, "/pipeline", "pipeline is required")
	}
	if raw.kind != '[' {
		return nil, errcode.At(errcode.InvalidRequest, "/pipeline", "pipeline must be an array of steps")
	}
	items := raw.elems()
	if len(items) == 0 {
		return nil, errcode.At(errcode.InvalidRequest, "/pipeline", "pipeline needs at least one step")
	}
	if len(items) > MaxSteps {
		return nil, errcode.At(errcode.InvalidRequest, "/pipeline", "pipeline has %d steps; the limit is %d", len(items), MaxSteps)
	}
	steps := make([]rawStep, len(items))
	for i, obj := range items {
		ptr := "/pipeline/" + strconv.Itoa(i)
		if obj.kind != '{' {
			return nil, errcode.At(errcode.InvalidRequest, ptr, "each step must be an object")
		}
		if err := checkKeys(obj, ptr, "id", "service", "params", "stop_if"); err != nil {
			return nil, err
		}
		s := &steps[i]
		if err := requiredString(obj, ptr, "id", &s.id); err != nil {
			return nil, err
		}
		if !stepIDPattern.MatchString(s.id) {
			return nil, errcode.At(errcode.InvalidRequest, ptr+"/id", "step id must be 1 to 64 characters of letters, digits and _ . : - starting with a letter or digit")
		}
		if err := requiredString(obj, ptr, "service", &s.service); err != nil {
			return nil, err
		}
		if params, ok := obj.get("params"); ok {
			if params.kind != '{' {
				return nil, errcode.At(errcode.InvalidRequest, ptr+"/params", "params must be an object")
			}
			s.params = &params
		}
		if stop, ok := obj.get("stop_if"); ok {
			s.stopIf = &stop
		}
	}
	return steps, nil
}

// validateSteps checks each step in order: service, id, params, stop_if, then the chain.
func (e *Engine) validateSteps(inputType string, raws []rawStep) ([]Step, *errcode.Error) {
	seen := make(map[string]bool, len(raws))
	current := inputType
	steps := make([]Step, len(raws))
	for i, r := range raws {
		ptr := "/pipeline/" + strconv.Itoa(i)
		svc, d, ok := e.registry.Lookup(r.service)
		if !ok {
			return nil, errcode.At(errcode.UnknownService, ptr+"/service", "service %q does not exist", r.service)
		}
		if seen[r.id] {
			return nil, errcode.At(errcode.DuplicateStepID, ptr+"/id", "step id %q is used by an earlier step", r.id)
		}
		seen[r.id] = true
		params, perr := validateParams(d, r.params, ptr+"/params")
		if perr != nil {
			return nil, perr
		}
		stop, serr := validateStopIf(d, r.stopIf, ptr+"/stop_if")
		if serr != nil {
			return nil, serr
		}
		if !slices.Contains(d.Accepts, current) {
			return nil, errcode.At(errcode.ImpossibleChain, ptr+"/service",
				"service %q accepts %v but receives %q from the step before it", d.Name, d.Accepts, current)
		}
		if d.Emits != services.EmitsSame {
			current = d.Emits
		}
		steps[i] = Step{ID: r.id, Service: svc, Descriptor: d, Params: params, StopIf: stop}
	}
	return steps, nil
}

// validateParams checks given params against the descriptor and fills in defaults.
func validateParams(d services.Descriptor, given *value, ptr string) (services.Params, *errcode.Error) {
	out := make(services.Params, len(d.Params))
	if given == nil {
		given = &value{kind: '{'}
	}
	for _, name := range given.names() {
		if _, ok := d.Params[name]; !ok {
			return nil, errcode.At(errcode.InvalidParams, ptr+"/"+escape(name), "service %q has no parameter %q", d.Name, name)
		}
	}
	for name, spec := range d.Params {
		raw, ok := given.get(name)
		if !ok {
			out[name] = cloneDefault(spec.Default)
			continue
		}
		v, err := paramValue(spec, raw)
		if err != nil {
			return nil, errcode.At(errcode.InvalidParams, ptr+"/"+escape(name), "parameter %q %s", name, err)
		}
		out[name] = v
	}
	return out, nil
}

func paramValue(spec services.Param, raw value) (any, error) {
	switch spec.Type {
	case services.ParamString:
		if raw.kind != '"' {
			return nil, fmt.Errorf("must be a string")
		}
		s := raw.text
		n := utf8.RuneCountInString(s)
		if spec.MinLength != nil && n < *spec.MinLength {
			return nil, fmt.Errorf("must have at least %s", characters(*spec.MinLength))
		}
		if spec.MaxLength != nil && n > *spec.MaxLength {
			return nil, fmt.Errorf("must have at most %s", characters(*spec.MaxLength))
		}
		if len(spec.Allowed) > 0 && !slices.Contains(spec.Allowed, s) {
			return nil, fmt.Errorf("must be one of %q", spec.Allowed)
		}
		return s, nil
	case services.ParamNumber:
		f, ok := number(raw)
		if !ok {
			return nil, fmt.Errorf("must be a number")
		}
		if spec.Minimum != nil && f < *spec.Minimum {
			return nil, fmt.Errorf("must be at least %g", *spec.Minimum)
		}
		if spec.Maximum != nil && f > *spec.Maximum {
			return nil, fmt.Errorf("must be at most %g", *spec.Maximum)
		}
		return f, nil
	case services.ParamArray:
		if raw.kind != '[' {
			return nil, fmt.Errorf("must be an array of strings")
		}
		items := raw.elems()
		if spec.MaxLength != nil && len(items) > *spec.MaxLength {
			return nil, fmt.Errorf("must have at most %d items", *spec.MaxLength)
		}
		out := make([]string, 0, len(items))
		for _, it := range items {
			if it.kind != '"' {
				return nil, fmt.Errorf("must be an array of strings")
			}
			s := it.text
			if len(spec.Allowed) > 0 && !slices.Contains(spec.Allowed, s) {
				return nil, fmt.Errorf("has %q; allowed values are %q", s, spec.Allowed)
			}
			n := utf8.RuneCountInString(s)
			if spec.ItemMinLength != nil && n < *spec.ItemMinLength {
				return nil, fmt.Errorf("has an item shorter than %s", characters(*spec.ItemMinLength))
			}
			if spec.ItemMaxLength != nil && n > *spec.ItemMaxLength {
				return nil, fmt.Errorf("has an item longer than %s", characters(*spec.ItemMaxLength))
			}
			if !slices.Contains(out, s) {
				out = append(out, s)
			}
		}
		return out, nil
	default:
		return nil, fmt.Errorf("has an unsupported type %q in the descriptor", spec.Type)
	}
}

// number returns a JSON number's value; false for anything else and for numbers beyond float64.
func number(v value) (float64, bool) {
	if v.kind != '0' {
		return 0, false
	}
	f, err := strconv.ParseFloat(v.text, 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return 0, false
	}
	return f, true
}

func cloneDefault(v any) any {
	if s, ok := v.([]string); ok {
		return slices.Clone(s)
	}
	return v
}

func validateStopIf(d services.Descriptor, raw *value, ptr string) (*StopIf, *errcode.Error) {
	if raw == nil {
		return nil, nil
	}
	if d.Kind != services.KindClassify {
		return nil, errcode.At(errcode.InvalidStopIf, ptr, "stop_if is allowed on classify steps only; %q is a %s service", d.Name, d.Kind)
	}
	forms := "stop_if must be exactly one of {\"verdict\": \"flag\"}, {\"verdict\": \"pass\"}, {\"score_gte\": n}, {\"score_lte\": n} with n in [0, 1]"
	if raw.kind != '{' || len(raw.elems()) != 2 {
		return nil, errcode.At(errcode.InvalidStopIf, ptr, "%s", forms)
	}
	s := &StopIf{}
	k, v := raw.elems()[0].text, raw.elems()[1]
	switch k {
	case "verdict":
		if v.kind != '"' || (v.text != services.VerdictFlag && v.text != services.VerdictPass) {
			return nil, errcode.At(errcode.InvalidStopIf, ptr+"/verdict", "%s", forms)
		}
		s.Verdict = v.text
	case "score_gte", "score_lte":
		f, ok := number(v)
		if !ok || f < 0 || f > 1 {
			return nil, errcode.At(errcode.InvalidStopIf, ptr+"/"+k, "%s", forms)
		}
		if k == "score_gte" {
			s.ScoreGTE = &f
		} else {
			s.ScoreLTE = &f
		}
	default:
		return nil, errcode.At(errcode.InvalidStopIf, ptr+"/"+escape(k), "%s", forms)
	}
	return s, nil
}

func checkKeys(m value, ptr string, allowed ...string) *errcode.Error {
	// Report unknown fields in a stable order.
	keys := m.names()
	slices.Sort(keys)
	for _, k := range keys {
		if !slices.Contains(allowed, k) {
			return errcode.At(errcode.InvalidRequest, ptr+"/"+escape(k), "unknown field %s", shortQuote(k))
		}
	}
	return nil
}

func requiredString(m value, ptr, name string, dst *string) *errcode.Error {
	raw, ok := m.get(name)
	if !ok {
		return errcode.At(errcode.InvalidRequest, ptr+"/"+name, "%s is required", name)
	}
	if raw.kind != '"' {
		return errcode.At(errcode.InvalidRequest, ptr+"/"+name, "%s must be a string", name)
	}
	*dst = raw.text
	return nil
}

// escape makes a JSON pointer reference token (RFC 6901).
func escape(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '~':
			b.WriteString("~0")
		case '/':
			b.WriteString("~1")
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// characters is n characters, in the singular for one.
func characters(n int) string {
	if n == 1 {
		return "1 character"
	}
	return fmt.Sprintf("%d characters", n)
}
