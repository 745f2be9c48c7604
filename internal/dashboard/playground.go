package dashboard

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"

	"github.com/sluice-api/sluice/internal/errcode"
	"github.com/sluice-api/sluice/internal/metering"
	"github.com/sluice-api/sluice/internal/pipeline"
	"github.com/sluice-api/sluice/internal/services"
	"github.com/sluice-api/sluice/internal/store"
)

// playSteps is how many steps the playground's form offers; unused ones are left empty.
const playSteps = 4

// stop_if choices of the form.
var stopChoices = []struct{ Value, Label string }{
	{"", "never"},
	{"verdict:flag", "when the verdict is flag"},
	{"verdict:pass", "when the verdict is pass"},
	{"score_gte", "when the score is at least"},
	{"score_lte", "when the score is at most"},
}

type serviceOption struct {
	Name     string
	Kind     string
	Defaults string // the params' defaults as a JSON object
}

type stepForm struct {
	N         int // 1-based
	ID        string
	Service   string
	Params    string
	StopIf    string
	StopScore string
}

type playgroundData struct {
	Services    []serviceOption
	StopChoices []struct{ Value, Label string }
	Text        string
	Steps       []stepForm
	FormError   string
	Result      *playResult
}

type playResult struct {
	HTTPStatus int
	Status     string
	HaltedAt   string
	HaltReason string
	Output     *string
	Error      *errorView
	Results    []resultView
	Billed     []billedView
	Total      int64
	Audit      string
	TraceID    string
	RateLimit  string
	Remaining  string
	Reset      string
	Curl       string
}

type errorView struct {
	Code, Message, Param string
}

type resultView struct {
	ID   string
	JSON string
}

type billedView struct {
	Steps    string
	Quantity int64
}

func (h *Handler) serviceOptions() []serviceOption {
	var out []serviceOption
	for _, v := range h.catalog() {
		defs := map[string]any{}
		for name, p := range v.Descriptor.Params {
			defs[name] = p.Default
		}
		b, _ := json.Marshal(defs)
		out = append(out, serviceOption{Name: v.Name, Kind: v.Kind, Defaults: string(b)})
	}
	return out
}

func (h *Handler) playgroundPage(w http.ResponseWriter, r *http.Request, s *session, d playgroundData) {
	d.Services, d.StopChoices = h.serviceOptions(), stopChoices
	h.renderAs(w, r, s, http.StatusOK, "playground", page{Title: "Playground", Nav: "playground", Data: d})
}

func (h *Handler) playground(w http.ResponseWriter, r *http.Request, s *session) {
	d := playgroundData{}
	for i := 1; i <= playSteps; i++ {
		d.Steps = append(d.Steps, stepForm{N: i, ID: "step" + strconv.Itoa(i)})
	}
	d.Steps[0].Service = "governance.pii.redact"
	h.playgroundPage(w, r, s, d)
}

// runRequest is the body of POST /v1/run as the playground builds it.
type runRequest struct {
	Input    runInput  `json:"input"`
	Pipeline []runStep `json:"pipeline"`
}

type runInput struct {
	Type  string `json:"type"`
	Value string `json:"value"`
}

type runStep struct {
	ID      string          `json:"id"`
	Service string          `json:"service"`
	Params  json.RawMessage `json:"params,omitempty"`
	StopIf  map[string]any  `json:"stop_if,omitempty"`
}

// buildRun turns the form into a run request; a message for the user when the form itself is
// unusable (the API validates everything else and answers as it would any client). reg names
// the services' parameters in the messages.
func buildRun(text string, steps []stepForm, reg *services.Registry) (runRequest, string) {
	req := runRequest{Input: runInput{Type: services.TypeText, Value: text}}
	for _, st := range steps {
		if st.Service == "" {
			continue
		}
		step := runStep{ID: st.ID, Service: st.Service}
		if step.ID == "" {
			step.ID = "step" + strconv.Itoa(st.N)
		}
		if p := strings.TrimSpace(st.Params); p != "" {
			if !json.Valid([]byte(p)) || p[0] != '{' {
				return runRequest{}, paramsHint(reg, st.N, st.Service)
			}
			step.Params = json.RawMessage(p)
		}
		switch st.StopIf {
		case "":
		case "verdict:flag", "verdict:pass":
			step.StopIf = map[string]any{"verdict": strings.TrimPrefix(st.StopIf, "verdict:")}
		case "score_gte", "score_lte":
			score, err := strconv.ParseFloat(strings.TrimSpace(st.StopScore), 64)
			if err != nil || math.IsNaN(score) || math.IsInf(score, 0) {
				return runRequest{}, fmt.Sprintf("Step %d stops on a score: give the score as a number between 0 and 1.", st.N)
			}
			step.StopIf = map[string]any{st.StopIf: score}
		default:
			return runRequest{}, fmt.Sprintf("Step %d has an unknown stop condition.", st.N)
		}
		req.Pipeline = append(req.Pipeline, step)
	}
	if len(req.Pipeline) == 0 {
		return runRequest{}, "Choose a service for at least one step."
	}
	return req, ""
}

// runPlayground runs the form's pipeline for the session's account: the same engine, rate
// window, allowance and billing as POST /v1/run, through the same use case (metering). The
// text is neither logged nor stored: it goes into the run and back into this one response.
func (h *Handler) runPlayground(w http.ResponseWriter, r *http.Request, s *session) {
	f := r.PostForm
	d := playgroundData{Text: f.Get("text")}
	for i := 1; i <= playSteps; i++ {
		n := strconv.Itoa(i)
		d.Steps = append(d.Steps, stepForm{
			N: i, ID: strings.TrimSpace(f.Get("id" + n)), Service: f.Get("service" + n), Params: f.Get("params" + n),
			StopIf: f.Get("stop" + n), StopScore: f.Get("score" + n),
		})
	}
	req, msg := buildRun(d.Text, d.Steps, h.cfg.Registry)
	if msg != "" {
		d.FormError = msg
		h.playgroundPage(w, r, s, d)
		return
	}
	body, err := json.Marshal(req)
	if err != nil {
		h.unavailable(w, r, err)
		return
	}
	d.Result = h.execute(r.Context(), s.account, body, req)
	d.Result.Curl = curl(apiBase(r, h.cfg.Secure), body)
	h.playgroundPage(w, r, s, d)
}

// execute runs body for acct as POST /v1/run would, minus HTTP: Enter (the region and the rate
// window), then Run (the pipeline's validation, the allowance, the steps and their charge).
func (h *Handler) execute(ctx context.Context, acct store.Account, body []byte, req runRequest) *playResult {
	start := h.cfg.Now()
	g, e := h.cfg.Runner.Enter(ctx, acct, start)
	pr := &playResult{TraceID: g.TraceID}
	pr.RateLimit, pr.Remaining, pr.Reset = strconv.FormatInt(g.Quota.Limit, 10), strconv.FormatInt(g.Quota.Remaining, 10), strconv.FormatInt(g.Quota.Reset, 10)
	res := metering.Result{Err: e}
	if e == nil {
		res = g.Run(ctx, body, nil)
	}
	if res.Err != nil {
		pr.HTTPStatus, pr.Status, pr.Error = errcode.Status(res.Err.Code), pipeline.StatusFailed, &errorView{Code: res.Err.Code, Message: res.Err.Message, Param: res.Err.Param}
		return pr
	}
	run := res.Outcome.Render(res.RequestID, h.cfg.Now().Sub(start))
	pr.HTTPStatus, pr.Status, pr.HaltReason = http.StatusOK, run.Status, run.HaltReason
	if run.HaltedAt != nil {
		pr.HaltedAt = *run.HaltedAt
	}
	if run.Output != nil {
		pr.Output = &run.Output.Value
	}
	if run.Error != nil {
		pr.Error = &errorView{Code: run.Error.Code, Message: run.Error.Message, Param: run.Error.Param}
	}
	for _, st := range req.Pipeline { // in pipeline order
		if res, ok := run.Results[st.ID]; ok {
			raw, _ := json.Marshal(res)
			pr.Results = append(pr.Results, resultView{ID: st.ID, JSON: indent(raw)})
		}
	}
	for _, b := range run.Usage.Billed {
		pr.Billed = append(pr.Billed, billedView{Steps: strings.Join(b.Steps, ", "), Quantity: b.Quantity})
		pr.Total += b.Quantity
	}
	if raw, err := json.Marshal(run.Audit); err == nil {
		pr.Audit = indent(raw)
	}
	return pr
}

func indent(raw json.RawMessage) string {
	var b bytes.Buffer
	if json.Indent(&b, raw, "", "  ") != nil {
		return string(raw)
	}
	return b.String()
}

// apiBase is the API's base URL as this request reached the dashboard.
func apiBase(r *http.Request, secure bool) string {
	scheme := "http"
	if secure {
		scheme = "https"
	}
	return scheme + "://" + r.Host + strings.TrimSuffix(base(r), Mount)
}

// curl is the command that sends body to the API, with the key left to the shell: a real key
// is never shown here.
func curl(apiBase string, body []byte) string {
	quoted := "'" + strings.ReplaceAll(string(body), "'", `'\''`) + "'"
	return "curl -s " + apiBase + "/v1/run \\\n" +
		"  -H \"Authorization: Bearer $SLUICE_KEY\" \\\n" +
		"  -H \"Content-Type: application/json\" \\\n" +
		"  -d " + quoted
}
