package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/sluice-api/sluice/internal/account"
	"github.com/sluice-api/sluice/internal/numfmt"
	"github.com/sluice-api/sluice/internal/store"
)

// OnlyOnce is said next to every whole key keyctl prints.
const OnlyOnce = "This API key is shown only this once: Sluice keeps only a hash of it, so store it now."

// accountJSON is an account in -json output. The API Gateway key's value is not shown: only
// whether the account has one.
type accountJSON struct {
	ID              string    `json:"account_id"`
	Region          string    `json:"region"`
	Tier            string    `json:"tier"`
	RateLimit       int64     `json:"rate_limit"`
	Allowance       int64     `json:"allowance"`
	Disabled        bool      `json:"disabled"`
	UsagePlanKeySet bool      `json:"usage_plan_key_set"`
	CreatedAt       time.Time `json:"created_at"`
}

func toAccountJSON(a store.Account) accountJSON {
	return accountJSON{
		ID: a.ID, Region: a.Region, Tier: a.Tier, RateLimit: a.RateLimit, Allowance: a.Allowance,
		Disabled: a.Disabled, UsagePlanKeySet: a.UsagePlanKey != "", CreatedAt: a.CreatedAt,
	}
}

// keyJSON is a stored key in -json output: never the whole key, never its hash.
type keyJSON struct {
	ID        string     `json:"key_id"`
	Account   string     `json:"account_id"`
	Key       string     `json:"key"` // masked: first characters, "…", last four
	Prefix    string     `json:"prefix"`
	Last4     string     `json:"last4"`
	CreatedAt time.Time  `json:"created_at"`
	RevokedAt *time.Time `json:"revoked_at"`
	Active    bool       `json:"active"`
}

func toKeyJSON(k store.Key) keyJSON {
	j := keyJSON{
		ID: k.ID, Account: k.Account, Key: masked(k), Prefix: k.Prefix, Last4: k.Last4,
		CreatedAt: k.CreatedAt, Active: k.Active(),
	}
	if !k.Active() {
		t := k.RevokedAt
		j.RevokedAt = &t
	}
	return j
}

// masked shows a key as its first characters and last four: "sluice_live_AbCd…wxyz".
func masked(k store.Key) string { return k.Prefix + "…" + k.Last4 }

func (c *command) writeJSON(v any) {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil { // the types above always marshal
		panic(err)
	}
	c.out.Write(append(b, '\n'))
}

// printCreated prints a new key with its account: the one time a whole key is printed, on one
// line of its own.
func (c *command) printCreated(cmd string, a store.Account, k store.Key, key string, provisioned bool) {
	if c.opts.json {
		c.writeJSON(struct {
			Account     accountJSON `json:"account"`
			Key         keyJSON     `json:"key"`
			APIKey      string      `json:"api_key"`
			Notice      string      `json:"notice"`
			Provisioned bool        `json:"usage_plan_provisioned"`
		}{toAccountJSON(a), toKeyJSON(k), key, OnlyOnce, provisioned})
		return
	}
	w := c.out
	switch cmd {
	case "account create":
		fmt.Fprintf(w, "Created account %s\n", a.ID)
		c.printSettings(w, a)
	case "key rotate":
		fmt.Fprintf(w, "Rotated the keys of account %s: every older key stopped working now.\n", a.ID)
	default:
		fmt.Fprintf(w, "Added a key to account %s.\n", a.ID)
	}
	if provisioned {
		fmt.Fprintf(w, "  API Gateway key attached to the %s usage plan\n", a.Tier)
	}
	fmt.Fprintf(w, "  key id      %s (%s)\n\n%s\n  %s\n", k.ID, masked(k), OnlyOnce, key)
}

func (c *command) printSettings(w io.Writer, a store.Account) {
	usagePlanKey := "no API Gateway key"
	if a.UsagePlanKey != "" {
		usagePlanKey = "API Gateway key set"
	}
	fmt.Fprintf(w, "  region      %s\n  tier        %s\n  rate limit  %s requests per minute\n  allowance   %s characters per month\n  disabled    %s\n  usage plan  %s\n  created     %s\n",
		a.Region, a.Tier, numfmt.Thousands(a.RateLimit), numfmt.Thousands(a.Allowance), yesNo(a.Disabled), usagePlanKey, stamp(a.CreatedAt))
}

func (c *command) printAccount(a store.Account, keys []store.Key) {
	active := 0
	for _, k := range keys {
		if k.Active() {
			active++
		}
	}
	if c.opts.json {
		c.writeJSON(struct {
			accountJSON
			Keys       int `json:"keys"`
			ActiveKeys int `json:"active_keys"`
		}{toAccountJSON(a), len(keys), active})
		return
	}
	fmt.Fprintf(c.out, "Account %s\n", a.ID)
	c.printSettings(c.out, a)
	fmt.Fprintf(c.out, "  keys        %d active of %d (keyctl key list %s)\n", active, len(keys), a.ID)
}

func (c *command) printKeys(accountID string, keys []store.Key) {
	if c.opts.json {
		out := struct {
			Account string    `json:"account_id"`
			Keys    []keyJSON `json:"keys"`
		}{accountID, make([]keyJSON, 0, len(keys))}
		for _, k := range keys {
			out.Keys = append(out.Keys, toKeyJSON(k))
		}
		c.writeJSON(out)
		return
	}
	tw := tabwriter.NewWriter(c.out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "KEY ID\tKEY\tCREATED\tREVOKED")
	for _, k := range keys {
		revoked := "-"
		if !k.Active() {
			revoked = stamp(k.RevokedAt)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", k.ID, masked(k), stamp(k.CreatedAt), revoked)
	}
	tw.Flush()
}

func (c *command) printRevoked(keyID string) {
	if c.opts.json {
		c.writeJSON(struct {
			ID      string `json:"key_id"`
			Revoked bool   `json:"revoked"`
		}{keyID, true})
		return
	}
	fmt.Fprintf(c.out, "Revoked key %s: it stopped working now.\n", keyID)
}

func (c *command) printUsage(r account.UsageReport) {
	if c.opts.json {
		c.writeJSON(r) // the same document as GET /v1/usage
		return
	}
	band := account.PriceBand(r.Characters)
	fmt.Fprintf(c.out, "Usage of account %s in %s\n", r.Account, r.Month)
	fmt.Fprintf(c.out, "  characters  %s\n  runs        %s\n  price tier  %s (%s USD per 1,000 characters)\n  cost        %s USD\n  allowance   %s characters, %s left\n",
		numfmt.Thousands(r.Characters), numfmt.Thousands(r.Runs), r.PriceTier, perThousand(band.MicroUSDPerChar),
		r.CostUSD, numfmt.Thousands(r.Allowance), numfmt.Thousands(r.AllowanceLeft))
}

// perThousand renders a price per character in micro-dollars as USD per 1,000 characters
// (20 -> "0.020").
func perThousand(microPerChar int64) string {
	return fmt.Sprintf("%d.%03d", microPerChar/1000, microPerChar%1000)
}

func stamp(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.UTC().Format(time.RFC3339)
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}
