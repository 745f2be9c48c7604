package main

import (
	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsapigateway"
	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudwatch"
	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudwatchactions"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslogs"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssns"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssnssubscriptions"
	"github.com/aws/jsii-runtime-go"
)

// Alarm thresholds (README.md in this folder explains each).
const (
	Alarm5xxRate          = 0.01 // share of requests answered 5xx, per 5 minutes
	AlarmThrottles        = 1    // Lambda throttles of any function, per 5 minutes
	AlarmAuthorizerErrors = 3    // authorizer ERROR log lines (store or secret failures, init failures), per 5 minutes
	AlarmRunP99Millis     = 5000 // p99 duration of the run function, per 5 minutes
)

// MetricAuthorizerErrors is the metric the authorizer's ERROR log lines are counted in. The
// function's own Errors metric is no use: every refused key is a handler error for Lambda.
const MetricAuthorizerErrors = "AuthorizerErrors"

func (s *ServiceStack) monitoring(api awsapigateway.RestApi, props *ServiceStackProps) {
	topic := awssns.NewTopic(s.Stack, jsii.String("Alarms"), &awssns.TopicProps{
		DisplayName: jsii.String("Sluice " + s.Names.Stage + " alarms"),
	})
	if props.AlarmEmail != "" {
		topic.AddSubscription(awssnssubscriptions.NewEmailSubscription(jsii.String(props.AlarmEmail), nil))
	}
	five := awscdk.Duration_Minutes(jsii.Number(5))
	run, services, authorizer, dash := s.Functions[FnRun], s.Functions[FnServices], s.Functions[FnAuthorizer], s.Functions[FnDashboard]

	rate5xx := api.MetricServerError(&awscloudwatch.MetricOptions{Statistic: jsii.String("Average"), Period: five})
	throttles := awscloudwatch.NewMathExpression(&awscloudwatch.MathExpressionProps{
		Expression: jsii.String("run + services + authorizer + dashboard"),
		UsingMetrics: &map[string]awscloudwatch.IMetric{
			"run":        run.MetricThrottles(&awscloudwatch.MetricOptions{Statistic: jsii.String("Sum"), Period: five}),
			"services":   services.MetricThrottles(&awscloudwatch.MetricOptions{Statistic: jsii.String("Sum"), Period: five}),
			"authorizer": authorizer.MetricThrottles(&awscloudwatch.MetricOptions{Statistic: jsii.String("Sum"), Period: five}),
			"dashboard":  dash.MetricThrottles(&awscloudwatch.MetricOptions{Statistic: jsii.String("Sum"), Period: five}),
		},
		Label:  jsii.String("Lambda throttles"),
		Period: five,
	})
	authFilter := awslogs.NewMetricFilter(s.Stack, jsii.String("AuthorizerErrorsFilter"), &awslogs.MetricFilterProps{
		LogGroup:        authorizer.LogGroup(),
		FilterPattern:   awslogs.FilterPattern_StringValue(jsii.String("$.level"), jsii.String("="), jsii.String("ERROR")),
		MetricNamespace: jsii.String(s.Names.Namespace()),
		MetricName:      jsii.String(MetricAuthorizerErrors),
		MetricValue:     jsii.String("1"),
		DefaultValue:    jsii.Number(0),
	})
	authErrors := authFilter.Metric(&awscloudwatch.MetricOptions{Statistic: jsii.String("Sum"), Period: five})
	runP99 := run.MetricDuration(&awscloudwatch.MetricOptions{Statistic: jsii.String("p99"), Period: five})

	action := awscloudwatchactions.NewSnsAction(topic)
	alarm := func(id, desc string, m awscloudwatch.IMetric, threshold float64, periods float64) {
		a := awscloudwatch.NewAlarm(s.Stack, jsii.String(id), &awscloudwatch.AlarmProps{
			AlarmName:          jsii.String(*s.Stack.StackName() + "-" + id),
			AlarmDescription:   jsii.String(desc),
			Metric:             m,
			Threshold:          jsii.Number(threshold),
			EvaluationPeriods:  jsii.Number(periods),
			DatapointsToAlarm:  jsii.Number(periods),
			ComparisonOperator: awscloudwatch.ComparisonOperator_GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
			TreatMissingData:   awscloudwatch.TreatMissingData_NOT_BREACHING,
		})
		a.AddAlarmAction(action)
		a.AddOkAction(action)
	}
	alarm("Api5xxRate", "1% or more of the API's answers were 5xx for 10 minutes (functions failing, authorizer failures, timeouts)", rate5xx, Alarm5xxRate, 2)
	alarm("LambdaThrottles", "a Sluice function was throttled (account concurrency limit reached); clients get 5xx", throttles, AlarmThrottles, 1)
	alarm("AuthorizerErrors", "the authorizer could not reach the accounts table or the secret (clients get 503), or failed to start", authErrors, AlarmAuthorizerErrors, 1)
	alarm("RunLatencyP99", "p99 duration of the run function was 5 s or more for 15 minutes", runP99, AlarmRunP99Millis, 3)

	opts := func(stat string) *awscloudwatch.MetricOptions {
		return &awscloudwatch.MetricOptions{Statistic: jsii.String(stat), Period: awscdk.Duration_Minutes(jsii.Number(1))}
	}
	perFunction := func(f func(awslambda.Function) awscloudwatch.IMetric) *[]awscloudwatch.IMetric {
		return &[]awscloudwatch.IMetric{f(run), f(services), f(authorizer), f(dash)}
	}
	graph := func(title string, left *[]awscloudwatch.IMetric) awscloudwatch.IWidget {
		return awscloudwatch.NewGraphWidget(&awscloudwatch.GraphWidgetProps{Title: jsii.String(title), Left: left, Width: jsii.Number(8)})
	}
	awscloudwatch.NewDashboard(s.Stack, jsii.String("Dashboard"), &awscloudwatch.DashboardProps{
		DashboardName: jsii.String(*s.Stack.StackName()),
		Widgets: &[]*[]awscloudwatch.IWidget{
			{
				graph("Requests", &[]awscloudwatch.IMetric{api.MetricCount(opts("Sum")), api.MetricClientError(opts("Sum")), api.MetricServerError(opts("Sum"))}),
				graph("API latency (ms)", &[]awscloudwatch.IMetric{api.MetricLatency(opts("p50")), api.MetricLatency(opts("p99")), api.MetricIntegrationLatency(opts("p99"))}),
				graph("Run duration (ms)", &[]awscloudwatch.IMetric{run.MetricDuration(opts("p50")), run.MetricDuration(opts("p99")), run.MetricDuration(opts("Maximum"))}),
			},
			{
				graph("Function errors", perFunction(func(f awslambda.Function) awscloudwatch.IMetric { return f.MetricErrors(opts("Sum")) })),
				graph("Function throttles", perFunction(func(f awslambda.Function) awscloudwatch.IMetric { return f.MetricThrottles(opts("Sum")) })),
				graph("Authorizer errors", &[]awscloudwatch.IMetric{authFilter.Metric(opts("Sum"))}),
			},
		},
	})
}
