package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/apigateway"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"

	"github.com/sluice-api/sluice/internal/account"
	"github.com/sluice-api/sluice/internal/secrets"
	"github.com/sluice-api/sluice/internal/secrets/awssm"
	"github.com/sluice-api/sluice/internal/store"
	"github.com/sluice-api/sluice/internal/store/dynamo"
	"github.com/sluice-api/sluice/internal/store/sqlite"
	"github.com/sluice-api/sluice/internal/usageplan"
)

// Files in the data directory, as the local server names them.
const (
	DBFile      = "sluice.db"
	SecretsFile = "secrets.json"
)

// need says what a command needs from its surroundings.
type need struct {
	// pepper: the command hashes a new key.
	pepper bool
	// create: the command may start a new store (a new database file and secrets file); every
	// other command wants the ones the service uses, so that a wrong -data is an error rather
	// than an empty store.
	create bool
}

// open connects to the store (and, as needed, the secrets and the usage plans).
func (c *command) open(ctx context.Context, n need) error {
	var pepper []byte
	switch c.opts.store {
	case StoreSQLite:
		path := filepath.Join(c.opts.data, DBFile)
		if !n.create && !exists(path) {
			return &failure{ExitFailure, fmt.Sprintf("no Sluice store in %s (%s does not exist; wrong -data?)", c.opts.data, path)}
		}
		if err := os.MkdirAll(c.opts.data, 0o700); err != nil {
			return &failure{ExitFailure, fmt.Sprintf("store unreachable: %v", err)}
		}
		st, err := sqlite.Open(path)
		if err != nil {
			return &failure{ExitFailure, fmt.Sprintf("store unreachable: %v", err)}
		}
		c.st = st
	case StoreDynamoDB:
		cfg, err := dynamo.AWSConfig(ctx, c.opts.endpoint)
		if err != nil {
			return &failure{ExitFailure, fmt.Sprintf("store unreachable: %v", err)}
		}
		c.aws = &cfg
		var opts []dynamo.Option
		if c.opts.copyKeyID != "" {
			key, err := awssm.Key(ctx, secretsmanager.NewFromConfig(cfg), c.opts.copyKeyID)
			if err != nil {
				return &failure{ExitFailure, fmt.Sprintf("read the copy key: %v", err)}
			}
			opts = append(opts, dynamo.WithCopyKey(key))
		}
		c.st = dynamo.New(dynamo.ClientFromConfig(cfg, c.opts.endpoint), dynamo.TablesWithPrefix(c.opts.tablePrefix), opts...)
		if c.opts.plans != nil {
			client := apigateway.NewFromConfig(cfg, func(o *apigateway.Options) {
				if c.opts.apigwEndpoint != "" {
					o.BaseEndpoint = aws.String(c.opts.apigwEndpoint)
				}
			})
			c.prov = usageplan.NewAPIGateway(client, c.opts.plans)
		}
	}
	if n.pepper {
		var err error
		if pepper, err = c.loadPepper(ctx, n.create); err != nil {
			return err
		}
	}
	c.pepper = pepper
	c.mgr = account.NewManager(c.st, pepper, c.env.now)
	return nil
}

// loadPepper reads the pepper: from Secrets Manager with -secret-id, else from the data
// directory's secrets file. A missing file is created only when a new store may be started (a
// new key hashed with a new pepper would not work with a service that has another one), and
// never for AWS DynamoDB, whose service reads its pepper from Secrets Manager.
func (c *command) loadPepper(ctx context.Context, create bool) ([]byte, error) {
	if c.opts.secretID != "" {
		src := awssm.New(secretsmanager.NewFromConfig(*c.aws), c.opts.secretID)
		sec, err := src.Load(ctx)
		if err != nil {
			return nil, &failure{ExitFailure, fmt.Sprintf("read the pepper: %v", err)}
		}
		return sec.Pepper, nil
	}
	path := filepath.Join(c.opts.data, SecretsFile)
	local := c.opts.store == StoreSQLite || c.opts.endpoint != ""
	if !exists(path) {
		switch {
		case !local:
			return nil, usagef("-secret-id is required on AWS DynamoDB: keys must be hashed with the deployment's pepper")
		case !create:
			return nil, &failure{ExitFailure, fmt.Sprintf("%s is missing: a key made now would not match the service's pepper (wrong -data?)", path)}
		}
	}
	sec, err := secrets.File{Path: path}.Load(ctx)
	if err != nil {
		return nil, &failure{ExitFailure, fmt.Sprintf("read the pepper: %v", err)}
	}
	return sec.Pepper, nil
}

// defaultRegion is the region of a new account when -region is not given: "local" on a local
// store (so keys work with the local server), else the AWS region of the configuration.
func (c *command) defaultRegion() (string, error) {
	if c.opts.store == StoreSQLite || c.opts.endpoint != "" {
		return LocalRegion, nil
	}
	if c.aws != nil && c.aws.Region != "" {
		return c.aws.Region, nil
	}
	return "", usagef("-region is required: no AWS region is configured")
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return !errors.Is(err, fs.ErrNotExist)
}

// unreachable turns a store error other than "not found" into a one-line failure naming what
// failed.
func unreachable(what string, err error) error {
	if errors.Is(err, store.ErrNotFound) {
		return err
	}
	var conn interface{ ConnectionError() bool }
	if errors.As(err, &conn) && conn.ConnectionError() {
		return &failure{ExitFailure, fmt.Sprintf("store unreachable: %s: %v", what, err)}
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return &failure{ExitFailure, fmt.Sprintf("store unreachable: %s: no answer in time: %v", what, err)}
	}
	return &failure{ExitFailure, fmt.Sprintf("%s: %v", what, err)}
}

func (c *command) close() {
	if c.st != nil {
		_ = c.st.Close()
	}
}

// monthOf formats t's UTC month.
func monthOf(t time.Time) string { return account.Month(t) }
