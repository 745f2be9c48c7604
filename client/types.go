package client

import (
	"encoding/json"
	"fmt"
	"time"
)

// The types below mirror the schemas of the OpenAPI document (internal/api/openapi.json in the
// Sluice repository, served at GET /v1/openapi.json); a test fails when a field is added to or
// removed from either side. Answers are decoded leniently: a field a newer Sluice adds is ignored.

// RunRequest is the body of POST /v1/run, plus the Idempotency-Key to send it under.
type RunRequest struct {
	// RequestID is your correlation id (at most 255 characters), echoed in the answer.
	RequestID string `json:"request_id,omitempty"`
	Input     Input  `json:"input"`
	// Pipeline holds 1 to 32 steps, run in order.
	Pipeline []Step `json:"pipeline"`

	// IdempotencyKey is sent as the Idempotency-Key header (1 to 255 characters). Leave it empty
	// and the client makes a random one for this call, unless it was made WithoutIdempotencyKeys.
	// Set your own to deduplicate across calls, processes or restarts: Sluice remembers a key for
	// 24 hours per account.
	IdempotencyKey string `json:"-"`
}

// Input is the text a run starts from.
type Input struct {
	Type  string `json:"type"` // "text", the only accepted type
	Value string `json:"value"`
}

// Text returns the input of a run over s.
func Text(s string) Input { return Input{Type: "text", Value: s} }

// Step is one step of a pipeline.
type Step struct {
	// ID is unique within the pipeline: 1 to 64 of A-Z a-z 0-9 _ . : -, starting with a letter
	// or digit. It keys the step's result and its audit record.
	ID string `json:"id"`
	// Service names the service, e.g. "governance.pii.redact" (see Services).
	Service string `json:"service"`
	// Params are the service's parameters; missing ones take their defaults.
	Params map[string]any `json:"params,omitempty"`
	// StopIf halts the run at this step when it fires (classify steps only).
	StopIf *StopIf `json:"stop_if,omitempty"`
}

// StopIf is a classify step's halting condition: exactly one field is set. The constructors
// StopIfVerdict, StopIfScoreAtLeast and StopIfScoreAtMost make the three forms.
type StopIf struct {
	Verdict  string   `json:"verdict,omitempty"` // VerdictFlag or VerdictPass
	ScoreGTE *float64 `json:"score_gte,omitempty"`
	ScoreLTE *float64 `json:"score_lte,omitempty"`
}

// StopIfVerdict halts the run when the step's verdict is v (VerdictFlag or VerdictPass; an
// uncertain verdict never matches).
func StopIfVerdict(v string) *StopIf { return &StopIf{Verdict: v} }

// StopIfScoreAtLeast halts the run when the step's score is at least x (in [0, 1]).
func StopIfScoreAtLeast(x float64) *StopIf { return &StopIf{ScoreGTE: &x} }

// StopIfScoreAtMost halts the run when the step's score is at most x (in [0, 1]).
func StopIfScoreAtMost(x float64) *StopIf { return &StopIf{ScoreLTE: &x} }

// Run statuses.
const (
	StatusCompleted = "completed" // every step ran
	StatusHalted    = "halted"    // a stop_if fired, or the allowance ran out part-way
	StatusFailed    = "failed"    // a step failed; RunResponse.Error says why
	StatusDuplicate = "duplicate" // a repeat of an Idempotency-Key: nothing ran
)

// Why a run halted.
const (
	HaltStopIf    = "stop_if"
	HaltAllowance = "allowance"
)

// RunResponse is the answer to POST /v1/run.
type RunResponse struct {
	RequestID string `json:"request_id,omitempty"`
	// TraceID is the run's unique id; quote it to support. On a duplicate it is the original
	// run's.
	TraceID string `json:"trace_id"`
	// Status is StatusCompleted, StatusHalted, StatusFailed or StatusDuplicate.
	Status string `json:"status"`
	// HaltedAt is the id of the step where the run halted; empty unless Status is StatusHalted.
	HaltedAt string `json:"halted_at,omitempty"`
	// HaltReason is HaltStopIf or HaltAllowance on a halted run.
	HaltReason string `json:"halt_reason,omitempty"`
	// Output is the payload as the last executed step left it; nil on failed runs.
	Output *Payload `json:"output,omitempty"`
	// Error says why a failed run failed; nil otherwise. Run also returns it as its error.
	Error *Error `json:"error,omitempty"`
	// Results holds one result per successfully executed step, keyed by step id.
	Results map[string]StepResult `json:"results,omitempty"`
	// Usage lists what the run billed.
	Usage Usage `json:"usage"`
	// Audit records what ran, without any of the text.
	Audit Audit `json:"audit"`

	// RateLimit is the account's request budget after this call.
	RateLimit RateLimit `json:"-"`
}

// Payload is the text between steps, and a run's output.
type Payload struct {
	Type  string `json:"type"`
	Value string `json:"value"`
}

// Result kinds. A service's kind fixes the shape of its results.
const (
	KindTransform = "transform"
	KindClassify  = "classify"
	KindExtract   = "extract"
)

// Verdicts of classify steps.
const (
	VerdictPass      = "pass"
	VerdictFlag      = "flag"
	VerdictUncertain = "uncertain"
)

// StepResult is one step's result. Exactly one of Transform, Classify and Extract is set, the
// one Kind names; a kind this client does not know leaves all three nil.
type StepResult struct {
	Kind      string
	Transform *TransformResult
	Classify  *ClassifyResult
	Extract   *ExtractResult
	raw       json.RawMessage
}

// UnmarshalJSON decodes the result of the kind its "kind" member names.
func (r *StepResult) UnmarshalJSON(b []byte) error {
	var k struct {
		Kind string `json:"kind"`
	}
	if err := json.Unmarshal(b, &k); err != nil {
		return err
	}
	*r = StepResult{Kind: k.Kind, raw: append(json.RawMessage(nil), b...)}
	var v any
	switch k.Kind {
	case KindTransform:
		r.Transform = &TransformResult{}
		v = r.Transform
	case KindClassify:
		r.Classify = &ClassifyResult{}
		v = r.Classify
	case KindExtract:
		r.Extract = &ExtractResult{}
		v = r.Extract
	default:
		return nil
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("%s result: %w", k.Kind, err)
	}
	return nil
}

// MarshalJSON encodes the result as Sluice sent it.
func (r StepResult) MarshalJSON() ([]byte, error) {
	switch {
	case r.Transform != nil:
		return json.Marshal(r.Transform)
	case r.Classify != nil:
		return json.Marshal(r.Classify)
	case r.Extract != nil:
		return json.Marshal(r.Extract)
	case r.raw != nil:
		return r.raw, nil
	}
	return []byte("null"), nil
}

// TransformResult is the result of a transform step (e.g. governance.pii.redact).
type TransformResult struct {
	Kind    string `json:"kind"`   // KindTransform
	Status  string `json:"status"` // "ok"
	Changes int    `json:"changes"`
	// Map is governance.pii.tokenize's: token to original value, e.g.
	// "[EMAIL_2e9a1d76]" → "jane@example.com". Keep it as safe as the text itself.
	Map map[string]string `json:"map,omitempty"`
}

// ClassifyResult is the result of a classify step (e.g. security.jailbreak.shield).
type ClassifyResult struct {
	Kind    string `json:"kind"`    // KindClassify
	Status  string `json:"status"`  // "ok"
	Verdict string `json:"verdict"` // VerdictPass, VerdictFlag or VerdictUncertain
	// Score is the probability of flag, in [0, 1].
	Score float64 `json:"score"`
	// Labels say what kind of thing was found (the descriptor lists them); a pass may have none.
	Labels []string `json:"labels"`
}

// ExtractResult is the result of an extract step (e.g. routing.language.detect).
type ExtractResult struct {
	Kind   string `json:"kind"`   // KindExtract
	Status string `json:"status"` // "ok"
	// Data is valid against the service's output_schema (see Descriptor.OutputSchema).
	Data json.RawMessage `json:"data"`
}

// Decode decodes Data into v.
func (r *ExtractResult) Decode(v any) error {
	if err := json.Unmarshal(r.Data, v); err != nil {
		return fmt.Errorf("sluice: extract data: %w", err)
	}
	return nil
}

// Usage is what a run billed.
type Usage struct {
	Billed []BillingLine `json:"billed"`
}

// Characters returns the characters billed in all lines.
func (u Usage) Characters() int64 {
	var n int64
	for _, l := range u.Billed {
		n += l.Quantity
	}
	return n
}

// BillingLine is one billed step: the characters of the payload it received.
type BillingLine struct {
	Unit     string   `json:"unit"` // "characters"
	Quantity int64    `json:"quantity"`
	Steps    []string `json:"steps"`
}

// Audit is a run's trace: types, sizes, SHA-256 hashes, verdicts and counts, never the text.
type Audit struct {
	Region     string    `json:"region"`
	Retention  string    `json:"retention"` // "none": Sluice keeps no payload
	ReceivedAt time.Time `json:"received_at"`
	TotalMS    int64     `json:"total_ms"`
	// Steps has one record per executed step, in order, a failed one included.
	Steps []AuditStep `json:"steps"`
}

// AuditStep is one executed step in the audit trace.
type AuditStep struct {
	ID      string `json:"id"`
	Service string `json:"service"`
	Version int    `json:"version"`
	Model   string `json:"model"`
	Status  string `json:"status"` // "ok", "failed" or "timeout"
	// InputType and OutputType are payload types; OutputType is empty when the step failed.
	InputType  string `json:"input_type"`
	OutputType string `json:"output_type,omitempty"`
	InputSize  int64  `json:"input_size"`            // characters
	OutputSize int64  `json:"output_size,omitempty"` // characters
	// InputSHA256 and OutputSHA256 are the hex SHA-256 of the payload's UTF-8 bytes exactly as
	// received or produced.
	InputSHA256  string `json:"input_sha256"`
	OutputSHA256 string `json:"output_sha256,omitempty"`
	Verdict      string `json:"verdict,omitempty"` // classify steps
	Changes      int    `json:"changes,omitempty"` // transform steps
	DurationMS   int64  `json:"duration_ms"`
}

// Descriptor describes a service: what it accepts and emits, its params, labels and model.
type Descriptor struct {
	Name        string `json:"name"`
	Kind        string `json:"kind"` // KindTransform, KindClassify or KindExtract
	Version     int    `json:"version"`
	Description string `json:"description"`
	// Accepts lists the payload types the service accepts; Emits is "same" or a type.
	Accepts     []string `json:"accepts"`
	Emits       string   `json:"emits"`
	BillingUnit string   `json:"billing_unit"`
	// Languages are ISO 639-1 codes the model really supports, or "any".
	Languages []string         `json:"languages"`
	Params    map[string]Param `json:"params"`
	// Labels are every label a classify service can return.
	Labels []string `json:"labels,omitempty"`
	// OutputSchema is the JSON Schema an extract service's data is valid against.
	OutputSchema json.RawMessage `json:"output_schema,omitempty"`
	Model        Model           `json:"model"`

	// RateLimit is the account's request budget after the call that returned this descriptor
	// (Service sets it; the descriptors inside a ServiceList leave it zero).
	RateLimit RateLimit `json:"-"`
}

// Param describes one service parameter.
type Param struct {
	Type  string `json:"type"`            // "string", "number" or "array"
	Items string `json:"items,omitempty"` // "string" for arrays
	// Default is the value a step gets when it leaves the param out.
	Default json.RawMessage `json:"default"`
	Allowed []string        `json:"allowed,omitempty"`
	Minimum *float64        `json:"minimum,omitempty"`
	Maximum *float64        `json:"maximum,omitempty"`
	// MinLength and MaxLength bound a string's characters, or an array's items.
	MinLength *int `json:"min_length,omitempty"`
	MaxLength *int `json:"max_length,omitempty"`
	// ItemMinLength and ItemMaxLength bound each item of an array, in characters.
	ItemMinLength *int   `json:"item_min_length,omitempty"`
	ItemMaxLength *int   `json:"item_max_length,omitempty"`
	Description   string `json:"description"`
}

// Model is the backend model of a service.
type Model struct {
	ID      string `json:"id"`
	License string `json:"license"`
}

// ServiceList is the answer to GET /v1/services.
type ServiceList struct {
	// Services holds every service's descriptor, sorted by name.
	Services []Descriptor `json:"services"`

	// RateLimit is the account's request budget after this call.
	RateLimit RateLimit `json:"-"`
}

// UsageReport is the calling account's calendar month (UTC) to date, from GET /v1/usage.
type UsageReport struct {
	AccountID  string `json:"account_id"`
	Month      string `json:"month"` // e.g. "2026-11"
	Characters int64  `json:"characters"`
	Runs       int64  `json:"runs"`
	// PriceTier is the marginal price band the month has reached: "tier1" to "tier4".
	PriceTier    string `json:"price_tier"`
	CostMicroUSD int64  `json:"cost_micro_usd"`
	CostUSD      string `json:"cost_usd"` // e.g. "26.000000"
	// Allowance is the month's character allowance; AllowanceLeft what remains of it.
	Allowance     int64 `json:"allowance"`
	AllowanceLeft int64 `json:"allowance_left"`
	// Tier is the account's plan: "free", "standard" or "enterprise".
	Tier string `json:"tier"`
	// RequestsPerWindow and WindowSeconds are the account's rate policy.
	RequestsPerWindow int64 `json:"rate_limit"`
	WindowSeconds     int64 `json:"rate_window_seconds"`

	// RateLimit is the account's request budget after this call.
	RateLimit RateLimit `json:"-"`
}

// RateLimit is the account's request budget as an answer's X-RateLimit-* headers gave it.
// Answers with no account behind them (401, an unknown route) carry zeros.
type RateLimit struct {
	Limit     int           // requests allowed per window
	Remaining int           // requests left in the current window
	Reset     time.Duration // until the window ends (whole seconds)
}
