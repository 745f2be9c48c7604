package apigw

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/aws-lambda-go/events"

	"github.com/sluice-api/sluice/internal/account"
	"github.com/sluice-api/sluice/internal/api"
	"github.com/sluice-api/sluice/internal/metering"
	"github.com/sluice-api/sluice/internal/pipeline"
	"github.com/sluice-api/sluice/internal/services"
	"github.com/sluice-api/sluice/internal/store/sqlite"
)

// lambdaResponseLimit is Lambda's limit on a synchronous invocation's response (6 MB), which for
// API Gateway's proxy integration is the whole envelope: status, headers and the body as a JSON
// string. An answer over it is lost as a 502 after the run was billed.
const lambdaResponseLimit = 6 << 20

// quoteMap is a transform that passes the text on with a map whose one value is 40,000 double
// quotes: 80 kB of the body's JSON each, which the envelope escapes again to 160 kB.
type quoteMap struct{}

func (quoteMap) Descriptor() services.Descriptor {
	return services.Descriptor{Name: "test.quotemap", Kind: services.KindTransform, Version: 1, Accepts: []string{"text"},
		Emits: "same", BillingUnit: "characters", Languages: []string{"any"}, Params: map[string]services.Param{},
		Model: services.Model{ID: "fake", License: "test"}}
}

func (quoteMap) Run(_ context.Context, r services.Request) (services.Result, error) {
	return services.Result{Payload: r.Payload, Map: map[string]string{"[T_1]": strings.Repeat(`"`, 40_000)}}, nil
}

// TestLargestAnswerFitsLambda builds the largest answers a run can give: an output of 100,000
// control characters (6 bytes each in the body's JSON, 7 in the envelope) and step results made of
// the characters the envelope escapes again, up to and past the engine's MaxResultBytes, in 24
// and in 32 steps (the most a pipeline may have). Each envelope, as Lambda serialises it, stays
// under Lambda's 6 MB response limit.
func TestLargestAnswerFitsLambda(t *testing.T) {
	reg, err := services.NewRegistry(quoteMap{})
	if err != nil {
		t.Fatal(err)
	}
	engine, err := pipeline.New(reg)
	if err != nil {
		t.Fatal(err)
	}
	st, err := sqlite.Open(filepath.Join(t.TempDir(), "apigw.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	h := NewHandlers(api.NewServer(metering.New(st, engine, metering.Config{Region: "eu-west-1", TokenKey: []byte("tokenization-key-tokenization-key")}),
		account.NewManager(st, []byte("0123456789abcdef0123456789abcdef"), nil), api.Config{}))
	var base events.APIGatewayProxyRequest
	fixture(t, "run-rejected.json", &base)
	value, _ := json.Marshal(strings.Repeat("\x01", pipeline.MaxInputChars))

	for _, tc := range []struct {
		steps  int
		status string
	}{
		{24, "completed"}, // 24 × 80 kB of results: just under MaxResultBytes
		{pipeline.MaxSteps, "failed"},
	} {
		t.Run(fmt.Sprint(tc.steps, "Steps"), func(t *testing.T) {
			steps := make([]string, tc.steps)
			for i := range steps {
				steps[i] = fmt.Sprintf(`{"id":"step-%02d","service":"test.quotemap"}`, i)
			}
			req := base
			req.Body = `{"input":{"type":"text","value":` + string(value) + `},"pipeline":[` + strings.Join(steps, ",") + `]}`
			resp, err := h.Run(t.Context(), req)
			if err != nil {
				t.Fatal(err)
			}
			var m struct{ Status string }
			if err := json.Unmarshal([]byte(resp.Body), &m); err != nil || resp.StatusCode != 200 || m.Status != tc.status {
				t.Fatalf("answer %d %.300s, want status %s", resp.StatusCode, resp.Body, tc.status)
			}
			envelope, err := json.Marshal(resp)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%d steps: body %d bytes, envelope %d bytes (limit %d)", tc.steps, len(resp.Body), len(envelope), lambdaResponseLimit)
			if len(envelope) >= lambdaResponseLimit {
				t.Fatalf("the envelope is %d bytes, over Lambda's %d", len(envelope), lambdaResponseLimit)
			}
		})
	}
}
