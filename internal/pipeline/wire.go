package pipeline

import (
	"encoding/json"
	"time"

	"github.com/sluice-api/sluice/internal/errcode"
	"github.com/sluice-api/sluice/internal/services"
)

// Run is the wire shape of a run response (interface "Run response body"), also used, with Error
// set and nothing run, for a rejected request.
type Run struct {
	RequestID  string                `json:"request_id,omitempty"`
	TraceID    string                `json:"trace_id"`
	Status     string                `json:"status"`
	HaltedAt   *string               `json:"halted_at"`
	HaltReason string                `json:"halt_reason,omitempty"`
	Output     *services.Payload     `json:"output,omitempty"`
	Error      *errcode.Error        `json:"error,omitempty"`
	Results    map[string]StepResult `json:"results"`
	Usage      Usage                 `json:"usage"`
	Audit      Audit                 `json:"audit"`
}

// Duplicate is the wire shape of a repeat of an idempotency key that already produced a run.
type Duplicate struct {
	RequestID string `json:"request_id,omitempty"`
	TraceID   string `json:"trace_id"`
	Status    string `json:"status"`
}

// Usage carries the billing lines of a run.
type Usage struct {
	Billed []BillingLine `json:"billed"`
}

// BillingLine bills one executed step.
type BillingLine struct {
	Unit     string   `json:"unit"`
	Quantity int64    `json:"quantity"`
	Steps    []string `json:"steps"`
}

// StepResult is one executed step's result; its fields depend on the kind.
type StepResult struct {
	Kind    string
	Status  string
	Changes int
	Map     map[string]string
	Verdict string
	Score   float64
	Labels  []string
	Data    json.RawMessage
}

// MarshalJSON writes only the fields of the result's kind, members in name order.
func (r StepResult) MarshalJSON() ([]byte, error) {
	// The fields are in name order, as encoding/json writes a map's keys; a pointer or
	// omitempty field is left out unless the result's kind has it.
	var w struct {
		Changes *int               `json:"changes,omitempty"`
		Data    *json.RawMessage   `json:"data,omitempty"`
		Kind    string             `json:"kind"`
		Labels  *[]string          `json:"labels,omitempty"`
		Map     *map[string]string `json:"map,omitempty"`
		Score   *float64           `json:"score,omitempty"`
		Status  string             `json:"status"`
		Verdict *string            `json:"verdict,omitempty"`
	}
	w.Kind, w.Status = r.Kind, r.Status
	switch r.Kind {
	case services.KindTransform:
		w.Changes = &r.Changes
		if r.Map != nil {
			w.Map = &r.Map
		}
	case services.KindClassify:
		w.Verdict, w.Score, w.Labels = &r.Verdict, &r.Score, &r.Labels
	case services.KindExtract:
		w.Data = &r.Data
	}
	return json.Marshal(w)
}

// result is a completed step's result in the wire shape.
func (s *StepRecord) result() StepResult {
	return StepResult{
		Kind: s.Step.Descriptor.Kind, Status: StepOK, Changes: s.Result.Changes, Map: s.Result.Map,
		Verdict: s.Result.Verdict, Score: s.Result.Score, Labels: s.Result.Labels, Data: s.Data,
	}
}

// resultBytes is the size of the step's result in the answer's JSON.
func (s *StepRecord) resultBytes() int64 {
	b, err := json.Marshal(s.result())
	if err != nil { // cannot happen: every field marshals
		return MaxResultBytes + 1
	}
	return int64(len(s.Step.ID) + len(b))
}

// Audit is the trace of a run: no payload content, only types, sizes and hashes.
type Audit struct {
	Region     string      `json:"region"`
	Retention  string      `json:"retention"`
	ReceivedAt string      `json:"received_at"`
	TotalMs    int64       `json:"total_ms"`
	Steps      []AuditStep `json:"steps"`
}

// AuditStep is the trace of one executed step.
type AuditStep struct {
	ID           string `json:"id"`
	Service      string `json:"service"`
	Version      int    `json:"version"`
	Model        string `json:"model"`
	Status       string `json:"status"`
	InputType    string `json:"input_type"`
	OutputType   string `json:"output_type,omitempty"`
	InputSize    int64  `json:"input_size"`
	OutputSize   *int64 `json:"output_size,omitempty"`
	InputSHA256  string `json:"input_sha256"`
	OutputSHA256 string `json:"output_sha256,omitempty"`
	Verdict      string `json:"verdict,omitempty"`
	Changes      *int   `json:"changes,omitempty"`
	DurationMs   int64  `json:"duration_ms"`
}

// TimeFormat is the audit's timestamp format: RFC 3339 UTC with milliseconds.
const TimeFormat = "2006-01-02T15:04:05.000Z"

// NewAudit returns an audit with no steps.
func NewAudit(region string, received time.Time, total time.Duration) Audit {
	return Audit{
		Region: region, Retention: "none", ReceivedAt: received.UTC().Format(TimeFormat),
		TotalMs: total.Milliseconds(), Steps: []AuditStep{},
	}
}

// Rejected renders a request rejected before anything ran.
func Rejected(requestID, traceID, region string, received time.Time, total time.Duration, err *errcode.Error) Run {
	return Run{
		RequestID: requestID, TraceID: traceID, Status: StatusFailed, Error: err,
		Results: map[string]StepResult{}, Usage: Usage{Billed: []BillingLine{}},
		Audit: NewAudit(region, received, total),
	}
}

// Render turns an outcome into the wire shape; total is the run's time so far.
func (o *Outcome) Render(requestID string, total time.Duration) Run {
	r := Run{
		RequestID: requestID, TraceID: o.env.TraceID, Status: o.Status,
		Results: map[string]StepResult{}, Usage: Usage{Billed: []BillingLine{}},
		Audit: NewAudit(o.env.Region, o.env.ReceivedAt, total),
	}
	if o.HaltedAt != "" {
		h := o.HaltedAt
		r.HaltedAt, r.HaltReason = &h, o.HaltReason
	}
	if o.Status == StatusFailed {
		r.Error = o.Error
	} else {
		out := o.Output
		r.Output = &out
	}
	// A step's input is the text the step before it left, and a classify or extract step
	// passes its input on: most texts of a run are the one hashed just before.
	var last, lastSum string
	sum := func(text string) string {
		if lastSum == "" || text != last {
			last, lastSum = text, SHA256(text)
		}
		return lastSum
	}
	for _, s := range o.Steps {
		d := s.Step.Descriptor
		a := AuditStep{
			ID: s.Step.ID, Service: d.Name, Version: d.Version, Model: d.Model.ID, Status: s.Status,
			InputType: s.In.Type, InputSize: s.InChars, InputSHA256: sum(s.In.Value),
			DurationMs: s.Duration.Milliseconds(),
		}
		if s.Status == StepOK {
			outChars := s.OutChars
			a.OutputType, a.OutputSize, a.OutputSHA256 = s.Out.Type, &outChars, sum(s.Out.Value)
			switch d.Kind {
			case services.KindClassify:
				a.Verdict = s.Result.Verdict
			case services.KindTransform:
				changes := s.Result.Changes
				a.Changes = &changes
			}
			r.Results[s.Step.ID] = s.result()
			r.Usage.Billed = append(r.Usage.Billed, BillingLine{
				Unit: "characters", Quantity: s.InChars, Steps: []string{s.Step.ID},
			})
		}
		r.Audit.Steps = append(r.Audit.Steps, a)
	}
	return r
}
