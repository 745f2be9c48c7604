// Command local serves the whole Sluice API on this machine: API Gateway, the authorizer and both
// handlers behind one HTTP server, on the embedded SQLite store.
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/pprof"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/sluice-api/sluice/internal/account"
	"github.com/sluice-api/sluice/internal/local"
	"github.com/sluice-api/sluice/internal/services/builtin"
)

func main() {
	cfg := local.Config{Out: os.Stdout}
	pprofAddr := defineFlags(flag.CommandLine, &cfg)
	flag.Parse()
	cfg.Flags = givenFlags(flag.CommandLine)
	seeds, err := local.SeedKeys(os.Getenv(local.SeedKeysEnv))
	if err != nil {
		fmt.Fprintln(os.Stderr, "sluice:", err)
		os.Exit(2)
	}
	cfg.SeedKeys = seeds
	if *pprofAddr != "" {
		go servePprof(*pprofAddr)
	}
	cfg.Log = slog.New(slog.NewJSONHandler(os.Stderr, nil))

	reg, err := builtin.New()
	if err != nil {
		fmt.Fprintln(os.Stderr, "sluice:", err)
		os.Exit(1)
	}
	cfg.Registry = reg
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := local.Run(ctx, cfg); err != nil {
		fmt.Fprintln(os.Stderr, "sluice:", err)
		os.Exit(1)
	}
}

// defineFlags defines the server's flags on fs, filling cfg, and returns the -pprof address.
// docs/operators.md's table lists them (a test holds the two together).
func defineFlags(fs *flag.FlagSet, cfg *local.Config) *string {
	fs.StringVar(&cfg.Addr, "addr", "127.0.0.1:8080", "listen address")
	fs.StringVar(&cfg.DataDir, "data", ".data", "data directory (SQLite file and locally generated secrets)")
	fs.Func("seed-key", "removed: it showed the key to every local user through ps; set "+local.SeedKeysEnv+" instead", func(string) error {
		return local.ErrSeedKeyFlag
	})
	fs.Int64Var(&cfg.RateLimit, "rate-limit", account.DefaultRateLimit, "requests per 60-second window for seeded and demo accounts")
	fs.Int64Var(&cfg.Allowance, "allowance", account.DefaultAllowance, "monthly characters for seeded and demo accounts")
	fs.StringVar(&cfg.Region, "region", "local", "region this server plays")
	fs.StringVar(&cfg.Store, "store", local.StoreSQLite, "store: sqlite (embedded, in -data) or dynamodb")
	fs.StringVar(&cfg.DynamoEndpoint, "dynamodb-endpoint", "", "DynamoDB endpoint for -store dynamodb (e.g. dynalite's); tables are created when missing")
	fs.StringVar(&cfg.TablePrefix, "table-prefix", "sluice_", "table name prefix for -store dynamodb")
	fs.DurationVar(&cfg.ReadTimeout, "read-timeout", local.DefaultReadTimeout, "how long a client may take to send a whole request; a late POST /v1/run body is answered 408 request_timeout")
	fs.DurationVar(&cfg.RequestTimeout, "request-timeout", 29*time.Second, "deadline of each request's handling, counted from the moment its body has been read (API Gateway's integration timeout)")
	return fs.String("pprof", "", "serve Go's profiler (net/http/pprof) on this address, e.g. 127.0.0.1:6060; off by default")
}

// givenFlags lists the flags given on fs's command line as name-value pairs ("-addr",
// "127.0.0.1:9090", ...), so the banner can repeat them in a command it suggests.
func givenFlags(fs *flag.FlagSet) []string {
	var given []string
	fs.Visit(func(f *flag.Flag) { given = append(given, "-"+f.Name, f.Value.String()) })
	return given
}

// servePprof serves the runtime profiles for `go tool pprof` (docs/PERFORMANCE.md says how).
func servePprof(addr string) {
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	srv := &http.Server{Addr: addr, Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	if err := srv.ListenAndServe(); err != nil {
		fmt.Fprintln(os.Stderr, "sluice: pprof:", err)
	}
}
