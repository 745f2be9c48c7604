package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/sluice-api/sluice/internal/account"
	"github.com/sluice-api/sluice/internal/store"
	"github.com/sluice-api/sluice/internal/usageplan"
)

// command is one run of keyctl.
type command struct {
	opts   options
	out    io.Writer
	errOut io.Writer
	env    Env

	st     store.Store
	mgr    *account.Manager
	pepper []byte                // set when the command needs it
	prov   usageplan.Provisioner // nil unless -usage-plans
	aws    *aws.Config           // nil on SQLite
}

func (c *command) dispatch(ctx context.Context, args []string) error {
	name := args[0]
	if name == "help" {
		return flag.ErrHelp
	}
	if name == "usage" {
		return c.usage(ctx, args[1:])
	}
	if name == "dashboard-link" {
		return c.dashboardLink(ctx, args[1:])
	}
	if name == "migrate" {
		return c.migrate(ctx, args[1:])
	}
	if len(args) < 2 {
		switch name {
		case "account", "key":
			return usagef("%s needs a subcommand (see keyctl -h)", name)
		}
		return usagef("unknown command %q (see keyctl -h)", name)
	}
	sub, rest := args[1], args[2:]
	switch name + " " + sub {
	case "account create":
		return c.accountCreate(ctx, rest)
	case "account show":
		return c.accountShow(ctx, rest)
	case "account update":
		return c.accountUpdate(ctx, rest)
	case "account disable":
		return c.accountDisable(ctx, rest)
	case "key create":
		return c.keyCreate(ctx, rest, false)
	case "key rotate":
		return c.keyCreate(ctx, rest, true)
	case "key revoke":
		return c.keyRevoke(ctx, rest)
	case "key list":
		return c.keyList(ctx, rest)
	}
	switch name {
	case "account", "key":
		return usagef("unknown command %q (see keyctl -h)", name+" "+sub)
	}
	return usagef("unknown command %q (see keyctl -h)", name)
}

// flags returns a flag set for a subcommand; -json is accepted after the command too.
func (c *command) flags(name string) *flag.FlagSet {
	fs := newFlagSet(name)
	fs.BoolVar(&c.opts.json, "json", c.opts.json, "")
	return fs
}

// args parses a subcommand's flags and wants exactly the named positional arguments.
func (c *command) args(fs *flag.FlagSet, args []string, names ...string) ([]string, error) {
	pos, err := parseMixed(fs, args)
	if err != nil {
		return nil, err
	}
	if len(pos) != len(names) {
		want := "no arguments"
		if len(names) > 0 {
			want = strings.Join(names, " ")
		}
		return nil, usagef("%s takes %s, got %d argument(s) (see keyctl -h)", fs.Name(), want, len(pos))
	}
	for i, p := range pos {
		if strings.Contains(p, account.KeyPrefix) {
			return nil, usagef("%s: pass the %s, not an API key", fs.Name(), names[i])
		}
		if strings.TrimSpace(p) == "" {
			return nil, usagef("%s: the %s is empty", fs.Name(), names[i])
		}
	}
	return pos, nil
}

// settingsFlags are the flags of account create and account update.
type settingsFlags struct {
	region    string
	tier      string
	allowance int64
	rateLimit int64
}

func (s *settingsFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&s.region, "region", "", "")
	fs.StringVar(&s.tier, "tier", account.DefaultTier, "")
	fs.Int64Var(&s.allowance, "allowance", account.DefaultAllowance, "")
	fs.Int64Var(&s.rateLimit, "rate-limit", account.DefaultRateLimit, "")
}

// validate checks the settings; a bad value is a usage error.
func validate(s account.Settings) error {
	if err := s.Validate(); err != nil {
		msg := strings.TrimPrefix(err.Error(), "account: ")
		return usagef("%s", msg)
	}
	return nil
}

// notFound names the missing account or key; other errors pass through unreachable.
func notFound(err error, kind, id, what string) error {
	if errors.Is(err, store.ErrNotFound) {
		return &failure{ExitNotFound, fmt.Sprintf("no %s %s", kind, id)}
	}
	if errors.Is(err, account.ErrDisabled) {
		return &failure{ExitFailure, fmt.Sprintf("account %s is disabled: it gets no new keys", id)}
	}
	return unreachable(what, err)
}

func (c *command) accountCreate(ctx context.Context, args []string) error {
	fs := c.flags("account create")
	var sf settingsFlags
	sf.register(fs)
	if _, err := c.args(fs, args); err != nil {
		return err
	}
	if err := c.open(ctx, need{pepper: true, create: true}); err != nil {
		return err
	}
	if sf.region == "" {
		r, err := c.defaultRegion()
		if err != nil {
			return err
		}
		sf.region = r
	}
	s := account.Settings{Region: sf.region, Tier: sf.tier, RateLimit: sf.rateLimit, Allowance: sf.allowance}
	if err := validate(s); err != nil {
		return err
	}
	a, key, err := c.mgr.Create(ctx, s)
	if err != nil {
		return unreachable("create the account", err)
	}
	keys, err := c.mgr.ListKeys(ctx, a.ID)
	if err != nil || len(keys) != 1 {
		// The account and its key exist: the key must be shown now or never.
		keys = []store.Key{{Account: a.ID, Prefix: key[:len(account.KeyPrefix)+4], Last4: key[len(key)-4:], CreatedAt: a.CreatedAt}}
	}
	var provErr error
	if c.prov != nil {
		a, provErr = c.provision(ctx, a, "")
	}
	c.printCreated("account create", a, keys[0], key, provErr == nil && c.prov != nil)
	if provErr != nil {
		return &failure{ExitFailure, fmt.Sprintf("account %s was created (its key is above), but its API Gateway key was not: %v; fix it with: keyctl ... account update %s -tier %s", a.ID, provErr, a.ID, a.Tier)}
	}
	return nil
}

// provision gives account a a new API Gateway key in the plan of its tier and stores the key's
// value; the key whose value is old (if any) is deleted afterwards.
func (c *command) provision(ctx context.Context, a store.Account, old string) (store.Account, error) {
	value, err := c.prov.Provision(ctx, a.ID, a.Tier)
	if err != nil {
		return a, err
	}
	updated, err := c.mgr.Update(ctx, a.ID, account.Change{UsagePlanKey: &value})
	if err != nil {
		if rerr := c.prov.Retire(ctx, a.ID, value); rerr != nil {
			return a, fmt.Errorf("store the API Gateway key: %w (and deleting it failed: %v)", err, rerr)
		}
		return a, fmt.Errorf("store the API Gateway key: %w", err)
	}
	if old != "" && old != value {
		if err := c.prov.Retire(ctx, a.ID, old); err != nil {
			fmt.Fprintf(c.errOut, "keyctl: warning: the account's previous API Gateway key was not deleted: %v\n", err)
		}
	}
	return updated, nil
}

func (c *command) accountShow(ctx context.Context, args []string) error {
	pos, err := c.args(c.flags("account show"), args, "ACCOUNT")
	if err != nil {
		return err
	}
	if err := c.open(ctx, need{}); err != nil {
		return err
	}
	a, err := c.mgr.Get(ctx, pos[0])
	if err != nil {
		return notFound(err, "account", pos[0], "read the account")
	}
	keys, err := c.mgr.ListKeys(ctx, a.ID)
	if err != nil {
		return notFound(err, "account", pos[0], "list the keys")
	}
	c.printAccount(a, keys)
	return nil
}

func (c *command) accountUpdate(ctx context.Context, args []string) error {
	fs := c.flags("account update")
	var sf settingsFlags
	sf.register(fs)
	pos, err := c.args(fs, args, "ACCOUNT")
	if err != nil {
		return err
	}
	var ch account.Change
	check := account.Settings{Region: LocalRegion, Tier: account.DefaultTier, RateLimit: 1}
	fs.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "region":
			ch.Region, check.Region = &sf.region, sf.region
		case "tier":
			ch.Tier, check.Tier = &sf.tier, sf.tier
		case "allowance":
			ch.Allowance, check.Allowance = &sf.allowance, sf.allowance
		case "rate-limit":
			ch.RateLimit, check.RateLimit = &sf.rateLimit, sf.rateLimit
		}
	})
	if ch == (account.Change{}) {
		return usagef("account update: nothing to change (give -region, -tier, -allowance or -rate-limit)")
	}
	if err := validate(check); err != nil {
		return err
	}
	if err := c.open(ctx, need{}); err != nil {
		return err
	}
	id := pos[0]
	before, err := c.mgr.Get(ctx, id)
	if err != nil {
		return notFound(err, "account", id, "read the account")
	}
	// A tier change moves the API Gateway key first, so that a failure leaves the account as it
	// was; a failed store update moves it back.
	moved := false
	if c.prov != nil && ch.Tier != nil && *ch.Tier != before.Tier && before.UsagePlanKey != "" {
		if err := c.prov.Move(ctx, id, before.UsagePlanKey, before.Tier, *ch.Tier); err != nil {
			return &failure{ExitFailure, fmt.Sprintf("account %s is unchanged: moving its API Gateway key to the %s plan failed: %v", id, *ch.Tier, err)}
		}
		moved = true
	}
	a, err := c.mgr.Update(ctx, id, ch)
	if err != nil {
		if moved {
			if merr := c.prov.Move(ctx, id, before.UsagePlanKey, *ch.Tier, before.Tier); merr != nil {
				fmt.Fprintf(c.errOut, "keyctl: warning: the API Gateway key stayed in the %s plan: %v\n", *ch.Tier, merr)
			}
		}
		return notFound(err, "account", id, "update the account")
	}
	if c.prov != nil && a.UsagePlanKey == "" {
		// The account never got its API Gateway key (a failed provisioning): make it now.
		if a, err = c.provision(ctx, a, ""); err != nil {
			return &failure{ExitFailure, fmt.Sprintf("account %s was updated, but its API Gateway key was not made: %v", id, err)}
		}
	}
	keys, err := c.mgr.ListKeys(ctx, id)
	if err != nil {
		return notFound(err, "account", id, "list the keys")
	}
	c.printAccount(a, keys)
	return nil
}

func (c *command) accountDisable(ctx context.Context, args []string) error {
	pos, err := c.args(c.flags("account disable"), args, "ACCOUNT")
	if err != nil {
		return err
	}
	if err := c.open(ctx, need{}); err != nil {
		return err
	}
	a, err := c.mgr.Disable(ctx, pos[0])
	if err != nil {
		return notFound(err, "account", pos[0], "disable the account")
	}
	keys, err := c.mgr.ListKeys(ctx, a.ID)
	if err != nil {
		return notFound(err, "account", pos[0], "list the keys")
	}
	c.printAccount(a, keys)
	return nil
}

// keyCreate is key create, and with rotate key rotate.
func (c *command) keyCreate(ctx context.Context, args []string, rotate bool) error {
	name := "key create"
	if rotate {
		name = "key rotate"
	}
	pos, err := c.args(c.flags(name), args, "ACCOUNT")
	if err != nil {
		return err
	}
	if err := c.open(ctx, need{pepper: true}); err != nil {
		return err
	}
	id := pos[0]
	var key string
	var k store.Key
	if rotate {
		key, k, err = c.mgr.RotateKey(ctx, id)
	} else {
		key, k, err = c.mgr.CreateKey(ctx, id)
	}
	if err != nil {
		return notFound(err, "account", id, name)
	}
	a, err := c.mgr.Get(ctx, id)
	if err != nil {
		// The key exists: show it even though the account could not be read back.
		a = store.Account{ID: id}
	}
	var provErr error
	provisioned := false
	if rotate && c.prov != nil && err == nil {
		a, provErr = c.provision(ctx, a, a.UsagePlanKey)
		provisioned = provErr == nil
	}
	c.printCreated(name, a, k, key, provisioned)
	if provErr != nil {
		return &failure{ExitFailure, fmt.Sprintf("the keys of %s were rotated (the new key is above), but its API Gateway key was not: %v", id, provErr)}
	}
	return nil
}

func (c *command) keyRevoke(ctx context.Context, args []string) error {
	pos, err := c.args(c.flags("key revoke"), args, "KEY_ID")
	if err != nil {
		return err
	}
	if err := c.open(ctx, need{}); err != nil {
		return err
	}
	if err := c.mgr.RevokeKey(ctx, pos[0]); err != nil {
		return notFound(err, "key", pos[0], "revoke the key")
	}
	c.printRevoked(pos[0])
	return nil
}

func (c *command) keyList(ctx context.Context, args []string) error {
	pos, err := c.args(c.flags("key list"), args, "ACCOUNT")
	if err != nil {
		return err
	}
	if err := c.open(ctx, need{}); err != nil {
		return err
	}
	keys, err := c.mgr.ListKeys(ctx, pos[0])
	if err != nil {
		return notFound(err, "account", pos[0], "list the keys")
	}
	c.printKeys(pos[0], keys)
	return nil
}

func (c *command) usage(ctx context.Context, args []string) error {
	fs := c.flags("usage")
	month := fs.String("month", "", "")
	pos, err := c.args(fs, args, "ACCOUNT")
	if err != nil {
		return err
	}
	if *month == "" {
		*month = monthOf(c.env.now())
	} else if t, err := time.Parse("2006-01", *month); err != nil || t.Format("2006-01") != *month {
		return usagef("usage: -month %q: want YYYY-MM", *month)
	}
	if err := c.open(ctx, need{}); err != nil {
		return err
	}
	a, err := c.mgr.Get(ctx, pos[0])
	if err != nil {
		return notFound(err, "account", pos[0], "read the account")
	}
	u, err := c.st.Usage(ctx, a.ID, *month)
	if err != nil {
		return unreachable("read the usage", err)
	}
	c.printUsage(account.Report(a, *month, u))
	return nil
}

// keyCopier is a store whose key items copy their account's settings (the DynamoDB store).
type keyCopier interface {
	CopyAccountsToKeys(ctx context.Context) (int, error)
}

// migrate brings the store's layout up to date: on DynamoDB it copies every account's settings
// onto its key items, so that the authorizer reads one item per request (docs/aws.md,
// "Migrations"). It is safe to run again and while the service runs. SQLite migrates itself
// when it is opened.
func (c *command) migrate(ctx context.Context, args []string) error {
	fs := c.flags("migrate")
	if _, err := c.args(fs, args); err != nil {
		return err
	}
	if err := c.open(ctx, need{}); err != nil {
		return err
	}
	n := 0
	if kc, ok := c.st.(keyCopier); ok {
		var err error
		if n, err = kc.CopyAccountsToKeys(ctx); err != nil {
			return unreachable("copy the accounts to their keys", err)
		}
	}
	if c.opts.json {
		c.writeJSON(struct {
			Accounts int `json:"accounts_copied_to_keys"`
		}{n})
		return nil
	}
	fmt.Fprintf(c.out, "Migrated: the settings of %d accounts copied onto their keys.\n", n)
	return nil
}
