package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsdynamodb"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsiam"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslogs"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssecretsmanager"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"

	"github.com/sluice-api/sluice/internal/routes"
	"github.com/sluice-api/sluice/internal/store/dynamo/layout"
	"github.com/sluice-api/sluice/internal/timing"
)

// ServiceStackProps configure one regional Sluice stack.
type ServiceStackProps struct {
	awscdk.StackProps // Env.Region is required (replicas need a concrete region)

	Stage      string   // deployment name: every resource name derives from it
	Regions    []string // every region of the deployment; Regions[0] is the primary
	Tracing    bool     // X-Ray tracing of the API stage and the functions
	AlarmEmail string   // optional subscriber of the alarm topic
	DistDir    string   // holds <function>/bootstrap; a missing function gets a placeholder
	// DashboardConcurrency reserves this many concurrent executions for the dashboard function,
	// which also caps it, so that a flood of dashboard requests cannot take the concurrency the
	// API's functions need. 0 (the default) reserves nothing: a reservation lowers the account's
	// unreserved concurrency, which Lambda keeps at 100 or more and which a new account's quota
	// (as low as 10) cannot spare, so any default above 0 could fail a deploy. Set it (context
	// dashboardConcurrency) where the account's quota is at least this plus 100.
	DashboardConcurrency int
	// DashboardThrottle is the stage throttling of each dashboard route, shared by every client
	// of the stage (the routes have no authorizer, so no usage plan tells clients apart). A zero
	// field takes DefaultDashboardThrottle's. Raise it (context dashboardRate, dashboardBurst)
	// when many customers sign in at once; a per-address limit belongs in front of the API (an
	// AWS WAF rate-based rule; docs/aws.md).
	DashboardThrottle Throttle
}

// Function names, as in functions/<name> and dist/<name>/bootstrap.
const (
	FnRun        = routes.FunctionRun
	FnServices   = routes.FunctionServices
	FnAuthorizer = "authorizer"
	FnDashboard  = "dashboard"
)

// Functions lists every function of the stack.
var Functions = []string{FnRun, FnServices, FnAuthorizer, FnDashboard}

// functionSpec is the sizing of one function. The run function loads about 1 MB of models at
// cold start and runs the pipeline on the CPU: Lambda gives CPU in proportion to memory, so
// 1024 MB buys the run (and the cold start) about 0.6 vCPU. Its timeout is timing.RunTimeout
// (23 s): a cold start's init, which API Gateway waits for but the Lambda timeout does not
// count, plus the timeout plus the settle reserve leave 2 s under API Gateway's 29-second
// integration limit, so the function, which honours its deadline, answers step_timeout itself
// rather than API Gateway answering 504. services serves descriptors (it also loads the
// models, as it builds the same server) and usage; the authorizer does an HMAC and one GetItem
// on every request (its result is not cached). The dashboard renders pages and runs the
// playground's pipelines with the same engine and models as run, so it is sized and timed alike.
type functionSpec struct {
	memoryMB   float64
	timeoutSec float64
	desc       string
}

var functionSpecs = map[string]functionSpec{
	FnRun:        {1024, timing.RunTimeout.Seconds(), "POST /v1/run: validates and runs a pipeline"},
	FnServices:   {512, 10, "GET /v1/services/{name} and GET /v1/usage"},
	FnAuthorizer: {256, 10, "REQUEST authorizer: API key -> account"},
	FnDashboard:  {1024, timing.RunTimeout.Seconds(), "GET and POST /dashboard/...: the account dashboard"},
}

// LogRetention is how long the functions' and the API's logs are kept.
const LogRetention = awslogs.RetentionDays_ONE_MONTH

// Names derived from the stage: identical in every region, so that the global accounts table,
// the replicated secret and the regional tables are found by name.
type Names struct{ Stage string }

// Table returns the table name of kind (accounts, idempotency, usage, rate_windows).
func (n Names) Table(kind string) string { return "sluice-" + n.Stage + "-" + kind }

// Function returns the function name of fn.
func (n Names) Function(fn string) string { return "sluice-" + n.Stage + "-" + fn }

// Secret is the name of the secret the functions read ({"pepper", "tokenization_key"}).
func (n Names) Secret() string { return "sluice/" + n.Stage + "/keys" }

// CopyKeySecret is the name of the secret holding the copy key, which seals key items' copies of
// their account's settings (internal/store/dynamo, WithCopyKey): only the authorizer reads it,
// and operators' keyctl; the dashboard's role cannot, so it cannot seal settings of its own.
func (n Names) CopyKeySecret() string { return "sluice/" + n.Stage + "/copy-key" }

// SecretSource is the name of the generated secret that holds one value of Secret.
func (n Names) SecretSource(field string) string { return "sluice/" + n.Stage + "/source/" + field }

// Namespace is the CloudWatch namespace of the functions' metrics and the stack's own.
func (n Names) Namespace() string { return "Sluice/" + n.Stage }

// Tables are the tables as the functions see them.
type Tables struct {
	Accounts, Idempotency, Usage, RateWindows awsdynamodb.ITableV2
	// Sessions holds the dashboard's sign-in links and sessions (regional, TTL).
	Sessions awsdynamodb.ITableV2
}

// ServiceStack is one region of a Sluice deployment.
type ServiceStack struct {
	awscdk.Stack
	Names     Names
	Primary   bool
	Tables    Tables
	Secret    awssecretsmanager.ISecret
	CopyKey   awssecretsmanager.ISecret // Names.CopyKeySecret
	Functions map[string]awslambda.Function
}

// NewServiceStack builds one regional stack: the REST API with its authorizer, gateway
// responses and usage plans, the four functions (the dashboard's routes outside the
// authorizer), the regional tables, and in the primary
// region (props.Regions[0]) the global accounts table and the secret, both replicated to the
// other regions; alarms and a dashboard.
func NewServiceStack(scope constructs.Construct, id string, props *ServiceStackProps) awscdk.Stack {
	s := newServiceStack(scope, id, props)
	return s.Stack
}

func newServiceStack(scope constructs.Construct, id string, props *ServiceStackProps) *ServiceStack {
	if props.Env == nil || props.Env.Region == nil || len(props.Regions) == 0 {
		panic("infra: ServiceStackProps needs Env.Region and Regions")
	}
	region := *props.Env.Region
	stack := awscdk.NewStack(scope, jsii.String(id), &props.StackProps)
	s := &ServiceStack{Stack: stack, Names: Names{props.Stage}, Primary: region == props.Regions[0]}
	awscdk.Tags_Of(stack).Add(jsii.String("project"), jsii.String("sluice"), nil)
	awscdk.Tags_Of(stack).Add(jsii.String("sluice:stage"), jsii.String(props.Stage), nil)

	var replicas []string
	for _, r := range props.Regions {
		if r != region {
			replicas = append(replicas, r)
		}
	}
	s.Tables = s.tables(replicas)
	s.Secret = s.secret(replicas)
	s.CopyKey = s.copyKeySecret(replicas)
	s.Functions = map[string]awslambda.Function{}
	for _, fn := range Functions {
		s.Functions[fn] = s.function(fn, props)
	}
	s.grant()
	api := s.api(props)
	s.monitoring(api, props)
	return s
}

// tables creates the regional tables, and the accounts global table in the primary region;
// the other regions import it by name (its replica there has the same name).
func (s *ServiceStack) tables(replicas []string) Tables {
	str := awsdynamodb.AttributeType_STRING
	common := func(name string, pk, sk *awsdynamodb.Attribute, ttl string) *awsdynamodb.TablePropsV2 {
		p := &awsdynamodb.TablePropsV2{
			TableName:    jsii.String(name),
			PartitionKey: pk,
			SortKey:      sk,
			Billing:      awsdynamodb.Billing_OnDemand(nil),
			PointInTimeRecoverySpecification: &awsdynamodb.PointInTimeRecoverySpecification{
				PointInTimeRecoveryEnabled: jsii.Bool(true),
			},
			DeletionProtection: jsii.Bool(true),
			RemovalPolicy:      awscdk.RemovalPolicy_RETAIN,
		}
		if ttl != "" {
			p.TimeToLiveAttribute = jsii.String(ttl)
		}
		return p
	}
	attr := func(name string, t awsdynamodb.AttributeType) *awsdynamodb.Attribute {
		return &awsdynamodb.Attribute{Name: jsii.String(name), Type: t}
	}
	var t Tables
	accounts := s.Names.Table("accounts")
	if s.Primary {
		p := common(accounts, attr("pk", str), nil, "")
		p.GlobalSecondaryIndexes = &[]*awsdynamodb.GlobalSecondaryIndexPropsV2{{
			IndexName:      jsii.String("by_account"),
			PartitionKey:   attr("acct", str),
			SortKey:        attr("korder", str),
			ProjectionType: awsdynamodb.ProjectionType_ALL,
		}}
		var rs []*awsdynamodb.ReplicaTableProps
		for _, r := range replicas {
			rs = append(rs, &awsdynamodb.ReplicaTableProps{Region: jsii.String(r)})
		}
		p.Replicas = &rs
		t.Accounts = awsdynamodb.NewTableV2(s.Stack, jsii.String("Accounts"), p)
	} else {
		t.Accounts = awsdynamodb.TableV2_FromTableName(s.Stack, jsii.String("Accounts"), jsii.String(accounts))
	}
	num := awsdynamodb.AttributeType_NUMBER
	t.Idempotency = awsdynamodb.NewTableV2(s.Stack, jsii.String("Idempotency"),
		common(s.Names.Table("idempotency"), attr("pk", str), attr("sk", str), "expires"))
	t.Usage = awsdynamodb.NewTableV2(s.Stack, jsii.String("Usage"),
		common(s.Names.Table("usage"), attr("pk", str), attr("sk", str), ""))
	t.RateWindows = awsdynamodb.NewTableV2(s.Stack, jsii.String("RateWindows"),
		common(s.Names.Table("rate_windows"), attr("pk", str), attr("sk", num), "expires"))
	// Sign-in links (15 minutes) and sessions (12 hours idle) expire by TTL.
	t.Sessions = awsdynamodb.NewTableV2(s.Stack, jsii.String("Sessions"),
		common(s.Names.Table("sessions"), attr("pk", str), nil, "expires"))
	return t
}

// SecretLength is the length of each generated value: 44 letters and digits are valid standard
// base64 (11 groups of 4, no padding) of 33 bytes, more than secrets.MinKeyBytes, with about 262
// bits of entropy.
const SecretLength = 44

// secret creates, in the primary region, the secret the functions read: a JSON object whose two
// values are dynamic references to two generated secrets, so CloudFormation assembles it at
// deploy time and no value is ever in the template. It is replicated to the other regions, which
// must hash keys with the same pepper (the accounts table is global). Every secret is retained:
// a new pepper would invalidate every API key.
func (s *ServiceStack) secret(replicas []string) awssecretsmanager.ISecret {
	name := s.Names.Secret()
	if !s.Primary {
		return awssecretsmanager.Secret_FromSecretNameV2(s.Stack, jsii.String("Keys"), jsii.String(name))
	}
	source := func(id, field, desc string) awssecretsmanager.Secret {
		return awssecretsmanager.NewSecret(s.Stack, jsii.String(id), &awssecretsmanager.SecretProps{
			SecretName:    jsii.String(s.Names.SecretSource(field)),
			Description:   jsii.String(desc + " (generated; copied into " + name + " at creation; never change it)"),
			RemovalPolicy: awscdk.RemovalPolicy_RETAIN,
			GenerateSecretString: &awssecretsmanager.SecretStringGenerator{
				PasswordLength:          jsii.Number(SecretLength),
				ExcludePunctuation:      jsii.Bool(true),
				IncludeSpace:            jsii.Bool(false),
				RequireEachIncludedType: jsii.Bool(false),
			},
		})
	}
	pepper := source("PepperSource", "pepper", "Sluice "+s.Names.Stage+": API key pepper")
	token := source("TokenizationKeySource", "tokenization_key", "Sluice "+s.Names.Stage+": tokenization key")
	var rs []*awssecretsmanager.ReplicaRegion
	for _, r := range replicas {
		rs = append(rs, &awssecretsmanager.ReplicaRegion{Region: jsii.String(r)})
	}
	return awssecretsmanager.NewSecret(s.Stack, jsii.String("Keys"), &awssecretsmanager.SecretProps{
		SecretName:  jsii.String(name),
		Description: jsii.String("Sluice " + s.Names.Stage + `: {"pepper", "tokenization_key"} (base64) read by the functions`),
		SecretObjectValue: &map[string]awscdk.SecretValue{
			"pepper":           pepper.SecretValue(),
			"tokenization_key": token.SecretValue(),
		},
		ReplicaRegions: &rs,
		RemovalPolicy:  awscdk.RemovalPolicy_RETAIN,
	})
}

// copyKeySecret creates, in the primary region, the generated copy key (SecretLength letters and
// digits; the store takes its bytes as they are), replicated to the other regions, which read
// the same global accounts table. Retained: a new key only costs the authorizer a second read
// per request until keyctl migrate has sealed every account again (docs/aws.md).
func (s *ServiceStack) copyKeySecret(replicas []string) awssecretsmanager.ISecret {
	name := s.Names.CopyKeySecret()
	if !s.Primary {
		return awssecretsmanager.Secret_FromSecretNameV2(s.Stack, jsii.String("CopyKey"), jsii.String(name))
	}
	var rs []*awssecretsmanager.ReplicaRegion
	for _, r := range replicas {
		rs = append(rs, &awssecretsmanager.ReplicaRegion{Region: jsii.String(r)})
	}
	return awssecretsmanager.NewSecret(s.Stack, jsii.String("CopyKey"), &awssecretsmanager.SecretProps{
		SecretName: jsii.String(name),
		Description: jsii.String("Sluice " + s.Names.Stage + ": the key that seals key items' copies of account settings; " +
			"read by the authorizer and keyctl, never by the dashboard"),
		GenerateSecretString: &awssecretsmanager.SecretStringGenerator{
			PasswordLength:          jsii.Number(SecretLength),
			ExcludePunctuation:      jsii.Bool(true),
			IncludeSpace:            jsii.Bool(false),
			RequireEachIncludedType: jsii.Bool(false),
		},
		ReplicaRegions: &rs,
		RemovalPolicy:  awscdk.RemovalPolicy_RETAIN,
	})
}

// function creates one Lambda function from DistDir/<fn>/bootstrap (or a placeholder).
func (s *ServiceStack) function(fn string, props *ServiceStackProps) awslambda.Function {
	spec := functionSpecs[fn]
	id := map[string]string{FnRun: "Run", FnServices: "Services", FnAuthorizer: "Authorizer", FnDashboard: "AccountDashboard"}[fn]
	logs := awslogs.NewLogGroup(s.Stack, jsii.String(id+"Logs"), &awslogs.LogGroupProps{
		Retention:     LogRetention,
		RemovalPolicy: awscdk.RemovalPolicy_RETAIN,
	})
	secretID := s.Secret.SecretArn()
	if !s.Primary {
		secretID = s.Secret.SecretName() // the replica: same name, no full ARN known here
	}
	p := &awslambda.FunctionProps{
		FunctionName: jsii.String(s.Names.Function(fn)),
		Description:  jsii.String("Sluice " + s.Names.Stage + ": " + spec.desc),
		Runtime:      awslambda.Runtime_PROVIDED_AL2023(),
		Architecture: awslambda.Architecture_ARM_64(),
		Handler:      jsii.String("bootstrap"),
		Code:         s.code(fn, props.DistDir),
		MemorySize:   jsii.Number(spec.memoryMB),
		Timeout:      awscdk.Duration_Seconds(jsii.Number(spec.timeoutSec)),
		LogGroup:     logs,
		Environment: &map[string]*string{
			"SLUICE_TABLE_ACCOUNTS":     s.Tables.Accounts.TableName(),
			"SLUICE_TABLE_IDEMPOTENCY":  s.Tables.Idempotency.TableName(),
			"SLUICE_TABLE_USAGE":        s.Tables.Usage.TableName(),
			"SLUICE_TABLE_RATE_WINDOWS": s.Tables.RateWindows.TableName(),
			"SLUICE_SECRET_ID":          secretID,
			"SLUICE_METRICS_NAMESPACE":  jsii.String(s.Names.Namespace()),
		},
	}
	if fn == FnDashboard {
		(*p.Environment)["SLUICE_TABLE_SESSIONS"] = s.Tables.Sessions.TableName()
	}
	if fn == FnAuthorizer {
		// Only the authorizer checks the seals of key items' account copies.
		copyKeyID := s.CopyKey.SecretArn()
		if !s.Primary {
			copyKeyID = s.CopyKey.SecretName()
		}
		(*p.Environment)["SLUICE_COPY_KEY_SECRET_ID"] = copyKeyID
	}
	if props.Tracing {
		p.Tracing = awslambda.Tracing_ACTIVE
	}
	if fn == FnDashboard && props.DashboardConcurrency > 0 {
		p.ReservedConcurrentExecutions = jsii.Number(props.DashboardConcurrency)
	}
	return awslambda.NewFunction(s.Stack, jsii.String(id), p)
}

// PlaceholderBootstrap is the code deployed for a function that was not built: it fails every
// invocation. `make synth` and `make deploy` build first, so it only appears in tests and in a
// bare `go run ./infra`, which warn about it.
const PlaceholderBootstrap = "#!/bin/sh\necho 'sluice: placeholder bootstrap; run make build, then deploy again' >&2\nexit 1\n"

// code returns the asset of fn: distDir/fn when it holds a bootstrap, else a placeholder written
// under the cloud assembly's output directory (with a warning on the stack).
func (s *ServiceStack) code(fn, distDir string) awslambda.Code {
	dir := filepath.Join(distDir, fn)
	if fi, err := os.Stat(filepath.Join(dir, "bootstrap")); err == nil && fi.Mode().IsRegular() {
		return awslambda.Code_FromAsset(jsii.String(dir), nil)
	}
	dir = filepath.Join(*awscdk.Stage_Of(s.Stack).Outdir(), "placeholder", fn)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		panic(fmt.Sprintf("infra: placeholder asset: %v", err))
	}
	if err := os.WriteFile(filepath.Join(dir, "bootstrap"), []byte(PlaceholderBootstrap), 0o755); err != nil {
		panic(fmt.Sprintf("infra: placeholder asset: %v", err))
	}
	awscdk.Annotations_Of(s.Stack).AddWarningV2(jsii.String("sluice:placeholder-"+fn), jsii.String(fmt.Sprintf(
		"%s/bootstrap is missing: the %s function gets a placeholder that fails every call; run `make build` before deploying",
		filepath.Join(distDir, fn), fn)))
	return awslambda.Code_FromAsset(jsii.String(dir), nil)
}

// Table actions each function uses (see internal/store/dynamo): exactly these, on exactly these
// tables. The authorizer reads key items (which copy their account's settings; account items
// only for keys written before the copies), and records a key's last-used day on its key item
// (UpdateItem, at most once per key per day, limited to key items by keyItemsOnly). run counts
// the request and reads the month's usage on the meter item (the usage table: UpdateItem),
// claims, completes and releases idempotency records (Claim puts and reads, and fences a
// taken-over run on the meter item; Settle updates the meter item and the record), and reads
// the meter item when a conditional write is refused. services counts the request on the meter
// item, whose usage answers GET /v1/usage. The dashboard manages its account's keys (AddKey and
// RevokeKey write account, key and key-id items, each write limited to its items and
// attributes by layout.DashboardWrites; ListKeys reads them and queries the by_account index,
// indexActions), runs playground pipelines on the meter item as run does (without
// idempotency keys), counts failed sign-ins per address in rate_windows, and keeps its sign-in
// links and sessions. No function scans, creates or updates accounts: that is the operator's
// policy (README.md).
var tableActions = map[string]map[string][]string{
	FnAuthorizer: {"accounts": {"dynamodb:GetItem", "dynamodb:UpdateItem"}},
	FnRun: {
		"idempotency": {"dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:UpdateItem", "dynamodb:DeleteItem"},
		"usage":       {"dynamodb:GetItem", "dynamodb:UpdateItem"},
	},
	FnServices: {
		"usage": {"dynamodb:GetItem", "dynamodb:UpdateItem"},
	},
	FnDashboard: {
		// accounts: GetItem only here; its writes are layout.DashboardWrites, item by item.
		"accounts": {"dynamodb:GetItem"},
		"usage":    {"dynamodb:GetItem", "dynamodb:UpdateItem"},
		// Failed sign-ins per client address (UpdateItem counts one, GetItem reads the count).
		"rate_windows": {"dynamodb:GetItem", "dynamodb:UpdateItem"},
		"sessions":     {"dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:UpdateItem", "dynamodb:DeleteItem"},
	},
}

// keyWriteConditions limits a write to items whose partition key starts with prefix and, with
// attributes, to requests that name no other attribute.
func keyWriteConditions(prefix string, attributes []string) map[string]any {
	c := map[string]any{"ForAllValues:StringLike": map[string]any{"dynamodb:LeadingKeys": []string{prefix + "*"}}}
	if attributes != nil {
		c["ForAllValues:StringEquals"] = map[string]any{"dynamodb:Attributes": attributes}
	}
	return c
}

// indexActions are the actions a function takes on the accounts table's by_account index.
var indexActions = map[string][]string{FnDashboard: {"dynamodb:Query"}}

// keyItemsOnly limits the authorizer's writes to key items (partition keys "key#<hash>"): it
// records when a key was last used and can change nothing else.
var keyItemsOnly = keyWriteConditions(layout.PrefixKey, nil)

func (s *ServiceStack) grant() {
	byKind := map[string]awsdynamodb.ITableV2{
		"accounts": s.Tables.Accounts, "idempotency": s.Tables.Idempotency,
		"usage": s.Tables.Usage, "rate_windows": s.Tables.RateWindows, "sessions": s.Tables.Sessions,
	}
	for _, fn := range []string{FnAuthorizer, FnRun, FnServices, FnDashboard} {
		for _, kind := range []string{"accounts", "idempotency", "usage", "rate_windows", "sessions"} {
			actions := tableActions[fn][kind]
			if len(actions) == 0 {
				continue
			}
			if fn == FnAuthorizer && kind == "accounts" {
				// Reads anywhere in the table; writes to key items only.
				s.Functions[fn].AddToRolePolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
					Sid: jsii.String("Accounts"), Actions: jsii.Strings("dynamodb:GetItem"), Resources: jsii.Strings(*byKind[kind].TableArn()),
				}))
				s.Functions[fn].AddToRolePolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
					Sid: jsii.String("KeyLastUsed"), Actions: jsii.Strings("dynamodb:UpdateItem"), Resources: jsii.Strings(*byKind[kind].TableArn()),
					Conditions: &keyItemsOnly,
				}))
				continue
			}
			s.Functions[fn].AddToRolePolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
				Sid:       jsii.String(sid(kind)),
				Actions:   jsii.Strings(actions...),
				Resources: jsii.Strings(*byKind[kind].TableArn()),
			}))
		}
		if fn == FnDashboard {
			for _, w := range layout.DashboardWrites() {
				cond := keyWriteConditions(w.Prefix, w.Attributes)
				s.Functions[fn].AddToRolePolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
					Sid: jsii.String(w.Sid), Actions: jsii.Strings(w.Action), Resources: jsii.Strings(*s.Tables.Accounts.TableArn()),
					Conditions: &cond,
				}))
			}
		}
		if actions := indexActions[fn]; len(actions) > 0 {
			s.Functions[fn].AddToRolePolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
				Sid:       jsii.String("AccountsIndex"),
				Actions:   jsii.Strings(actions...),
				Resources: jsii.Strings(*s.Tables.Accounts.TableArn() + "/index/by_account"),
			}))
		}
		// Every function reads the secret at cold start (the pepper, and the tokenization key):
		// GetSecretValue only (Secret.GrantRead would add DescribeSecret, which no code calls).
		s.Functions[fn].AddToRolePolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
			Sid:       jsii.String("Secret"),
			Actions:   jsii.Strings("secretsmanager:GetSecretValue"),
			Resources: jsii.Strings(*s.secretARNForPolicies(s.Secret, s.Names.Secret())),
		}))
		if fn == FnAuthorizer {
			// The copy key: the authorizer's alone (the dashboard must not seal copies).
			s.Functions[fn].AddToRolePolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
				Sid:       jsii.String("CopyKey"),
				Actions:   jsii.Strings("secretsmanager:GetSecretValue"),
				Resources: jsii.Strings(*s.secretARNForPolicies(s.CopyKey, s.Names.CopyKeySecret())),
			}))
		}
	}
}

// secretARNForPolicies is secret's ARN as IAM should match it: the full ARN of the secret the
// primary stack creates; in the other regions, which know the replica by name only, the ARN of
// name with Secrets Manager's random six-character suffix as a wildcard.
func (s *ServiceStack) secretARNForPolicies(secret awssecretsmanager.ISecret, name string) *string {
	if s.Primary {
		return secret.SecretArn()
	}
	return s.Stack.FormatArn(&awscdk.ArnComponents{
		Service: jsii.String("secretsmanager"), Resource: jsii.String("secret"),
		ResourceName: jsii.String(name + "-??????"), ArnFormat: awscdk.ArnFormat_COLON_RESOURCE_NAME,
	})
}

func sid(kind string) string {
	return map[string]string{"accounts": "Accounts", "idempotency": "Idempotency", "usage": "Usage", "rate_windows": "RateWindows", "sessions": "Sessions"}[kind]
}
