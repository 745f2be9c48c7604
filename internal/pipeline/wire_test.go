package pipeline

import (
	"encoding/json"
	"testing"

	"github.com/sluice-api/sluice/internal/services"
)

// mapResult is the wire form of a step result as a map of the kind's members: encoding/json
// writes its keys in name order. StepResult.MarshalJSON must write the same bytes.
func mapResult(r StepResult) map[string]any {
	m := map[string]any{"kind": r.Kind, "status": r.Status}
	switch r.Kind {
	case services.KindTransform:
		m["changes"] = r.Changes
		if r.Map != nil {
			m["map"] = r.Map
		}
	case services.KindClassify:
		m["verdict"], m["score"], m["labels"] = r.Verdict, r.Score, r.Labels
	case services.KindExtract:
		m["data"] = r.Data
	}
	return m
}

func TestStepResultMarshalJSON(t *testing.T) {
	tests := []struct {
		name string
		r    StepResult
		want string
	}{
		{"TransformNoMap", StepResult{Kind: services.KindTransform, Status: StepOK, Changes: 2},
			`{"changes":2,"kind":"transform","status":"ok"}`},
		{"TransformNoChanges", StepResult{Kind: services.KindTransform, Status: StepOK},
			`{"changes":0,"kind":"transform","status":"ok"}`},
		{"TransformEmptyMap", StepResult{Kind: services.KindTransform, Status: StepOK, Map: map[string]string{}},
			`{"changes":0,"kind":"transform","map":{},"status":"ok"}`},
		{"TransformMap", StepResult{Kind: services.KindTransform, Status: StepOK, Changes: 1, Map: map[string]string{"[NAME_2]": "b", "[NAME_1]": "a"}},
			`{"changes":1,"kind":"transform","map":{"[NAME_1]":"a","[NAME_2]":"b"},"status":"ok"}`},
		{"ClassifyZeroScore", StepResult{Kind: services.KindClassify, Status: StepOK, Verdict: "pass", Labels: []string{}},
			`{"kind":"classify","labels":[],"score":0,"status":"ok","verdict":"pass"}`},
		{"ClassifyLabels", StepResult{Kind: services.KindClassify, Status: StepOK, Verdict: "flag", Score: 0.93, Labels: []string{"insult", "threat"}},
			`{"kind":"classify","labels":["insult","threat"],"score":0.93,"status":"ok","verdict":"flag"}`},
		{"ClassifyNilLabels", StepResult{Kind: services.KindClassify, Status: StepOK, Verdict: "uncertain", Score: 0.5},
			`{"kind":"classify","labels":null,"score":0.5,"status":"ok","verdict":"uncertain"}`},
		{"Extract", StepResult{Kind: services.KindExtract, Status: StepOK, Data: json.RawMessage(`{"language":"de","confidence":1}`)},
			`{"data":{"language":"de","confidence":1},"kind":"extract","status":"ok"}`},
		{"ExtractNoData", StepResult{Kind: services.KindExtract, Status: StepOK},
			`{"data":null,"kind":"extract","status":"ok"}`},
		{"OtherKind", StepResult{Kind: "other", Status: StepFailed, Changes: 3, Score: 1, Verdict: "flag"},
			`{"kind":"other","status":"failed"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := json.Marshal(tt.r)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
			ref, err := json.Marshal(mapResult(tt.r))
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != string(ref) {
				t.Errorf("got %s, but the map form is %s", got, ref)
			}
		})
	}
}
