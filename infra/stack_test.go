package main

import (
	"crypto/rand"
	"encoding/json"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/assertions"
	"github.com/aws/jsii-runtime-go"

	"github.com/sluice-api/sluice/internal/api"
	"github.com/sluice-api/sluice/internal/errcode"
	"github.com/sluice-api/sluice/internal/routes"
	"github.com/sluice-api/sluice/internal/secrets"
	"github.com/sluice-api/sluice/internal/timing"
)

// Two apps are synthesized once for the whole test binary (synthesis is the slow part):
//
//   - multi: stage "test", regions eu-west-1 (primary) and us-east-1, tracing on, an alarm
//     e-mail, no account and no built functions (as `make test` in a fresh clone);
//   - solo: stage "prod", one region given as a string, an explicit account, tracing off, and
//     a dist directory with four (fake) bootstraps.
var (
	multiOut, soloOut         string
	multiStacks, soloStacks   []awscdk.Stack
	primary, replica, solo    assertions.Template
	primaryT, replicaT, soloT map[string]any
	synthTime                 time.Duration
	multiRegions              = []string{"eu-west-1", "us-east-1"}
	soloDist                  string
)

func TestMain(m *testing.M) {
	os.Unsetenv("CDK_DEFAULT_ACCOUNT") // synthesis must work without any account
	os.Unsetenv("CDK_CONTEXT_JSON")
	// No jsii.Close here: jsii-runtime-go v1.127.0's Close races with its own process watcher
	// (go test -race fails on it); the runtime exits when this process closes its pipe.
	code := func() int {
		tmp, err := os.MkdirTemp("", "sluice-infra-test-")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		defer os.RemoveAll(tmp)
		start := time.Now()
		multiOut = filepath.Join(tmp, "multi")
		multiStacks, err = synth(multiOut, filepath.Join(tmp, "no-dist"), map[string]any{
			CtxStage: "test", CtxRegions: []any{"eu-west-1", "us-east-1"}, CtxTracing: true, CtxAlarmEmail: "ops@example.com",
		})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		soloDist = filepath.Join(tmp, "dist")
		for _, fn := range Functions {
			os.MkdirAll(filepath.Join(soloDist, fn), 0o755)
			os.WriteFile(filepath.Join(soloDist, fn, "bootstrap"), []byte("fake "+fn), 0o755)
		}
		soloOut = filepath.Join(tmp, "solo")
		soloStacks, err = synth(soloOut, soloDist, map[string]any{
			CtxStage: "prod", CtxRegions: "ap-southeast-2", CtxAccount: "123456789012", CtxTracing: "false",
			CtxDashboardConcurrency: "10", CtxDashboardRate: "50", CtxDashboardBurst: float64(200),
		})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		primary = assertions.Template_FromStack(multiStacks[0], nil)
		replica = assertions.Template_FromStack(multiStacks[1], nil)
		solo = assertions.Template_FromStack(soloStacks[0], nil)
		primaryT, replicaT, soloT = raw(primary), raw(replica), raw(solo)
		synthTime = time.Since(start)
		return m.Run()
	}()
	os.Exit(code)
}

func synth(outdir, dist string, ctx map[string]any) ([]awscdk.Stack, error) {
	app := awscdk.NewApp(&awscdk.AppProps{Outdir: jsii.String(outdir), Context: &ctx})
	stacks, err := NewServiceApp(app, dist)
	if err != nil {
		return nil, err
	}
	app.Synth(nil)
	return stacks, nil
}

func raw(t assertions.Template) map[string]any { return *t.ToJSON() }

// resources returns the resources of type typ: logical id -> resource.
func resources(tpl map[string]any, typ string) map[string]map[string]any {
	out := map[string]map[string]any{}
	for id, r := range tpl["Resources"].(map[string]any) {
		if r := r.(map[string]any); r["Type"] == typ {
			out[id] = r
		}
	}
	return out
}

func props(r map[string]any) map[string]any { return r["Properties"].(map[string]any) }

// only returns the single resource of typ whose properties match pred.
func only(t *testing.T, tpl map[string]any, typ string, pred func(p map[string]any) bool) (string, map[string]any) {
	t.Helper()
	var ids []string
	var found map[string]any
	for id, r := range resources(tpl, typ) {
		if pred(props(r)) {
			ids = append(ids, id)
			found = r
		}
	}
	if len(ids) != 1 {
		t.Fatalf("%s matching: %d resources %v, want 1", typ, len(ids), ids)
	}
	return ids[0], found
}

func js(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func named(key, value string) func(map[string]any) bool {
	return func(p map[string]any) bool { return p[key] == value }
}

// functionID is the logical id of the function named name.
func functionID(t *testing.T, tpl map[string]any, name string) string {
	id, _ := only(t, tpl, "AWS::Lambda::Function", named("FunctionName", name))
	return id
}

func TestSynthTimeAndOneTemplatePerRegion(t *testing.T) {
	t.Logf("synthesizing both apps took %v", synthTime)
	for _, c := range []struct {
		out     string
		regions []string
		stage   string
	}{{multiOut, multiRegions, "test"}, {soloOut, []string{"ap-southeast-2"}, "prod"}} {
		files, _ := filepath.Glob(filepath.Join(c.out, "*.template.json"))
		var want []string
		for _, r := range c.regions {
			want = append(want, filepath.Join(c.out, StackID(c.stage, r)+".template.json"))
		}
		sort.Strings(files)
		sort.Strings(want)
		if !reflect.DeepEqual(files, want) {
			t.Errorf("templates = %v, want %v", files, want)
		}
	}
	deps := multiStacks[1].Dependencies()
	if len(*deps) != 1 || *(*deps)[0].StackName() != StackID("test", "eu-west-1") {
		t.Errorf("the replica region's stack must depend on the primary's")
	}
}

func TestEnvironment(t *testing.T) {
	for i, r := range multiRegions {
		s := multiStacks[i]
		if *s.Region() != r {
			t.Errorf("stack %d region = %s, want %s", i, *s.Region(), r)
		}
		if !*awscdk.Token_IsUnresolved(s.Account()) {
			t.Errorf("without an account the stack must stay account-agnostic, got %s", *s.Account())
		}
	}
	if got := *soloStacks[0].Account(); got != "123456789012" {
		t.Errorf("account from context = %s", got)
	}
}

func TestConfigFromContext(t *testing.T) {
	for _, tc := range []struct {
		name string
		ctx  map[string]any
		want Config
		err  bool
	}{
		{"Defaults", map[string]any{}, Config{Stage: "dev", Regions: []string{"eu-west-1"}}, false},
		{"List", map[string]any{"regions": []any{"eu-west-1", "us-east-1"}, "tracing": true}, Config{Stage: "dev", Regions: []string{"eu-west-1", "us-east-1"}, Tracing: true}, false},
		{"CLIStrings", map[string]any{"stage": "prod", "regions": "eu-central-1, us-west-2", "tracing": "true", "account": "111122223333", "alarmEmail": "a@b.c"},
			Config{Stage: "prod", Regions: []string{"eu-central-1", "us-west-2"}, Tracing: true, Account: "111122223333", AlarmEmail: "a@b.c"}, false},
		{"DuplicateRegion", map[string]any{"regions": "eu-west-1,eu-west-1"}, Config{}, true},
		{"BadRegion", map[string]any{"regions": "europe"}, Config{}, true},
		{"NoRegion", map[string]any{"regions": []any{}}, Config{}, true},
		{"BadStage", map[string]any{"stage": "Prod_1"}, Config{}, true},
		{"BadAccount", map[string]any{"account": "12"}, Config{}, true},
		{"BadTracing", map[string]any{"tracing": "maybe"}, Config{}, true},
		{"DashboardConcurrencyNumber", map[string]any{"dashboardConcurrency": float64(25)}, Config{Stage: "dev", Regions: []string{"eu-west-1"}, DashboardConcurrency: 25}, false},
		{"DashboardConcurrencyString", map[string]any{"dashboardConcurrency": "5"}, Config{Stage: "dev", Regions: []string{"eu-west-1"}, DashboardConcurrency: 5}, false},
		{"DashboardConcurrencyNegative", map[string]any{"dashboardConcurrency": "-1"}, Config{}, true},
		{"DashboardConcurrencyFraction", map[string]any{"dashboardConcurrency": 2.5}, Config{}, true},
		{"DashboardConcurrencyWord", map[string]any{"dashboardConcurrency": "many"}, Config{}, true},
		{"DashboardThrottleNumbers", map[string]any{"dashboardRate": float64(100), "dashboardBurst": float64(300)}, Config{Stage: "dev", Regions: []string{"eu-west-1"}, DashboardThrottle: Throttle{RatePerSec: 100, Burst: 300}}, false},
		{"DashboardThrottleStrings", map[string]any{"dashboardRate": "2.5", "dashboardBurst": "10"}, Config{Stage: "dev", Regions: []string{"eu-west-1"}, DashboardThrottle: Throttle{RatePerSec: 2.5, Burst: 10}}, false},
		{"DashboardRateOnly", map[string]any{"dashboardRate": "100"}, Config{Stage: "dev", Regions: []string{"eu-west-1"}, DashboardThrottle: Throttle{RatePerSec: 100}}, false},
		{"DashboardRateNegative", map[string]any{"dashboardRate": "-1"}, Config{}, true},
		{"DashboardBurstFraction", map[string]any{"dashboardBurst": 2.5}, Config{}, true},
		{"DashboardBurstWord", map[string]any{"dashboardBurst": "lots"}, Config{}, true},
		{"DashboardRateList", map[string]any{"dashboardRate": []any{1}}, Config{}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := tc.ctx
			got, err := ConfigFromContext(awscdk.NewApp(&awscdk.AppProps{Context: &ctx}))
			if tc.err {
				if err == nil {
					t.Fatalf("want an error, got %+v", got)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got %+v, %v; want %+v", got, err, tc.want)
			}
		})
	}
}

func TestCdkJSON(t *testing.T) {
	doc, err := os.ReadFile("../cdk.json")
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		App     string         `json:"app"`
		Context map[string]any `json:"context"`
	}
	if err := json.Unmarshal(doc, &f); err != nil {
		t.Fatal(err)
	}
	if f.App != "go run ./infra" {
		t.Errorf("app = %q", f.App)
	}
	if f.Context[CtxStage] != "dev" || !reflect.DeepEqual(f.Context[CtxRegions], []any{"eu-west-1"}) || f.Context[CtxTracing] != false {
		t.Errorf("context = %v, want stage dev, regions [eu-west-1], tracing false", f.Context)
	}
	got, err := fileContext("../cdk.json")
	if err != nil || !reflect.DeepEqual(got, f.Context) {
		t.Errorf("fileContext = %v, %v", got, err)
	}
	if got, err := fileContext("no-such-file.json"); err != nil || len(got) != 0 {
		t.Errorf("fileContext(missing) = %v, %v; want empty", got, err)
	}
}

func TestRestAPI(t *testing.T) {
	for _, tpl := range []assertions.Template{primary, replica, solo} {
		tpl.HasResourceProperties(jsii.String("AWS::ApiGateway::RestApi"), map[string]any{
			"ApiKeySourceType":      "AUTHORIZER",
			"EndpointConfiguration": map[string]any{"Types": []any{"REGIONAL"}},
		})
	}
	primary.HasResourceProperties(jsii.String("AWS::ApiGateway::Stage"), map[string]any{
		"StageName": "test", "TracingEnabled": true,
		"AccessLogSetting": map[string]any{"DestinationArn": assertions.Match_AnyValue(), "Format": assertions.Match_StringLikeRegexp(jsii.String(`requestId`))},
	})
	solo.HasResourceProperties(jsii.String("AWS::ApiGateway::Stage"), map[string]any{"StageName": "prod", "TracingEnabled": false})
}

// methods returns path + " " + HTTP method -> method properties.
func methods(t *testing.T, tpl map[string]any) map[string]map[string]any {
	t.Helper()
	res := resources(tpl, "AWS::ApiGateway::Resource")
	var path func(id string) string
	path = func(id string) string {
		p := props(res[id])
		parent := p["ParentId"].(map[string]any)
		prefix := ""
		if ref, ok := parent["Ref"].(string); ok {
			prefix = path(ref)
		}
		return prefix + "/" + p["PathPart"].(string)
	}
	out := map[string]map[string]any{}
	for _, m := range resources(tpl, "AWS::ApiGateway::Method") {
		p := props(m)
		rid := p["ResourceId"].(map[string]any)
		ref, ok := rid["Ref"].(string)
		if !ok {
			t.Fatalf("a method on the root resource: %s", js(p))
		}
		out[path(ref)+" "+p["HttpMethod"].(string)] = p
	}
	return out
}

func TestRoutesNeedKeyAndAuthorizer(t *testing.T) {
	for name, tpl := range map[string]map[string]any{"primary": primaryT, "replica": replicaT, "solo": soloT} {
		t.Run(name, func(t *testing.T) {
			stage := "test"
			if name == "solo" {
				stage = "prod"
			}
			authID, _ := only(t, tpl, "AWS::ApiGateway::Authorizer", func(map[string]any) bool { return true })
			ms := methods(t, tpl)
			for route := range ms {
				if strings.HasPrefix(route, "/dashboard") {
					delete(ms, route) // TestDashboardRoutes
				}
			}
			// The table (internal/routes) is held equal to the OpenAPI document by its own test.
			want := map[string]string{}
			for _, r := range routes.All() {
				want[r.Path+" "+r.Method] = r.Function
				want[r.Path+" ANY"] = ""
			}
			if len(want) == 0 {
				t.Fatal("no routes")
			}
			if len(ms) != len(want) {
				keys := []string{}
				for k := range ms {
					keys = append(keys, k)
				}
				t.Fatalf("methods = %v, want %d", keys, len(want))
			}
			for route, fn := range want {
				p, ok := ms[route]
				if !ok {
					t.Fatalf("no method %s", route)
				}
				if fn == "" {
					continue // TestMethodNotAllowed
				}
				if p["ApiKeyRequired"] != true || p["AuthorizationType"] != "CUSTOM" || js(p["AuthorizerId"]) != js(map[string]any{"Ref": authID}) {
					t.Errorf("%s: ApiKeyRequired %v, AuthorizationType %v, AuthorizerId %v; want true, CUSTOM, the authorizer",
						route, p["ApiKeyRequired"], p["AuthorizationType"], p["AuthorizerId"])
				}
				integ := p["Integration"].(map[string]any)
				fid := functionID(t, tpl, "sluice-"+stage+"-"+fn)
				if integ["Type"] != "AWS_PROXY" || !strings.Contains(js(integ["Uri"]), `"`+fid+`"`) {
					t.Errorf("%s: integration %s, want AWS_PROXY to %s", route, js(integ), fid)
				}
			}
		})
	}
}

func TestMethodNotAllowed(t *testing.T) {
	ms := methods(t, primaryT)
	for path, allow := range map[string]string{"/v1/run": "POST", "/v1/services": "GET", "/v1/services/{name}": "GET", "/v1/usage": "GET", "/v1/openapi.json": "GET"} {
		p := ms[path+" ANY"]
		integ := p["Integration"].(map[string]any)
		resp := integ["IntegrationResponses"].([]any)[0].(map[string]any)
		params := resp["ResponseParameters"].(map[string]any)
		// WHEN_NO_MATCH: a body of any content type reaches the mock (NEVER answered 415 to
		// PUT /v1/run with text/plain); the one integration response is the default one.
		if integ["PassthroughBehavior"] != "WHEN_NO_MATCH" || resp["SelectionPattern"] != nil {
			t.Errorf("%s ANY: passthrough %v, selection pattern %v; want WHEN_NO_MATCH and the default response", path, integ["PassthroughBehavior"], resp["SelectionPattern"])
		}
		if p["AuthorizationType"] != "NONE" || p["ApiKeyRequired"] == true || integ["Type"] != "MOCK" || resp["StatusCode"] != "405" ||
			params["method.response.header.Allow"] != "'"+allow+"'" || params["method.response.header.X-RateLimit-Limit"] != "'0'" ||
			params["method.response.header.X-Content-Type-Options"] != "'nosniff'" || params["method.response.header.Cache-Control"] != "'no-store'" {
			t.Errorf("%s ANY: %s; want an unauthenticated mock answering 405 with Allow: %s", path, js(p), allow)
		}
		body := resp["ResponseTemplates"].(map[string]any)["application/json"].(string)
		if code := envelopeCode(t, body); code != "method_not_allowed" {
			t.Errorf("%s ANY: body code %q", path, code)
		}
	}
}

// envelopeCode parses a mapping template as API Gateway would render it and returns the code.
func envelopeCode(t *testing.T, tmpl string) string {
	t.Helper()
	doc := strings.NewReplacer("$context.requestId", "0f6b1f0c-req", "$context.error.messageString", `"Unsupported Media Type"`).Replace(tmpl)
	var env struct {
		Error struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
		TraceID string `json:"trace_id"`
	}
	if err := json.Unmarshal([]byte(doc), &env); err != nil {
		t.Fatalf("template %s is not JSON: %v", tmpl, err)
	}
	if env.TraceID != "0f6b1f0c-req" || env.Error.Message == "" {
		t.Errorf("template %s: want the request id as trace_id and a message", tmpl)
	}
	return env.Error.Code
}

func TestAuthorizer(t *testing.T) {
	fid := functionID(t, primaryT, "sluice-test-authorizer")
	_, a := only(t, primaryT, "AWS::ApiGateway::Authorizer", func(map[string]any) bool { return true })
	p := props(a)
	if p["Type"] != "REQUEST" || p["IdentitySource"] != "method.request.header.Authorization" ||
		p["AuthorizerResultTtlInSeconds"] != float64(0) || !strings.Contains(js(p["AuthorizerUri"]), `"`+fid+`"`) {
		t.Errorf("authorizer %s: want REQUEST on the Authorization header, TTL 0, the authorizer function", js(p))
	}
}

func TestGatewayResponses(t *testing.T) {
	rl0 := map[string]string{"X-RateLimit-Limit": "'0'", "X-RateLimit-Remaining": "'0'", "X-RateLimit-Reset": "'0'"}
	limited := func(s string) map[string]string {
		return map[string]string{"Retry-After": "'" + s + "'", "X-RateLimit-Limit": "'0'", "X-RateLimit-Remaining": "'0'", "X-RateLimit-Reset": "'" + s + "'"}
	}
	for _, tc := range []struct {
		typ, status, code string
		headers           map[string]string
	}{
		{"UNAUTHORIZED", "401", "invalid_api_key", rl0},
		{"INVALID_API_KEY", "401", "invalid_api_key", rl0},
		{"ACCESS_DENIED", "429", "rate_limited", limited("1")},
		{"THROTTLED", "429", "rate_limited", limited("1")},
		{"QUOTA_EXCEEDED", "429", "rate_limited", limited("60")},
		{"MISSING_AUTHENTICATION_TOKEN", "404", "not_found", rl0},
		{"RESOURCE_NOT_FOUND", "404", "not_found", rl0},
		{"REQUEST_TOO_LARGE", "413", "body_too_large", nil},
		{"UNSUPPORTED_MEDIA_TYPE", "415", "unsupported_media_type", rl0},
		// An authorizer that returns an error (store or secret unreachable) reaches API Gateway
		// as AUTHORIZER_CONFIGURATION_ERROR, not only AUTHORIZER_FAILURE: both are 503.
		{"AUTHORIZER_FAILURE", "503", "service_unavailable", map[string]string{"Retry-After": "'1'"}},
		{"AUTHORIZER_CONFIGURATION_ERROR", "503", "service_unavailable", map[string]string{"Retry-After": "'1'"}},
		{"DEFAULT_4XX", "", "invalid_request", nil},
		{"DEFAULT_5XX", "", "internal_error", nil},
	} {
		t.Run(tc.typ, func(t *testing.T) {
			for _, tpl := range []map[string]any{primaryT, replicaT, soloT} {
				_, r := only(t, tpl, "AWS::ApiGateway::GatewayResponse", named("ResponseType", tc.typ))
				p := props(r)
				if status, _ := p["StatusCode"].(string); status != tc.status {
					t.Errorf("status = %q, want %q", status, tc.status)
				}
				// Every JSON answer carries the API's safety headers (internal/api).
				want := map[string]any{}
				for k, v := range api.JSONSafetyHeaders() {
					want["gatewayresponse.header."+k] = "'" + v + "'"
				}
				for k, v := range tc.headers {
					want["gatewayresponse.header."+k] = v
				}
				if got, _ := p["ResponseParameters"].(map[string]any); !reflect.DeepEqual(got, want) {
					t.Errorf("headers = %v, want %v", got, want)
				}
				body := p["ResponseTemplates"].(map[string]any)["application/json"].(string)
				if code := envelopeCode(t, body); code != tc.code {
					t.Errorf("code = %q, want %q", code, tc.code)
				}
			}
		})
	}
	if n := len(resources(primaryT, "AWS::ApiGateway::GatewayResponse")); n != 13 {
		t.Errorf("%d gateway responses, want 13", n)
	}
	// API Gateway answers REQUEST_TOO_LARGE only over its own 10 MB limit: the message says so
	// (smaller bodies over 1 MiB get 413 from the run function).
	_, tooLarge := only(t, primaryT, "AWS::ApiGateway::GatewayResponse", named("ResponseType", "REQUEST_TOO_LARGE"))
	if body := props(tooLarge)["ResponseTemplates"].(map[string]any)["application/json"].(string); !strings.Contains(body, "10 MB") {
		t.Errorf("REQUEST_TOO_LARGE says %s; API Gateway sends it for bodies over 10 MB", body)
	}
	// A bad key gets the same message from the authorizer as from the local server (and as
	// docs/api.md's example, which internal/local's tests hold to the server's answer).
	_, unauthorized := only(t, primaryT, "AWS::ApiGateway::GatewayResponse", named("ResponseType", "UNAUTHORIZED"))
	if body := props(unauthorized)["ResponseTemplates"].(map[string]any)["application/json"].(string); !strings.Contains(body, `"`+errcode.InvalidAPIKeyMessage+`"`) {
		t.Errorf("UNAUTHORIZED says %s; want the message %q", body, errcode.InvalidAPIKeyMessage)
	}
}

func TestUsagePlans(t *testing.T) {
	stageID, _ := only(t, primaryT, "AWS::ApiGateway::Stage", func(map[string]any) bool { return true })
	apiID, _ := only(t, primaryT, "AWS::ApiGateway::RestApi", func(map[string]any) bool { return true })
	for _, tc := range []struct {
		tier        string
		rate, burst float64
		quota       float64
	}{{"free", 10, 20, 100000}, {"standard", 100, 200, 0}, {"enterprise", 1000, 2000, 0}} {
		id, plan := only(t, primaryT, "AWS::ApiGateway::UsagePlan", named("UsagePlanName", "sluice-test-"+tc.tier))
		p := props(plan)
		if js(p["Throttle"]) != js(map[string]any{"BurstLimit": tc.burst, "RateLimit": tc.rate}) {
			t.Errorf("%s: throttle %s", tc.tier, js(p["Throttle"]))
		}
		if tc.quota > 0 && js(p["Quota"]) != js(map[string]any{"Limit": tc.quota, "Period": "MONTH"}) {
			t.Errorf("%s: quota %s, want %v a month", tc.tier, js(p["Quota"]), tc.quota)
		}
		if _, has := p["Quota"]; tc.quota == 0 && has {
			t.Errorf("%s: quota %s, want none", tc.tier, js(p["Quota"]))
		}
		stages := p["ApiStages"].([]any)
		if len(stages) != 1 || js(stages[0].(map[string]any)["ApiId"]) != js(map[string]any{"Ref": apiID}) ||
			js(stages[0].(map[string]any)["Stage"]) != js(map[string]any{"Ref": stageID}) {
			t.Errorf("%s: api stages %s", tc.tier, js(p["ApiStages"]))
		}
		primary.HasOutput(jsii.String("UsagePlanId"+title(tc.tier)), map[string]any{"Value": map[string]any{"Ref": id}})
	}
	if n := len(resources(primaryT, "AWS::ApiGateway::UsagePlan")); n != 3 {
		t.Errorf("%d usage plans, want 3", n)
	}
	for _, out := range []string{"ApiUrl", "ApiId", "SecretName", "AccountsTable", "DashboardUrl"} {
		primary.HasOutput(jsii.String(out), map[string]any{})
	}
}

func TestFunctions(t *testing.T) {
	for _, tc := range []struct {
		fn      string
		memory  float64
		timeout float64
	}{{"run", 1024, 23}, {"services", 512, 10}, {"authorizer", 256, 10}, {"dashboard", 1024, 23}} {
		t.Run(tc.fn, func(t *testing.T) {
			for name, c := range map[string]struct {
				tpl     map[string]any
				stage   string
				tracing bool
				primary bool
			}{"primary": {primaryT, "test", true, true}, "replica": {replicaT, "test", true, false}, "solo": {soloT, "prod", false, true}} {
				_, f := only(t, c.tpl, "AWS::Lambda::Function", named("FunctionName", "sluice-"+c.stage+"-"+tc.fn))
				p := props(f)
				if p["Runtime"] != "provided.al2023" || js(p["Architectures"]) != `["arm64"]` || p["Handler"] != "bootstrap" {
					t.Errorf("%s: runtime %v, architectures %v, handler %v", name, p["Runtime"], p["Architectures"], p["Handler"])
				}
				if p["MemorySize"] != tc.memory || p["Timeout"] != tc.timeout || tc.timeout >= 29 {
					t.Errorf("%s: memory %v, timeout %v; want %v, %v (< 29 s)", name, p["MemorySize"], p["Timeout"], tc.memory, tc.timeout)
				}
				lg := p["LoggingConfig"].(map[string]any)["LogGroup"].(map[string]any)["Ref"].(string)
				if ret := props(resources(c.tpl, "AWS::Logs::LogGroup")[lg])["RetentionInDays"]; ret != float64(30) {
					t.Errorf("%s: log retention %v, want 30 days", name, ret)
				}
				tracing, has := p["TracingConfig"]
				if c.tracing != has || (has && js(tracing) != `{"Mode":"Active"}`) {
					t.Errorf("%s: tracing %s, want active = %v", name, js(tracing), c.tracing)
				}
				env := p["Environment"].(map[string]any)["Variables"].(map[string]any)
				wantEnv := []string{"SLUICE_TABLE_ACCOUNTS", "SLUICE_TABLE_IDEMPOTENCY", "SLUICE_TABLE_USAGE", "SLUICE_TABLE_RATE_WINDOWS", "SLUICE_SECRET_ID", "SLUICE_METRICS_NAMESPACE"}
				if tc.fn == FnAuthorizer {
					// Only the authorizer knows the copy key.
					wantEnv = append(wantEnv, "SLUICE_COPY_KEY_SECRET_ID")
					want := any("sluice/test/copy-key") // the replica, by name
					if c.primary {
						sid, _ := only(t, c.tpl, "AWS::SecretsManager::Secret", named("Name", "sluice/"+c.stage+"/copy-key"))
						want = map[string]any{"Ref": sid}
					}
					if js(env["SLUICE_COPY_KEY_SECRET_ID"]) != js(want) {
						t.Errorf("%s: SLUICE_COPY_KEY_SECRET_ID = %s, want %s", name, js(env["SLUICE_COPY_KEY_SECRET_ID"]), js(want))
					}
				}
				if tc.fn == FnDashboard {
					// Only the dashboard knows the sessions table.
					wantEnv = append(wantEnv, "SLUICE_TABLE_SESSIONS")
					tid, _ := only(t, c.tpl, "AWS::DynamoDB::GlobalTable", named("TableName", "sluice-"+c.stage+"-sessions"))
					if js(env["SLUICE_TABLE_SESSIONS"]) != js(map[string]any{"Ref": tid}) {
						t.Errorf("%s: SLUICE_TABLE_SESSIONS = %s, want the sessions table", name, js(env["SLUICE_TABLE_SESSIONS"]))
					}
				}
				if len(env) != len(wantEnv) {
					t.Errorf("%s: env %s", name, js(env))
				}
				for kind, v := range map[string]string{"IDEMPOTENCY": "idempotency", "USAGE": "usage", "RATE_WINDOWS": "rate_windows"} {
					tid, _ := only(t, c.tpl, "AWS::DynamoDB::GlobalTable", named("TableName", "sluice-"+c.stage+"-"+v))
					if js(env["SLUICE_TABLE_"+kind]) != js(map[string]any{"Ref": tid}) {
						t.Errorf("%s: SLUICE_TABLE_%s = %s, want the %s table", name, kind, js(env["SLUICE_TABLE_"+kind]), v)
					}
				}
				if c.primary {
					tid, _ := only(t, c.tpl, "AWS::DynamoDB::GlobalTable", named("TableName", "sluice-"+c.stage+"-accounts"))
					sid, _ := only(t, c.tpl, "AWS::SecretsManager::Secret", named("Name", "sluice/"+c.stage+"/keys"))
					if js(env["SLUICE_TABLE_ACCOUNTS"]) != js(map[string]any{"Ref": tid}) || js(env["SLUICE_SECRET_ID"]) != js(map[string]any{"Ref": sid}) {
						t.Errorf("%s: accounts %s, secret %s", name, js(env["SLUICE_TABLE_ACCOUNTS"]), js(env["SLUICE_SECRET_ID"]))
					}
				} else if env["SLUICE_TABLE_ACCOUNTS"] != "sluice-test-accounts" || env["SLUICE_SECRET_ID"] != "sluice/test/keys" {
					t.Errorf("%s: accounts %v, secret %v; want the global table's and the replica secret's names", name, env["SLUICE_TABLE_ACCOUNTS"], env["SLUICE_SECRET_ID"])
				}
				if env["SLUICE_METRICS_NAMESPACE"] != "Sluice/"+c.stage {
					t.Errorf("%s: namespace %v", name, env["SLUICE_METRICS_NAMESPACE"])
				}
			}
		})
	}
	// A run answers before API Gateway's integration timeout with room to spare, also on a cold
	// start, whose init API Gateway waits for but the function's timeout does not count.
	worst := timing.ColdStartInit + time.Duration(functionSpecs[FnRun].timeoutSec)*time.Second + timing.SettleReserve
	if worst+2*time.Second > 29*time.Second || timing.Headroom < 2*time.Second {
		t.Errorf("cold start init %v + run timeout %vs + settle reserve %v = %v leaves less than 2 s under API Gateway's 29 s",
			timing.ColdStartInit, functionSpecs[FnRun].timeoutSec, timing.SettleReserve, worst)
	}
	for _, tpl := range []map[string]any{primaryT, replicaT, soloT} {
		for id, lg := range resources(tpl, "AWS::Logs::LogGroup") {
			if props(lg)["RetentionInDays"] != float64(30) {
				t.Errorf("log group %s without 30-day retention", id)
			}
		}
	}
}

func TestAssets(t *testing.T) {
	// No dist: a placeholder asset per function and a warning naming `make build`.
	for _, s := range multiStacks {
		assertions.Annotations_FromStack(s).HasWarning(jsii.String("*"), assertions.Match_StringLikeRegexp(jsii.String("make build")))
	}
	for _, fn := range Functions {
		b, err := os.ReadFile(filepath.Join(multiOut, "placeholder", fn, "bootstrap"))
		if err != nil || string(b) != PlaceholderBootstrap {
			t.Errorf("placeholder of %s: %q, %v", fn, b, err)
		}
	}
	// A built dist: its bootstraps are the assets, and no warning.
	assertions.Annotations_FromStack(soloStacks[0]).HasNoWarning(jsii.String("*"), assertions.Match_StringLikeRegexp(jsii.String("make build")))
	for _, fn := range Functions {
		_, f := only(t, soloT, "AWS::Lambda::Function", named("FunctionName", "sluice-prod-"+fn))
		key := props(f)["Code"].(map[string]any)["S3Key"].(string)
		b, err := os.ReadFile(filepath.Join(soloOut, "asset."+strings.TrimSuffix(key, ".zip"), "bootstrap"))
		if err != nil || string(b) != "fake "+fn {
			t.Errorf("asset of %s: %q, %v; want dist/%s/bootstrap", fn, b, err, fn)
		}
	}
}

func TestTables(t *testing.T) {
	type table struct {
		keys   string
		attrs  string
		ttl    string // "" for none
		global bool
	}
	want := map[string]table{
		"accounts":     {`[{"AttributeName":"pk","KeyType":"HASH"}]`, `[{"AttributeName":"acct","AttributeType":"S"},{"AttributeName":"korder","AttributeType":"S"},{"AttributeName":"pk","AttributeType":"S"}]`, "", true},
		"idempotency":  {`[{"AttributeName":"pk","KeyType":"HASH"},{"AttributeName":"sk","KeyType":"RANGE"}]`, `[{"AttributeName":"pk","AttributeType":"S"},{"AttributeName":"sk","AttributeType":"S"}]`, "expires", false},
		"usage":        {`[{"AttributeName":"pk","KeyType":"HASH"},{"AttributeName":"sk","KeyType":"RANGE"}]`, `[{"AttributeName":"pk","AttributeType":"S"},{"AttributeName":"sk","AttributeType":"S"}]`, "", false},
		"rate_windows": {`[{"AttributeName":"pk","KeyType":"HASH"},{"AttributeName":"sk","KeyType":"RANGE"}]`, `[{"AttributeName":"pk","AttributeType":"S"},{"AttributeName":"sk","AttributeType":"N"}]`, "expires", false},
		// The dashboard's links and sessions: deleted by TTL once expired.
		"sessions": {`[{"AttributeName":"pk","KeyType":"HASH"}]`, `[{"AttributeName":"pk","AttributeType":"S"}]`, "expires", false},
	}
	for name, c := range map[string]struct {
		tpl      map[string]any
		stage    string
		replicas []string // regions of the accounts table; nil: imported
		region   string
	}{
		"primary": {primaryT, "test", []string{"eu-west-1", "us-east-1"}, "eu-west-1"},
		"replica": {replicaT, "test", nil, "us-east-1"},
		"solo":    {soloT, "prod", []string{"ap-southeast-2"}, "ap-southeast-2"},
	} {
		t.Run(name, func(t *testing.T) {
			n := 0
			for kind, w := range want {
				if w.global && c.replicas == nil {
					continue
				}
				n++
				_, r := only(t, c.tpl, "AWS::DynamoDB::GlobalTable", named("TableName", "sluice-"+c.stage+"-"+kind))
				p := props(r)
				if r["DeletionPolicy"] != "Retain" || r["UpdateReplacePolicy"] != "Retain" {
					t.Errorf("%s: deletion policy %v / %v, want Retain", kind, r["DeletionPolicy"], r["UpdateReplacePolicy"])
				}
				if p["BillingMode"] != "PAY_PER_REQUEST" || js(p["KeySchema"]) != w.keys || js(sortedAttrs(p["AttributeDefinitions"])) != w.attrs {
					t.Errorf("%s: billing %v, keys %s, attributes %s", kind, p["BillingMode"], js(p["KeySchema"]), js(p["AttributeDefinitions"]))
				}
				ttl, has := p["TimeToLiveSpecification"]
				if (w.ttl == "") == has || (has && js(ttl) != js(map[string]any{"AttributeName": w.ttl, "Enabled": true})) {
					t.Errorf("%s: ttl %s, want %q", kind, js(ttl), w.ttl)
				}
				regions := []string{c.region}
				if w.global {
					regions = c.replicas
				}
				var got []string
				for _, rep := range p["Replicas"].([]any) {
					rep := rep.(map[string]any)
					got = append(got, rep["Region"].(string))
					if js(rep["PointInTimeRecoverySpecification"]) != `{"PointInTimeRecoveryEnabled":true}` || rep["DeletionProtectionEnabled"] != true {
						t.Errorf("%s replica %s: PITR %s, deletion protection %v", kind, rep["Region"], js(rep["PointInTimeRecoverySpecification"]), rep["DeletionProtectionEnabled"])
					}
				}
				sort.Strings(got)
				sort.Strings(regions)
				if !reflect.DeepEqual(got, regions) {
					t.Errorf("%s: replicas in %v, want %v", kind, got, regions)
				}
				if w.global {
					gsi := `[{"IndexName":"by_account","KeySchema":[{"AttributeName":"acct","KeyType":"HASH"},{"AttributeName":"korder","KeyType":"RANGE"}],"Projection":{"ProjectionType":"ALL"}}]`
					if js(p["GlobalSecondaryIndexes"]) != gsi {
						t.Errorf("accounts GSI %s, want %s", js(p["GlobalSecondaryIndexes"]), gsi)
					}
				}
			}
			if got := len(resources(c.tpl, "AWS::DynamoDB::GlobalTable")); got != n || len(resources(c.tpl, "AWS::DynamoDB::Table")) != 0 {
				t.Errorf("%d tables, want %d", got, n)
			}
		})
	}
}

func sortedAttrs(v any) []any {
	a := append([]any(nil), v.([]any)...)
	sort.Slice(a, func(i, j int) bool {
		return a[i].(map[string]any)["AttributeName"].(string) < a[j].(map[string]any)["AttributeName"].(string)
	})
	return a
}

func TestSecret(t *testing.T) {
	pepper, src1 := only(t, primaryT, "AWS::SecretsManager::Secret", named("Name", "sluice/test/source/pepper"))
	token, src2 := only(t, primaryT, "AWS::SecretsManager::Secret", named("Name", "sluice/test/source/tokenization_key"))
	// The copy key is generated the same way, and replicated like the keys.
	_, copyKey := only(t, primaryT, "AWS::SecretsManager::Secret", named("Name", "sluice/test/copy-key"))
	if js(props(copyKey)["ReplicaRegions"]) != `[{"Region":"us-east-1"}]` {
		t.Errorf("copy key replica regions %s", js(props(copyKey)["ReplicaRegions"]))
	}
	for _, s := range []map[string]any{src1, src2, copyKey} {
		gen := js(props(s)["GenerateSecretString"])
		if gen != `{"ExcludePunctuation":true,"IncludeSpace":false,"PasswordLength":44,"RequireEachIncludedType":false}` {
			t.Errorf("generated source %s", gen)
		}
	}
	_, keys := only(t, primaryT, "AWS::SecretsManager::Secret", named("Name", "sluice/test/keys"))
	p := props(keys)
	wantValue := map[string]any{"Fn::Join": []any{"", []any{
		`{"pepper":"{{resolve:secretsmanager:`, map[string]any{"Ref": pepper},
		`:SecretString:::}}","tokenization_key":"{{resolve:secretsmanager:`, map[string]any{"Ref": token}, `:SecretString:::}}"}`,
	}}}
	if js(p["SecretString"]) != js(wantValue) {
		t.Errorf("secret value %s, want the two generated secrets by dynamic reference", js(p["SecretString"]))
	}
	if js(p["ReplicaRegions"]) != `[{"Region":"us-east-1"}]` {
		t.Errorf("replica regions %s", js(p["ReplicaRegions"]))
	}
	for id, s := range resources(primaryT, "AWS::SecretsManager::Secret") {
		if s["DeletionPolicy"] != "Retain" {
			t.Errorf("secret %s: deletion policy %v, want Retain", id, s["DeletionPolicy"])
		}
	}
	if n := len(resources(replicaT, "AWS::SecretsManager::Secret")); n != 0 {
		t.Errorf("the replica region creates %d secrets, want 0 (it reads the replica)", n)
	}
	// Nothing secret in any template: no SecretString other than the references, and no
	// string that looks like a generated value or base64 of 32 bytes anywhere.
	blob := regexp.MustCompile(`"([A-Za-z0-9]{44}|[A-Za-z0-9+/]{43}=)"`)
	for _, tpl := range []map[string]any{primaryT, replicaT, soloT} {
		for id, s := range resources(tpl, "AWS::SecretsManager::Secret") {
			if v, ok := props(s)["SecretString"]; ok && strings.Count(js(v), "{{resolve:secretsmanager:") != 2 {
				t.Errorf("secret %s holds a value in the template: %s", id, js(v))
			}
		}
		if m := blob.FindString(js(tpl)); m != "" {
			t.Errorf("template holds something like a key: %s", m)
		}
	}
}

// The generated values are 44 letters and digits; secrets.Parse must accept them as they are.
func TestGeneratedSecretParses(t *testing.T) {
	const alnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	gen := func() string {
		b := make([]byte, SecretLength)
		for i := range b {
			n, _ := rand.Int(rand.Reader, big.NewInt(int64(len(alnum))))
			b[i] = alnum[n.Int64()]
		}
		return string(b)
	}
	for range 500 {
		doc, _ := json.Marshal(map[string]string{"pepper": gen(), "tokenization_key": gen()})
		s, err := secrets.Parse(doc)
		if err != nil {
			t.Fatalf("secrets.Parse(%s): %v", doc, err)
		}
		if len(s.Pepper) < secrets.MinKeyBytes || len(s.TokenKey) < secrets.MinKeyBytes {
			t.Fatalf("decoded %d and %d bytes", len(s.Pepper), len(s.TokenKey))
		}
	}
}

// grants returns function name -> table name or "secret" -> actions, from the function's role
// policy, failing on anything broader than one table or secret.
func grants(t *testing.T, tpl map[string]any, stage string) map[string]map[string][]string {
	t.Helper()
	tables := map[string]string{}
	for id, r := range resources(tpl, "AWS::DynamoDB::GlobalTable") {
		tables[id] = props(r)["TableName"].(string)
	}
	roles := map[string]string{} // role id -> function
	for _, f := range resources(tpl, "AWS::Lambda::Function") {
		p := props(f)
		roles[p["Role"].(map[string]any)["Fn::GetAtt"].([]any)[0].(string)] = strings.TrimPrefix(p["FunctionName"].(string), "sluice-"+stage+"-")
	}
	out := map[string]map[string][]string{}
	for id, pol := range resources(tpl, "AWS::IAM::Policy") {
		p := props(pol)
		for _, role := range p["Roles"].([]any) {
			fn, ok := roles[role.(map[string]any)["Ref"].(string)]
			if !ok {
				continue
			}
			if out[fn] == nil {
				out[fn] = map[string][]string{}
			}
			for _, st := range p["PolicyDocument"].(map[string]any)["Statement"].([]any) {
				st := st.(map[string]any)
				var actions []string
				switch a := st["Action"].(type) {
				case string:
					actions = []string{a}
				case []any:
					for _, x := range a {
						actions = append(actions, x.(string))
					}
				}
				res := st["Resource"]
				target := ""
				index := regexp.MustCompile(`/index/([a-z_]+)"`).FindStringSubmatch(js(res))
				switch {
				case index != nil:
					// An index of a table: Fn::Join of the table's ARN (GetAtt, or by name when
					// imported) and /index/<name>.
					if m := regexp.MustCompile(`:table/([A-Za-z0-9_.-]+)/index/`).FindStringSubmatch(js(res)); m != nil {
						target = m[1] + "/index/" + index[1]
					}
					for id, name := range tables {
						if strings.Contains(js(res), `"`+id+`"`) {
							target = name + "/index/" + index[1]
						}
					}
				case strings.HasPrefix(actions[0], "xray:"):
					target = "xray" // X-Ray's API takes no resource: "*" is the only choice
				case strings.HasPrefix(actions[0], "secretsmanager:"):
					target = "secret"
					if strings.Contains(js(res), "CopyKey") || strings.Contains(js(res), "/copy-key-") {
						target = "copy-key"
					}
				default:
					if g, ok := res.(map[string]any)["Fn::GetAtt"].([]any); ok {
						target = tables[g[0].(string)]
					} else if m := regexp.MustCompile(`:table/([A-Za-z0-9_.-]+)"`).FindStringSubmatch(js(res)); m != nil {
						target = m[1]
					}
				}
				if cond, ok := st["Condition"]; ok {
					target += " if " + js(cond)
				}
				for _, a := range actions {
					if a == "*" || strings.HasSuffix(a, ":*") {
						t.Errorf("policy %s: action %s", id, a)
					}
				}
				if target != "xray" && (res == "*" || strings.Contains(js(res), `"*"`)) {
					t.Errorf("policy %s: %v on resource *", id, actions)
				}
				if target == "" {
					t.Errorf("policy %s: unexpected statement %s", id, js(st))
				}
				out[fn][target] = append(out[fn][target], actions...)
			}
		}
	}
	return out
}

func TestLeastPrivilege(t *testing.T) {
	secret := []string{"secretsmanager:GetSecretValue"} // no code calls DescribeSecret
	xray := []string{"xray:PutTraceSegments", "xray:PutTelemetryRecords"}
	for name, c := range map[string]struct {
		tpl     map[string]any
		stage   string
		tracing bool
	}{"primary": {primaryT, "test", true}, "replica": {replicaT, "test", true}, "solo": {soloT, "prod", false}} {
		t.Run(name, func(t *testing.T) {
			tn := func(kind string) string { return "sluice-" + c.stage + "-" + kind }
			want := map[string]map[string][]string{
				"authorizer": {
					tn("accounts"): {"dynamodb:GetItem"},
					// Only key items: it records each key's last-used day.
					tn("accounts") + ` if {"ForAllValues:StringLike":{"dynamodb:LeadingKeys":["key#*"]}}`: {"dynamodb:UpdateItem"},
					"secret": secret,
					// The copy key checks the seals of key items' account copies. No other
					// function reads it: a dashboard that could would seal settings of its own.
					"copy-key": secret,
				},
				"dashboard": {
					tn("accounts"): {"dynamodb:GetItem"},
					// Its writes, each limited to one item prefix and, for updates, to the
					// attributes it changes: an account's key ids, a key's revocation.
					tn("accounts") + ` if {"ForAllValues:StringEquals":{"dynamodb:Attributes":["pk","key_ids"]},"ForAllValues:StringLike":{"dynamodb:LeadingKeys":["account#*"]}}`:         {"dynamodb:UpdateItem"},
					tn("accounts") + ` if {"ForAllValues:StringLike":{"dynamodb:LeadingKeys":["key#*"]}}`:                                                                                  {"dynamodb:PutItem"},
					tn("accounts") + ` if {"ForAllValues:StringEquals":{"dynamodb:Attributes":["pk","revoked_ms","key_id"]},"ForAllValues:StringLike":{"dynamodb:LeadingKeys":["key#*"]}}`: {"dynamodb:UpdateItem"},
					tn("accounts") + ` if {"ForAllValues:StringLike":{"dynamodb:LeadingKeys":["keyid#*"]}}`:                                                                                {"dynamodb:PutItem", "dynamodb:DeleteItem"},
					tn("accounts") + "/index/by_account": {"dynamodb:Query"},
					tn("usage"):                          {"dynamodb:GetItem", "dynamodb:UpdateItem"},
					tn("rate_windows"):                   {"dynamodb:GetItem", "dynamodb:UpdateItem"},
					tn("sessions"):                       {"dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:UpdateItem", "dynamodb:DeleteItem"},
					"secret":                             secret,
				},
				"run": {
					tn("idempotency"): {"dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:UpdateItem", "dynamodb:DeleteItem"},
					tn("usage"):       {"dynamodb:GetItem", "dynamodb:UpdateItem"},
					"secret":          secret,
				},
				"services": {tn("usage"): {"dynamodb:GetItem", "dynamodb:UpdateItem"}, "secret": secret},
			}
			if c.tracing {
				for _, m := range want {
					m["xray"] = xray
				}
			}
			got := grants(t, c.tpl, c.stage)
			for _, m := range []map[string]map[string][]string{got, want} {
				for _, g := range m {
					for _, a := range g {
						sort.Strings(a)
					}
				}
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("grants:\n got %s\nwant %s", js(got), js(want))
			}
		})
	}
	// The replica region's grants name the replica of the global table and the secret replica.
	_, pol := only(t, replicaT, "AWS::IAM::Policy", func(p map[string]any) bool {
		return strings.Contains(js(p), "table/sluice-test-accounts") && strings.Contains(js(p["Roles"]), "Authorizer")
	})
	doc := js(props(pol))
	if !strings.Contains(doc, `:secret:sluice/test/keys-??????`) || !strings.Contains(doc, `:secret:sluice/test/copy-key-??????`) {
		t.Errorf("replica authorizer policy %s: want the replica secrets by name", doc)
	}
}

func TestAlarms(t *testing.T) {
	for name, c := range map[string]struct {
		tpl   map[string]any
		stage string
		stack string
	}{"primary": {primaryT, "test", "sluice-test-eu-west-1"}, "solo": {soloT, "prod", "sluice-prod-ap-southeast-2"}} {
		t.Run(name, func(t *testing.T) {
			topic, _ := only(t, c.tpl, "AWS::SNS::Topic", func(map[string]any) bool { return true })
			alarm := func(id string) map[string]any {
				_, a := only(t, c.tpl, "AWS::CloudWatch::Alarm", named("AlarmName", c.stack+"-"+id))
				p := props(a)
				if js(p["AlarmActions"]) != js([]any{map[string]any{"Ref": topic}}) {
					t.Errorf("%s: actions %s, want the topic", id, js(p["AlarmActions"]))
				}
				return p
			}
			p := alarm("Api5xxRate")
			if p["MetricName"] != "5XXError" || p["Namespace"] != "AWS/ApiGateway" || p["Statistic"] != "Average" || p["Threshold"] != 0.01 {
				t.Errorf("5xx rate alarm %s", js(p))
			}
			p = alarm("LambdaThrottles")
			m := js(p["Metrics"])
			if strings.Count(m, `"MetricName":"Throttles"`) != 4 || !strings.Contains(m, `"Expression":"run + services + authorizer + dashboard"`) {
				t.Errorf("throttles alarm %s", m)
			}
			p = alarm("AuthorizerErrors")
			if p["MetricName"] != MetricAuthorizerErrors || p["Namespace"] != "Sluice/"+c.stage || p["Statistic"] != "Sum" {
				t.Errorf("authorizer errors alarm %s", js(p))
			}
			_, filter := only(t, c.tpl, "AWS::Logs::MetricFilter", func(map[string]any) bool { return true })
			fp := props(filter)
			_, authFn := only(t, c.tpl, "AWS::Lambda::Function", named("FunctionName", "sluice-"+c.stage+"-authorizer"))
			if fp["FilterPattern"] != `{ $.level = "ERROR" }` || js(fp["LogGroupName"]) != js(props(authFn)["LoggingConfig"].(map[string]any)["LogGroup"]) {
				t.Errorf("metric filter %s, want ERROR lines of the authorizer's log group", js(fp))
			}
			p = alarm("RunLatencyP99")
			runID := functionID(t, c.tpl, "sluice-"+c.stage+"-run")
			if p["MetricName"] != "Duration" || p["ExtendedStatistic"] != "p99" || p["Threshold"] != float64(5000) ||
				js(p["Dimensions"]) != js([]any{map[string]any{"Name": "FunctionName", "Value": map[string]any{"Ref": runID}}}) {
				t.Errorf("run p99 alarm %s", js(p))
			}
			if n := len(resources(c.tpl, "AWS::CloudWatch::Alarm")); n != 4 {
				t.Errorf("%d alarms, want 4", n)
			}
			if n := len(resources(c.tpl, "AWS::CloudWatch::Dashboard")); n != 1 {
				t.Errorf("%d dashboards, want 1", n)
			}
		})
	}
	primary.HasResourceProperties(jsii.String("AWS::SNS::Subscription"), map[string]any{"Protocol": "email", "Endpoint": "ops@example.com"})
	solo.ResourceCountIs(jsii.String("AWS::SNS::Subscription"), jsii.Number(0))
}

// TestDashboardRoutes: GET and POST on /dashboard and /dashboard/{proxy+} go to the dashboard
// function with neither the key authorizer nor an API key (the dashboard signs holders in
// itself), and API Gateway may invoke the function.
func TestDashboardRoutes(t *testing.T) {
	for name, tpl := range map[string]map[string]any{"primary": primaryT, "replica": replicaT, "solo": soloT} {
		t.Run(name, func(t *testing.T) {
			stage := "test"
			if name == "solo" {
				stage = "prod"
			}
			fid := functionID(t, tpl, "sluice-"+stage+"-dashboard")
			ms := methods(t, tpl)
			n := 0
			for route, p := range ms {
				if !strings.HasPrefix(route, "/dashboard") {
					continue
				}
				n++
				integ := p["Integration"].(map[string]any)
				if p["AuthorizationType"] != "NONE" || p["ApiKeyRequired"] == true || p["AuthorizerId"] != nil ||
					integ["Type"] != "AWS_PROXY" || !strings.Contains(js(integ["Uri"]), `"`+fid+`"`) {
					t.Errorf("%s: %s; want AWS_PROXY to the dashboard without authorizer or API key", route, js(p))
				}
			}
			for _, route := range []string{"/dashboard GET", "/dashboard POST", "/dashboard/{proxy+} GET", "/dashboard/{proxy+} POST"} {
				if _, ok := ms[route]; !ok {
					t.Errorf("no method %s", route)
				}
			}
			if n != 4 {
				t.Errorf("%d dashboard methods, want 4", n)
			}
			permitted := false
			for _, perm := range resources(tpl, "AWS::Lambda::Permission") {
				p := props(perm)
				if js(p["FunctionName"]) == js(map[string]any{"Fn::GetAtt": []any{fid, "Arn"}}) && p["Principal"] == "apigateway.amazonaws.com" {
					permitted = true
				}
			}
			if !permitted {
				t.Error("API Gateway may not invoke the dashboard function")
			}
		})
	}
}

// TestRemoveRegionSteps checks the README's steps for removing a region against the stack:
// every accounts replica has deletion protection, so its protection must be turned off before
// the replica can go; CloudFormation adds or removes one replica per update, so one region goes
// per deploy; the region's own stack is destroyed while the region is still configured.
func TestRemoveRegionSteps(t *testing.T) {
	doc, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(doc)
	i := strings.Index(text, "### Removing a region")
	if i < 0 {
		t.Fatal("infra/README.md has no \"### Removing a region\" section")
	}
	section := text[i:]
	if j := strings.Index(section[4:], "\n#"); j >= 0 {
		section = section[:j+4]
	}
	for _, want := range []string{
		"cdk destroy " + StackID("$STAGE", "$GONE"),
		"aws dynamodb update-table --region $GONE --table-name " + (Names{Stage: "$STAGE"}).Table("accounts") + " --no-deletion-protection-enabled",
		"one region per deploy",
	} {
		if !strings.Contains(section, want) {
			t.Errorf("the steps for removing a region lack %q", want)
		}
	}
	// The facts the steps rely on.
	_, accounts := only(t, primaryT, "AWS::DynamoDB::GlobalTable", named("TableName", "sluice-test-accounts"))
	for _, rep := range props(accounts)["Replicas"].([]any) {
		if rep.(map[string]any)["DeletionProtectionEnabled"] != true {
			t.Errorf("replica %v without deletion protection: the steps would not need to turn it off", rep)
		}
	}
}

// TestDashboardKeyWritesOneStatementEach: the dashboard's writes to the accounts table are one
// statement per action and item prefix (TestLeastPrivilege checks which), each conditioned on
// its prefix, and no statement of the dashboard's role writes that table without a condition.
func TestDashboardKeyWritesOneStatementEach(t *testing.T) {
	var role string
	for _, f := range resources(primaryT, "AWS::Lambda::Function") {
		if strings.HasSuffix(props(f)["FunctionName"].(string), "-dashboard") {
			role = props(f)["Role"].(map[string]any)["Fn::GetAtt"].([]any)[0].(string)
		}
	}
	if role == "" {
		t.Fatal("no dashboard function")
	}
	sids := map[string]string{}
	for _, pol := range resources(primaryT, "AWS::IAM::Policy") {
		p := props(pol)
		if js(p["Roles"]) != `[{"Ref":"`+role+`"}]` {
			continue
		}
		for _, st := range p["PolicyDocument"].(map[string]any)["Statement"].([]any) {
			st := st.(map[string]any)
			actions := js(st["Action"])
			if !strings.Contains(js(st["Resource"]), "Accounts") || strings.Contains(js(st["Resource"]), "/index/") {
				continue
			}
			writes := strings.Contains(actions, "Put") || strings.Contains(actions, "Update") || strings.Contains(actions, "Delete")
			if !writes {
				continue
			}
			if _, ok := st["Action"].(string); !ok {
				t.Errorf("statement %v writes with several actions: %s", st["Sid"], actions)
			}
			if !strings.Contains(js(st["Condition"]), `"dynamodb:LeadingKeys"`) {
				t.Errorf("statement %v writes the accounts table without an item condition", st["Sid"])
			}
			sids[fmt.Sprint(st["Sid"])] = actions
		}
	}
	want := map[string]string{
		"AccountKeyIDs": `"dynamodb:UpdateItem"`, "PutKey": `"dynamodb:PutItem"`, "RevokeKey": `"dynamodb:UpdateItem"`,
		"PutKeyID": `"dynamodb:PutItem"`, "DeleteKeyID": `"dynamodb:DeleteItem"`,
	}
	if !reflect.DeepEqual(sids, want) {
		t.Errorf("dashboard write statements = %v, want %v", sids, want)
	}
}

// TestDashboardThrottlingAndConcurrency: every stage throttles each dashboard route (public
// routes, no usage plan) at the default, or at what the context sets (solo: 50 a second, burst
// 200); the dashboard function reserves concurrency only when the context asks for it (solo:
// 10), never by default, so a deploy cannot fail on a low concurrency quota.
func TestDashboardThrottlingAndConcurrency(t *testing.T) {
	for name, c := range map[string]struct {
		tpl      map[string]any
		reserve  any
		throttle Throttle
	}{
		"primary": {primaryT, nil, DefaultDashboardThrottle},
		"replica": {replicaT, nil, DefaultDashboardThrottle},
		"solo":    {soloT, float64(10), Throttle{RatePerSec: 50, Burst: 200}},
	} {
		t.Run(name, func(t *testing.T) {
			stages := resources(c.tpl, "AWS::ApiGateway::Stage")
			if len(stages) != 1 {
				t.Fatalf("%d stages", len(stages))
			}
			got := map[string]string{}
			for _, st := range stages {
				settings, _ := props(st)["MethodSettings"].([]any)
				for _, m := range settings {
					m := m.(map[string]any)
					got[m["ResourcePath"].(string)+" "+m["HttpMethod"].(string)] = js([]any{m["ThrottlingRateLimit"], m["ThrottlingBurstLimit"]})
				}
			}
			want := map[string]string{}
			for _, r := range DashboardRoutes {
				path := "/" + strings.ReplaceAll(r.Path, "/", "~1") // API Gateway's escaped form
				want[path+" "+r.Method] = js([]any{c.throttle.RatePerSec, c.throttle.Burst})
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("stage method settings %v, want %v", got, want)
			}
			for _, f := range resources(c.tpl, "AWS::Lambda::Function") {
				p := props(f)
				reserve, has := p["ReservedConcurrentExecutions"]
				if strings.HasSuffix(p["FunctionName"].(string), "-dashboard") {
					if !reflect.DeepEqual(reserve, c.reserve) {
						t.Errorf("dashboard reserved concurrency %v, want %v", reserve, c.reserve)
					}
				} else if has {
					t.Errorf("%s reserves concurrency %v", p["FunctionName"], reserve)
				}
			}
		})
	}
}
