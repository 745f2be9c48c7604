package cli_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/sluice-api/sluice/internal/usageplan/usageplantest"
	"github.com/sluice-api/sluice/scripts/keyctl/internal/cli"
)

// awsBackend is DynamoDB (dynalite) with usage plans on a fake API Gateway.
func awsBackend(t *testing.T) (*backend, *usageplantest.Server) {
	b := newDynamo(t)
	gw := usageplantest.Start(t, "plan-free", "plan-std", "plan-ent")
	b.flags = append(b.flags, "-usage-plans", "free=plan-free,standard=plan-std,enterprise=plan-ent", "-apigateway-endpoint", gw.URL)
	return b, gw
}

func TestUsagePlans(t *testing.T) {
	b, gw := awsBackend(t)
	usagePlanKey := func(t *testing.T, acct string) string {
		t.Helper()
		a, err := b.store(t).GetAccount(t.Context(), acct)
		if err != nil {
			t.Fatal(err)
		}
		return a.UsagePlanKey
	}
	var acct, first string
	t.Run("AccountCreateProvisions", func(t *testing.T) {
		r := b.ok(t, "account", "create", "-tier", "free")
		acct, _ = created(t, r)
		first = usagePlanKey(t, acct)
		if first == "" || !strings.Contains(r.stdout, "attached to the free usage plan") || strings.Contains(r.stdout, first) {
			t.Fatalf("usage plan key %q; output:\n%s", first, r.stdout)
		}
		if got := gw.PlanOf(first); len(got) != 1 || got[0] != "plan-free" {
			t.Fatalf("API Gateway key in plans %v, want [plan-free]", got)
		}
		for _, req := range gw.Requests() {
			if !strings.HasPrefix(req.Authorization, "AWS4-HMAC-SHA256 Credential=") {
				t.Fatalf("%s %s is not signed: %q", req.Method, req.Path, req.Authorization)
			}
		}
	})
	t.Run("KeyRotateProvisionsANewKey", func(t *testing.T) {
		b.ok(t, "key", "rotate", acct)
		second := usagePlanKey(t, acct)
		if second == "" || second == first {
			t.Fatalf("usage plan key after rotate %q (before %q)", second, first)
		}
		keys := gw.Keys()
		if len(keys) != 1 || keys[0].Value != second || len(gw.PlanOf(second)) != 1 || gw.PlanOf(second)[0] != "plan-free" {
			t.Fatalf("API Gateway keys %+v, want only the new one, in plan-free", keys)
		}
		first = second
	})
	t.Run("TierChangeMovesTheKey", func(t *testing.T) {
		b.ok(t, "account", "update", acct, "-tier", "enterprise")
		if got := gw.PlanOf(first); len(got) != 1 || got[0] != "plan-ent" || usagePlanKey(t, acct) != first {
			t.Fatalf("after the tier change the key is in %v", got)
		}
	})
	t.Run("FailedMoveLeavesTheAccount", func(t *testing.T) {
		gw.FailNext(http.MethodPost, "/usageplans/plan-std", http.StatusBadRequest)
		r := b.keyctl(t, "account", "update", acct, "-tier", "standard")
		a, err := b.store(t).GetAccount(t.Context(), acct)
		if err != nil {
			t.Fatal(err)
		}
		if r.code != cli.ExitFailure || !strings.Contains(r.stderr, "is unchanged") || a.Tier != "enterprise" || gw.PlanOf(first)[0] != "plan-ent" {
			t.Fatalf("%v\naccount tier %s, key in %v", r, a.Tier, gw.PlanOf(first))
		}
	})
	t.Run("FailedProvisioningStillShowsTheKeyAndCanBeRepaired", func(t *testing.T) {
		gw.FailNext(http.MethodPost, "/apikeys", http.StatusForbidden)
		r := b.keyctl(t, "account", "create", "-tier", "standard")
		if r.code != cli.ExitFailure || !strings.Contains(r.stderr, "its API Gateway key was not") {
			t.Fatalf("%v", r)
		}
		id, key := created(t, r)
		if !b.authenticates(t, key) || usagePlanKey(t, id) != "" {
			t.Fatal("the account should exist with a working key and no API Gateway key")
		}
		b.ok(t, "account", "update", id, "-tier", "standard")
		if v := usagePlanKey(t, id); v == "" || gw.PlanOf(v)[0] != "plan-std" {
			t.Fatalf("repair: usage plan key %q in %v", v, gw.PlanOf(v))
		}
	})
}
