package dashboard

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sluice-api/sluice/internal/account"
	"github.com/sluice-api/sluice/internal/store"
)

func TestSignIn(t *testing.T) {
	f := newFixture(t)
	a, _ := f.newAccount(t)
	b := f.browser()
	link := f.link(t, a.ID)

	// Opening the link only shows the form: a mail scanner fetching it uses nothing up.
	for range 2 {
		page := b.get(t, strings.TrimPrefix(link, "http://127.0.0.1:8080"))
		wantStatus(t, "sign-in page", page, http.StatusOK)
		if !strings.Contains(page.body, a.ID) || !strings.Contains(page.body, ">Sign in</button>") {
			t.Fatalf("the sign-in page does not offer to sign in to %s:\n%s", a.ID, page.body)
		}
	}
	r := b.signIn(t, link)
	wantStatus(t, "sign in", r, http.StatusSeeOther)
	var sess *http.Cookie
	for _, c := range (&http.Response{Header: r.header}).Cookies() {
		if c.Name == "sluice_session" {
			sess = c
		}
	}
	if sess == nil || !sess.HttpOnly || sess.SameSite != http.SameSiteStrictMode || sess.Path != "/" || sess.Secure {
		t.Fatalf("session cookie %+v: want HttpOnly, SameSite=Strict, Path=/, not Secure over http", sess)
	}
	if _, err := f.st.Session(t.Context(), sess.Value, f.now()); !errors.Is(err, store.ErrNotFound) {
		t.Error("the store keeps the session id itself, not only its hash")
	}
	if _, err := f.st.Session(t.Context(), hashToken(pepper, purposeSession, sess.Value), f.now()); err != nil {
		t.Errorf("the session's hash is not stored: %v", err)
	}
	over := b.get(t, "/dashboard/")
	wantStatus(t, "overview", over, http.StatusOK)
	if !strings.Contains(over.body, a.ID) || !strings.Contains(over.body, ">Sign out</button>") {
		t.Fatalf("the overview does not show the account:\n%s", over.body)
	}

	// The link is used up: neither this browser nor another can use it again.
	again := f.browser()
	page := again.get(t, strings.TrimPrefix(link, "http://127.0.0.1:8080"))
	wantStatus(t, "used link", page, http.StatusNotFound)
	if !strings.Contains(page.body, "does not work") {
		t.Errorf("a used link's page does not say so:\n%s", page.body)
	}
}

func TestSignInRefusals(t *testing.T) {
	for _, tc := range []struct {
		name   string
		status int
		// attempt signs in some broken way with the fixture's account.
		attempt func(t *testing.T, f *fixture, b *browser, acct string) response
	}{
		{"NoNonceCookie", http.StatusForbidden, func(t *testing.T, f *fixture, b *browser, acct string) response {
			page := b.get(t, strings.TrimPrefix(f.link(t, acct), "http://127.0.0.1:8080"))
			delete(b.cookies, "sluice_sign_in")
			return b.post(t, "/dashboard/sign-in", url.Values{"token": {hidden(t, page.body, "token")}, "csrf": {hidden(t, page.body, "csrf")}})
		}},
		{"WrongCSRF", http.StatusForbidden, func(t *testing.T, f *fixture, b *browser, acct string) response {
			page := b.get(t, strings.TrimPrefix(f.link(t, acct), "http://127.0.0.1:8080"))
			return b.post(t, "/dashboard/sign-in", url.Values{"token": {hidden(t, page.body, "token")}, "csrf": {"x" + hidden(t, page.body, "csrf")}})
		}},
		{"CrossSite", http.StatusForbidden, func(t *testing.T, f *fixture, b *browser, acct string) response {
			b.site = "cross-site"
			return b.signIn(t, f.link(t, acct))
		}},
		{"ForeignOrigin", http.StatusForbidden, func(t *testing.T, f *fixture, b *browser, acct string) response {
			page := b.get(t, strings.TrimPrefix(f.link(t, acct), "http://127.0.0.1:8080"))
			r := httpPostWithOrigin(t, f, b, url.Values{"token": {hidden(t, page.body, "token")}, "csrf": {hidden(t, page.body, "csrf")}}, "https://evil.example")
			return r
		}},
		{"ExpiredLink", http.StatusNotFound, func(t *testing.T, f *fixture, b *browser, acct string) response {
			link := f.link(t, acct)
			page := b.get(t, strings.TrimPrefix(link, "http://127.0.0.1:8080"))
			f.advance(DefaultLinkTTL)
			return b.post(t, "/dashboard/sign-in", url.Values{"token": {hidden(t, page.body, "token")}, "csrf": {hidden(t, page.body, "csrf")}})
		}},
		{"UnknownToken", http.StatusNotFound, func(t *testing.T, f *fixture, b *browser, acct string) response {
			page := b.get(t, strings.TrimPrefix(f.link(t, acct), "http://127.0.0.1:8080"))
			tok, _ := newToken()
			return b.post(t, "/dashboard/sign-in", url.Values{"token": {tok}, "csrf": {hidden(t, page.body, "csrf")}})
		}},
		{"MalformedToken", http.StatusNotFound, func(t *testing.T, f *fixture, b *browser, acct string) response {
			return b.get(t, "/dashboard/sign-in?token=not-a-token")
		}},
		{"DisabledAccount", http.StatusForbidden, func(t *testing.T, f *fixture, b *browser, acct string) response {
			link := f.link(t, acct)
			if _, err := f.mgr.Disable(t.Context(), acct); err != nil {
				t.Fatal(err)
			}
			return b.signIn(t, link)
		}},
		{"OtherRegion", http.StatusForbidden, func(t *testing.T, f *fixture, b *browser, acct string) response {
			link := f.link(t, acct)
			region := "eu-west-1"
			if _, err := f.mgr.Update(t.Context(), acct, account.Change{Region: &region}); err != nil {
				t.Fatal(err)
			}
			return b.signIn(t, link)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			a, _ := f.newAccount(t)
			b := f.browser()
			r := tc.attempt(t, f, b, a.ID)
			wantStatus(t, tc.name, r, tc.status)
			if _, ok := b.cookies["sluice_session"]; ok {
				t.Fatal("a refused sign-in set a session cookie")
			}
			if loc := b.get(t, "/dashboard/keys").header.Get("Location"); loc != "/dashboard/sign-in" {
				t.Fatalf("after a refused sign-in the keys page redirects to %q, want the sign-in page", loc)
			}
		})
	}
}

func httpPostWithOrigin(t *testing.T, f *fixture, b *browser, form url.Values, origin string) response {
	t.Helper()
	site := b.site
	b.site = "" // an older browser: Origin only
	defer func() { b.site = site }()
	return b.doWith(t, http.MethodPost, "/dashboard/sign-in", form, http.Header{"Origin": {origin}})
}

func TestSecureCookies(t *testing.T) {
	f := newFixture(t, func(c *Config) { c.Secure = true })
	a, _ := f.newAccount(t)
	b := f.browser()
	page := b.get(t, strings.TrimPrefix(f.link(t, a.ID), "http://127.0.0.1:8080"))
	if _, ok := b.cookies["__Host-sluice_sign_in"]; !ok {
		t.Fatalf("cookies %v: want the __Host- sign-in cookie", b.cookies)
	}
	r := b.post(t, "/dashboard/sign-in", url.Values{"token": {hidden(t, page.body, "token")}, "csrf": {hidden(t, page.body, "csrf")}})
	wantStatus(t, "sign in", r, http.StatusSeeOther)
	found := false
	for _, c := range (&http.Response{Header: r.header}).Cookies() {
		if c.Name == "__Host-sluice_session" {
			found = true
			if !c.Secure || !c.HttpOnly || c.Path != "/" || c.Domain != "" || c.SameSite != http.SameSiteStrictMode {
				t.Errorf("session cookie %+v: want Secure, HttpOnly, Path=/, no Domain, SameSite=Strict", c)
			}
		}
	}
	if !found {
		t.Fatalf("no __Host-sluice_session cookie in %v", r.header["Set-Cookie"])
	}
	if got := r.header.Get("Strict-Transport-Security"); got == "" {
		t.Error("no Strict-Transport-Security over HTTPS")
	}
	// The origin check expects https.
	wantStatus(t, "overview", b.get(t, "/dashboard/"), http.StatusOK)
	csrf := b.csrf(t)
	wantStatus(t, "create key with an http origin", b.doWith(t, http.MethodPost, "/dashboard/keys", url.Values{"csrf": {csrf}},
		http.Header{"Sec-Fetch-Site": nil, "Origin": {"http://127.0.0.1:8080"}}), http.StatusForbidden)
}

func TestCSRF(t *testing.T) {
	f := newFixture(t)
	a, _ := f.newAccount(t)
	other, _ := f.newAccount(t)
	b := f.browser()
	b.mustSignIn(t, a.ID)
	good := b.csrf(t)
	o := f.browser()
	o.mustSignIn(t, other.ID)
	othersToken := o.csrf(t)

	keys := func() int {
		ks, err := f.mgr.ListKeys(t.Context(), a.ID)
		if err != nil {
			t.Fatal(err)
		}
		return len(ks)
	}
	for _, tc := range []struct {
		name string
		csrf string
		site string
	}{
		{"Missing", "", "same-origin"},
		{"Wrong", strings.Repeat("A", len(good)), "same-origin"},
		{"AnotherSessionsToken", othersToken, "same-origin"},
		{"CrossSite", good, "cross-site"},
		{"SameSiteNotSameOrigin", good, "same-site"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b.site = tc.site
			defer func() { b.site = "same-origin" }()
			form := url.Values{}
			if tc.csrf != "" {
				form.Set("csrf", tc.csrf)
			}
			for _, target := range []string{"/dashboard/keys", "/dashboard/sign-out", "/dashboard/playground"} {
				wantStatus(t, target, b.post(t, target, form), http.StatusForbidden)
			}
			if n := keys(); n != 1 {
				t.Fatalf("%d keys after refused requests, want 1", n)
			}
			wantStatus(t, "still signed in", b.get(t, "/dashboard/"), http.StatusOK)
		})
	}
	wantStatus(t, "with the token", b.post(t, "/dashboard/keys", url.Values{"csrf": {good}}), http.StatusOK)
	if n := keys(); n != 2 {
		t.Fatalf("%d keys after creating one, want 2", n)
	}
}

func TestSessionExpiry(t *testing.T) {
	t.Run("Idle", func(t *testing.T) {
		f := newFixture(t)
		a, _ := f.newAccount(t)
		b := f.browser()
		b.mustSignIn(t, a.ID)
		f.advance(DefaultSessionIdle - time.Minute)
		wantStatus(t, "just before the idle expiry", b.get(t, "/dashboard/"), http.StatusOK)
		// That request moved the expiry: another 12 hours from it.
		f.advance(DefaultSessionIdle - time.Minute)
		wantStatus(t, "after a touch", b.get(t, "/dashboard/"), http.StatusOK)
		f.advance(DefaultSessionIdle)
		r := b.get(t, "/dashboard/")
		if r.status != http.StatusSeeOther || r.header.Get("Location") != "/dashboard/sign-in" {
			t.Fatalf("after 12 idle hours: %d %s, want a redirect to sign in", r.status, r.header.Get("Location"))
		}
		if _, ok := b.cookies["sluice_session"]; ok {
			t.Error("the expired session's cookie was not cleared")
		}
	})
	t.Run("TouchIsRare", func(t *testing.T) {
		f := newFixture(t)
		a, _ := f.newAccount(t)
		b := f.browser()
		b.mustSignIn(t, a.ID)
		hash := hashToken(pepper, purposeSession, b.cookies["sluice_session"])
		before, _ := f.st.Session(t.Context(), hash, f.now())
		f.advance(time.Minute)
		b.get(t, "/dashboard/")
		after, _ := f.st.Session(t.Context(), hash, f.now())
		if !after.Expires.Equal(before.Expires) {
			t.Errorf("a page a minute after sign-in wrote the session (%v -> %v)", before.Expires, after.Expires)
		}
		f.advance(touchEvery)
		b.get(t, "/dashboard/")
		after, _ = f.st.Session(t.Context(), hash, f.now())
		if !after.Expires.Equal(f.now().Add(DefaultSessionIdle)) {
			t.Errorf("expiry %v after %v, want it moved to %v", after.Expires, touchEvery, f.now().Add(DefaultSessionIdle))
		}
	})
	t.Run("Max", func(t *testing.T) {
		f := newFixture(t)
		a, _ := f.newAccount(t)
		b := f.browser()
		b.mustSignIn(t, a.ID)
		for range 14 * 2 { // active every 6 hours for a week
			f.advance(6 * time.Hour)
			if b.get(t, "/dashboard/").status != http.StatusOK {
				break
			}
		}
		if loc := b.get(t, "/dashboard/").header.Get("Location"); loc != "/dashboard/sign-in" {
			t.Fatalf("a session a week old still works (Location %q)", loc)
		}
	})
	t.Run("DisabledAccount", func(t *testing.T) {
		f := newFixture(t)
		a, _ := f.newAccount(t)
		b := f.browser()
		b.mustSignIn(t, a.ID)
		if _, err := f.mgr.Disable(t.Context(), a.ID); err != nil {
			t.Fatal(err)
		}
		if loc := b.get(t, "/dashboard/").header.Get("Location"); loc != "/dashboard/sign-in" {
			t.Fatalf("a disabled account's session still works (Location %q)", loc)
		}
	})
}

func TestSignOut(t *testing.T) {
	f := newFixture(t)
	a, _ := f.newAccount(t)
	b := f.browser()
	b.mustSignIn(t, a.ID)
	stolen := b.cookies["sluice_session"]
	second := f.browser()
	second.mustSignIn(t, a.ID) // another browser of the same holder
	r := b.post(t, "/dashboard/sign-out", url.Values{"csrf": {b.csrf(t)}})
	if r.status != http.StatusSeeOther || r.header.Get("Location") != "/dashboard/signed-out" {
		t.Fatalf("sign out: %d %s", r.status, r.header.Get("Location"))
	}
	if _, ok := b.cookies["sluice_session"]; ok {
		t.Error("sign-out did not clear the cookie")
	}
	if _, err := f.st.Session(t.Context(), hashToken(pepper, purposeSession, stolen), f.now()); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("the session is still in the store: %v", err)
	}
	replay := f.browser()
	replay.cookies["sluice_session"] = stolen
	if loc := replay.get(t, "/dashboard/keys").header.Get("Location"); loc != "/dashboard/sign-in" {
		t.Fatalf("the signed-out session's cookie still works (Location %q)", loc)
	}
	wantStatus(t, "the other browser's session", second.get(t, "/dashboard/"), http.StatusOK)
	wantStatus(t, "signed-out page", b.get(t, "/dashboard/signed-out"), http.StatusOK)
}

func TestNewLink(t *testing.T) {
	f := newFixture(t)
	a, _ := f.newAccount(t)
	for _, tc := range []struct {
		name, acct, base string
		err              bool
	}{
		{"Local", a.ID, "http://127.0.0.1:8080", false},
		{"Stage", a.ID, "https://abc.execute-api.eu-west-1.amazonaws.com/prod/", false},
		{"UnknownAccount", "acct_none", "http://127.0.0.1:8080", true},
		{"NoScheme", a.ID, "127.0.0.1:8080", true},
		{"Query", a.ID, "http://h/?x=1", true},
		{"FTP", a.ID, "ftp://h", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l, err := NewLink(t.Context(), f.st, pepper, tc.acct, tc.base, 0, f.now())
			if tc.err {
				if err == nil {
					t.Fatalf("NewLink = %+v, want an error", l)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want := strings.TrimRight(tc.base, "/") + "/dashboard/sign-in?token="
			token := strings.TrimPrefix(l.URL, want)
			if !strings.HasPrefix(l.URL, want) || !validToken(token) || !l.Expires.Equal(f.now().Add(DefaultLinkTTL)) {
				t.Fatalf("link %+v", l)
			}
			stored, err := f.st.Link(t.Context(), hashToken(pepper, purposeLink, token), f.now())
			if err != nil || stored.Account != a.ID {
				t.Fatalf("stored link %+v, %v", stored, err)
			}
		})
	}
}

// untouchedBody is a request body that records whether anything read it.
type untouchedBody struct {
	io.Reader
	read *atomic.Bool
}

func (u untouchedBody) Read(p []byte) (int, error) {
	u.read.Store(true)
	return u.Reader.Read(p)
}

// TestFormLimits: a form without a session is never read past its headers (the dashboard's
// routes are public on AWS), every form but the playground's is small and refused by its
// Content-Length before it is read, and an over-long body without one is cut off and refused.
func TestFormLimits(t *testing.T) {
	f := newFixture(t)
	a, _ := f.newAccount(t)
	signedIn := f.browser()
	signedIn.mustSignIn(t, a.ID)
	csrf := signedIn.csrf(t)

	post := func(b *browser, path string, size int, chunked bool) (response, bool) {
		t.Helper()
		form := "csrf=" + csrf + "&text=" + strings.Repeat("a", max(0, size-len("csrf=&text=")-len(csrf)))
		var read atomic.Bool
		r := httptest.NewRequest(http.MethodPost, path, untouchedBody{strings.NewReader(form), &read})
		r.ContentLength = int64(len(form))
		if chunked {
			r.ContentLength = -1
		}
		r.Host = "127.0.0.1:8080"
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		r.Header.Set("Sec-Fetch-Site", "same-origin")
		for k, v := range b.cookies {
			r.AddCookie(&http.Cookie{Name: k, Value: v})
		}
		w := httptest.NewRecorder()
		f.h.ServeHTTP(w, r)
		return response{status: w.Code, body: w.Body.String()}, read.Load()
	}
	for _, tc := range []struct {
		name     string
		b        *browser
		path     string
		size     int
		chunked  bool
		status   int
		mustRead bool // false: the body must not be read at all
	}{
		{"NoSessionPlayground2MB", f.browser(), "/dashboard/playground", maxPlaygroundBytes, false, http.StatusForbidden, false},
		{"NoSessionKeys", f.browser(), "/dashboard/keys", 1 << 10, false, http.StatusForbidden, false},
		{"SignInTooLarge", f.browser(), "/dashboard/sign-in", maxFormBytes + 1, false, http.StatusRequestEntityTooLarge, false},
		{"SignInTooLargeChunked", f.browser(), "/dashboard/sign-in", maxFormBytes + 1, true, http.StatusRequestEntityTooLarge, true},
		{"KeysTooLarge", signedIn, "/dashboard/keys", maxFormBytes + 1, false, http.StatusRequestEntityTooLarge, false},
		{"KeysTooLargeChunked", signedIn, "/dashboard/keys", maxFormBytes + 1, true, http.StatusRequestEntityTooLarge, true},
		{"PlaygroundTooLarge", signedIn, "/dashboard/playground", maxPlaygroundBytes + 1, false, http.StatusRequestEntityTooLarge, false},
		{"PlaygroundLargeInput", signedIn, "/dashboard/playground", 256 << 10, false, http.StatusOK, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, read := post(tc.b, tc.path, tc.size, tc.chunked)
			if r.status != tc.status {
				t.Fatalf("status %d, want %d\n%.500s", r.status, tc.status, r.body)
			}
			if read != tc.mustRead {
				t.Fatalf("body read: %v, want %v", read, tc.mustRead)
			}
		})
	}
}

// TestCookieNamesPerPort: over http the cookie names carry the configured suffix (the local
// server's port), so two local servers on one host keep their own sessions; over https they are
// the __Host- names whatever the suffix.
func TestCookieNamesPerPort(t *testing.T) {
	for _, tc := range []struct {
		name    string
		secure  bool
		session string
	}{
		{"HTTP", false, "sluice_session_8080"},
		{"HTTPS", true, "__Host-sluice_session"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, func(c *Config) { c.Secure, c.CookieSuffix = tc.secure, "8080" })
			a, _ := f.newAccount(t)
			b := f.browser()
			b.mustSignIn(t, a.ID)
			if _, ok := b.cookies[tc.session]; !ok || len(b.cookies) != 1 {
				t.Fatalf("cookies %v, want only %s", b.cookies, tc.session)
			}
			wantStatus(t, "overview", b.get(t, "/dashboard/"), http.StatusOK)
			// Another server's cookie of the same host is not this server's session.
			other := f.browser()
			other.cookies["sluice_session_9090"] = b.cookies[tc.session]
			if r := other.get(t, "/dashboard/"); r.status != http.StatusSeeOther {
				t.Fatalf("another port's cookie signed in: %d", r.status)
			}
		})
	}
}

// TestFailedSignInsLimited: an address that made signInFailures failed attempts (bad links, on
// the page or in the form) is refused with 429 and Retry-After until its window ends, even with
// a valid link; other addresses are not affected, and the store keeps a hash of the address only.
func TestFailedSignInsLimited(t *testing.T) {
	f := newFixture(t)
	a, _ := f.newAccount(t)
	bad := "/dashboard/sign-in?token=" + strings.Repeat("A", 43)
	attacker := f.browser()
	attacker.addr = "203.0.113.7:4711"
	csrf := ""
	for i := range signInFailures {
		if i%2 == 0 {
			wantStatus(t, "bad link page", attacker.get(t, bad), http.StatusNotFound)
		} else {
			page := attacker.get(t, strings.TrimPrefix(f.link(t, a.ID), "http://127.0.0.1:8080"))
			wantStatus(t, "good link page", page, http.StatusOK) // a good link is no failure
			csrf = hidden(t, page.body, "csrf")
			wantStatus(t, "bad token in the form", attacker.post(t, "/dashboard/sign-in",
				url.Values{"token": {strings.Repeat("B", 43)}, "csrf": {csrf}}), http.StatusNotFound)
		}
	}
	// The same address on another port is the same address.
	attacker.addr = "203.0.113.7:5000"
	r := attacker.get(t, strings.TrimPrefix(f.link(t, a.ID), "http://127.0.0.1:8080"))
	wantStatus(t, "valid link after the failures", r, http.StatusTooManyRequests)
	if ra := r.header.Get("Retry-After"); ra == "" || ra == "0" {
		t.Errorf("Retry-After = %q", ra)
	}
	wantStatus(t, "sign-in form after the failures", attacker.post(t, "/dashboard/sign-in",
		url.Values{"token": {strings.Repeat("C", 43)}, "csrf": {csrf}}), http.StatusTooManyRequests)

	other := f.browser()
	other.addr = "198.51.100.2:1234"
	other.mustSignIn(t, a.ID)

	if n, err := f.st.Count(t.Context(), "signin#203.0.113.7", f.now().UTC().Truncate(signInWindow)); err != nil || n != 0 {
		t.Errorf("the store counts under the plain address: %d, %v", n, err)
	}
	f.advance(signInWindow)
	attacker.mustSignIn(t, a.ID)
}
