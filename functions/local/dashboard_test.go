package main

import (
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/sluice-api/sluice/internal/account"
)

var bannerLink = regexp.MustCompile(`(http://\S+/dashboard/sign-in\?token=[A-Za-z0-9_-]{43})   \(account (acct_[0-9A-Z]{26})\)`)

// TestBannerSignInLink: every start prints a working sign-in link: for the demo account of a
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
		resp, err := http.Get(link)
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
	if !strings.Contains(first.Stdout.String(), "bin/keyctl dashboard-link "+demo+" -base-url "+first.Base) {
		t.Errorf("the banner does not say how to get another link:\n%s", first.Stdout.String())
	}

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
	seeded := start(t, "", "-seed-key", key)
	if m := links(seeded); len(m) != 1 || m[0][2] == demo {
		t.Fatalf("with a seeded key: %v", m)
	} else {
		opens(m[0][1])
	}
}
