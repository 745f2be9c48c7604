package cli_test

import (
	"encoding/json"
	"net"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sluice-api/sluice/internal/account"
	"github.com/sluice-api/sluice/internal/store"
	"github.com/sluice-api/sluice/scripts/keyctl/internal/cli"
)

func TestAccountCreate(t *testing.T) { eachBackend(t, testAccountCreate) }

func testAccountCreate(t *testing.T, b *backend) {
	for _, tc := range []struct {
		name string
		args []string
		want store.Account
	}{
		{"Defaults", nil, store.Account{Region: "local", Tier: "standard", RateLimit: 600, Allowance: 10_000_000}},
		{"Settings", []string{"-region", "eu-west-1", "-tier", "free", "-allowance", "5000", "-rate-limit", "7"},
			store.Account{Region: "eu-west-1", Tier: "free", RateLimit: 7, Allowance: 5000}},
		{"ZeroAllowance", []string{"-tier", "enterprise", "-allowance", "0"},
			store.Account{Region: "local", Tier: "enterprise", RateLimit: 600, Allowance: 0}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := b.ok(t, append([]string{"account", "create"}, tc.args...)...)
			id, key := created(t, r)
			a, err := b.store(t).GetAccount(t.Context(), id)
			if err != nil {
				t.Fatal(err)
			}
			if a.Region != tc.want.Region || a.Tier != tc.want.Tier || a.RateLimit != tc.want.RateLimit || a.Allowance != tc.want.Allowance || a.Disabled || a.UsagePlanKey != "" {
				t.Fatalf("stored account %+v, want %+v", a, tc.want)
			}
			if !b.authenticates(t, key) {
				t.Fatalf("the printed key does not authenticate")
			}
		})
	}
	t.Run("JSON", func(t *testing.T) {
		r := b.ok(t, "-json", "account", "create", "-tier", "free")
		var out struct {
			Account map[string]any `json:"account"`
			Key     map[string]any `json:"key"`
			APIKey  string         `json:"api_key"`
			Notice  string         `json:"notice"`
		}
		if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
			t.Fatalf("%v: %v", err, r)
		}
		if !account.ValidKeyFormat(out.APIKey) || !strings.Contains(out.Notice, "shown only this once") {
			t.Fatalf("api_key %q, notice %q", out.APIKey, out.Notice)
		}
		id, _ := out.Account["account_id"].(string)
		if !strings.HasPrefix(id, "acct_") || out.Account["tier"] != "free" || out.Account["usage_plan_key_set"] != false {
			t.Fatalf("account = %v", out.Account)
		}
		wantMasked := out.APIKey[:16] + "…" + out.APIKey[len(out.APIKey)-4:]
		if out.Key["key"] != wantMasked || out.Key["account_id"] != id || out.Key["active"] != true || out.Key["revoked_at"] != nil {
			t.Fatalf("key = %v, want key %q", out.Key, wantMasked)
		}
		if _, ok := out.Key["hash"]; ok {
			t.Fatalf("key shows its hash: %v", out.Key)
		}
		if !b.authenticates(t, out.APIKey) {
			t.Fatal("the printed key does not authenticate")
		}
	})
}

func TestKeys(t *testing.T) { eachBackend(t, testKeys) }

func testKeys(t *testing.T, b *backend) {
	acct, first := created(t, b.ok(t, "account", "create"))
	var second, third string
	t.Run("Create", func(t *testing.T) {
		second = newKey(t, b.ok(t, "key", "create", acct))
		if second == first || !b.authenticates(t, first) || !b.authenticates(t, second) {
			t.Fatal("key create: both keys should work")
		}
	})
	t.Run("ListText", func(t *testing.T) {
		r := b.ok(t, "key", "list", acct)
		lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
		if len(lines) != 3 || !regexp.MustCompile(`^KEY ID\s+KEY\s+CREATED\s+REVOKED$`).MatchString(lines[0]) {
			t.Fatalf("key list:\n%s", r.stdout)
		}
		for i, k := range []string{first, second} {
			row := regexp.MustCompile(`^key_[0-9A-Z]{26}\s+(\S+)\s+\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\s+-$`).FindStringSubmatch(lines[i+1])
			if row == nil || row[1] != k[:16]+"…"+k[len(k)-4:] {
				t.Fatalf("row %q, want key %s…%s", lines[i+1], k[:16], k[len(k)-4:])
			}
		}
	})
	t.Run("Rotate", func(t *testing.T) {
		third = newKey(t, b.ok(t, "key", "rotate", acct))
		if b.authenticates(t, first) || b.authenticates(t, second) || !b.authenticates(t, third) {
			t.Fatal("after rotate only the new key should work")
		}
	})
	t.Run("ListJSON", func(t *testing.T) {
		r := b.ok(t, "key", "list", acct, "-json")
		var out struct {
			Account string           `json:"account_id"`
			Keys    []map[string]any `json:"keys"`
		}
		if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
			t.Fatalf("%v: %v", err, r)
		}
		if out.Account != acct || len(out.Keys) != 3 {
			t.Fatalf("key list -json = %s", r.stdout)
		}
		for i, k := range out.Keys {
			active := i == 2
			if k["active"] != active || (k["revoked_at"] == nil) != active {
				t.Fatalf("key %d = %v, want active %v", i, k, active)
			}
			for _, field := range []string{"key_id", "account_id", "key", "prefix", "last4", "created_at", "revoked_at", "active"} {
				if _, ok := k[field]; !ok {
					t.Fatalf("key %d lacks %s: %v", i, field, k)
				}
			}
			if len(k) != 8 {
				t.Fatalf("key %d has fields beyond the documented ones: %v", i, k)
			}
		}
	})
	t.Run("Revoke", func(t *testing.T) {
		keys, err := b.store(t).ListKeys(t.Context(), acct)
		if err != nil {
			t.Fatal(err)
		}
		r := b.ok(t, "key", "revoke", keys[2].ID)
		if !strings.Contains(r.stdout, "Revoked key "+keys[2].ID) || b.authenticates(t, third) {
			t.Fatalf("revoke: %v; key still works: %v", r, b.authenticates(t, third))
		}
		r = b.ok(t, "-json", "key", "revoke", keys[2].ID) // revoking twice is fine
		if !strings.Contains(r.stdout, `"revoked": true`) {
			t.Fatalf("revoke -json: %v", r)
		}
	})
}

func TestAccountShowUpdateDisable(t *testing.T) { eachBackend(t, testAccountShowUpdateDisable) }

func testAccountShowUpdateDisable(t *testing.T, b *backend) {
	acct, key := created(t, b.ok(t, "account", "create", "-tier", "free"))
	b.ok(t, "key", "create", acct)
	t.Run("ShowText", func(t *testing.T) {
		r := b.ok(t, "account", "show", acct)
		for _, want := range []string{"Account " + acct, "tier        free", "rate limit  600 requests per minute", "allowance   10,000,000 characters per month", "disabled    no", "keys        2 active of 2"} {
			if !strings.Contains(r.stdout, want) {
				t.Fatalf("account show lacks %q:\n%s", want, r.stdout)
			}
		}
	})
	for _, tc := range []struct {
		name  string
		args  []string
		check func(a store.Account) bool
	}{
		{"Tier", []string{"-tier", "enterprise"}, func(a store.Account) bool { return a.Tier == "enterprise" && a.RateLimit == 600 }},
		{"AllowanceAndRate", []string{"-allowance", "123", "-rate-limit", "9"}, func(a store.Account) bool {
			return a.Allowance == 123 && a.RateLimit == 9 && a.Tier == "enterprise"
		}},
		{"FlagsBeforeAccount", []string{"-region", "us-east-2"}, func(a store.Account) bool { return a.Region == "us-east-2" }},
	} {
		t.Run("Update"+tc.name, func(t *testing.T) {
			args := append([]string{"account", "update", acct}, tc.args...)
			if tc.name == "FlagsBeforeAccount" {
				args = append(append([]string{"account", "update"}, tc.args...), acct)
			}
			b.ok(t, args...)
			a, err := b.store(t).GetAccount(t.Context(), acct)
			if err != nil {
				t.Fatal(err)
			}
			if !tc.check(a) {
				t.Fatalf("after update %v: %+v", tc.args, a)
			}
		})
	}
	t.Run("ShowJSON", func(t *testing.T) {
		r := b.ok(t, "-json", "account", "show", acct)
		var out map[string]any
		if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
			t.Fatalf("%v: %v", err, r)
		}
		want := map[string]any{"account_id": acct, "region": "us-east-2", "tier": "enterprise", "rate_limit": 9.0, "allowance": 123.0,
			"disabled": false, "usage_plan_key_set": false, "keys": 2.0, "active_keys": 2.0}
		for k, v := range want {
			if out[k] != v {
				t.Fatalf("%s = %v, want %v (%s)", k, out[k], v, r.stdout)
			}
		}
		if _, err := time.Parse(time.RFC3339, out["created_at"].(string)); err != nil {
			t.Fatalf("created_at: %v", err)
		}
	})
	t.Run("Disable", func(t *testing.T) {
		r := b.ok(t, "account", "disable", acct)
		if !strings.Contains(r.stdout, "disabled    yes") || b.authenticates(t, key) {
			t.Fatalf("disable: %v (key still works: %v)", r, b.authenticates(t, key))
		}
		r = b.keyctl(t, "key", "create", acct)
		if r.code != cli.ExitFailure || !strings.Contains(r.stderr, "is disabled") || anyKey.MatchString(r.stdout) {
			t.Fatalf("key create on a disabled account: %v", r)
		}
	})
}

func TestUsage(t *testing.T) { eachBackend(t, testUsage) }

func testUsage(t *testing.T, b *backend) {
	acct, _ := created(t, b.ok(t, "account", "create", "-allowance", "2000000"))
	for _, n := range []int64{1_000_000, 500_000} {
		st := b.store(t)
		p, err := st.Enter(t.Context(), store.Entry{Account: acct, Month: "2026-03", Window: time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC), Limit: 1000})
		if err != nil {
			t.Fatal(err)
		}
		if _, ok, err := st.Settle(t.Context(), store.Settlement{Pass: p, Characters: n, Limit: 2_000_000, TraceID: "sluice_usage-" + strconv.FormatInt(n, 10)}); err != nil || !ok {
			t.Fatalf("settle: %v %v", ok, err)
		}
		st.Leave(p)
	}
	a, err := b.store(t).GetAccount(t.Context(), acct)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, month string
		usage       store.Usage
		text        []string
	}{
		{"Billed", "2026-03", store.Usage{Characters: 1_500_000, Runs: 2},
			[]string{"characters  1,500,000", "runs        2", "price tier  tier2 (0.012 USD per 1,000 characters)", "cost        26.000000 USD", "allowance   2,000,000 characters, 500,000 left"}},
		{"Empty", "2026-04", store.Usage{},
			[]string{"characters  0", "price tier  tier1 (0.020 USD per 1,000 characters)", "cost        0.000000 USD", "2,000,000 left"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := b.ok(t, "usage", acct, "-month", tc.month)
			for _, want := range tc.text {
				if !strings.Contains(r.stdout, want) {
					t.Fatalf("usage lacks %q:\n%s", want, r.stdout)
				}
			}
			r = b.ok(t, "-json", "usage", acct, "-month", tc.month)
			want, _ := json.Marshal(account.Report(a, tc.month, tc.usage)) // what GET /v1/usage answers
			var got, wantDoc map[string]any
			if err := json.Unmarshal([]byte(r.stdout), &got); err != nil {
				t.Fatal(err)
			}
			_ = json.Unmarshal(want, &wantDoc)
			if g, w := mustJSON(got), mustJSON(wantDoc); g != w {
				t.Fatalf("usage -json = %s, want %s", g, w)
			}
		})
	}
	t.Run("DefaultMonthIsThisMonth", func(t *testing.T) {
		r := b.ok(t, "-json", "usage", acct)
		if !strings.Contains(r.stdout, `"month": "`+account.Month(time.Now())+`"`) {
			t.Fatalf("usage = %s", r.stdout)
		}
	})
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

func TestErrors(t *testing.T) { eachBackend(t, testErrors) }

func testErrors(t *testing.T, b *backend) {
	acct, key := created(t, b.ok(t, "account", "create"))
	for _, tc := range []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"NoCommand", nil, cli.ExitUsage, "no command"},
		{"UnknownCommand", []string{"accounts"}, cli.ExitUsage, `unknown command "accounts"`},
		{"UnknownSubcommand", []string{"key", "burn", acct}, cli.ExitUsage, `unknown command "key burn"`},
		{"BadGlobalFlag", []string{"-bogus", "account", "show", acct}, cli.ExitUsage, "flag provided but not defined: -bogus"},
		{"BadCommandFlag", []string{"key", "list", acct, "-tier", "free"}, cli.ExitUsage, "flag provided but not defined: -tier"},
		{"MissingArgument", []string{"account", "show"}, cli.ExitUsage, "account show takes ACCOUNT, got 0"},
		{"ExtraArgument", []string{"key", "list", acct, acct}, cli.ExitUsage, "key list takes ACCOUNT, got 2"},
		{"BadTier", []string{"account", "create", "-tier", "gold"}, cli.ExitUsage, "tier must be one of"},
		{"BadRateLimit", []string{"account", "update", acct, "-rate-limit", "0"}, cli.ExitUsage, "rate limit must be at least 1"},
		{"BadNumber", []string{"account", "create", "-allowance", "lots"}, cli.ExitUsage, `invalid value "lots" for flag -allowance`},
		{"NothingToUpdate", []string{"account", "update", acct}, cli.ExitUsage, "nothing to change"},
		{"BadMonth", []string{"usage", acct, "-month", "2026-3"}, cli.ExitUsage, "want YYYY-MM"},
		{"KeyInsteadOfID", []string{"key", "revoke", key}, cli.ExitUsage, "pass the KEY_ID, not an API key"},
		{"KeyInsteadOfAccount", []string{"account", "show", key}, cli.ExitUsage, "pass the ACCOUNT, not an API key"},
		{"UsagePlansOnSQLite", []string{"-store", "sqlite", "-usage-plans", "free=a,standard=b,enterprise=c", "account", "show", acct}, cli.ExitUsage, "-usage-plans needs -store dynamodb"},
		{"BadUsagePlans", []string{"-store", "dynamodb", "-usage-plans", "free=a", "account", "show", acct}, cli.ExitUsage, "no usage plan for tier standard, enterprise"},
		{"UnknownAccountShow", []string{"account", "show", "acct_01ZZZZZZZZZZZZZZZZZZZZZZZZ"}, cli.ExitNotFound, "no account acct_01ZZZZZZZZZZZZZZZZZZZZZZZZ"},
		{"UnknownAccountUpdate", []string{"account", "update", "acct_nope", "-tier", "free"}, cli.ExitNotFound, "no account acct_nope"},
		{"UnknownAccountDisable", []string{"account", "disable", "acct_nope"}, cli.ExitNotFound, "no account acct_nope"},
		{"UnknownAccountKeyCreate", []string{"key", "create", "acct_nope"}, cli.ExitNotFound, "no account acct_nope"},
		{"UnknownAccountKeyRotate", []string{"key", "rotate", "acct_nope"}, cli.ExitNotFound, "no account acct_nope"},
		{"UnknownAccountKeyList", []string{"key", "list", "acct_nope"}, cli.ExitNotFound, "no account acct_nope"},
		{"UnknownAccountUsage", []string{"usage", "acct_nope"}, cli.ExitNotFound, "no account acct_nope"},
		{"UnknownKey", []string{"key", "revoke", "key_nope"}, cli.ExitNotFound, "no key key_nope"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := b.keyctl(t, tc.args...)
			if r.code != tc.code || !strings.Contains(r.stderr, tc.msg) || r.stdout != "" {
				t.Fatalf("want exit %d and %q on stderr only; got %v", tc.code, tc.msg, r)
			}
			if !strings.HasPrefix(r.stderr, "keyctl: ") || strings.Count(r.stderr, "\n") != 1 {
				t.Fatalf("stderr is not one line: %q", r.stderr)
			}
			if strings.Contains(r.stderr, key) {
				t.Fatalf("an error echoes the whole key: %q", r.stderr)
			}
		})
	}
	t.Run("Help", func(t *testing.T) {
		for _, args := range [][]string{{"-h"}, {"help"}, {"key", "list", "-h"}} {
			r := runKeyctl(t, args...)
			if r.code != cli.ExitOK || !strings.Contains(r.stdout, "Exit codes") {
				t.Fatalf("%v", r)
			}
		}
	})
}

// closedPort returns a loopback address nothing listens on.
func closedPort(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

func TestUnreachableStore(t *testing.T) {
	dead := "http://" + closedPort(t)
	notADir := t.TempDir() + "/file"
	if err := writeFile(notADir); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		msg  string
	}{
		{"DynamoDBClosedPort", []string{"-store", "dynamodb", "-dynamodb-endpoint", dead, "-timeout", "10s", "-data", t.TempDir(), "account", "show", "acct_x"}, "store unreachable"},
		{"DynamoDBClosedPortCreate", []string{"-store", "dynamodb", "-dynamodb-endpoint", dead, "-timeout", "10s", "-data", t.TempDir(), "account", "create"}, "store unreachable"},
		{"DynamoDBNoTables", []string{"-store", "dynamodb", "-dynamodb-endpoint", dynamoEndpoint, "-table-prefix", "missing_", "-data", t.TempDir(), "key", "list", "acct_x"}, "ResourceNotFoundException"},
		{"SQLiteNoStore", []string{"-data", t.TempDir(), "key", "list", "acct_x"}, "no Sluice store in"},
		{"SQLiteDataIsAFile", []string{"-data", notADir, "account", "create"}, "store unreachable"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			r := runKeyctl(t, tc.args...)
			if r.code != cli.ExitFailure || !strings.Contains(r.stderr, tc.msg) || strings.Count(r.stderr, "\n") != 1 || r.stdout != "" {
				t.Fatalf("want exit 4 and %q; got %v", tc.msg, r)
			}
			if d := time.Since(start); d > 15*time.Second {
				t.Fatalf("took %v", d)
			}
		})
	}
}

func TestMigrate(t *testing.T) { eachBackend(t, testMigrate) }

// testMigrate: keyctl migrate copies every account onto its keys on DynamoDB (and has nothing
// to do on SQLite); it can run again, and the keys authenticate before and after.
func testMigrate(t *testing.T, b *backend) {
	acct, _ := created(t, b.ok(t, "account", "create"))
	b.ok(t, "key", "create", acct)
	want := 0
	if b.name == "DynamoDB" {
		want = 1
	}
	for range 2 {
		r := b.ok(t, "-json", "migrate")
		var got struct {
			Accounts int `json:"accounts_copied_to_keys"`
		}
		if err := json.Unmarshal([]byte(r.stdout), &got); err != nil || got.Accounts != want {
			t.Fatalf("migrate = %s (%v), want %d accounts", r.stdout, err, want)
		}
	}
	keys, err := b.store(t).ListKeys(t.Context(), acct)
	if err != nil || len(keys) != 2 {
		t.Fatalf("keys = %v, %v", keys, err)
	}
	for _, k := range keys {
		if _, a, err := b.store(t).KeyAccount(t.Context(), k.Hash); err != nil || a.ID != acct {
			t.Fatalf("KeyAccount(%s) = %+v, %v", k.ID, a, err)
		}
	}
	if r := b.keyctl(t, "migrate", "extra"); r.code != cli.ExitUsage {
		t.Fatalf("migrate with an argument: %v", r)
	}
}
