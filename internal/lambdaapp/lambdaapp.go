// Package lambdaapp builds what every Sluice Lambda function needs from its environment: the
// DynamoDB store, the secrets from Secrets Manager, the engine and the api.Server with JSON logs
// and Embedded Metric Format metrics. The functions' mains only call it and start the runtime.
package lambdaapp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"time"

	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"

	"github.com/sluice-api/sluice/internal/account"
	"github.com/sluice-api/sluice/internal/api"
	"github.com/sluice-api/sluice/internal/dashboard"
	"github.com/sluice-api/sluice/internal/metrics"
	"github.com/sluice-api/sluice/internal/pipeline"
	"github.com/sluice-api/sluice/internal/secrets/awssm"
	"github.com/sluice-api/sluice/internal/services/builtin"
	"github.com/sluice-api/sluice/internal/store/dynamo"
	"github.com/sluice-api/sluice/internal/timing"
)

// Environment variables the functions read (the CDK stack sets them).
const (
	EnvRegion      = "AWS_REGION"            // set by Lambda
	EnvTablePrefix = "SLUICE_TABLE_PREFIX"   // table names default to prefix + accounts, idempotency, usage, rate_windows, sessions
	EnvAccounts    = "SLUICE_TABLE_ACCOUNTS" // each table name may also be given on its own
	EnvIdempotency = "SLUICE_TABLE_IDEMPOTENCY"
	EnvUsage       = "SLUICE_TABLE_USAGE"
	EnvRateWindows = "SLUICE_TABLE_RATE_WINDOWS"
	EnvSessions    = "SLUICE_TABLE_SESSIONS"    // the dashboard's sign-in links and sessions
	EnvSecretID    = "SLUICE_SECRET_ID"         // ARN or name of the secret with the pepper and tokenization key
	EnvNamespace   = "SLUICE_METRICS_NAMESPACE" // CloudWatch namespace, default "Sluice"
	EnvFunction    = "AWS_LAMBDA_FUNCTION_NAME" // set by Lambda; a metrics dimension
)

// Config is the functions' configuration.
type Config struct {
	Region    string
	Tables    dynamo.Tables
	SecretID  string
	Namespace string
	Function  string
}

// FromEnv reads the configuration from getenv (os.Getenv in the functions).
func FromEnv(getenv func(string) string) (Config, error) {
	c := Config{
		Region: getenv(EnvRegion), SecretID: getenv(EnvSecretID),
		Namespace: getenv(EnvNamespace), Function: getenv(EnvFunction),
		Tables: dynamo.TablesWithPrefix(getenv(EnvTablePrefix)),
	}
	for env, dst := range map[string]*string{
		EnvAccounts: &c.Tables.Accounts, EnvIdempotency: &c.Tables.Idempotency,
		EnvUsage: &c.Tables.Usage, EnvRateWindows: &c.Tables.RateWindows, EnvSessions: &c.Tables.Sessions,
	} {
		if v := getenv(env); v != "" {
			*dst = v
		}
	}
	if c.Namespace == "" {
		c.Namespace = "Sluice"
	}
	var missing []error
	if c.Region == "" {
		missing = append(missing, errors.New(EnvRegion+" is not set"))
	}
	if c.SecretID == "" {
		missing = append(missing, errors.New(EnvSecretID+" is not set"))
	}
	if c.Tables.Accounts == "" || c.Tables.Idempotency == "" || c.Tables.Usage == "" || c.Tables.RateWindows == "" {
		missing = append(missing, errors.New("table names are not set ("+EnvTablePrefix+" or each SLUICE_TABLE_*)"))
	}
	if err := errors.Join(missing...); err != nil {
		return Config{}, fmt.Errorf("lambdaapp: %w", err)
	}
	return c, nil
}

// App is what a function needs.
type App struct {
	Server   *api.Server // nil in an authorizer-only app
	Accounts *account.Manager
	Log      *slog.Logger
	// Dashboard is the account dashboard (the Dashboard part only).
	Dashboard http.Handler
}

// Part says how much of the app a function needs.
type Part int

// Parts of the app.
const (
	// Full builds the engine and the api.Server (run and services functions).
	Full Part = iota
	// AuthOnly builds the key check only (the authorizer: no models loaded at cold start).
	AuthOnly
	// Dashboard builds the full app and the account dashboard on top (it needs the sessions
	// table).
	Dashboard
)

// New builds the app: AWS clients from the default chain (endpoints may be overridden with the
// SDK's AWS_ENDPOINT_URL_* variables, which the tests use), secrets read once, models loaded once.
// logs receives JSON log lines; metricsOut receives EMF lines (both stdout on Lambda).
func New(ctx context.Context, cfg Config, part Part, logs, metricsOut io.Writer) (*App, error) {
	awsCfg, err := config.LoadDefaultConfig(ctx, config.WithRegion(cfg.Region))
	if err != nil {
		return nil, fmt.Errorf("lambdaapp: aws config: %w", err)
	}
	sec, err := awssm.New(secretsmanager.NewFromConfig(awsCfg), cfg.SecretID).Load(ctx)
	if err != nil {
		return nil, fmt.Errorf("lambdaapp: %w", err)
	}
	if part == Dashboard && cfg.Tables.Sessions == "" {
		return nil, fmt.Errorf("lambdaapp: the dashboard needs its sessions table (%s or %s)", EnvTablePrefix, EnvSessions)
	}
	st := dynamo.New(dynamodb.NewFromConfig(awsCfg), cfg.Tables)
	log := slog.New(slog.NewJSONHandler(logs, nil))
	accounts := account.NewManager(st, sec.Pepper, time.Now)
	if part == AuthOnly {
		return &App{Accounts: accounts, Log: log}, nil
	}
	reg, err := builtin.New()
	if err != nil {
		return nil, fmt.Errorf("lambdaapp: %w", err)
	}
	engine, err := pipeline.New(reg, pipeline.WithLogger(log))
	if err != nil {
		return nil, fmt.Errorf("lambdaapp: %w", err)
	}
	rec := metrics.New(metricsOut, cfg.Namespace, map[string]string{"Function": cfg.Function})
	srv := api.NewServer(engine, st, accounts, sec.TokenKey, api.Config{
		Region: cfg.Region, Log: log, Observe: Observer(rec), SettleReserve: timing.SettleReserve,
	})
	app := &App{Server: srv, Accounts: accounts, Log: log}
	if part == Dashboard {
		// Served only through API Gateway, always over HTTPS: __Host- cookies.
		if app.Dashboard, err = dashboard.New(dashboard.Config{
			Store: st, Accounts: accounts, API: srv, Registry: reg, Pepper: sec.Pepper,
			Region: cfg.Region, Secure: true, Log: log,
		}); err != nil {
			return nil, fmt.Errorf("lambdaapp: %w", err)
		}
	}
	return app, nil
}

// MustNew builds the app from the process environment, or exits: a function that cannot start
// must fail its init so Lambda reports it (and retries on the next invocation).
func MustNew(part Part) *App {
	ctx := context.Background()
	cfg, err := FromEnv(os.Getenv)
	if err == nil {
		var app *App
		if app, err = New(ctx, cfg, part, os.Stdout, os.Stdout); err == nil {
			return app
		}
	}
	slog.New(slog.NewJSONHandler(os.Stdout, nil)).Error("init failed", "error", err.Error())
	os.Exit(1)
	return nil
}

// Observer turns api observations into metrics.
func Observer(rec *metrics.Recorder) func(api.Observation) {
	return func(o api.Observation) {
		status := o.RunStatus
		if status == "" {
			status = "rejected"
		}
		m := metrics.RunMetrics{
			Route: o.Route, Status: status, HTTPStatus: o.HTTPStatus, Code: o.Code,
			Steps: len(o.Steps), BilledCharacters: o.BilledCharacters, Latency: o.Duration,
		}
		for _, s := range o.Steps {
			m.StepLatencies = append(m.StepLatencies, metrics.StepLatency{Service: s.Service, Latency: s.Duration})
		}
		rec.Run(m)
	}
}
