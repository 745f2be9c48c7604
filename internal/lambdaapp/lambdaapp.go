// Package lambdaapp builds what every Sluice Lambda function needs from its environment: the
// DynamoDB store, the secrets from Secrets Manager, the key check and JSON logs. Package apiapp
// adds the engine and the api.Server with Embedded Metric Format metrics. The functions' mains
// only call them and start the runtime.
package lambdaapp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"

	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"

	"github.com/sluice-api/sluice/internal/account"
	"github.com/sluice-api/sluice/internal/secrets"
	"github.com/sluice-api/sluice/internal/secrets/awssm"
	"github.com/sluice-api/sluice/internal/store/dynamo"
)

// Environment variables the functions read (the CDK stack sets them).
const (
	EnvRegion      = "AWS_REGION"            // set by Lambda
	EnvTablePrefix = "SLUICE_TABLE_PREFIX"   // table names default to prefix + accounts, idempotency, usage, rate_windows, sessions
	EnvAccounts    = "SLUICE_TABLE_ACCOUNTS" // each table name may also be given on its own
	EnvIdempotency = "SLUICE_TABLE_IDEMPOTENCY"
	EnvUsage       = "SLUICE_TABLE_USAGE"
	EnvRateWindows = "SLUICE_TABLE_RATE_WINDOWS"
	EnvSessions    = "SLUICE_TABLE_SESSIONS" // the dashboard's sign-in links and sessions
	EnvSecretID    = "SLUICE_SECRET_ID"      // ARN or name of the secret with the pepper and tokenization key
	// EnvCopyKeySecretID names the secret with the copy key, which seals key items' copies of
	// their account's settings (dynamo.WithCopyKey). Only the authorizer has it: without it a
	// function's store trusts no copy and reads the account item too.
	EnvCopyKeySecretID = "SLUICE_COPY_KEY_SECRET_ID"
	EnvNamespace       = "SLUICE_METRICS_NAMESPACE" // CloudWatch namespace, default "Sluice"
	EnvFunction        = "AWS_LAMBDA_FUNCTION_NAME" // set by Lambda; a metrics dimension
)

// Config is the functions' configuration.
type Config struct {
	Region   string
	Tables   dynamo.Tables
	SecretID string
	// CopyKeySecretID is EnvCopyKeySecretID ("" for none).
	CopyKeySecretID string
	Namespace       string
	Function        string
}

// FromEnv reads the configuration from getenv (os.Getenv in the functions).
func FromEnv(getenv func(string) string) (Config, error) {
	c := Config{
		Region: getenv(EnvRegion), SecretID: getenv(EnvSecretID), CopyKeySecretID: getenv(EnvCopyKeySecretID),
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

// Base is what every function needs: the store, the accounts (key check) and the secrets, read
// once per container. It links no engine, model or service code, so the authorizer stays small;
// package apiapp adds the engine and the api.Server for the functions that run services.
type Base struct {
	Config   Config
	Store    *dynamo.Store
	Secrets  secrets.Secrets
	Accounts *account.Manager
	Log      *slog.Logger
}

// New builds the base: AWS clients from the default chain (endpoints may be overridden with the
// SDK's AWS_ENDPOINT_URL_* variables, which the tests use) and the secrets, read once. logs
// receives JSON log lines (stdout on Lambda).
func New(ctx context.Context, cfg Config, logs io.Writer) (*Base, error) {
	awsCfg, err := config.LoadDefaultConfig(ctx, config.WithRegion(cfg.Region))
	if err != nil {
		return nil, fmt.Errorf("lambdaapp: aws config: %w", err)
	}
	sec, err := awssm.New(secretsmanager.NewFromConfig(awsCfg), cfg.SecretID).Load(ctx)
	if err != nil {
		return nil, fmt.Errorf("lambdaapp: %w", err)
	}
	var opts []dynamo.Option
	if cfg.CopyKeySecretID != "" {
		key, err := awssm.Key(ctx, secretsmanager.NewFromConfig(awsCfg), cfg.CopyKeySecretID)
		if err != nil {
			return nil, fmt.Errorf("lambdaapp: copy key: %w", err)
		}
		opts = append(opts, dynamo.WithCopyKey(key))
	}
	st := dynamo.New(dynamodb.NewFromConfig(awsCfg), cfg.Tables, opts...)
	return &Base{
		Config: cfg, Store: st, Secrets: sec, Log: slog.New(slog.NewJSONHandler(logs, nil)),
		Accounts: account.NewManager(st, sec.Pepper, time.Now),
	}, nil
}

// MustNew builds the base from the process environment, or exits: a function that cannot start
// must fail its init so Lambda reports it (and retries on the next invocation).
func MustNew() *Base {
	b, err := fromEnv()
	if err != nil {
		Fail(err)
	}
	return b
}

func fromEnv() (*Base, error) {
	cfg, err := FromEnv(os.Getenv)
	if err != nil {
		return nil, err
	}
	return New(context.Background(), cfg, os.Stdout)
}

// Fail logs an init error as JSON on stdout and exits.
func Fail(err error) {
	slog.New(slog.NewJSONHandler(os.Stdout, nil)).Error("init failed", "error", err.Error())
	os.Exit(1)
}
