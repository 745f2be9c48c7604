package pipeline_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/sluice-api/sluice/internal/pipeline"
	"github.com/sluice-api/sluice/internal/services"
)

// words is a classify service: it flags a text with more than three words.
type words struct{}

func (words) Descriptor() services.Descriptor {
	return services.Descriptor{
		Name: "example.words", Kind: services.KindClassify, Version: 1,
		Accepts: []string{services.TypeText}, Emits: services.EmitsSame, BillingUnit: "characters",
		Languages: []string{"any"}, Labels: []string{"long"}, Model: services.Model{ID: "none", License: "none"},
		Params: map[string]services.Param{"threshold": {Type: services.ParamNumber, Default: 0.5, Minimum: services.Ptr(0.0), Maximum: services.Ptr(1.0)}},
	}
}

func (words) Run(_ context.Context, r services.Request) (services.Result, error) {
	score := 0.1
	if len(strings.Fields(r.Payload.Value)) > 3 {
		score = 0.9
	}
	return services.ClassifyResult(r, score, []string{"long"}), nil
}

// The engine validates a whole run request before anything runs (Check), then executes its
// steps in order (Execute): here the first step's stop_if fires, so the run halts there and
// only that step bills. Render gives the wire shape of the answer.
func Example() {
	reg, _ := services.NewRegistry(words{})
	engine, _ := pipeline.New(reg)
	plan, _, err := engine.Check([]byte(`{"input":{"type":"text","value":"one two three four"},"pipeline":[
		{"id":"len","service":"example.words","stop_if":{"verdict":"flag"}},
		{"id":"again","service":"example.words"}]}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	out := engine.Execute(context.Background(), plan, pipeline.Env{
		TraceID: "sluice_example", Region: "eu-west-1", ReceivedAt: time.Date(2026, 11, 28, 9, 0, 0, 0, time.UTC), Budget: 1000,
	})
	run := out.Render(plan.RequestID, time.Millisecond)
	billed, _ := json.Marshal(run.Usage.Billed)
	fmt.Println(run.Status, *run.HaltedAt, run.HaltReason, string(billed))
	// Output: halted len stop_if [{"unit":"characters","quantity":18,"steps":["len"]}]
}
