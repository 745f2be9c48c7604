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
		{"InvalidUTF8", "{\"input\":{\"type\":\"text\",\"value\":\"\xff\"},\"pipeline\":[{\"id\":\"a\",\"service\":\"test.upper\"}]}", errcode.InvalidRequest, "/input/value"},
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

// TestParseStrict: one JSON object with only JSON whitespace around it, no repeated member
// anywhere, and only valid UTF-8 in strings (escaped lone surrogates included).
func TestParseStrict(t *testing.T) {
	e := testEngine(t)
	const ok = `{"input":{"type":"text","value":"x"},"pipeline":[{"id":"a","service":"test.upper"}]}`
	for _, tc := range []struct {
		name, body, code, param string
	}{
		{"LeadingVerticalTab", "\v" + ok, errcode.InvalidJSON, ""},
		{"LeadingFormFeed", "\f" + ok, errcode.InvalidJSON, ""},
		{"LeadingNoBreakSpace", "\u00a0" + ok, errcode.InvalidJSON, ""},
		{"LeadingLineSeparator", "\u2028" + ok, errcode.InvalidJSON, ""},
		{"LeadingIdeographicSpace", "\u3000" + ok, errcode.InvalidJSON, ""},
		{"LeadingNEL", "\u0085" + ok, errcode.InvalidJSON, ""},
		{"LeadingBOM", "\ufeff" + ok, errcode.InvalidJSON, ""},
		{"TrailingVerticalTab", ok + "\v", errcode.InvalidJSON, ""},
		{"TrailingIdeographicSpace", ok + "\u3000", errcode.InvalidJSON, ""},
		{"TrailingNUL", ok + "\x00", errcode.InvalidJSON, ""},
		{"SecondValue", ok + ` {}`, errcode.InvalidJSON, ""},
		{"TrailingGarbage", ok + `x`, errcode.InvalidJSON, ""},
		{"DuplicateTopMember", `{"input":{"type":"text","value":"x"},"input":{"type":"text","value":"y"},"pipeline":[{"id":"a","service":"test.upper"}]}`, errcode.InvalidJSON, "/input"},
		{"DuplicateInputValue", `{"input":{"type":"text","value":"x","value":"y"},"pipeline":[{"id":"a","service":"test.upper"}]}`, errcode.InvalidJSON, "/input/value"},
		{"DuplicateStepService", `{"input":{"type":"text","value":"x"},"pipeline":[{"id":"a","service":"test.upper","service":"test.double"}]}`, errcode.InvalidJSON, "/pipeline/0/service"},
		{"DuplicateParam", `{"input":{"type":"text","value":"x"},"pipeline":[{"id":"a","service":"test.upper","params":{"mode":"a","mode":"b"}}]}`, errcode.InvalidJSON, "/pipeline/0/params/mode"},
		{"DuplicateStopIf", `{"input":{"type":"text","value":"x"},"pipeline":[{"id":"a","service":"test.bad","stop_if":{"verdict":"flag","verdict":"pass"}}]}`, errcode.InvalidJSON, "/pipeline/0/stop_if/verdict"},
		{"DuplicateEscapedSpelling", `{"input":{"type":"text","value":"x","v\u0061lue":"y"},"pipeline":[{"id":"a","service":"test.upper"}]}`, errcode.InvalidJSON, "/input/value"},
		{"DuplicateInUnknownField", `{"input":{"type":"text","value":"x"},"pipeline":[{"id":"a","service":"test.upper"}],"extra":{"k":1,"k":2}}`, errcode.InvalidJSON, "/extra/k"},
		{"LoneHighSurrogate", `{"input":{"type":"text","value":"\ud800"},"pipeline":[{"id":"a","service":"test.upper"}]}`, errcode.InvalidRequest, "/input/value"},
		{"HighSurrogateThenLetter", `{"input":{"type":"text","value":"a\udbffb"},"pipeline":[{"id":"a","service":"test.upper"}]}`, errcode.InvalidRequest, "/input/value"},
		{"LoneLowSurrogate", `{"input":{"type":"text","value":"\udc00"},"pipeline":[{"id":"a","service":"test.upper"}]}`, errcode.InvalidRequest, "/input/value"},
		{"ReversedPair", `{"input":{"type":"text","value":"\ude00\ud83d"},"pipeline":[{"id":"a","service":"test.upper"}]}`, errcode.InvalidRequest, "/input/value"},
		{"SurrogateInRequestID", `{"request_id":"\ud800","input":{"type":"text","value":"x"},"pipeline":[{"id":"a","service":"test.upper"}]}`, errcode.InvalidRequest, "/request_id"},
		{"SurrogateInParam", `{"input":{"type":"text","value":"x"},"pipeline":[{"id":"a","service":"test.upper","params":{"words":["\udfff"]}}]}`, errcode.InvalidRequest, "/pipeline/0/params/words/0"},
		{"SurrogateAndBadJSON", `{"input":{"type":"text","value":"\ud800"},"pipeline":[`, errcode.InvalidJSON, ""},
		{"InvalidUTF8AndBadJSON", "{\"input\":\"\xff\",", errcode.InvalidJSON, ""},
		{"InvalidUTF8NotAnObject", "\"\x87\"", errcode.InvalidJSON, ""},
		{"SurrogateNotAnObject", `["\ud800"]`, errcode.InvalidJSON, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := e.Parse([]byte(tc.body))
			if err == nil {
				t.Fatalf("Parse accepted %q; want %s", tc.body, tc.code)
			}
			if err.Code != tc.code || err.Param != tc.param {
				t.Fatalf("got %s at %q (%s), want %s at %q", err.Code, err.Param, err.Message, tc.code, tc.param)
			}
			if tc.code == errcode.InvalidJSON && tc.param != "" {
				name := tc.param[strings.LastIndex(tc.param, "/")+1:]
				if !strings.Contains(err.Message, `"`+name+`"`) {
					t.Fatalf("message %q does not name the member %q", err.Message, name)
				}
			}
			if _, ferr := Fingerprint([]byte(tc.body)); ferr == nil && tc.code == errcode.InvalidJSON {
				t.Fatalf("a body Parse refuses as JSON has a fingerprint")
			}
			if _, id, _ := e.Check([]byte(tc.body)); id != "" && tc.code == errcode.InvalidJSON {
				t.Fatalf("Check echoes request_id %q from a body that is not strict JSON", id)
			}
		})
	}
	for _, tc := range []struct{ name, body, value string }{
		{"JSONWhitespaceAround", " \t\r\n" + ok + "\n\r\t ", "x"},
		{"SurrogatePair", `{"input":{"type":"text","value":"\ud83d\ude00"},"pipeline":[{"id":"a","service":"test.upper"}]}`, "😀"},
		{"EscapedFFFD", `{"input":{"type":"text","value":"\ufffd"},"pipeline":[{"id":"a","service":"test.upper"}]}`, "\ufffd"},
		{"SameNameInOtherObjects", `{"input":{"type":"text","value":"x"},"pipeline":[{"id":"a","service":"test.upper","params":{"mode":"a"}},{"id":"b","service":"test.upper","params":{"mode":"b"}}]}`, "x"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := e.Parse([]byte(tc.body))
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if p.Input.Value != tc.value {
				t.Fatalf("input = %q, want %q", p.Input.Value, tc.value)
			}
			fp, ferr := p.Fingerprint()
			if want, werr := Fingerprint([]byte(tc.body)); ferr != nil || werr != nil || fp != want {
				t.Fatalf("plan fingerprint %s (%v), body fingerprint %s (%v)", fp, ferr, want, werr)
			}
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
	// Three bodies that once collapsed to one fingerprint (U+FFFD) now have none or their own.
	var fps []string
	for _, body := range []string{`{"v":"\ud800"}`, `{"v":"\udbff"}`, `{"v":"\ufffd"}`} {
		if fp, err := Fingerprint([]byte(body)); err == nil {
			fps = append(fps, fp)
		}
	}
	if len(fps) != 1 {
		t.Errorf("bodies with lone surrogates have fingerprints: %d of 3 fingerprinted, want only the U+FFFD one", len(fps))
	}
	// The canonical JSON is the one Sluice used before strict parsing (encoding/json's, numbers
	// as written): a retry of a request whose record was stored then still matches it. The value
	// was computed with that implementation.
	const before = "caf829297748407e555cec5ea12a84b3417e9c840908ce7caa038b049a185663"
	body := `{"request_id":"r-1","input":{"type":"text","value":"Caf\u00e9 <b>&</b> \u2028 line\ttab 😀 \"q\" \\ 1e3"},"pipeline":[{"id":"a","service":"test.upper","params":{"mode":"b","entities":["x"]}},{"id":"b","service":"test.bad","stop_if":{"score_gte":0.50}}]}`
	if fp, err := Fingerprint([]byte(body)); err != nil || fp != before {
		t.Errorf("fingerprint = %s, %v; want %s as before", fp, err, before)
	}
}

// TestCheckEchoesRequestID: a refused body's request_id is echoed when the body decoded as an
// object and request_id is a string within the limit, from the same decoding as the refusal.
func TestCheckEchoesRequestID(t *testing.T) {
	e := testEngine(t)
	for _, tc := range []struct{ name, body, want string }{
		{"UnknownService", `{"request_id":"r-9","input":{"type":"text","value":"x"},"pipeline":[{"id":"a","service":"nope"}]}`, "r-9"},
		{"UnknownField", `{"request_id":"r-9","x":1}`, "r-9"},
		{"RequestIDNotString", `{"request_id":9,"input":{"type":"text","value":"x"},"pipeline":[{"id":"a","service":"nope"}]}`, ""},
		{"RequestIDTooLong", `{"request_id":"` + strings.Repeat("r", MaxRequestIDLen+1) + `","pipeline":[]}`, ""},
		{"NotJSON", `{"request_id":"r-9",`, ""},
		{"RepeatedRequestID", `{"request_id":"r-1","request_id":"r-2"}`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, id, err := e.Check([]byte(tc.body))
			if p != nil || err == nil || id != tc.want {
				t.Fatalf("Check = %v, %q, %v; want a refusal echoing %q", p, id, err, tc.want)
			}
		})
	}
	p, id, err := e.Check([]byte(`{"request_id":"ok","input":{"type":"text","value":"x"},"pipeline":[{"id":"a","service":"test.upper"}]}`))
	if err != nil || id != "ok" || p.RequestID != "ok" {
		t.Fatalf("Check of a valid body = %v, %q, %v", p, id, err)
	}
}

func TestCharactersNoun(t *testing.T) {
	for n, want := range map[int]string{0: "0 characters", 1: "1 character", 2: "2 characters", 64: "64 characters"} {
		if got := characters(n); got != want {
			t.Errorf("characters(%d) = %q, want %q", n, got, want)
		}
	}
}
