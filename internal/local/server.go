package local

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/sluice-api/sluice/internal/account"
	"github.com/sluice-api/sluice/internal/api"
	"github.com/sluice-api/sluice/internal/dashboard"
	"github.com/sluice-api/sluice/internal/metering"
	"github.com/sluice-api/sluice/internal/pipeline"
	"github.com/sluice-api/sluice/internal/secrets"
	"github.com/sluice-api/sluice/internal/services"
	"github.com/sluice-api/sluice/internal/store"
	"github.com/sluice-api/sluice/internal/store/dynamo"
	"github.com/sluice-api/sluice/internal/store/sqlite"
)

// Config is the local server's configuration (the flags of functions/local).
type Config struct {
	Addr      string   // listen address, e.g. 127.0.0.1:8080
	DataDir   string   // holds sluice.db and secrets.json
	SeedKeys  []string // make sure an account exists for each key
	RateLimit int64    // requests per window for seeded and demo accounts
	Allowance int64    // monthly characters for seeded and demo accounts
	Region    string
	// Store is "sqlite" (the embedded default, in DataDir) or "dynamodb".
	Store string
	// DynamoEndpoint is the DynamoDB endpoint (e.g. dynalite's); with it the tables are created
	// when missing and dummy credentials are used. Without it the SDK's default chain applies.
	DynamoEndpoint string
	TablePrefix    string
	// RequestTimeout plays API Gateway's integration timeout: the deadline of a request's
	// handling, counted from the moment the request (its body included) has been read.
	RequestTimeout time.Duration
	// ReadTimeout bounds reading a whole request, headers and body (0: DefaultReadTimeout). A
	// POST /v1/run whose body is not in by then is answered 408 request_timeout.
	ReadTimeout time.Duration
	Registry    *services.Registry
	Out         io.Writer    // where the start-up banner goes (a demo key is printed once)
	Log         *slog.Logger // JSON request logs; never any request text
	// Flags are the command-line flags the server was started with, as name-value pairs
	// ("-addr", "127.0.0.1:9090", ...): the commands the banner suggests repeat them.
	Flags []string
}

// Files in the data directory.
const (
	DBFile      = "sluice.db"
	SecretsFile = "secrets.json"
)

// Run starts the server and serves until ctx is done.
func Run(ctx context.Context, cfg Config) error {
	if err := privateDir(cfg.DataDir); err != nil {
		return fmt.Errorf("local: data dir: %w", err)
	}
	sec, err := secrets.File{Path: filepath.Join(cfg.DataDir, SecretsFile)}.Load(ctx)
	if err != nil {
		return fmt.Errorf("local: %w", err)
	}
	st, err := openStore(ctx, cfg)
	if err != nil {
		return fmt.Errorf("local: open store: %w", err)
	}
	defer st.Close()
	engine, err := pipeline.New(cfg.Registry, pipeline.WithLogger(cfg.Log))
	if err != nil {
		return fmt.Errorf("local: %w", err)
	}
	accounts := account.NewManager(st, sec.Pepper, time.Now)
	defer accounts.WaitKeyUse() // before the store closes
	runner := metering.New(st, engine, metering.Config{Region: cfg.Region, TokenKey: sec.TokenKey, Log: cfg.Log})
	srv := api.NewServer(runner, accounts, api.Config{Log: cfg.Log})

	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return fmt.Errorf("local: listen: %w", err)
	}
	base := "http://" + ln.Addr().String()
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	dash, err := dashboard.New(dashboard.Config{
		Store: st, Accounts: accounts, Runner: runner, Registry: cfg.Registry, Pepper: sec.Pepper,
		Region: cfg.Region, Log: cfg.Log, CookieSuffix: port,
	})
	if err != nil {
		ln.Close()
		return fmt.Errorf("local: %w", err)
	}
	seeded, err := seed(ctx, cfg, st, accounts)
	if err != nil {
		ln.Close()
		return err
	}
	var dashText strings.Builder
	ids, err := dashboardAccounts(ctx, cfg, st, sec.Pepper, seeded.demoKey)
	if err == nil {
		err = dashboardBanner(ctx, &dashText, st, sec.Pepper, DashboardBase(ln.Addr().String()), ids, time.Now(), cfg)
	}
	if err != nil {
		ln.Close()
		return err
	}
	banner(cfg.Out, base, seeded, dashText.String(), cfg)

	hs := newHTTPServer(withDashboard(NewGateway(srv, cfg.RequestTimeout), dash, cfg.RequestTimeout), cfg)
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("local: serve: %w", err)
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		if err := hs.Shutdown(sctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
			return fmt.Errorf("local: shutdown: %w", err)
		}
		return nil
	}
}

// privateDir makes sure dir exists and only its owner can list or enter it (0700): it holds the
// key pepper, the tokenization key and the database.
func privateDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	fi, err := os.Stat(dir)
	if err != nil {
		return err
	}
	if fi.Mode().Perm()&0o077 != 0 {
		return os.Chmod(dir, 0o700)
	}
	return nil
}

// Store kinds.
const (
	StoreSQLite   = "sqlite"
	StoreDynamoDB = "dynamodb"
)

func openStore(ctx context.Context, cfg Config) (store.Store, error) {
	switch cfg.Store {
	case StoreSQLite, "":
		return sqlite.Open(filepath.Join(cfg.DataDir, DBFile))
	case StoreDynamoDB:
		client, err := dynamo.NewClient(ctx, cfg.DynamoEndpoint)
		if err != nil {
			return nil, err
		}
		st := dynamo.New(client, dynamo.TablesWithPrefix(cfg.TablePrefix))
		if cfg.DynamoEndpoint != "" {
			if err := st.CreateTables(ctx); err != nil {
				return nil, fmt.Errorf("create tables: %w", err)
			}
		}
		return st, nil
	default:
		return nil, fmt.Errorf("unknown store %q (want %q or %q)", cfg.Store, StoreSQLite, StoreDynamoDB)
	}
}

// Read timeouts of the local server.
const (
	DefaultReadTimeout = 30 * time.Second
	// maxHeaderWait bounds reading a request's headers.
	maxHeaderWait = 10 * time.Second
)

// newHTTPServer is the HTTP server of Run around h: a request's headers must arrive within 10
// seconds (or the read timeout, if shorter) and the whole request within cfg.ReadTimeout.
func newHTTPServer(h http.Handler, cfg Config) *http.Server {
	read := cfg.ReadTimeout
	if read <= 0 {
		read = DefaultReadTimeout
	}
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: min(maxHeaderWait, read),
		ReadTimeout:       read,
		ErrorLog:          slog.NewLogLogger(cfg.Log.Handler(), slog.LevelWarn),
	}
}

// seeding is what seed did: the demo key it created (shown once), and the seed keys that exist
// but cannot call the API, with why.
type seeding struct {
	demoKey  string
	unusable map[string]string // seed key -> reason
}

// seed makes sure the seed keys have accounts with the configured settings. With no seed key and
// no account at all it creates a demo account and returns its key, to be shown once. A seed key
// that was revoked or rotated away, or whose account is disabled, stays so: it is reported, not
// revived.
func seed(ctx context.Context, cfg Config, st interface {
	HasAccounts(context.Context) (bool, error)
}, accounts *account.Manager) (seeding, error) {
	settings := account.Settings{
		Region: cfg.Region, Tier: account.DefaultTier, RateLimit: cfg.RateLimit, Allowance: cfg.Allowance,
	}
	if err := settings.Validate(); err != nil {
		return seeding{}, fmt.Errorf("local: %w", err)
	}
	var done seeding
	for _, k := range cfg.SeedKeys {
		_, err := accounts.Ensure(ctx, settings, k)
		switch {
		case errors.Is(err, account.ErrKeyRevoked):
			done.note(k, "was revoked or rotated away")
		case errors.Is(err, account.ErrDisabled):
			done.note(k, "belongs to a disabled account")
		case err != nil:
			return seeding{}, fmt.Errorf("local: seed key: %w", err)
		}
	}
	if len(cfg.SeedKeys) > 0 {
		return done, nil
	}
	any, err := st.HasAccounts(ctx)
	if err != nil || any {
		return done, err
	}
	_, key, err := accounts.Create(ctx, settings)
	if err != nil {
		return seeding{}, fmt.Errorf("local: demo account: %w", err)
	}
	done.demoKey = key
	return done, nil
}

func (s *seeding) note(key, reason string) {
	if s.unusable == nil {
		s.unusable = map[string]string{}
	}
	s.unusable[key] = reason
}

// banner prints where the server listens, the demo key (once), the dashboard's sign-in links
// (dash) and, last, the curl examples.
func banner(w io.Writer, base string, seeded seeding, dash string, cfg Config) {
	where := "data in " + cfg.DataDir
	if cfg.Store == StoreDynamoDB {
		where = "DynamoDB tables " + cfg.TablePrefix + "*"
	}
	fmt.Fprintf(w, "Sluice is listening on %s (region %q, %s)\n", base, cfg.Region, where)
	switch {
	case seeded.demoKey != "":
		fmt.Fprintf(w, "\nA demo account was created. Its API key is shown only this once, so keep it:\n\n  export SLUICE_KEY=%s\n", seeded.demoKey)
		fmt.Fprintf(w, "\nNext time, start with that key in SLUICE_KEY (make run does) and it is seeded again if the data is gone.\n")
	case len(cfg.SeedKeys) > 0:
		var good []string
		for _, k := range cfg.SeedKeys {
			if _, bad := seeded.unusable[k]; !bad {
				good = append(good, maskKey(k))
			}
		}
		if len(good) > 0 {
			fmt.Fprintf(w, "\nAn account exists for each seeded key (%s); the examples use it as $SLUICE_KEY.\n", strings.Join(good, ", "))
		}
		for _, k := range cfg.SeedKeys {
			if reason, bad := seeded.unusable[k]; bad {
				fmt.Fprintf(w, "\nThe key %s %s: calls with it answer 401 invalid_api_key, and it is not revived.\n"+
					"To get a working key, open the dashboard link below and create one under Keys (then export\n"+
					"SLUICE_KEY=<the new key>), or start from scratch with a new data directory and SLUICE_KEY unset:\n"+
					"  unset SLUICE_KEY; %s\n", maskKey(k), reason, freshStart(cfg.Flags, cfg.DataDir))
			}
		}
	default:
		fmt.Fprintf(w, "\nThe accounts in %s already have keys: use the one printed when it was first used, create one\n"+
			"with keyctl (make keyctl; bin/keyctl -h), or start again with SLUICE_KEY=sluice_live_... set (make run seeds it).\n", where)
	}
	fmt.Fprint(w, dash)
	key := "$SLUICE_KEY"
	fmt.Fprintf(w, `
Try it:

  curl -s %s/v1/run \
    -H "Authorization: Bearer %s" \
    -H "Content-Type: application/json" \
    -d '{"input":{"type":"text","value":"Hi, I am Jane Doe, mail me at jane@example.com"},"pipeline":[{"id":"pii","service":"governance.pii.redact"}]}'

  curl -s %s/v1/services -H "Authorization: Bearer %s"

`, base, key, base, key)
}

// freshStart is the make run command that starts again on a new data directory: the flags the
// server was started with (flags, name-value pairs), but -data DIR-new, which .gitignore's
// /.data*/ ignores for the default .data. It is quoted for a POSIX shell, then for make.
func freshStart(flags []string, dataDir string) string {
	var words []string
	for i := 0; i+1 < len(flags); i += 2 {
		if flags[i] != "-data" {
			words = append(words, flags[i], shellWord(flags[i+1]))
		}
	}
	words = append(words, "-data", shellWord(filepath.Clean(dataDir)+"-new"))
	// make expands $ in ARGS; the user's shell reads ARGS inside double quotes.
	args := strings.ReplaceAll(strings.Join(words, " "), "$", "$$")
	args = strings.NewReplacer(`\`, `\\`, `"`, `\"`, "$", `\$`, "`", "\\`").Replace(args)
	return `make run ARGS="` + args + `"`
}

// shellWord quotes s as one word for a POSIX shell when it holds anything but letters, digits
// and -_./:=,@+%.
func shellWord(s string) string {
	safe := s != ""
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:=,@+%", r)) {
			safe = false
			break
		}
	}
	if safe {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// maskKey shows a key as its prefix and last four characters, as keyctl lists keys.
func maskKey(k string) string {
	if len(k) <= len(account.KeyPrefix)+4 {
		return account.KeyPrefix + "…"
	}
	return account.KeyPrefix + "…" + k[len(k)-4:]
}
