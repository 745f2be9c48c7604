package main

import (
	"context"
	"net"
	"net/http"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/sluice-api/sluice/internal/account"
	"github.com/sluice-api/sluice/internal/local"
)

// anotherLink is the banner's command for another sign-in link (data is an absolute path here).
var anotherLink = regexp.MustCompile(`Another link later, from this directory:\n  (go run \./scripts/keyctl [^\n]+)\n`)

var bannerLink = regexp.MustCompile(`(http://\S+/dashboard/sign-in\?token=[A-Za-z0-9_-]{43})   \(account (acct_[0-9A-Z]{26})\)`)

// localhostClient dials every *.localhost name on loopback, as browsers do (Go's resolver, like
// the system's here, does not know them).
var localhostClient = &http.Client{Transport: &http.Transport{
	DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		if host, port, err := net.SplitHostPort(addr); err == nil && strings.HasSuffix(host, ".localhost") {
			addr = net.JoinHostPort("127.0.0.1", port)
		}
		return (&net.Dialer{}).DialContext(ctx, network, addr)
	},
}}

// TestBannerSignInLink: every start prints a working sign-in link, on the server's own
// sluice-PORT.localhost host (so that its cookie reaches no other port): for the demo account of a
// fresh data directory, for it again on later starts (here a second server on the same data,
// as SQLite allows), and for a seeded key's account.
func TestBannerSignInLink(t *testing.T) {
	links := func(s *server) [][]string {
		t.Helper()
		m := bannerLink.FindAllStringSubmatch(s.Stdout.String(), -1)
		if len(m) == 0 {
			t.Fatalf("no sign-in link in the banner:\n%s", s.Stdout.String())
		}
		return m
	}
	opens := func(link string) {
		t.Helper()
		if !strings.HasPrefix(link, "http://sluice-") || !strings.Contains(link, ".localhost:") {
			t.Fatalf("the link %s is not on the server's own sluice-PORT.localhost host", link)
		}
		resp, err := localhostClient.Get(link)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %d", link, resp.StatusCode)
		}
	}
	data := t.TempDir()
	first := start(t, data)
	m := links(first)
	demo := m[0][2]
	opens(m[0][1])
	// The banner's command for another link works as printed, from the repository's root.
	cmdLine := anotherLink.FindStringSubmatch(first.Stdout.String())
	if cmdLine == nil || !strings.Contains(cmdLine[1], "dashboard-link "+demo+" -base-url "+local.DashboardBase(strings.TrimPrefix(first.Base, "http://"))) {
		t.Fatalf("the banner does not say how to get another link:\n%s", first.Stdout.String())
	}
	cmd := exec.Command("bash", "-c", cmdLine[1])
	cmd.Dir = filepath.Join("..", "..")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the banner's command %q: %v\n%s", cmdLine[1], err, out)
	}
	link := regexp.MustCompile(`http://\S+/dashboard/sign-in\?token=[A-Za-z0-9_-]{43}`).FindString(string(out))
	if link == "" {
		t.Fatalf("the banner's command printed no link:\n%s", out)
	}
	opens(link)

	again := start(t, data)
	if m := links(again); m[0][2] != demo {
		t.Fatalf("a restart prints a link for %s, want the demo account %s", m[0][2], demo)
	} else {
		opens(m[0][1])
	}

	key, err := account.NewKey()
	if err != nil {
		t.Fatal(err)
	}
	seeded := seed(t, "", []string{key})
	if m := links(seeded); len(m) != 1 || m[0][2] == demo {
		t.Fatalf("with a seeded key: %v", m)
	} else {
		opens(m[0][1])
	}
}
