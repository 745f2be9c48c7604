package cli_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/sluice-api/sluice/scripts/keyctl/internal/cli"
)

var linkLine = regexp.MustCompile(`(?m)^  (http://\S+/dashboard/sign-in\?token=([A-Za-z0-9_-]{43}))$`)

// TestDashboardLink issues links with keyctl for a running local server and signs in with them
// over HTTP, as a browser would.
func TestDashboardLink(t *testing.T) { eachBackend(t, testDashboardLink) }

func testDashboardLink(t *testing.T, b *backend) {
	base := startServer(t, b)
	acct, _ := created(t, b.ok(t, "account", "create"))
	r := b.ok(t, "dashboard-link", acct, "-base-url", base)
	m := linkLine.FindStringSubmatch(r.stdout)
	if m == nil || !strings.Contains(r.stdout, "It works once, until ") || !strings.Contains(r.stdout, acct) {
		t.Fatalf("no link in:\n%v", r)
	}
	link, token := m[1], m[2]
	if strings.Contains(b.dump(t), token) {
		t.Fatal("the store holds the link's token itself")
	}

	jar, _ := cookiejar.New(nil)
	client := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	signIn := func(link string) (int, string) {
		t.Helper()
		resp, err := client.Get(link)
		if err != nil {
			t.Fatal(err)
		}
		page, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return resp.StatusCode, string(page)
		}
		csrf := regexp.MustCompile(`name="csrf" value="([^"]+)"`).FindStringSubmatch(string(page))
		if csrf == nil {
			t.Fatalf("no form on the sign-in page:\n%s", page)
		}
		resp, err = client.PostForm(base+"/dashboard/sign-in", url.Values{"token": {token}, "csrf": {csrf[1]}})
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode, resp.Header.Get("Location")
	}
	if status, loc := signIn(link); status != http.StatusSeeOther || loc != "/dashboard/" {
		t.Fatalf("sign in: %d %s", status, loc)
	}
	resp, err := client.Get(base + "/dashboard/")
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(page), acct) {
		t.Fatalf("overview after sign-in: %d", resp.StatusCode)
	}
	if status, _ := signIn(link); status != http.StatusNotFound {
		t.Fatalf("the link worked twice: %d", status)
	}

	t.Run("JSON", func(t *testing.T) {
		var out struct {
			Account string    `json:"account_id"`
			URL     string    `json:"url"`
			Expires time.Time `json:"expires_at"`
		}
		r := b.ok(t, "-json", "dashboard-link", acct, "-base-url", "https://abc.execute-api.eu-west-1.amazonaws.com/prod")
		if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
			t.Fatalf("%v: %v", err, r)
		}
		if out.Account != acct || !strings.HasPrefix(out.URL, "https://abc.execute-api.eu-west-1.amazonaws.com/prod/dashboard/sign-in?token=") ||
			time.Until(out.Expires) > 15*time.Minute || time.Until(out.Expires) < 14*time.Minute {
			t.Fatalf("link %+v", out)
		}
	})
	t.Run("Errors", func(t *testing.T) {
		for _, tc := range []struct {
			name string
			args []string
			code int
		}{
			{"NoAccount", []string{"dashboard-link"}, cli.ExitUsage},
			{"BadBaseURL", []string{"dashboard-link", acct, "-base-url", "127.0.0.1:8080"}, cli.ExitUsage},
			{"UnknownAccount", []string{"dashboard-link", "acct_NONE"}, cli.ExitNotFound},
		} {
			t.Run(tc.name, func(t *testing.T) {
				if r := b.keyctl(t, tc.args...); r.code != tc.code {
					t.Fatalf("exit %d, want %d: %v", r.code, tc.code, r)
				}
			})
		}
		b.ok(t, "account", "disable", acct)
		if r := b.keyctl(t, "dashboard-link", acct); r.code != cli.ExitFailure || !strings.Contains(r.stderr, "disabled") {
			t.Fatalf("a disabled account's link: %v", r)
		}
	})
}
