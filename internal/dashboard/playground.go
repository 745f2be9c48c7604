package dashboard

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"

	"github.com/sluice-api/sluice/internal/api"
	"github.com/sluice-api/sluice/internal/services"
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

// runPlayground runs the form's pipeline for the session's account through the API server:
// the same engine, rate window, allowance and billing as POST /v1/run. The text is neither
// logged nor stored: it goes into the run and back into this one response.
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
	resp := h.cfg.API.Run(r.Context(), s.account, api.Request{
		Header: http.Header{"Content-Type": {"application/json"}}, Body: body,
	})
	d.Result = result(resp, req)
	d.Result.Curl = curl(apiBase(r, h.cfg.Secure), body)
	h.playgroundPage(w, r, s, d)
}

// result turns the API's answer into what the page shows.
func result(resp api.Response, req runRequest) *playResult {
	pr := &playResult{
		HTTPStatus: resp.Status,
		RateLimit:  api.GetExact(resp.Header, api.HeaderRateLimit),
		Remaining:  api.GetExact(resp.Header, api.HeaderRateRemaining),
		Reset:      api.GetExact(resp.Header, api.HeaderRateReset),
	}
	var out struct {
		TraceID    string                     `json:"trace_id"`
		Status     string                     `json:"status"`
		HaltedAt   *string                    `json:"halted_at"`
		HaltReason string                     `json:"halt_reason"`
		Output     *struct{ Value string }    `json:"output"`
		Error      *errorView                 `json:"error"`
		Results    map[string]json.RawMessage `json:"results"`
		Usage      struct {
			Billed []struct {
				Quantity int64    `json:"quantity"`
				Steps    []string `json:"steps"`
			} `json:"billed"`
		} `json:"usage"`
		Audit json.RawMessage `json:"audit"`
	}
	if err := json.Unmarshal(resp.Body, &out); err != nil {
		pr.Error = &errorView{Code: "internal_error", Message: "the answer could not be read"}
		return pr
	}
	pr.TraceID, pr.Status, pr.HaltReason, pr.Error = out.TraceID, out.Status, out.HaltReason, out.Error
	if out.HaltedAt != nil {
		pr.HaltedAt = *out.HaltedAt
	}
	if out.Output != nil {
		pr.Output = &out.Output.Value
	}
	for _, st := range req.Pipeline { // in pipeline order
		if raw, ok := out.Results[st.ID]; ok {
			pr.Results = append(pr.Results, resultView{ID: st.ID, JSON: indent(raw)})
		}
	}
	for _, b := range out.Usage.Billed {
		pr.Billed = append(pr.Billed, billedView{Steps: strings.Join(b.Steps, ", "), Quantity: b.Quantity})
		pr.Total += b.Quantity
	}
	if len(out.Audit) > 0 {
		pr.Audit = indent(out.Audit)
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
