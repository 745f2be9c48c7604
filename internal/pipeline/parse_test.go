package pipeline

import (
	"strings"
	"testing"

	"github.com/sluice-api/sluice/internal/errcode"
)

func TestParseRejects(t *testing.T) {
	e := testEngine(t)
	big := strings.Repeat("é", MaxInputChars+1)
	for _, tc := range []struct {
		name, body, code, param string
	}{
		{"NotJSON", `{"input":`, errcode.InvalidJSON, ""},
		{"NotAnObject", `["input"]`, errcode.InvalidJSON, ""},
		{"Null", `null`, errcode.InvalidJSON, ""},
		{"InvalidUTF8", "{\"input\":{\"type\":\"text\",\"value\":\"\xff\"},\"pipeline\":[{\"id\":\"a\",\"service\":\"test.upper\"}]}", errcode.InvalidRequest, ""},
		{"UnknownTopField", `{"input":{"type":"text","value":"x"},"pipeline":[{"id":"a","service":"test.upper"}],"extra":1}`, errcode.InvalidRequest, "/extra"},
		{"MissingInput", `{"pipeline":[{"id":"a","service":"test.upper"}]}`, errcode.InvalidRequest, "/input"},
		{"InputNotObject", `{"input":"x","pipeline":[{"id":"a","service":"test.upper"}]}`, errcode.InvalidRequest, "/input"},
		{"MissingType", `{"input":{"value":"x"},"pipeline":[{"id":"a","service":"test.upper"}]}`, errcode.InvalidRequest, "/input/type"},
		{"MissingValue", `{"input":{"type":"text"},"pipeline":[{"id":"a","service":"test.upper"}]}`, errcode.InvalidRequest, "/input/value"},
		{"ValueNotString", `{"input":{"type":"text","value":3},"pipeline":[{"id":"a","service":"test.upper"}]}`, errcode.InvalidRequest, "/input/value"},
		{"UnknownInputField", `{"input":{"type":"text","value":"x","lang":"en"},"pipeline":[{"id":"a","service":"test.upper"}]}`, errcode.InvalidRequest, "/input/lang"},
		{"ImageType", `{"input":{"type":"image","value":"x"},"pipeline":[{"id":"a","service":"test.upper"}]}`, errcode.UnsupportedInputType, "/input/type"},
		{"AudioTypeWithoutValue", `{"input":{"type":"audio"},"pipeline":[{"id":"a","service":"test.upper"}]}`, errcode.UnsupportedInputType, "/input/type"},
		{"URIReserved", `{"input":{"type":"text","uri":"s3://x"},"pipeline":[{"id":"a","service":"test.upper"}]}`, errcode.UnsupportedInputType, "/input/uri"},
		{"Base64Reserved", `{"input":{"base64":"eA=="},"pipeline":[{"id":"a","service":"test.upper"}]}`, errcode.UnsupportedInputType, "/input/base64"},
		{"RequestIDNotString", `{"request_id":5,"input":{"type":"text","value":"x"},"pipeline":[{"id":"a","service":"test.upper"}]}`, errcode.InvalidRequest, "/request_id"},
		{"MissingPipeline", `{"input":{"type":"text","value":"x"}}`, errcode.InvalidRequest, "/pipeline"},
		{"EmptyPipeline", `{"input":{"type":"text","value":"x"},"pipeline":[]}`, errcode.InvalidRequest, "/pipeline"},
		{"PipelineNotArray", `{"input":{"type":"text","value":"x"},"pipeline":{}}`, errcode.InvalidRequest, "/pipeline"},
		{"StepNotObject", `{"input":{"type":"text","value":"x"},"pipeline":["test.upper"]}`, errcode.InvalidRequest, "/pipeline/0"},
		{"StepMissingID", `{"input":{"type":"text","value":"x"},"pipeline":[{"service":"test.upper"}]}`, errcode.InvalidRequest, "/pipeline/0/id"},
		{"StepBadID", `{"input":{"type":"text","value":"x"},"pipeline":[{"id":"a b","service":"test.upper"}]}`, errcode.InvalidRequest, "/pipeline/0/id"},
		{"StepMissingService", `{"input":{"type":"text","value":"x"},"pipeline":[{"id":"a"}]}`, errcode.InvalidRequest, "/pipeline/0/service"},
		{"StepUnknownField", `{"input":{"type":"text","value":"x"},"pipeline":[{"id":"a","service":"test.upper","when":1}]}`, errcode.InvalidRequest, "/pipeline/0/when"},
		{"ParamsNotObject", `{"input":{"type":"text","value":"x"},"pipeline":[{"id":"a","service":"test.upper","params":[]}]}`, errcode.InvalidRequest, "/pipeline/0/params"},
		{"InputTooLarge", `{"input":{"type":"text","value":"` + big + `"},"pipeline":[{"id":"a","service":"test.upper"}]}`, errcode.InputTooLarge, "/input/value"},
		{"BodyTooLarge", `{"input":{"type":"text","value":"` + strings.Repeat("a", MaxBodyBytes) + `"},"pipeline":[]}`, errcode.BodyTooLarge, ""},
		{"UnknownService", `{"input":{"type":"text","value":"x"},"pipeline":[{"id":"a","service":"test.upper"},{"id":"b","service":"nope"}]}`, errcode.UnknownService, "/pipeline/1/service"},
		{"DuplicateStepID", `{"input":{"type":"text","value":"x"},"pipeline":[{"id":"a","service":"test.upper"},{"id":"a","service":"test.double"}]}`, errcode.DuplicateStepID, "/pipeline/1/id"},
		{"UnknownParam", `{"input":{"type":"text","value":"x"},"pipeline":[{"id":"a","service":"test.upper","params":{"colour":"red"}}]}`, errcode.InvalidParams, "/pipeline/0/params/colour"},
		{"ParamWrongType", `{"input":{"type":"text","value":"x"},"pipeline":[{"id":"a","service":"test.upper","params":{"mode":1}}]}`, errcode.InvalidParams, "/pipeline/0/params/mode"},
		{"ParamNotAllowed", `{"input":{"type":"text","value":"x"},"pipeline":[{"id":"a","service":"test.upper","params":{"mode":"c"}}]}`, errcode.InvalidParams, "/pipeline/0/params/mode"},
		{"ArrayItemNotAllowed", `{"input":{"type":"text","value":"x"},"pipeline":[{"id":"a","service":"test.upper","params":{"entities":["x","z"]}}]}`, errcode.InvalidParams, "/pipeline/0/params/entities"},
		{"ArrayItemTooShort", `{"input":{"type":"text","value":"x"},"pipeline":[{"id":"a","service":"test.upper","params":{"words":[""]}}]}`, errcode.InvalidParams, "/pipeline/0/params/words"},
		{"ArrayItemTooLong", `{"input":{"type":"text","value":"x"},"pipeline":[{"id":"a","service":"test.upper","params":{"words":["ab","abcd"]}}]}`, errcode.InvalidParams, "/pipeline/0/params/words"},
		{"ArrayTooManyItems", `{"input":{"type":"text","value":"x"},"pipeline":[{"id":"a","service":"test.upper","params":{"words":["a","b","c"]}}]}`, errcode.InvalidParams, "/pipeline/0/params/words"},
		{"ArrayItemNotString", `{"input":{"type":"text","value":"x"},"pipeline":[{"id":"a","service":"test.upper","params":{"entities":[1]}}]}`, errcode.InvalidParams, "/pipeline/0/params/entities"},
		{"NumberAboveMax", `{"input":{"type":"text","value":"x"},"pipeline":[{"id":"a","service":"test.bad","params":{"threshold":1.5}}]}`, errcode.InvalidParams, "/pipeline/0/params/threshold"},
		{"NumberAsString", `{"input":{"type":"text","value":"x"},"pipeline":[{"id":"a","service":"test.bad","params":{"threshold":"0.5"}}]}`, errcode.InvalidParams, "/pipeline/0/params/threshold"},
		{"StopIfOnTransform", `{"input":{"type":"text","value":"x"},"pipeline":[{"id":"a","service":"test.upper","stop_if":{"verdict":"flag"}}]}`, errcode.InvalidStopIf, "/pipeline/0/stop_if"},
		{"StopIfOnExtract", `{"input":{"type":"text","value":"x"},"pipeline":[{"id":"a","service":"test.count","stop_if":{"score_gte":0.5}}]}`, errcode.InvalidStopIf, "/pipeline/0/stop_if"},
		{"StopIfTwoForms", `{"input":{"type":"text","value":"x"},"pipeline":[{"id":"a","service":"test.bad","stop_if":{"verdict":"flag","score_gte":0.5}}]}`, errcode.InvalidStopIf, "/pipeline/0/stop_if"},
		{"StopIfEmpty", `{"input":{"type":"text","value":"x"},"pipeline":[{"id":"a","service":"test.bad","stop_if":{}}]}`, errcode.InvalidStopIf, "/pipeline/0/stop_if"},
		{"StopIfUncertain", `{"input":{"type":"text","value":"x"},"pipeline":[{"id":"a","service":"test.bad","stop_if":{"verdict":"uncertain"}}]}`, errcode.InvalidStopIf, "/pipeline/0/stop_if/verdict"},
		{"StopIfScoreOutOfRange", `{"input":{"type":"text","value":"x"},"pipeline":[{"id":"a","service":"test.bad","stop_if":{"score_lte":-0.1}}]}`, errcode.InvalidStopIf, "/pipeline/0/stop_if/score_lte"},
		{"StopIfUnknownForm", `{"input":{"type":"text","value":"x"},"pipeline":[{"id":"a","service":"test.bad","stop_if":{"label":"bad"}}]}`, errcode.InvalidStopIf, "/pipeline/0/stop_if/label"},
		{"StopIfNotObject", `{"input":{"type":"text","value":"x"},"pipeline":[{"id":"a","service":"test.bad","stop_if":"flag"}]}`, errcode.InvalidStopIf, "/pipeline/0/stop_if"},
		{"TokensIntoTextService", `{"input":{"type":"text","value":"x"},"pipeline":[{"id":"a","service":"test.tokens"},{"id":"b","service":"test.upper"}]}`, errcode.ImpossibleChain, "/pipeline/1/service"},
		{"TextIntoTokensService", `{"input":{"type":"text","value":"x"},"pipeline":[{"id":"a","service":"test.tokensonly"}]}`, errcode.ImpossibleChain, "/pipeline/0/service"},
		{"FirstFailingStepAnswers", `{"input":{"type":"text","value":"x"},"pipeline":[{"id":"a","service":"test.upper","params":{"mode":"z"}},{"id":"b","service":"nope"}]}`, errcode.InvalidParams, "/pipeline/0/params/mode"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := e.Parse([]byte(tc.body))
			if err == nil {
				t.Fatalf("Parse accepted the body; want %s", tc.code)
			}
			if err.Code != tc.code || err.Param != tc.param {
				t.Fatalf("got %s at %q (%s), want %s at %q", err.Code, err.Param, err.Message, tc.code, tc.param)
			}
			if strings.Contains(err.Message, "backend") {
				t.Fatalf("message leaks internals: %q", err.Message)
			}
		})
	}
}

func TestParseAccepts(t *testing.T) {
	e := testEngine(t)
	for _, tc := range []struct {
		name, body string
		check      func(t *testing.T, p *Plan)
	}{
		{"OneStepDefaults", `{"request_id":"r1","input":{"type":"text","value":"héllo"},"pipeline":[{"id":"a","service":"test.upper"}]}`, func(t *testing.T, p *Plan) {
			if p.RequestID != "r1" || p.InputChars != 5 || len(p.Steps) != 1 {
				t.Fatalf("plan = %+v", p)
			}
			if got := p.Steps[0].Params.String("mode"); got != "a" {
				t.Fatalf("default mode = %q", got)
			}
			if got := p.Steps[0].Params.Strings("entities"); len(got) != 1 || got[0] != "x" {
				t.Fatalf("default entities = %q", got)
			}
		}},
		{"NullsAreAbsent", `{"request_id":null,"input":{"type":"text","value":"x"},"pipeline":[{"id":"a","service":"test.upper","params":null,"stop_if":null}]}`, func(t *testing.T, p *Plan) {
			if p.Steps[0].StopIf != nil || p.Steps[0].Params.String("mode") != "a" {
				t.Fatalf("plan = %+v", p.Steps[0])
			}
		}},
		{"ParamsGiven", `{"input":{"type":"text","value":"x"},"pipeline":[{"id":"a","service":"test.upper","params":{"mode":"b","entities":["y","y","x"]}}]}`, func(t *testing.T, p *Plan) {
			if p.Steps[0].Params.String("mode") != "b" || len(p.Steps[0].Params.Strings("entities")) != 2 {
				t.Fatalf("params = %v", p.Steps[0].Params)
			}
		}},
		{"ChainTypePropagates", `{"input":{"type":"text","value":"a b"},"pipeline":[{"id":"a","service":"test.tokens"},{"id":"b","service":"test.tokensonly","stop_if":{"score_gte":0.9}}]}`, func(t *testing.T, p *Plan) {
			if len(p.Steps) != 2 || *p.Steps[1].StopIf.ScoreGTE != 0.9 {
				t.Fatalf("plan = %+v", p.Steps)
			}
		}},
		{"EmptyText", `{"input":{"type":"text","value":""},"pipeline":[{"id":"a","service":"test.count"}]}`, func(t *testing.T, p *Plan) {
			if p.InputChars != 0 {
				t.Fatalf("chars = %d", p.InputChars)
			}
		}},
		{"ExactlyTheLimit", `{"input":{"type":"text","value":"` + strings.Repeat("日", MaxInputChars) + `"},"pipeline":[{"id":"a","service":"test.count"}]}`, func(t *testing.T, p *Plan) {
			if p.InputChars != MaxInputChars {
				t.Fatalf("chars = %d", p.InputChars)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := e.Parse([]byte(tc.body))
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			tc.check(t, p)
		})
	}
}

func TestFingerprint(t *testing.T) {
	a, err := Fingerprint([]byte(`{"b":1,"a":{"y":[1,2],"x":"é"}}`))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Fingerprint([]byte("{ \"a\" : {\"x\":\"\\u00e9\", \"y\":[1, 2]},\n \"b\":1 }"))
	c, _ := Fingerprint([]byte(`{"b":2,"a":{"y":[1,2],"x":"é"}}`))
	if a != b {
		t.Errorf("formatting changed the fingerprint: %s vs %s", a, b)
	}
	if a == c {
		t.Errorf("different bodies share a fingerprint")
	}
}
