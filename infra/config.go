package main

import (
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"
)

// DistDir is where `make build` writes the functions: DistDir/<function>/bootstrap.
const DistDir = "dist"

// Context keys of cdk.json (or `cdk synth -c key=value`).
const (
	CtxStage      = "stage"      // deployment name, default "dev": names of tables, functions, API, secret
	CtxRegions    = "regions"    // list (or comma-separated string) of regions; the first is the primary
	CtxAccount    = "account"    // optional AWS account id; else CDK_DEFAULT_ACCOUNT; else environment-agnostic
	CtxTracing    = "tracing"    // bool, default false: X-Ray tracing of the API stage and the functions
	CtxAlarmEmail = "alarmEmail" // optional e-mail address subscribed to the alarm topic
	// CtxDashboardConcurrency is the dashboard function's reserved concurrency, default 0 (none;
	// see ServiceStackProps.DashboardConcurrency).
	CtxDashboardConcurrency = "dashboardConcurrency"
	// CtxDashboardRate and CtxDashboardBurst are the stage throttling of the dashboard routes,
	// default DefaultDashboardThrottle (see ServiceStackProps.DashboardThrottle).
	CtxDashboardRate  = "dashboardRate"
	CtxDashboardBurst = "dashboardBurst"
)

// Config is the app's configuration, read from the CDK context.
type Config struct {
	Stage      string
	Regions    []string
	Account    string
	Tracing    bool
	AlarmEmail string
	// DashboardConcurrency is ServiceStackProps.DashboardConcurrency.
	DashboardConcurrency int
	// DashboardThrottle is ServiceStackProps.DashboardThrottle (zero fields: the default).
	DashboardThrottle Throttle
}

var (
	stagePattern  = regexp.MustCompile(`^[a-z][a-z0-9-]{0,19}$`)
	regionPattern = regexp.MustCompile(`^[a-z]{2}(-[a-z]+)+-[0-9]$`)
)

// ConfigFromContext reads the configuration from scope's context, with the defaults of cdk.json.
func ConfigFromContext(scope constructs.Construct) (Config, error) {
	get := func(key string) any { return scope.Node().TryGetContext(jsii.String(key)) }
	c := Config{Stage: "dev", Regions: []string{"eu-west-1"}, Account: os.Getenv("CDK_DEFAULT_ACCOUNT")}
	if v, ok := get(CtxStage).(string); ok && v != "" {
		c.Stage = v
	}
	switch v := get(CtxRegions).(type) {
	case nil:
	case string: // -c regions=eu-west-1,us-east-1
		c.Regions = splitList(v)
	case []any:
		c.Regions = nil
		for _, r := range v {
			s, ok := r.(string)
			if !ok {
				return Config{}, fmt.Errorf("context %q: %v is not a string", CtxRegions, r)
			}
			c.Regions = append(c.Regions, s)
		}
	default:
		return Config{}, fmt.Errorf("context %q: want a list of regions, got %T", CtxRegions, v)
	}
	if v, ok := get(CtxAccount).(string); ok && v != "" {
		c.Account = v
	}
	switch v := get(CtxTracing).(type) {
	case nil:
	case bool:
		c.Tracing = v
	case string: // -c tracing=true
		b, err := strconv.ParseBool(v)
		if err != nil {
			return Config{}, fmt.Errorf("context %q: %w", CtxTracing, err)
		}
		c.Tracing = b
	default:
		return Config{}, fmt.Errorf("context %q: want a bool, got %T", CtxTracing, v)
	}
	if v, ok := get(CtxAlarmEmail).(string); ok {
		c.AlarmEmail = v
	}
	switch v := get(CtxDashboardConcurrency).(type) {
	case nil:
	case float64: // a number in cdk.json
		c.DashboardConcurrency = int(v)
		if float64(c.DashboardConcurrency) != v {
			return Config{}, fmt.Errorf("context %q: %v is not a whole number", CtxDashboardConcurrency, v)
		}
	case string: // -c dashboardConcurrency=10
		n, err := strconv.Atoi(v)
		if err != nil {
			return Config{}, fmt.Errorf("context %q: %w", CtxDashboardConcurrency, err)
		}
		c.DashboardConcurrency = n
	default:
		return Config{}, fmt.Errorf("context %q: want a number, got %T", CtxDashboardConcurrency, v)
	}
	for key, dst := range map[string]*float64{CtxDashboardRate: &c.DashboardThrottle.RatePerSec, CtxDashboardBurst: &c.DashboardThrottle.Burst} {
		n, err := contextNumber(get(key))
		if err != nil {
			return Config{}, fmt.Errorf("context %q: %w", key, err)
		}
		*dst = n
	}
	return c, c.Validate()
}

// contextNumber reads a number given in cdk.json (a JSON number) or with -c (a string); nil is 0.
func contextNumber(v any) (float64, error) {
	switch v := v.(type) {
	case nil:
		return 0, nil
	case float64:
		return v, nil
	case string:
		return strconv.ParseFloat(v, 64)
	default:
		return 0, fmt.Errorf("want a number, got %T", v)
	}
}

// Validate checks the stage, the regions (at least one, no duplicates) and the account id.
func (c Config) Validate() error {
	if !stagePattern.MatchString(c.Stage) {
		return fmt.Errorf("stage %q: want 1 to 20 lower-case letters, digits and hyphens, starting with a letter", c.Stage)
	}
	if len(c.Regions) == 0 {
		return fmt.Errorf("context %q: at least one region", CtxRegions)
	}
	seen := map[string]bool{}
	for _, r := range c.Regions {
		if !regionPattern.MatchString(r) {
			return fmt.Errorf("region %q is not a region name", r)
		}
		if seen[r] {
			return fmt.Errorf("region %q is listed twice", r)
		}
		seen[r] = true
	}
	if c.Account != "" && !regexp.MustCompile(`^[0-9]{12}$`).MatchString(c.Account) {
		return fmt.Errorf("account %q: want 12 digits", c.Account)
	}
	if c.DashboardConcurrency < 0 {
		return fmt.Errorf("context %q: %d is negative (0 reserves nothing)", CtxDashboardConcurrency, c.DashboardConcurrency)
	}
	if t := c.DashboardThrottle; t.RatePerSec < 0 || t.Burst < 0 || t.Burst != float64(int(t.Burst)) {
		return fmt.Errorf("context %q, %q: %v and %v; want a rate of 0 or more (0: the default) and a whole burst of 0 or more", CtxDashboardRate, CtxDashboardBurst, t.RatePerSec, t.Burst)
	}
	return nil
}

func splitList(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' })
}

// StackID is the id (and CloudFormation name) of the stack of stage in region.
func StackID(stage, region string) string { return "sluice-" + stage + "-" + region }

// NewServiceApp adds one ServiceStack per configured region to app; the first region's stack is
// the primary (it owns the global accounts table and the secret, with replicas in the others),
// and every other stack depends on it. distDir holds the built functions.
func NewServiceApp(app awscdk.App, distDir string) ([]awscdk.Stack, error) {
	cfg, err := ConfigFromContext(app)
	if err != nil {
		return nil, err
	}
	var stacks []awscdk.Stack
	for _, region := range cfg.Regions {
		env := &awscdk.Environment{Region: jsii.String(region)}
		if cfg.Account != "" {
			env.Account = jsii.String(cfg.Account)
		}
		s := NewServiceStack(app, StackID(cfg.Stage, region), &ServiceStackProps{
			StackProps: awscdk.StackProps{
				Env:         env,
				Description: jsii.String(fmt.Sprintf("Sluice %s in %s (%s)", cfg.Stage, region, roleOf(region, cfg.Regions))),
			},
			Stage: cfg.Stage, Regions: cfg.Regions, Tracing: cfg.Tracing,
			AlarmEmail: cfg.AlarmEmail, DistDir: distDir, DashboardConcurrency: cfg.DashboardConcurrency,
			DashboardThrottle: cfg.DashboardThrottle,
		})
		if len(stacks) > 0 {
			s.AddDependency(stacks[0], jsii.String("the primary region owns the global accounts table and the secret"))
		}
		stacks = append(stacks, s)
	}
	return stacks, nil
}

func roleOf(region string, regions []string) string {
	if region == regions[0] {
		return "primary region"
	}
	return "replica region of " + regions[0]
}
