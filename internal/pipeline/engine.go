// Package pipeline is Sluice's engine: it validates a run request completely before anything runs
// (Parse), executes the steps in order with stop conditions, time budgets and the allowance
// (Execute), and renders the outcome as the wire shape of a run: results per step, billing lines
// and an audit trace that carries only types, sizes, hashes, verdicts and counts, never text.
package pipeline

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"runtime"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/sluice-api/sluice/internal/errcode"
	"github.com/sluice-api/sluice/internal/services"
)

// Run statuses.
const (
	StatusCompleted = "completed"
	StatusHalted    = "halted"
	StatusFailed    = "failed"
	StatusDuplicate = "duplicate"
)

// Halt reasons.
const (
	HaltStopIf    = "stop_if"
	HaltAllowance = "allowance"
)

// Step statuses in results and the audit.
const (
	StepOK      = "ok"
	StepFailed  = "failed"
	StepTimeout = "timeout"
)

// DefaultStepTimeout bounds one step when the request's own deadline is further away.
const DefaultStepTimeout = 10 * time.Second

// MaxResultBytes bounds the JSON of all step results of one run together (a tokenize map is the
// only result that can be large). With the output bound (MaxInputChars code points, at most 6
// bytes each once escaped) it keeps the largest answer's body under 2.7 MB, so that the Lambda
// proxy envelope, which carries the body as a JSON string and so at most doubles it, stays under
// Lambda's 6 MB response limit: an answer that was billed can always be delivered.
const MaxResultBytes = 2_000_000

// Engine validates and executes pipelines over a registry of services. It is safe for concurrent
// use.
type Engine struct {
	registry    *services.Registry
	schemas     map[string]*jsonschema.Schema
	stepTimeout time.Duration
	log         *slog.Logger
	now         func() time.Time
}

// Option configures an Engine.
type Option func(*Engine)

// WithStepTimeout sets the longest time one step may run.
func WithStepTimeout(d time.Duration) Option { return func(e *Engine) { e.stepTimeout = d } }

// WithLogger sets the logger for step failures (never given request text).
func WithLogger(l *slog.Logger) Option { return func(e *Engine) { e.log = l } }

// New returns an engine over reg. It compiles every extract service's output schema once.
func New(reg *services.Registry, opts ...Option) (*Engine, error) {
	e := &Engine{
		registry:    reg,
		schemas:     map[string]*jsonschema.Schema{},
		stepTimeout: DefaultStepTimeout,
		log:         slog.New(slog.DiscardHandler),
		now:         time.Now,
	}
	for _, o := range opts {
		o(e)
	}
	c := jsonschema.NewCompiler()
	for _, name := range reg.Names() {
		_, d, _ := reg.Lookup(name)
		if d.Kind != services.KindExtract {
			continue
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(d.OutputSchema))
		if err != nil {
			return nil, fmt.Errorf("pipeline: output schema of %s: %w", name, err)
		}
		url := "sluice:///" + name + ".json"
		if err := c.AddResource(url, doc); err != nil {
			return nil, fmt.Errorf("pipeline: output schema of %s: %w", name, err)
		}
		sch, err := c.Compile(url)
		if err != nil {
			return nil, fmt.Errorf("pipeline: compile output schema of %s: %w", name, err)
		}
		e.schemas[name] = sch
	}
	return e, nil
}

// Registry returns the engine's service registry.
func (e *Engine) Registry() *services.Registry { return e.registry }

// Env is what a run needs beyond its plan.
type Env struct {
	TraceID    string
	Account    string
	Region     string
	TokenKey   []byte
	ReceivedAt time.Time
	// Budget is how many characters the run may bill (the allowance left). Steps that would cross
	// it do not run.
	Budget int64
}

// Outcome is an executed run, before it is settled and rendered.
type Outcome struct {
	Status     string
	HaltedAt   string
	HaltReason string
	Output     services.Payload
	Error      *errcode.Error
	// Exhausted: the first step would already cross the budget, so nothing ran.
	Exhausted bool
	Steps     []StepRecord // executed steps in order; a failed step is last
	env       Env
}

// StepRecord is one executed step.
type StepRecord struct {
	Step     *Step
	Status   string // StepOK, StepFailed or StepTimeout
	In, Out  services.Payload
	InChars  int64
	OutChars int64
	Result   services.Result
	Data     json.RawMessage // extract: the validated data
	Duration time.Duration
}

// Characters is the number of characters the outcome bills: the input of every completed step,
// also when a later step failed (a failed step, and the steps after it, bill nothing).
func (o *Outcome) Characters() int64 {
	var n int64
	for _, s := range o.Steps {
		if s.Status == StepOK {
			n += s.InChars
		}
	}
	return n
}

// Within returns the outcome cut down to bill at most budget characters: a halt by allowance after
// the last step that fits. ok is false when not even the first step fits.
func (o *Outcome) Within(budget int64) (cut *Outcome, ok bool) {
	if o.Characters() <= budget {
		return o, true
	}
	var n int64
	for i, s := range o.Steps {
		if s.Status != StepOK || n+s.InChars > budget {
			if i == 0 {
				return nil, false
			}
			c := *o
			c.Steps = o.Steps[:i]
			c.Status, c.HaltReason, c.Error = StatusHalted, HaltAllowance, nil
			c.HaltedAt = o.Steps[i-1].Step.ID
			c.Output = o.Steps[i-1].Out
			return &c, true
		}
		n += s.InChars
	}
	return o, true
}

// Execute runs plan's steps in order. ctx's deadline bounds the whole run; each step also gets at
// most the engine's step timeout. A step that errors or panics fails the run; it never crashes the
// process.
func (e *Engine) Execute(ctx context.Context, plan *Plan, env Env) *Outcome {
	o := &Outcome{Status: StatusCompleted, env: env}
	payload := plan.Input
	var billed, resultBytes int64
	for i := range plan.Steps {
		st := &plan.Steps[i]
		inChars := int64(utf8.RuneCountInString(payload.Value))
		if billed+inChars > env.Budget || (i == 0 && env.Budget <= 0) {
			if i == 0 {
				return &Outcome{Exhausted: true, env: env}
			}
			o.Status, o.HaltedAt, o.HaltReason = StatusHalted, plan.Steps[i-1].ID, HaltAllowance
			break
		}
		rec := e.runStep(ctx, st, payload, env)
		rec.InChars = inChars
		if rec.Status == StepOK {
			if resultBytes += rec.resultBytes(); resultBytes > MaxResultBytes {
				rec.Status, rec.Result, rec.Data = StepFailed, services.Result{}, nil
				rec.err = errcode.New(errcode.OutputTooLarge, "the results of the steps up to %q would exceed %d bytes", st.ID, MaxResultBytes)
				e.log.Warn("step output rejected", "trace_id", env.TraceID, "step", st.ID, "service", st.Descriptor.Name, "code", rec.err.Code)
			}
		}
		o.Steps = append(o.Steps, rec.StepRecord)
		if rec.Status != StepOK {
			o.Status = StatusFailed
			o.Error = rec.err
			return o
		}
		billed += inChars
		payload = rec.Out
		if st.StopIf.Fires(rec.Result) {
			o.Status, o.HaltedAt, o.HaltReason = StatusHalted, st.ID, HaltStopIf
			break
		}
	}
	o.Output = payload
	return o
}

// slowStop is how long after its deadline a step may return before the engine logs it as a
// step that ignored its cancelled context. Every service checks its context every few thousand
// characters of work, so a well-behaved step returns within microseconds of its deadline.
const slowStop = 100 * time.Millisecond

// runStep runs one step under its time budget and checks what it returned. The step runs on the
// calling goroutine, so no step is ever left running after the answer and no goroutine hand-off
// is paid per step; the budget is enforced through the step's context, which every service
// honours (the conformance suite checks it), and a step still done after its deadline is a
// timeout whatever it returned.
func (e *Engine) runStep(ctx context.Context, st *Step, in services.Payload, env Env) stepRecordWithErr {
	start := e.now()
	sctx, cancel := context.WithTimeout(ctx, e.stepTimeout)
	defer cancel()
	rec := stepRecordWithErr{StepRecord: StepRecord{Step: st, In: in}}
	var (
		res services.Result
		err = sctx.Err() // no time left: do not start the step at all
	)
	if err == nil {
		res, err = e.call(sctx, st, in, env)
	}
	rec.Duration = e.now().Sub(start)
	late := sctx.Err() != nil
	if late {
		if dl, ok := sctx.Deadline(); ok && time.Since(dl) > slowStop {
			e.log.Error("step ignored its cancelled context", "trace_id", env.TraceID, "step", st.ID,
				"service", st.Descriptor.Name, "late_ms", time.Since(dl).Milliseconds())
		}
	}
	if err != nil || late {
		switch {
		case late || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled):
			rec.Status = StepTimeout
			rec.err = errcode.New(errcode.StepTimeout, "step %q ran past its time budget", st.ID)
		case errors.Is(err, services.ErrOutputTooLarge):
			rec.Status = StepFailed
			rec.err = tooLarge(st)
		default:
			rec.Status = StepFailed
			rec.err = errcode.New(errcode.StepFailed, "step %q failed", st.ID)
		}
		msg := "deadline passed"
		if err != nil {
			msg = err.Error()
		}
		e.log.Warn("step failed", "trace_id", env.TraceID, "step", st.ID, "service", st.Descriptor.Name, "error", msg)
		return rec
	}
	if err := e.check(st, in, &res, &rec.StepRecord); err != nil {
		rec.Status = StepFailed
		rec.err = err
		e.log.Warn("step output rejected", "trace_id", env.TraceID, "step", st.ID, "service", st.Descriptor.Name, "code", err.Code)
		return rec
	}
	rec.Status = StepOK
	rec.Result = res
	return rec
}

// call runs the service, turning a panic into an error.
func (e *Engine) call(ctx context.Context, st *Step, in services.Payload, env Env) (res services.Result, err error) {
	defer func() {
		if r := recover(); r != nil {
			res, err = services.Result{}, panicError(r)
		}
	}()
	return st.Service.Run(ctx, services.Request{
		Payload: in, Params: st.Params, Account: env.Account, TokenKey: env.TokenKey,
		MaxOutputChars: MaxInputChars,
	})
}

// stepRecordWithErr carries a step's client-facing error next to its record.
type stepRecordWithErr struct {
	StepRecord
	err *errcode.Error
}

// check validates a service's result against its kind and descriptor and fills rec.Out.
func (e *Engine) check(st *Step, in services.Payload, res *services.Result, rec *StepRecord) *errcode.Error {
	d := st.Descriptor
	failed := func() *errcode.Error { return errcode.New(errcode.StepFailed, "step %q failed", st.ID) }
	rec.Out = in
	switch d.Kind {
	case services.KindTransform:
		want := in.Type
		if d.Emits != services.EmitsSame {
			want = d.Emits
		}
		if res.Payload.Type == "" {
			res.Payload.Type = want
		}
		if res.Payload.Type != want || !utf8.ValidString(res.Payload.Value) || res.Changes < 0 {
			return failed()
		}
		if utf8.RuneCountInString(res.Payload.Value) > MaxInputChars {
			return tooLarge(st)
		}
		rec.Out = res.Payload
	case services.KindClassify:
		if math.IsNaN(res.Score) || res.Score < 0 || res.Score > 1 {
			return failed()
		}
		if !slices.Contains([]string{services.VerdictPass, services.VerdictFlag, services.VerdictUncertain}, res.Verdict) {
			return failed()
		}
		for _, l := range res.Labels {
			if !slices.Contains(d.Labels, l) {
				return failed()
			}
		}
		if res.Labels == nil {
			res.Labels = []string{}
		}
	case services.KindExtract:
		raw, err := json.Marshal(res.Data)
		if err != nil {
			return errcode.New(errcode.OutputInvalid, "step %q returned data that is not JSON", st.ID)
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
		if err != nil {
			return errcode.New(errcode.OutputInvalid, "step %q returned data that is not JSON", st.ID)
		}
		if sch := e.schemas[d.Name]; sch == nil || sch.Validate(doc) != nil {
			return errcode.New(errcode.OutputInvalid, "step %q returned data that does not match the output_schema of %s", st.ID, d.Name)
		}
		rec.Data = raw
	default:
		return failed()
	}
	rec.OutChars = int64(utf8.RuneCountInString(rec.Out.Value))
	return nil
}

// tooLarge is the error of a step whose output would exceed the payload limit.
func tooLarge(st *Step) *errcode.Error {
	return errcode.New(errcode.OutputTooLarge, "the output of step %q would exceed %d characters", st.ID, MaxInputChars)
}

// panicError turns a recovered panic into an error without quoting arbitrary values (which could
// hold request text): runtime errors keep their message, anything else only its type.
func panicError(r any) error {
	if re, ok := r.(runtime.Error); ok {
		return fmt.Errorf("panic: %s", re.Error())
	}
	return fmt.Errorf("panic: value of type %s", strings.TrimPrefix(fmt.Sprintf("%T", r), "*"))
}
