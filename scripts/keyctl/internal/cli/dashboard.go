package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/sluice-api/sluice/internal/dashboard"
)

// DefaultBaseURL is the dashboard's address on the local server at its default port (the host
// its banner prints, internal/local.DashboardBase: the session cookie stays with that port), the
// default of dashboard-link's -base-url.
const DefaultBaseURL = "http://sluice-8080.localhost:8080"

// dashboardLink prints a single-use sign-in link to the account's dashboard, valid for 15
// minutes. The link's token is printed once; the store keeps only its HMAC.
func (c *command) dashboardLink(ctx context.Context, args []string) error {
	fs := c.flags("dashboard-link")
	base := fs.String("base-url", DefaultBaseURL, "")
	pos, err := c.args(fs, args, "ACCOUNT")
	if err != nil {
		return err
	}
	if err := dashboard.ValidBaseURL(*base); err != nil {
		return usagef("dashboard-link: -base-url %q: want http(s)://host[:port][/path]", *base)
	}
	if err := c.open(ctx, need{pepper: true}); err != nil {
		return err
	}
	id := pos[0]
	a, err := c.mgr.Get(ctx, id)
	if err != nil {
		return notFound(err, "account", id, "read the account")
	}
	if a.Disabled {
		return &failure{ExitFailure, fmt.Sprintf("account %s is disabled: it cannot sign in", id)}
	}
	l, err := dashboard.NewLink(ctx, c.st, c.pepper, id, *base, dashboard.DefaultLinkTTL, c.env.now())
	if err != nil {
		return unreachable("issue the link", err)
	}
	if c.opts.json {
		c.writeJSON(struct {
			Account string    `json:"account_id"`
			URL     string    `json:"url"`
			Expires time.Time `json:"expires_at"`
			Notice  string    `json:"notice"`
		}{a.ID, l.URL, l.Expires, LinkNotice})
		return nil
	}
	fmt.Fprintf(c.out, "Sign-in link for the dashboard of account %s (%s):\n\n  %s\n\n", a.ID, a.Region, l.URL)
	fmt.Fprintf(c.out, "It works once, until %s. %s\n", l.Expires.UTC().Format("2006-01-02 15:04:05 UTC"), LinkNotice)
	return nil
}

// LinkNotice is said next to every sign-in link keyctl prints.
const LinkNotice = "Anyone who opens it first is signed in as the account: send it only to the account holder."
