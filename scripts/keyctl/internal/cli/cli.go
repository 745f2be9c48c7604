// Package cli is keyctl, the operator's tool for Sluice accounts and API keys, as a function:
// Run parses the arguments, does the work on the embedded store or on DynamoDB, prints the
// result and returns the exit code. It talks to the same store as a running service, so every
// change (a rotation, a revocation, a disabled account) takes effect on the service's very next
// request.
//
// A whole API key is printed once, by the command that creates it (account create, key create,
// key rotate), on one line, and is never stored, logged or printed again: listings show the
// key id, its first characters and its last four.
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/sluice-api/sluice/internal/account"
	"github.com/sluice-api/sluice/internal/store"
	"github.com/sluice-api/sluice/internal/usageplan"
)

// Exit codes.
const (
	ExitOK       = 0
	ExitUsage    = 2 // a bad flag, argument or value
	ExitNotFound = 3 // no such account or key
	ExitFailure  = 4 // the store (or another dependency) is unreachable, or the work failed
)

// Env is what Run takes from its surroundings besides arguments and output.
type Env struct {
	// Getenv reads environment variables (os.Getenv); nil reads none. SLUICE_TABLE_PREFIX and
	// SLUICE_SECRET_ID give the defaults of -table-prefix and -secret-id, as in Lambda.
	Getenv func(string) string
	// Now is the clock (time.Now when nil).
	Now func() time.Time
}

func (e Env) getenv(k string) string {
	if e.Getenv == nil {
		return ""
	}
	return e.Getenv(k)
}

func (e Env) now() time.Time {
	if e.Now == nil {
		return time.Now()
	}
	return e.Now()
}

// Store kinds and defaults shared with the local server.
const (
	StoreSQLite        = "sqlite"
	StoreDynamoDB      = "dynamodb"
	DefaultDataDir     = ".data"
	DefaultTablePrefix = "sluice_"
	// LocalRegion is the region new accounts get on a local store: the local server's default.
	LocalRegion = "local"
	// DefaultTimeout bounds a whole command.
	DefaultTimeout = 30 * time.Second
)

// options are the global flags.
type options struct {
	data          string
	store         string
	endpoint      string
	tablePrefix   string
	secretID      string
	copyKeyID     string
	usagePlans    string
	apigwEndpoint string
	timeout       time.Duration
	json          bool
	plans         usageplan.Plans // parsed -usage-plans; nil when not given
}

// usageError is a bad flag, argument or value: exit 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, a ...any) error { return &usageError{fmt.Sprintf(format, a...)} }

// failure is an error with a fixed exit code and message.
type failure struct {
	code int
	msg  string
}

func (e *failure) Error() string { return e.msg }

const usageText = `keyctl manages Sluice accounts and API keys, on the embedded store or on DynamoDB, while the
service runs.

Usage:
  keyctl [global flags] COMMAND [ARGS] [flags]

Commands:
  account create [-region R] [-tier T] [-allowance N] [-rate-limit N]
                                 a new account and its first key (shown only this once)
  account show ACCOUNT           settings and key counts
  account update ACCOUNT [-region R] [-tier T] [-allowance N] [-rate-limit N]
  account disable ACCOUNT        every key of the account stops working at once
  key create ACCOUNT             another key for the account (shown only this once)
  key rotate ACCOUNT             a new key; every older key stops working at once
  key revoke KEY_ID              one key stops working at once
  key list ACCOUNT               key ids, first characters and last four; never a whole key
  usage ACCOUNT [-month YYYY-MM] characters, price band, cost, allowance left, runs
  migrate                        bring the store's layout up to date (DynamoDB: copy every account's
                                 settings onto its keys, sealed with -copy-key-secret-id's key;
                                 safe to repeat, see docs/aws.md)
  dashboard-link ACCOUNT [-base-url URL]
                                 a single-use sign-in link to the account's dashboard, valid
                                 15 minutes; URL is the server's base URL (default
                                 http://sluice-8080.localhost:8080, the local server's; on AWS
                                 the API's URL with its stage)

Global flags (before COMMAND; -json may also follow it):
  -data DIR                  data directory of the embedded store and the local secrets (default .data)
  -store sqlite|dynamodb     the store (default sqlite)
  -dynamodb-endpoint URL     a local DynamoDB-compatible server (dynalite); dummy credentials
  -table-prefix P            DynamoDB table name prefix (default $SLUICE_TABLE_PREFIX or sluice_)
  -secret-id ID              Secrets Manager secret holding the pepper (default $SLUICE_SECRET_ID);
                             without it the pepper is DIR/secrets.json
  -copy-key-secret-id ID     Secrets Manager secret holding the copy key (default
                             $SLUICE_COPY_KEY_SECRET_ID; the stack's sluice/<stage>/copy-key):
                             account create and update, key rotate and migrate seal the
                             settings copied onto keys, so the authorizer reads one item
  -usage-plans free=ID,standard=ID,enterprise=ID
                             API Gateway usage plans: account create, key rotate and a tier change
                             provision the account's API Gateway key (DynamoDB only)
  -apigateway-endpoint URL   API Gateway endpoint (tests, emulators)
  -timeout D                 give up after D (default 30s)
  -json                      print JSON instead of text

Exit codes: 0 done, 2 bad usage, 3 unknown account or key, 4 store unreachable or other failure.
`

// Run runs keyctl with args (without the program name) and returns the exit code.
func Run(ctx context.Context, args []string, stdout, stderr io.Writer, env Env) int {
	opts, rest, err := parseGlobal(args, env)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(stdout, usageText)
		return ExitOK
	}
	if err != nil {
		return report(stderr, err)
	}
	if len(rest) == 0 {
		return report(stderr, usagef("no command (see keyctl -h)"))
	}
	ctx, cancel := context.WithTimeout(ctx, opts.timeout)
	defer cancel()
	c := &command{opts: opts, out: stdout, errOut: stderr, env: env}
	defer c.close()
	if err := c.dispatch(ctx, rest); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stdout, usageText)
			return ExitOK
		}
		return report(stderr, err)
	}
	return ExitOK
}

func parseGlobal(args []string, env Env) (options, []string, error) {
	o := options{}
	fs := newFlagSet("keyctl")
	fs.StringVar(&o.data, "data", DefaultDataDir, "")
	fs.StringVar(&o.store, "store", StoreSQLite, "")
	fs.StringVar(&o.endpoint, "dynamodb-endpoint", "", "")
	prefix := env.getenv("SLUICE_TABLE_PREFIX")
	if prefix == "" {
		prefix = DefaultTablePrefix
	}
	fs.StringVar(&o.tablePrefix, "table-prefix", prefix, "")
	fs.StringVar(&o.secretID, "secret-id", env.getenv("SLUICE_SECRET_ID"), "")
	fs.StringVar(&o.copyKeyID, "copy-key-secret-id", env.getenv("SLUICE_COPY_KEY_SECRET_ID"), "")
	fs.StringVar(&o.usagePlans, "usage-plans", "", "")
	fs.StringVar(&o.apigwEndpoint, "apigateway-endpoint", "", "")
	fs.DurationVar(&o.timeout, "timeout", DefaultTimeout, "")
	fs.BoolVar(&o.json, "json", false, "")
	if err := parse(fs, args); err != nil {
		return o, nil, err
	}
	switch {
	case o.store != StoreSQLite && o.store != StoreDynamoDB:
		return o, nil, usagef("-store %q: want %s or %s", o.store, StoreSQLite, StoreDynamoDB)
	case o.timeout <= 0:
		return o, nil, usagef("-timeout must be positive")
	case o.store == StoreSQLite && o.usagePlans != "":
		return o, nil, usagef("-usage-plans needs -store dynamodb (usage plans exist only on AWS)")
	case o.store == StoreSQLite && (o.endpoint != "" || o.secretID != "" || o.copyKeyID != ""):
		return o, nil, usagef("-dynamodb-endpoint, -secret-id and -copy-key-secret-id need -store dynamodb")
	case o.data == "":
		return o, nil, usagef("-data must not be empty")
	}
	if o.usagePlans != "" {
		p, err := usageplan.ParsePlans(o.usagePlans)
		if err != nil {
			return o, nil, usagef("-usage-plans: %v", err)
		}
		o.plans = p
	}
	return o, fs.Args(), nil
}

func newFlagSet(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard) // errors are reported in one line by report
	fs.Usage = func() {}
	return fs
}

// parse parses fs's flags from args; a flag error is a usage error.
func parse(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return usagef("%v (see keyctl -h)", err)
	}
	return nil
}

// parseMixed parses flags and positional arguments in any order ("update acct_1 -tier free"
// and "update -tier free acct_1") and returns the positional ones.
func parseMixed(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := parse(fs, args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		if args[0] == "--" {
			return append(pos, args[1:]...), nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// report prints err as one line and returns its exit code.
func report(w io.Writer, err error) int {
	code := ExitFailure
	var ue *usageError
	var f *failure
	switch {
	case errors.As(err, &ue):
		code = ExitUsage
	case errors.As(err, &f):
		code = f.code
	case errors.Is(err, store.ErrNotFound):
		code = ExitNotFound
	}
	msg := strings.Join(strings.Fields(err.Error()), " ")
	fmt.Fprintln(w, "keyctl: "+redactKeys(msg))
	return code
}

// redactKeys replaces anything that looks like a whole API key in s by its first characters and
// last four: error messages never carry a whole key, even one an operator pasted by mistake.
func redactKeys(s string) string {
	var b strings.Builder
	for {
		i := strings.Index(s, account.KeyPrefix)
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i])
		j := i + len(account.KeyPrefix)
		for j < len(s) && isBase62(s[j]) {
			j++
		}
		tok := s[i:j]
		if len(tok) > len(account.KeyPrefix)+8 {
			tok = tok[:len(account.KeyPrefix)+4] + "…" + tok[len(tok)-4:]
		}
		b.WriteString(tok)
		s = s[j:]
	}
}

func isBase62(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z'
}
