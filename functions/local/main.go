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
	cfg := local.Config{Out: os.Stdout, RequestTimeout: 29 * time.Second}
	flag.StringVar(&cfg.Addr, "addr", "127.0.0.1:8080", "listen address")
	flag.StringVar(&cfg.DataDir, "data", ".data", "data directory (SQLite file and locally generated secrets)")
	flag.Func("seed-key", "removed: it showed the key to every local user through ps; set "+local.SeedKeysEnv+" instead", func(string) error {
		return local.ErrSeedKeyFlag
	})
	flag.Int64Var(&cfg.RateLimit, "rate-limit", account.DefaultRateLimit, "requests per 60-second window for seeded and demo accounts")
	flag.Int64Var(&cfg.Allowance, "allowance", account.DefaultAllowance, "monthly characters for seeded and demo accounts")
	flag.StringVar(&cfg.Region, "region", "local", "region this server plays")
	flag.StringVar(&cfg.Store, "store", local.StoreSQLite, "store: sqlite (embedded, in -data) or dynamodb")
	flag.StringVar(&cfg.DynamoEndpoint, "dynamodb-endpoint", "", "DynamoDB endpoint for -store dynamodb (e.g. dynalite's); tables are created when missing")
	flag.StringVar(&cfg.TablePrefix, "table-prefix", "sluice_", "table name prefix for -store dynamodb")
	flag.DurationVar(&cfg.ReadTimeout, "read-timeout", local.DefaultReadTimeout, "how long a client may take to send a whole request; a late POST /v1/run body is answered 408 request_timeout")
	flag.DurationVar(&cfg.RequestTimeout, "request-timeout", cfg.RequestTimeout, "deadline of each request's handling, counted from the moment its body has been read (API Gateway's integration timeout)")
	pprofAddr := flag.String("pprof", "", "serve Go's profiler (net/http/pprof) on this address, e.g. 127.0.0.1:6060; off by default")
	flag.Parse()
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
