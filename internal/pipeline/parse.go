package pipeline

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
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

// RequestIDOf digs request_id out of a body that failed validation, so the rejection can still
// echo it (a valid body's is Plan.RequestID).
func RequestIDOf(body []byte) string {
	var v struct {
		RequestID any `json:"request_id"`
	}
	if json.Unmarshal(body, &v) != nil {
		return ""
	}
	if s, ok := v.RequestID.(string); ok && utf8.RuneCountInString(s) <= MaxRequestIDLen {
		return s
	}
	return ""
}

// Parse validates a run request body completely, in the order of DESIGN.md §3 (body size, JSON,
// shape, input type, input size, then the pipeline step by step), and returns the first failure.
// The plan holds the request's own strings; nothing here logs them.
func (e *Engine) Parse(body []byte) (*Plan, *errcode.Error) {
	if len(body) > MaxBodyBytes {
		return nil, errcode.New(errcode.BodyTooLarge, "the request body is larger than %d bytes", MaxBodyBytes)
	}
	if !utf8.Valid(body) {
		return nil, errcode.New(errcode.InvalidRequest, "the request body is not valid UTF-8")
	}
	top, err := object(body)
	if err != nil {
		return nil, errcode.New(errcode.InvalidJSON, "the request body must be a JSON object")
	}
	p := &Plan{}
	if err := checkKeys(top, "", "request_id", "input", "pipeline"); err != nil {
		return nil, err
	}
	// input: unsupported types answer before any other shape error (DESIGN.md §3).
	in, ierr := parseInput(top)
	if ierr != nil {
		return nil, ierr
	}
	if raw, ok := present(top, "request_id"); ok {
		if err := json.Unmarshal(raw, &p.RequestID); err != nil {
			return nil, errcode.At(errcode.InvalidRequest, "/request_id", "request_id must be a string")
		}
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
	params      map[string]json.RawMessage
	stopIf      json.RawMessage
}

func parseInput(top map[string]json.RawMessage) (services.Payload, *errcode.Error) {
	raw, ok := present(top, "input")
	if !ok {
		return services.Payload{}, errcode.At(errcode.InvalidRequest, "/input", "input is required")
	}
	in, err := object(raw)
	if err != nil {
		return services.Payload{}, errcode.At(errcode.InvalidRequest, "/input", "input must be an object")
	}
	for _, reserved := range []string{"uri", "base64"} {
		if _, ok := in[reserved]; ok {
			return services.Payload{}, errcode.At(errcode.UnsupportedInputType, "/input/"+reserved, "input.%s is reserved for media types and not supported yet", reserved)
		}
	}
	var p services.Payload
	if rawType, ok := present(in, "type"); ok {
		if json.Unmarshal(rawType, &p.Type) != nil {
			return p, errcode.At(errcode.InvalidRequest, "/input/type", "input.type must be a string")
		}
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
	rawValue, ok := present(in, "value")
	if !ok {
		return p, errcode.At(errcode.InvalidRequest, "/input/value", "input.value is required")
	}
	if json.Unmarshal(rawValue, &p.Value) != nil {
		return p, errcode.At(errcode.InvalidRequest, "/input/value", "input.value must be a string")
	}
	return p, nil
}

func parseSteps(top map[string]json.RawMessage) ([]rawStep, *errcode.Error) {
	raw, ok := present(top, "pipeline")
	if !ok {
		return nil, errcode.At(errcode.InvalidRequest, "/pipeline", "pipeline is required")
	}
	var items []json.RawMessage
	if !isArray(raw) || json.Unmarshal(raw, &items) != nil {
		return nil, errcode.At(errcode.InvalidRequest, "/pipeline", "pipeline must be an array of steps")
	}
	if len(items) == 0 {
		return nil, errcode.At(errcode.InvalidRequest, "/pipeline", "pipeline needs at least one step")
	}
	if len(items) > MaxSteps {
		return nil, errcode.At(errcode.InvalidRequest, "/pipeline", "pipeline has %d steps; the limit is %d", len(items), MaxSteps)
	}
	steps := make([]rawStep, len(items))
	for i, item := range items {
		ptr := "/pipeline/" + strconv.Itoa(i)
		obj, err := object(item)
		if err != nil {
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
		if rawParams, ok := present(obj, "params"); ok {
			if s.params, err = object(rawParams); err != nil {
				return nil, errcode.At(errcode.InvalidRequest, ptr+"/params", "params must be an object")
			}
		}
		if rawStop, ok := present(obj, "stop_if"); ok {
			s.stopIf = rawStop
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
func validateParams(d services.Descriptor, given map[string]json.RawMessage, ptr string) (services.Params, *errcode.Error) {
	out := make(services.Params, len(d.Params))
	for name := range given {
		if _, ok := d.Params[name]; !ok {
			return nil, errcode.At(errcode.InvalidParams, ptr+"/"+escape(name), "service %q has no parameter %q", d.Name, name)
		}
	}
	for name, spec := range d.Params {
		raw, ok := present(given, name)
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

func paramValue(spec services.Param, raw json.RawMessage) (any, error) {
	switch spec.Type {
	case services.ParamString:
		var s string
		if !isString(raw) || json.Unmarshal(raw, &s) != nil {
			return nil, fmt.Errorf("must be a string")
		}
		n := utf8.RuneCountInString(s)
		if spec.MinLength != nil && n < *spec.MinLength {
			return nil, fmt.Errorf("must have at least %d characters", *spec.MinLength)
		}
		if spec.MaxLength != nil && n > *spec.MaxLength {
			return nil, fmt.Errorf("must have at most %d characters", *spec.MaxLength)
		}
		if len(spec.Allowed) > 0 && !slices.Contains(spec.Allowed, s) {
			return nil, fmt.Errorf("must be one of %q", spec.Allowed)
		}
		return s, nil
	case services.ParamNumber:
		var f float64
		if !isNumber(raw) || json.Unmarshal(raw, &f) != nil || math.IsInf(f, 0) || math.IsNaN(f) {
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
		var items []json.RawMessage
		if !isArray(raw) || json.Unmarshal(raw, &items) != nil {
			return nil, fmt.Errorf("must be an array of strings")
		}
		if spec.MaxLength != nil && len(items) > *spec.MaxLength {
			return nil, fmt.Errorf("must have at most %d items", *spec.MaxLength)
		}
		out := make([]string, 0, len(items))
		for _, it := range items {
			var s string
			if !isString(it) || json.Unmarshal(it, &s) != nil {
				return nil, fmt.Errorf("must be an array of strings")
			}
			if len(spec.Allowed) > 0 && !slices.Contains(spec.Allowed, s) {
				return nil, fmt.Errorf("has %q; allowed values are %q", s, spec.Allowed)
			}
			n := utf8.RuneCountInString(s)
			if spec.ItemMinLength != nil && n < *spec.ItemMinLength {
				return nil, fmt.Errorf("has an item shorter than %d characters", *spec.ItemMinLength)
			}
			if spec.ItemMaxLength != nil && n > *spec.ItemMaxLength {
				return nil, fmt.Errorf("has an item longer than %d characters", *spec.ItemMaxLength)
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

func cloneDefault(v any) any {
	if s, ok := v.([]string); ok {
		return slices.Clone(s)
	}
	return v
}

func validateStopIf(d services.Descriptor, raw json.RawMessage, ptr string) (*StopIf, *errcode.Error) {
	if raw == nil {
		return nil, nil
	}
	if d.Kind != services.KindClassify {
		return nil, errcode.At(errcode.InvalidStopIf, ptr, "stop_if is allowed on classify steps only; %q is a %s service", d.Name, d.Kind)
	}
	forms := "stop_if must be exactly one of {\"verdict\": \"flag\"}, {\"verdict\": \"pass\"}, {\"score_gte\": n}, {\"score_lte\": n} with n in [0, 1]"
	obj, err := object(raw)
	if err != nil || len(obj) != 1 {
		return nil, errcode.At(errcode.InvalidStopIf, ptr, "%s", forms)
	}
	s := &StopIf{}
	for k, v := range obj {
		switch k {
		case "verdict":
			if json.Unmarshal(v, &s.Verdict) != nil || (s.Verdict != services.VerdictFlag && s.Verdict != services.VerdictPass) {
				return nil, errcode.At(errcode.InvalidStopIf, ptr+"/verdict", "%s", forms)
			}
		case "score_gte", "score_lte":
			var f float64
			if !isNumber(v) || json.Unmarshal(v, &f) != nil || f < 0 || f > 1 {
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
	}
	return s, nil
}

// object decodes raw as a JSON object (null is not an object).
func object(raw []byte) (map[string]json.RawMessage, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' {
		return nil, fmt.Errorf("not a JSON object")
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("decode object: %w", err)
	}
	return m, nil
}

// present returns the field name unless it is absent or null.
func present(m map[string]json.RawMessage, name string) (json.RawMessage, bool) {
	raw, ok := m[name]
	if !ok || string(bytes.TrimSpace(raw)) == "null" {
		return nil, false
	}
	return raw, true
}

func checkKeys(m map[string]json.RawMessage, ptr string, allowed ...string) *errcode.Error {
	// Report unknown fields in a stable order.
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if !slices.Contains(allowed, k) {
			return errcode.At(errcode.InvalidRequest, ptr+"/"+escape(k), "unknown field %q", k)
		}
	}
	return nil
}

func requiredString(m map[string]json.RawMessage, ptr, name string, dst *string) *errcode.Error {
	raw, ok := present(m, name)
	if !ok {
		return errcode.At(errcode.InvalidRequest, ptr+"/"+name, "%s is required", name)
	}
	if !isString(raw) || json.Unmarshal(raw, dst) != nil {
		return errcode.At(errcode.InvalidRequest, ptr+"/"+name, "%s must be a string", name)
	}
	return nil
}

func isString(raw []byte) bool { r := bytes.TrimSpace(raw); return len(r) > 0 && r[0] == '"' }
func isArray(raw []byte) bool  { r := bytes.TrimSpace(raw); return len(r) > 0 && r[0] == '[' }
func isNumber(raw []byte) bool {
	r := bytes.TrimSpace(raw)
	return len(r) > 0 && (r[0] == '-' || (r[0] >= '0' && r[0] <= '9'))
}

// escape makes a JSON pointer reference token (RFC 6901).
func escape(s string) string {
	var b bytes.Buffer
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
