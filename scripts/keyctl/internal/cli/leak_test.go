package cli_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/sluice-api/sluice/internal/account"
)

// TestNoWholeKeyOutsideItsCreation runs every command, in text and in JSON, and checks that a
// whole key appears in exactly one line of everything keyctl printed, the line of the command
// that made it, and nowhere in the store.
func TestNoWholeKeyOutsideItsCreation(t *testing.T) {
	eachBackend(t, testNoWholeKey)
	t.Run("UsagePlans", func(t *testing.T) {
		b, _ := awsBackend(t)
		testNoWholeKey(t, b)
	})
}

func testNoWholeKey(t *testing.T, b *backend) {
	var all []result
	made := map[string]int{} // key -> index in all of the run that made it
	do := func(args ...string) result {
		t.Helper()
		r := b.keyctl(t, args...)
		all = append(all, r)
		return r
	}
	for _, mode := range []string{"text", "json"} {
		var g []string
		if mode == "json" {
			g = []string{"-json"}
		}
		r := do(append(g, "account", "create")...)
		keys := anyKey.FindAllString(r.stdout, -1)
		if len(keys) != 1 {
			t.Fatalf("account create printed %d keys: %v", len(keys), r)
		}
		made[keys[0]] = len(all) - 1
		acct := accountOf(t, r)
		for _, args := range [][]string{{"key", "create", acct}, {"key", "rotate", acct}} {
			r := do(append(g, args...)...)
			ks := anyKey.FindAllString(r.stdout, -1)
			if len(ks) != 1 {
				t.Fatalf("%v printed %d keys: %v", args, len(ks), r)
			}
			made[ks[0]] = len(all) - 1
		}
		do(append(g, "key", "list", acct)...)
		do(append(g, "account", "show", acct)...)
		do(append(g, "account", "update", acct, "-tier", "enterprise")...)
		do(append(g, "usage", acct)...)
		do(append(g, "key", "revoke", "key_nope")...)
		do(append(g, "account", "disable", acct)...)
		do(append(g, "key", "create", acct)...) // refused: disabled
	}
	if len(made) != 6 {
		t.Fatalf("%d keys made, want 6", len(made))
	}
	stored := b.dump(t)
	for key, at := range made {
		secret := strings.TrimPrefix(key, account.KeyPrefix)
		lines := 0
		for i, r := range all {
			n := strings.Count(r.stdout+r.stderr, secret)
			if i != at && n > 0 {
				t.Fatalf("a key made by run %d appears in run %d: %v", at, i, r)
			}
			for _, line := range strings.Split(r.stdout+r.stderr, "\n") {
				if strings.Contains(line, secret) {
					lines++
					if strings.TrimSpace(line) != key && strings.TrimSpace(line) != `"api_key": "`+key+`",` {
						t.Fatalf("the key is printed on a line that is not its own: %q", line)
					}
				}
			}
		}
		if lines != 1 {
			t.Fatalf("a key appears on %d lines, want 1", lines)
		}
		if strings.Contains(stored, secret) || strings.Contains(stored, secret[:16]) || strings.Contains(stored, secret[16:]) {
			t.Fatalf("the store holds (part of) a whole key")
		}
	}
}

// accountOf returns the account id account create printed.
func accountOf(t *testing.T, r result) string {
	t.Helper()
	id := regexp.MustCompile(`acct_[0-9A-Z]{26}`).FindString(r.stdout)
	if id == "" {
		t.Fatalf("no account id in %v", r)
	}
	return id
}
