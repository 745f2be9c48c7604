package main

import (
	"fmt"
	"strings"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsapigateway"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslogs"
	"github.com/aws/jsii-runtime-go"

	"github.com/sluice-api/sluice/internal/errcode"
	"github.com/sluice-api/sluice/internal/routes"
)

// Tier is the API Gateway usage plan of an account tier (internal/account: free, standard,
// enterprise): the outer, best-effort shield in front of Sluice's own per-account windows, so it
// sits well above an account's default of 600 requests a minute (10 per second).
type Tier struct {
	Name         string
	RatePerSec   float64 // steady requests per second per key
	Burst        float64 // token bucket size
	MonthlyQuota float64 // requests per calendar month per key; 0 for none
}

// Tiers are the usage plans, one per tier per stage.
var Tiers = []Tier{
	{"free", 10, 20, 100_000},
	{"standard", 100, 200, 0},
	{"enterprise", 1000, 2000, 0},
}

// envelope is Sluice's error body as a mapping template; message is JSON text (a quoted string,
// or $context.error.messageString, which API Gateway quotes itself).
func envelope(code, message string) string {
	return fmt.Sprintf(`{"error":{"code":"%s","message":%s},"trace_id":"$context.requestId"}`, code, message)
}

func quoted(s string) string { return `"` + s + `"` }

// GatewayResponse is how API Gateway answers a request it handles itself.
type GatewayResponse struct {
	Type    string // awsapigateway.ResponseType, by name
	Status  string // "" keeps API Gateway's status (the DEFAULT_* types)
	Code    string
	Message string // JSON text
	Headers map[string]string
}

// noBudget are the rate-limit headers of a response with no account behind it (README, "Rate
// limits"): all 0.
var noBudget = map[string]string{"X-RateLimit-Limit": "0", "X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "0"}

// limited are the headers of API Gateway's own 429: it cannot know the account's window, so
// the values are static (documented in README.md): nothing remaining, retry after retryAfter.
func limited(retryAfter string) map[string]string {
	return map[string]string{"Retry-After": retryAfter, "X-RateLimit-Limit": "0", "X-RateLimit-Remaining": "0", "X-RateLimit-Reset": retryAfter}
}

// jsonSafety are the headers of every JSON answer (internal/api.JSONSafetyHeaders; a test keeps
// the two equal): no cache keeps an answer, no browser sniffs it as anything but JSON.
func jsonSafety() map[string]string {
	return map[string]string{"X-Content-Type-Options": "nosniff", "Cache-Control": "no-store"}
}

// GatewayResponses maps every error API Gateway can answer itself to Sluice's envelope.
var GatewayResponses = []GatewayResponse{
	{"UNAUTHORIZED", "401", "invalid_api_key", quoted(errcode.InvalidAPIKeyMessage), noBudget},
	// The account's usage-plan key is missing or disabled in API Gateway (an operator's doing).
	{"INVALID_API_KEY", "401", "invalid_api_key", quoted("this API key is not enabled for this API"), noBudget},
	// The authorizer never answers Deny today; a Deny is reserved for limiting an account.
	{"ACCESS_DENIED", "429", "rate_limited", quoted("too many requests; retry after the Retry-After seconds"), limited("1")},
	{"THROTTLED", "429", "rate_limited", quoted("too many requests; retry after the Retry-After seconds"), limited("1")},
	{"QUOTA_EXCEEDED", "429", "rate_limited", quoted("the monthly request quota of this plan is used up"), limited("60")},
	// A REST API answers an unknown path (and an unknown method) with a 403 "Missing
	// Authentication Token"; wrong methods on known routes have their own 405 mocks.
	{"MISSING_AUTHENTICATION_TOKEN", "404", "not_found", quoted("no such route"), noBudget},
	{"RESOURCE_NOT_FOUND", "404", "not_found", quoted("no such route"), noBudget},
	// API Gateway itself refuses only bodies over its 10 MB limit; the run function answers
	// 413 for anything over 1 MiB that reaches it.
	{"REQUEST_TOO_LARGE", "413", "body_too_large", quoted("the request body is over API Gateway's limit of 10 MB; the API takes bodies up to 1 MiB"), nil},
	// A non-proxy integration (the 405 mocks) refusing a content type; the run function answers
	// its own 415.
	{"UNSUPPORTED_MEDIA_TYPE", "415", "unsupported_media_type", quoted("the request body must be JSON: send Content-Type: application/json"), noBudget},
	// The authorizer fails (not Unauthorized) when the store or the secret is unreachable. API
	// Gateway reports an authorizer that returns an error as AUTHORIZER_CONFIGURATION_ERROR, and
	// one that crashes or times out as AUTHORIZER_FAILURE: both are a dependency problem.
	{"AUTHORIZER_FAILURE", "503", "service_unavailable", quoted("a dependency is unavailable; retry shortly"), map[string]string{"Retry-After": "1"}},
	{"AUTHORIZER_CONFIGURATION_ERROR", "503", "service_unavailable", quoted("a dependency is unavailable; retry shortly"), map[string]string{"Retry-After": "1"}},
	{"DEFAULT_4XX", "", "invalid_request", "$context.error.messageString", nil},
	{"DEFAULT_5XX", "", "internal_error", quoted("internal error; quote the trace_id"), nil},
}

// Route is a method of the dashboard and the function behind it. The API's routes are
// internal/routes' table, which the local gateway, the API Gateway adapter and the 404 read too.
type Route struct {
	Method, Path, Function string
}

// DashboardRoutes are the account dashboard's methods. They have no authorizer and need no API
// key: the dashboard signs account holders in itself (single-use links, sessions) and never
// takes an API key from a browser.
var DashboardRoutes = []Route{
	{"GET", "/dashboard", FnDashboard},
	{"POST", "/dashboard", FnDashboard},
	{"GET", "/dashboard/{proxy+}", FnDashboard},
	{"POST", "/dashboard/{proxy+}", FnDashboard},
}

// Throttle is an API Gateway token bucket: a steady rate and a bucket size.
type Throttle struct {
	RatePerSec float64 // steady requests per second
	Burst      float64 // bucket size (whole requests)
}

// DefaultDashboardThrottle is the stage throttling of every dashboard route, for all clients
// together, unless ServiceStackProps.DashboardThrottle says otherwise: the routes are public (no
// authorizer, no usage plan), so this is what bounds a flood of sign-in attempts or page loads
// before it reaches the dashboard function. A person clicks through a few pages a minute; the
// whole dashboard of a stage rarely sees more than a request a second. One noisy client can
// still use it up for everyone: docs/aws.md says how to raise it or limit each address.
var DefaultDashboardThrottle = Throttle{RatePerSec: 20, Burst: 40}

// dashboardThrottle is props' throttling of the dashboard routes, with the defaults filled in.
func (props *ServiceStackProps) dashboardThrottle() Throttle {
	t := props.DashboardThrottle
	if t.RatePerSec == 0 {
		t.RatePerSec = DefaultDashboardThrottle.RatePerSec
	}
	if t.Burst == 0 {
		t.Burst = DefaultDashboardThrottle.Burst
	}
	return t
}

// dashboardMethodOptions throttles each dashboard route of the stage to t (keys are
// "/<resource path>/<method>", as API Gateway's method settings name them).
func dashboardMethodOptions(t Throttle) *map[string]*awsapigateway.MethodDeploymentOptions {
	m := map[string]*awsapigateway.MethodDeploymentOptions{}
	for _, r := range DashboardRoutes {
		m[r.Path+"/"+r.Method] = &awsapigateway.MethodDeploymentOptions{
			ThrottlingRateLimit:  jsii.Number(t.RatePerSec),
			ThrottlingBurstLimit: jsii.Number(t.Burst),
		}
	}
	return &m
}

// accessLogFormat is one JSON line per request: ids, route, status and latencies, never a body.
const accessLogFormat = `{"requestId":"$context.requestId","time":"$context.requestTimeEpoch","ip":"$context.identity.sourceIp",` +
	`"method":"$context.httpMethod","resource":"$context.resourcePath","status":"$context.status",` +
	`"length":"$context.responseLength","latencyMs":"$context.responseLatency","integrationMs":"$context.integrationLatency",` +
	`"account":"$context.authorizer.principalId","errorType":"$context.error.responseType","authorizerError":"$context.authorizer.error"}`

func (s *ServiceStack) api(props *ServiceStackProps) awsapigateway.RestApi {
	accessLogs := awslogs.NewLogGroup(s.Stack, jsii.String("ApiAccessLogs"), &awslogs.LogGroupProps{
		Retention:     LogRetention,
		RemovalPolicy: awscdk.RemovalPolicy_RETAIN,
	})
	api := awsapigateway.NewRestApi(s.Stack, jsii.String("Api"), &awsapigateway.RestApiProps{
		RestApiName:      jsii.String("sluice-" + s.Names.Stage),
		Description:      jsii.String("Sluice " + s.Names.Stage + " text-guardrail API"),
		ApiKeySourceType: awsapigateway.ApiKeySourceType_AUTHORIZER,
		EndpointTypes:    &[]awsapigateway.EndpointType{awsapigateway.EndpointType_REGIONAL},
		// Access logging needs API Gateway's account-level CloudWatch role (one per region).
		CloudWatchRole:              jsii.Bool(true),
		CloudWatchRoleRemovalPolicy: awscdk.RemovalPolicy_RETAIN,
		DeployOptions: &awsapigateway.StageOptions{
			StageName:            jsii.String(s.Names.Stage),
			TracingEnabled:       jsii.Bool(props.Tracing),
			AccessLogDestination: awsapigateway.NewLogGroupLogDestination(accessLogs),
			AccessLogFormat:      awsapigateway.AccessLogFormat_Custom(jsii.String(accessLogFormat)),
			MethodOptions:        dashboardMethodOptions(props.dashboardThrottle()),
		},
	})

	auth := awsapigateway.NewRequestAuthorizer(s.Stack, jsii.String("KeyAuthorizer"), &awsapigateway.RequestAuthorizerProps{
		AuthorizerName:  jsii.String("sluice-" + s.Names.Stage + "-key"),
		Handler:         s.Functions[FnAuthorizer],
		IdentitySources: &[]*string{awsapigateway.IdentitySource_Header(jsii.String("Authorization"))},
		// No caching: a rotated or revoked key must stop working on the very next request.
		ResultsCacheTtl: awscdk.Duration_Seconds(jsii.Number(0)),
	})

	resources := map[string]awsapigateway.IResource{"": api.Root()}
	resource := func(path string) awsapigateway.IResource {
		r := api.Root()
		acc := ""
		for _, part := range strings.Split(strings.Trim(path, "/"), "/") {
			acc += "/" + part
			if next, ok := resources[acc]; ok {
				r = next
				continue
			}
			r = r.AddResource(jsii.String(part), nil)
			resources[acc] = r
		}
		return r
	}
	allow := map[string][]string{}
	var order []string
	for _, rt := range routes.All() { // every one needs a valid key: authorizer + ApiKeyRequired
		r := resource(rt.Path)
		r.AddMethod(jsii.String(rt.Method), awsapigateway.NewLambdaIntegration(s.Functions[rt.Function], &awsapigateway.LambdaIntegrationOptions{
			AllowTestInvoke: jsii.Bool(false),
		}), &awsapigateway.MethodOptions{
			ApiKeyRequired:    jsii.Bool(true),
			Authorizer:        auth,
			AuthorizationType: awsapigateway.AuthorizationType_CUSTOM,
		})
		if _, ok := allow[rt.Path]; !ok {
			order = append(order, rt.Path)
		}
		allow[rt.Path] = append(allow[rt.Path], rt.Method)
	}
	for _, path := range order {
		methodNotAllowed(resource(path), path, strings.Join(allow[path], ", "))
	}
	for _, rt := range DashboardRoutes {
		resource(rt.Path).AddMethod(jsii.String(rt.Method), awsapigateway.NewLambdaIntegration(s.Functions[rt.Function], &awsapigateway.LambdaIntegrationOptions{
			AllowTestInvoke: jsii.Bool(false),
		}), &awsapigateway.MethodOptions{
			ApiKeyRequired:    jsii.Bool(false),
			AuthorizationType: awsapigateway.AuthorizationType_NONE,
		})
	}

	for _, gr := range GatewayResponses {
		headers := map[string]*string{}
		for k, v := range jsonSafety() {
			headers[k] = jsii.String("'" + v + "'")
		}
		for k, v := range gr.Headers {
			headers[k] = jsii.String("'" + v + "'")
		}
		opts := &awsapigateway.GatewayResponseOptions{
			Type:            awsapigateway.ResponseType_Of(jsii.String(gr.Type)),
			ResponseHeaders: &headers,
			Templates:       &map[string]*string{"application/json": jsii.String(envelope(gr.Code, gr.Message))},
		}
		if gr.Status != "" {
			opts.StatusCode = jsii.String(gr.Status)
		}
		api.AddGatewayResponse(jsii.String(gatewayResponseID(gr.Type)), opts)
	}

	for _, t := range Tiers {
		var quota *awsapigateway.QuotaSettings
		if t.MonthlyQuota > 0 {
			quota = &awsapigateway.QuotaSettings{Limit: jsii.Number(t.MonthlyQuota), Period: awsapigateway.Period_MONTH}
		}
		plan := api.AddUsagePlan(jsii.String("UsagePlan-"+t.Name), &awsapigateway.UsagePlanProps{
			Name:        jsii.String("sluice-" + s.Names.Stage + "-" + t.Name),
			Description: jsii.String("Sluice " + s.Names.Stage + ": accounts of tier " + t.Name),
			Throttle:    &awsapigateway.ThrottleSettings{RateLimit: jsii.Number(t.RatePerSec), BurstLimit: jsii.Number(t.Burst)},
			Quota:       quota,
			ApiStages:   &[]*awsapigateway.UsagePlanPerApiStage{{Api: api, Stage: api.DeploymentStage()}},
		})
		awscdk.NewCfnOutput(s.Stack, jsii.String("UsagePlanId"+title(t.Name)), &awscdk.CfnOutputProps{
			Value:       plan.UsagePlanId(),
			Description: jsii.String("usage plan of tier " + t.Name + ": attach each account's API Gateway API key to it"),
		})
	}

	awscdk.NewCfnOutput(s.Stack, jsii.String("ApiUrl"), &awscdk.CfnOutputProps{
		Value: api.Url(), Description: jsii.String("base URL: POST <ApiUrl>v1/run"),
	})
	awscdk.NewCfnOutput(s.Stack, jsii.String("DashboardUrl"), &awscdk.CfnOutputProps{
		Value:       jsii.String(*api.Url() + "dashboard/"),
		Description: jsii.String("the account dashboard; sign-in links: keyctl dashboard-link ACCOUNT -base-url <ApiUrl without the trailing slash>"),
	})
	awscdk.NewCfnOutput(s.Stack, jsii.String("ApiId"), &awscdk.CfnOutputProps{Value: api.RestApiId()})
	awscdk.NewCfnOutput(s.Stack, jsii.String("SecretName"), &awscdk.CfnOutputProps{Value: jsii.String(s.Names.Secret())})
	awscdk.NewCfnOutput(s.Stack, jsii.String("AccountsTable"), &awscdk.CfnOutputProps{Value: s.Tables.Accounts.TableName()})
	return api
}

// methodNotAllowed answers every other method on a route with 405 method_not_allowed and Allow,
// without the authorizer (routes are checked before keys), from a mock integration.
func methodNotAllowed(r awsapigateway.IResource, path, allow string) {
	headers := jsonSafety()
	headers["Allow"] = allow
	for k, v := range noBudget {
		headers[k] = v
	}
	mapped, declared := map[string]*string{}, map[string]*bool{}
	for k, v := range headers {
		mapped["method.response.header."+k] = jsii.String("'" + v + "'")
		declared["method.response.header."+k] = jsii.Bool(true)
	}
	// WHEN_NO_MATCH: a request of any content type reaches the mock (NEVER would answer 415 to,
	// say, PUT /v1/run with text/plain); the mock then answers its one, default, integration
	// response, whatever the body.
	r.AddMethod(jsii.String("ANY"), awsapigateway.NewMockIntegration(&awsapigateway.IntegrationOptions{
		PassthroughBehavior: awsapigateway.PassthroughBehavior_WHEN_NO_MATCH,
		RequestTemplates:    &map[string]*string{"application/json": jsii.String(`{"statusCode": 405}`)},
		IntegrationResponses: &[]*awsapigateway.IntegrationResponse{{
			StatusCode:         jsii.String("405"),
			ResponseParameters: &mapped,
			ResponseTemplates: &map[string]*string{"application/json": jsii.String(
				envelope("method_not_allowed", quoted(path+" allows "+allow)))},
		}},
	}), &awsapigateway.MethodOptions{
		AuthorizationType: awsapigateway.AuthorizationType_NONE,
		MethodResponses:   &[]*awsapigateway.MethodResponse{{StatusCode: jsii.String("405"), ResponseParameters: &declared}},
	})
}

func gatewayResponseID(t string) string { return "Response-" + strings.ReplaceAll(t, "_", "") }

func title(s string) string { return strings.ToUpper(s[:1]) + s[1:] }
