// Package usageplan attaches Sluice accounts to the API Gateway usage plan of their tier.
//
// On AWS, API Gateway usage plans (one per tier: free, standard, enterprise) are an outer,
// best-effort shield in front of Sluice's own rate windows (docs/api.md, "Rate limits"). Each account gets one
// API Gateway API key, attached to the plan of its tier; the authorizer returns that key's value
// as usageIdentifierKey, so API Gateway meters the request against the account's plan. The
// API Gateway key is not a Sluice API key: clients never see or send it, and its value is random
// and unrelated to any sluice_live_ key.
//
// Provisioner is the port keyctl uses; APIGateway is its adapter over the API Gateway REST API
// (aws-sdk-go-v2 service/apigateway).
package usageplan

import (
	"context"
	"crypto/rand"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/sluice-api/sluice/internal/account"
)

// Provisioner manages the API Gateway API key of an account.
type Provisioner interface {
	// Provision creates a new, enabled API key for the account and attaches it to the usage plan
	// of tier. It returns the key's value: what the authorizer returns as usageIdentifierKey.
	Provision(ctx context.Context, accountID, tier string) (value string, err error)
	// Move detaches the account's key whose value is value from the plan of tier from and
	// attaches it to the plan of tier to.
	Move(ctx context.Context, accountID, value, from, to string) error
	// Retire deletes the account's key whose value is value; a key that is gone already is not
	// an error.
	Retire(ctx context.Context, accountID, value string) error
}

// Plans maps each account tier to the id of its usage plan.
type Plans map[string]string

// ParsePlans reads "free=ID,standard=ID,enterprise=ID" (the usage plan ids the CDK stack
// outputs). Every tier needs a plan, and only known tiers are accepted.
func ParsePlans(s string) (Plans, error) {
	p := Plans{}
	for part := range strings.SplitSeq(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		tier, id, ok := strings.Cut(part, "=")
		tier, id = strings.TrimSpace(tier), strings.TrimSpace(id)
		switch {
		case !ok || id == "":
			return nil, fmt.Errorf("usageplan: %q: want tier=usage-plan-id", part)
		case !slices.Contains(account.Tiers, tier):
			return nil, fmt.Errorf("usageplan: unknown tier %q (tiers: %s)", tier, strings.Join(account.Tiers, ", "))
		case p[tier] != "":
			return nil, fmt.Errorf("usageplan: tier %q given twice", tier)
		}
		p[tier] = id
	}
	var missing []string
	for _, t := range account.Tiers {
		if p[t] == "" {
			missing = append(missing, t)
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("usageplan: no usage plan for tier %s (want %s)", strings.Join(missing, ", "), planSyntax())
	}
	return p, nil
}

func planSyntax() string {
	parts := make([]string, len(account.Tiers))
	for i, t := range account.Tiers {
		parts[i] = t + "=ID"
	}
	return strings.Join(parts, ",")
}

// String renders p in the syntax ParsePlans reads, tiers in sorted order.
func (p Plans) String() string {
	tiers := make([]string, 0, len(p))
	for t := range p {
		tiers = append(tiers, t)
	}
	sort.Strings(tiers)
	parts := make([]string, len(tiers))
	for i, t := range tiers {
		parts[i] = t + "=" + p[t]
	}
	return strings.Join(parts, ",")
}

// plan returns the usage plan id of tier.
func (p Plans) plan(tier string) (string, error) {
	id := p[tier]
	if id == "" {
		return "", fmt.Errorf("usageplan: no usage plan for tier %q", tier)
	}
	return id, nil
}

const base62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// ValueLen is the length of an API key value Provision creates (API Gateway wants 20 to 128).
const ValueLen = 40

// randomBase62 returns n uniformly random base62 characters from crypto/rand.
func randomBase62(n int) (string, error) {
	out := make([]byte, 0, n)
	buf := make([]byte, n)
	for len(out) < n {
		if _, err := rand.Read(buf); err != nil {
			return "", fmt.Errorf("usageplan: random: %w", err)
		}
		for _, b := range buf {
			if b < 248 && len(out) < n { // 248 = 4*62: reject the rest so every character is uniform
				out = append(out, base62[b%62])
			}
		}
	}
	return string(out), nil
}
