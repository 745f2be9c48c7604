package local

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/sluice-api/sluice/internal/account"
	"github.com/sluice-api/sluice/internal/dashboard"
	"github.com/sluice-api/sluice/internal/store"
)

// DashboardAccountFile, in the data directory, names the demo account, so that later starts
// without a seeded key still print a sign-in link for it. It holds an account id, nothing secret.
const DashboardAccountFile = "dashboard-account"

// withDashboard serves /dashboard and everything under it with the dashboard and the rest with
// api, the dashboard's requests under the same deadline as the API's.
func withDashboard(api, dash http.Handler, timeout time.Duration) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != dashboard.Mount && !strings.HasPrefix(r.URL.Path, dashboard.Mount+"/") {
			api.ServeHTTP(w, r)
			return
		}
		if timeout > 0 {
			ctx, cancel := context.WithTimeout(r.Context(), timeout)
			defer cancel()
			r = r.WithContext(ctx)
		}
		dash.ServeHTTP(w, r)
	})
}

// DashboardBase is the base URL the banner gives browsers for the dashboard of a server listening
// on addr (host:port). On a loopback address it is http://sluice-PORT.localhost:PORT: browsers
// resolve every *.localhost name to loopback themselves and keep cookies per host, not per port,
// so a session cookie set there reaches this server only, never another service on
// 127.0.0.1:<other port>. Elsewhere (an address others reach) it is http://addr.
func DashboardBase(addr string) string {
	host, port, err := net.SplitHostPort(addr)
	if ip := net.ParseIP(host); err != nil || ip == nil || !ip.IsLoopback() {
		return "http://" + addr
	}
	return "http://sluice-" + port + ".localhost:" + port
}

// dashboardAccounts returns the accounts to print sign-in links for: each seeded key's, else the
// demo account (remembered in the data directory when it is made).
func dashboardAccounts(ctx context.Context, cfg Config, st store.Store, pepper []byte, demoKey string) ([]string, error) {
	var ids []string
	add := func(key string) error {
		k, err := st.KeyByHash(ctx, account.HashKey(pepper, key))
		if err != nil {
			return fmt.Errorf("local: dashboard account: %w", err)
		}
		for _, id := range ids {
			if id == k.Account {
				return nil
			}
		}
		ids = append(ids, k.Account)
		return nil
	}
	for _, key := range cfg.SeedKeys {
		if err := add(key); err != nil {
			return nil, err
		}
	}
	file := filepath.Join(cfg.DataDir, DashboardAccountFile)
	if demoKey != "" {
		if err := add(demoKey); err != nil {
			return nil, err
		}
		if err := os.WriteFile(file, []byte(ids[len(ids)-1]+"\n"), 0o600); err != nil {
			return nil, fmt.Errorf("local: remember the demo account: %w", err)
		}
	}
	if len(ids) > 0 {
		return ids, nil
	}
	b, err := os.ReadFile(file)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("local: read %s: %w", file, err)
	}
	id := strings.TrimSpace(string(b))
	if _, err := st.GetAccount(ctx, id); errors.Is(err, store.ErrNotFound) {
		return nil, nil // the data was reset since
	} else if err != nil {
		return nil, fmt.Errorf("local: dashboard account: %w", err)
	}
	return []string{id}, nil
}

// dashboardBanner issues and prints one sign-in link per account, and the command that makes
// another link later.
func dashboardBanner(ctx context.Context, w io.Writer, st store.Store, pepper []byte, base string, ids []string, now time.Time, cfg Config) error {
	if len(ids) == 0 {
		fmt.Fprintf(w, "\nDashboard: %s%s/ (sign in with a link from, in this directory:\n  %s)\n", base, dashboard.Mount, linkCommand(cfg, "ACCOUNT", base))
		return nil
	}
	fmt.Fprintf(w, "\nDashboard: open a sign-in link within %d minutes; each works once:\n\n", int(dashboard.DefaultLinkTTL/time.Minute))
	for _, id := range ids {
		l, err := dashboard.NewLink(ctx, st, pepper, id, base, dashboard.DefaultLinkTTL, now)
		if err != nil {
			return fmt.Errorf("local: %w", err)
		}
		fmt.Fprintf(w, "  %s   (account %s)\n", l.URL, id)
	}
	fmt.Fprintf(w, "\nAnother link later, from this directory:\n  %s\n", linkCommand(cfg, ids[0], base))
	return nil
}

// linkCommand is the keyctl command that prints a new sign-in link for account, runnable as
// printed from the repository's root in a fresh clone (go run builds keyctl), against the same
// store and data directory as this server.
func linkCommand(cfg Config, account, base string) string {
	args := []string{"go run ./scripts/keyctl", "-data", shellQuote(cfg.DataDir)}
	if cfg.Store == StoreDynamoDB {
		args = append(args, "-store", StoreDynamoDB, "-table-prefix", shellQuote(cfg.TablePrefix))
		if cfg.DynamoEndpoint != "" {
			args = append(args, "-dynamodb-endpoint", shellQuote(cfg.DynamoEndpoint))
		}
	}
	args = append(args, "dashboard-link", account, "-base-url", base)
	return strings.Join(args, " ")
}

// shellQuote quotes s for a POSIX shell when it holds anything but safe characters.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./:=@%+,") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
