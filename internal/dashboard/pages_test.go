package dashboard

import (
	"encoding/json"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/sluice-api/sluice/internal/account"
	"github.com/sluice-api/sluice/internal/store"
)

var keyRE = regexp.MustCompile(`sluice_live_[0-9A-Za-z]{32}`)

// works reports whether key authenticates an API request now.
func (f *fixture) works(t *testing.T, key string) bool {
	t.Helper()
	_, err := f.mgr.Authenticate(t.Context(), "Bearer "+key)
	return err == nil
}

func TestKeysWithoutJavaScript(t *testing.T) {
	f := newFixture(t)
	a, first := f.newAccount(t)
	b := f.browser()
	b.mustSignIn(t, a.ID)
	csrf := b.csrf(t)

	// Create: the whole key once, on the answer to the form, then never again.
	r := b.post(t, "/dashboard/keys", url.Values{"csrf": {csrf}})
	wantStatus(t, "create", r, http.StatusOK)
	keys := keyRE.FindAllString(r.body, -1)
	if len(keys) != 1 || !f.works(t, keys[0]) {
		t.Fatalf("the create answer shows keys %v, want exactly the new, working key once", keys)
	}
	created := keys[0]
	for _, want := range []string{"This is the only time the whole key is shown.", `data-copy="new-key"`, ">Copy key</button>"} {
		if !strings.Contains(r.body, want) {
			t.Errorf("the create answer lacks %q", want)
		}
	}
	if r.header.Get("Cache-Control") != "no-store" {
		t.Errorf("a page with a key has Cache-Control %q", r.header.Get("Cache-Control"))
	}
	list := b.get(t, "/dashboard/keys")
	if keyRE.MatchString(list.body) {
		t.Fatal("the key list shows a whole key")
	}
	if !strings.Contains(list.body, created[:16]+"…"+created[len(created)-4:]) {
		t.Error("the key list does not show the new key's prefix and last four")
	}

	// Rotate through the confirmation page.
	var createdID string
	ks, _ := f.mgr.ListKeys(t.Context(), a.ID)
	for _, k := range ks {
		if k.Last4 == created[len(created)-4:] {
			createdID = k.ID
		}
	}
	confirm := b.get(t, "/dashboard/keys/"+createdID+"/rotate")
	wantStatus(t, "rotate confirmation", confirm, http.StatusOK)
	for _, want := range []string{"The old key stops working immediately.", "Deploy it first", `action="/dashboard/keys/` + createdID + `/rotate"`, ">Rotate key</button>"} {
		if !strings.Contains(confirm.body, want) {
			t.Errorf("the rotate confirmation lacks %q", want)
		}
	}
	r = b.post(t, "/dashboard/keys/"+createdID+"/rotate", url.Values{"csrf": {csrf}})
	wantStatus(t, "rotate", r, http.StatusOK)
	keys = keyRE.FindAllString(r.body, -1)
	if len(keys) != 1 || keys[0] == created {
		t.Fatalf("the rotate answer shows %v, want one new key", keys)
	}
	if f.works(t, created) {
		t.Error("the rotated key still works")
	}
	if !f.works(t, keys[0]) || !f.works(t, first) {
		t.Error("the new key or the account's other key does not work")
	}
	wantStatus(t, "rotate a revoked key", b.post(t, "/dashboard/keys/"+createdID+"/rotate", url.Values{"csrf": {csrf}}), http.StatusConflict)

	// Revoke through the confirmation page: back to the list with a notice.
	ks, _ = f.mgr.ListKeys(t.Context(), a.ID)
	firstID := ks[0].ID
	wantStatus(t, "revoke confirmation", b.get(t, "/dashboard/keys/"+firstID+"/revoke"), http.StatusOK)
	r = b.post(t, "/dashboard/keys/"+firstID+"/revoke", url.Values{"csrf": {csrf}})
	if r.status != http.StatusSeeOther || r.header.Get("Location") != "/dashboard/keys?revoked="+firstID {
		t.Fatalf("revoke: %d %s", r.status, r.header.Get("Location"))
	}
	if f.works(t, first) {
		t.Error("the revoked key still works")
	}
	if page := b.get(t, r.header.Get("Location")); !strings.Contains(page.body, "was revoked") {
		t.Error("the key list does not confirm the revocation")
	}
}

func TestLastUsedShown(t *testing.T) {
	f := newFixture(t)
	a, key := f.newAccount(t)
	b := f.browser()
	b.mustSignIn(t, a.ID)
	if page := b.get(t, "/dashboard/keys"); !strings.Contains(page.body, ">Never</td>") {
		t.Fatal("an unused key is not listed as never used")
	}
	if !f.works(t, key) {
		t.Fatal("key does not work")
	}
	f.mgr.WaitKeyUse()
	if page := b.get(t, "/dashboard/keys"); !strings.Contains(page.body, ">2026-11-22</td>") {
		t.Fatal("the key's last-used day is not listed")
	}
}

// TestCrossAccount: a session acts for its own account only, whatever ids it sends.
func TestCrossAccount(t *testing.T) {
	f := newFixture(t)
	a, _ := f.newAccount(t)
	victim, victimKey := f.newAccount(t)
	vks, _ := f.mgr.ListKeys(t.Context(), victim.ID)
	vid := vks[0].ID
	b := f.browser()
	b.mustSignIn(t, a.ID)
	csrf := b.csrf(t)
	for _, tc := range []struct {
		method, target string
	}{
		{http.MethodGet, "/dashboard/keys/" + vid + "/rotate"},
		{http.MethodGet, "/dashboard/keys/" + vid + "/revoke"},
		{http.MethodPost, "/dashboard/keys/" + vid + "/rotate"},
		{http.MethodPost, "/dashboard/keys/" + vid + "/revoke"},
	} {
		t.Run(tc.method+tc.target, func(t *testing.T) {
			var form url.Values
			if tc.method == http.MethodPost {
				form = url.Values{"csrf": {csrf}}
			}
			r := b.do(t, tc.method, tc.target, form)
			wantStatus(t, tc.target, r, http.StatusNotFound)
			if strings.Contains(r.body, vks[0].Last4) {
				t.Error("the answer shows something of the other account's key")
			}
		})
	}
	if !f.works(t, victimKey) {
		t.Fatal("the other account's key stopped working")
	}
	if ks, _ := f.mgr.ListKeys(t.Context(), victim.ID); len(ks) != 1 {
		t.Fatalf("the other account has %d keys now", len(ks))
	}
	if page := b.get(t, "/dashboard/keys?revoked="+vid); strings.Contains(page.body, vks[0].Last4) {
		t.Error("the key list names the other account's key")
	}
	// A link of the other account signs in to that account only; the sessions stay apart.
	v := f.browser()
	v.mustSignIn(t, victim.ID)
	if page := v.get(t, "/dashboard/keys"); !strings.Contains(page.body, vks[0].Last4) || strings.Contains(page.body, a.ID) {
		t.Error("the other account's session sees the wrong account")
	}
	if page := b.get(t, "/dashboard/"); !strings.Contains(page.body, a.ID) || strings.Contains(page.body, victim.ID) {
		t.Error("the first session switched accounts")
	}
}

func TestPlayground(t *testing.T) {
	f := newFixture(t)
	a, _ := f.newAccount(t)
	b := f.browser()
	b.mustSignIn(t, a.ID)
	csrf := b.csrf(t)
	text := "this is a bad secret sentence"
	form := url.Values{
		"csrf": {csrf}, "text": {text},
		"service1": {"test.upper"}, "id1": {"up"}, "params1": {`{"mode":"all"}`},
		"service2": {"test.flag"}, "id2": {""}, "stop2": {"verdict:flag"},
		"service3": {""}, "service4": {""},
	}
	r := b.post(t, "/dashboard/playground", form)
	wantStatus(t, "run", r, http.StatusOK)
	for _, want := range []string{
		"Result: halted (HTTP 200)", strings.ToUpper(text), "step2 (stop_if)", `&#34;verdict&#34;: &#34;flag&#34;`,
		"Characters billed by this run: 58", `&#34;retention&#34;: &#34;none&#34;`, "Bearer $SLUICE_KEY",
		"same engine, rate window, allowance and billing",
	} {
		if !strings.Contains(r.body, want) {
			t.Errorf("the result lacks %q", want)
		}
	}
	if keyRE.MatchString(r.body) {
		t.Error("the playground shows a key")
	}
	u, err := f.st.Usage(t.Context(), a.ID, "2026-11")
	if err != nil || u != (store.Usage{Characters: 58, Runs: 1}) {
		t.Fatalf("usage after a playground run = %+v, %v; want 58 characters, 1 run", u, err)
	}
	days, _ := f.st.UsageDays(t.Context(), a.ID, "2026-11")
	if days[21] != 58 {
		t.Errorf("the 22nd counts %d characters, want 58", days[21])
	}
	for _, secret := range []string{text, strings.ToUpper(text), "secret sentence"} {
		if strings.Contains(f.logs.String(), secret) {
			t.Fatalf("the logs contain the playground's text:\n%s", f.logs.String())
		}
	}

	t.Run("FormErrors", func(t *testing.T) {
		for _, tc := range []struct {
			name string
			form url.Values
			want string
		}{
			{"NoStep", url.Values{"text": {"x"}}, "Choose a service for at least one step."},
			{"ParamsNotJSON", url.Values{"text": {"x"}, "service1": {"test.upper"}, "params1": {"mode=all"}}, "The parameters of step 1 are not a JSON object"},
			{"ParamsArray", url.Values{"text": {"x"}, "service1": {"test.upper"}, "params1": {"[1]"}}, "The parameters of step 1 are not a JSON object"},
			{"ScoreMissing", url.Values{"text": {"x"}, "service1": {"test.flag"}, "stop1": {"score_gte"}}, "Step 1 stops on a score"},
			{"StopUnknown", url.Values{"text": {"x"}, "service1": {"test.flag"}, "stop1": {"sometimes"}}, "unknown stop condition"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				tc.form.Set("csrf", csrf)
				r := b.post(t, "/dashboard/playground", tc.form)
				wantStatus(t, tc.name, r, http.StatusOK)
				if !strings.Contains(r.body, tc.want) || strings.Contains(r.body, "Result:") {
					t.Errorf("want the message %q and no run", tc.want)
				}
			})
		}
		if u, _ := f.st.Usage(t.Context(), a.ID, "2026-11"); u.Runs != 1 {
			t.Errorf("a refused form ran: %+v", u)
		}
	})

	t.Run("APIRejects", func(t *testing.T) {
		r := b.post(t, "/dashboard/playground", url.Values{"csrf": {csrf}, "text": {"x"}, "service1": {"test.upper"}, "stop1": {"verdict:flag"}})
		if !strings.Contains(r.body, "Result: failed (HTTP 400)") || !strings.Contains(r.body, "invalid_stop_if") || !strings.Contains(r.body, "Nothing was billed.") {
			t.Errorf("a stop_if on a transform is not shown as the API's rejection:\n%s", r.body)
		}
	})

	t.Run("SameRateWindow", func(t *testing.T) {
		f := newFixture(t)
		a, _, err := f.mgr.Create(t.Context(), account.Settings{Region: "local", Tier: account.TierStandard, RateLimit: 2, Allowance: 1000})
		if err != nil {
			t.Fatal(err)
		}
		b := f.browser()
		b.mustSignIn(t, a.ID)
		form := url.Values{"csrf": {b.csrf(t)}, "text": {"hello"}, "service1": {"test.upper"}}
		for i, want := range []string{"Result: completed (HTTP 200)", "Result: completed (HTTP 200)", "Result: failed (HTTP 429)"} {
			if r := b.post(t, "/dashboard/playground", form); !strings.Contains(r.body, want) {
				t.Fatalf("run %d: want %q", i+1, want)
			}
		}
	})
}

func TestOverview(t *testing.T) {
	f := newFixture(t)
	a, _ := f.newAccount(t) // allowance 1,000,000
	for _, s := range []store.Settlement{
		{Pass: store.Pass{Account: a.ID, Month: "2026-11"}, Day: 3, Characters: 250_000, Limit: 1_000_000, TraceID: "sluice_t1"},
		{Pass: store.Pass{Account: a.ID, Month: "2026-11"}, Day: 21, Characters: 600_000, Limit: 1_000_000, TraceID: "sluice_t2"},
		{Pass: store.Pass{Account: a.ID, Month: "2026-10"}, Day: 21, Characters: 1, Limit: 1_000_000, TraceID: "sluice_t3"},
	} {
		// The SQLite store needs no Enter before Settle: its pass is the account and month.
		if _, ok, err := f.st.Settle(t.Context(), s); err != nil || !ok {
			t.Fatal(ok, err)
		}
	}
	b := f.browser()
	b.mustSignIn(t, a.ID)
	r := b.get(t, "/dashboard/")
	wantStatus(t, "overview", r, http.StatusOK)
	cost := account.FormatUSD(account.Cost(850_000))
	for _, want := range []string{
		"<dd>850,000</dd>", "<dd>2</dd>", "tier1", cost + " USD", "<strong>150,000</strong> of 1,000,000 characters left (85% used)",
		`width="85.00"`, "bar-fill", "Nov 3: 250,000 characters", "Nov 21: 600,000 characters", "850,000 characters billed in November 2026",
		`<tr class="current"><th scope="row">tier1`,
	} {
		if !strings.Contains(r.body, want) {
			t.Errorf("the overview lacks %q", want)
		}
	}
	if n := strings.Count(r.body, `<rect class="day"`); n != 2 {
		t.Errorf("%d bars, want 2 (days with use)", n)
	}
	if strings.Contains(r.body, "Nov 23:") {
		t.Error("the chart lists days after today")
	}
}

func TestServicesPage(t *testing.T) {
	f := newFixture(t)
	a, _ := f.newAccount(t)
	b := f.browser()
	b.mustSignIn(t, a.ID)
	r := b.get(t, "/dashboard/services")
	wantStatus(t, "services", r, http.StatusOK)
	for _, want := range []string{
		"test.flag", "test.upper", "<dd>classify</dd>", "<dd>transform</dd>", ">threshold</th>", "number", ">0.5</td>",
		"0 to 1", ">mode</th>", "&#34;all&#34;", "all, first", "bad_word", "flag-v1", "(Apache-2.0)", "Flags the word bad.",
		"<dd>en</dd>", "<dd>2</dd>",
	} {
		if !strings.Contains(r.body, want) {
			t.Errorf("the catalog lacks %q", want)
		}
	}
	// The playground offers the same services with their defaults.
	p := b.get(t, "/dashboard/playground")
	var defs map[string]any
	m := regexp.MustCompile(`value="test.flag" data-kind="classify" data-defaults="([^"]*)"`).FindStringSubmatch(p.body)
	if m == nil || json.Unmarshal([]byte(strings.ReplaceAll(m[1], "&#34;", `"`)), &defs) != nil || defs["threshold"] != 0.5 {
		t.Fatalf("the playground's options lack test.flag's defaults: %v", m)
	}
}

func TestHeaders(t *testing.T) {
	f := newFixture(t)
	a, _ := f.newAccount(t)
	b := f.browser()
	b.mustSignIn(t, a.ID)
	for _, target := range []string{
		"/dashboard/", "/dashboard/keys", "/dashboard/services", "/dashboard/playground", "/dashboard/sign-in",
		"/dashboard/signed-out", "/dashboard/static/app.css", "/dashboard/nope", "/dashboard", "/dashboard/keys/key_x/rotate",
	} {
		t.Run(target, func(t *testing.T) {
			r := b.get(t, target)
			for name, want := range map[string]string{
				"Content-Security-Policy": ContentSecurityPolicy, "X-Frame-Options": "DENY",
				"Referrer-Policy": "no-referrer", "X-Content-Type-Options": "nosniff",
			} {
				if got := r.header.Get(name); got != want {
					t.Errorf("%s = %q, want %q", name, got, want)
				}
			}
			ct := r.header.Get("Content-Type")
			if strings.HasPrefix(ct, "text/html") && r.header.Get("Cache-Control") != "no-store" {
				t.Errorf("a page with Cache-Control %q", r.header.Get("Cache-Control"))
			}
		})
	}
	if strings.Contains(ContentSecurityPolicy, "unsafe-inline") || !strings.Contains(ContentSecurityPolicy, "script-src 'self'") ||
		!strings.Contains(ContentSecurityPolicy, "frame-ancestors 'none'") {
		t.Errorf("CSP %q", ContentSecurityPolicy)
	}
	// No page carries inline script, inline style or inline event handlers (the CSP would block
	// them anyway).
	inline := regexp.MustCompile(`(?i)<script(?:\s[^>]*)?>[^<]|\sstyle=|\son[a-z]+=|javascript:`)
	for _, target := range []string{"/dashboard/", "/dashboard/keys", "/dashboard/services", "/dashboard/playground"} {
		if m := inline.FindString(b.get(t, target).body); m != "" {
			t.Errorf("%s has inline code: %q", target, m)
		}
	}
}

func TestStaticAndNotFound(t *testing.T) {
	f := newFixture(t)
	b := f.browser()
	for name, ct := range map[string]string{"app.css": "text/css", "app.js": "text/javascript", "icon.svg": "image/svg+xml"} {
		a := f.h.assets[name]
		r := b.get(t, "/dashboard/static/"+name+"?v="+a.version)
		if r.status != http.StatusOK || !strings.HasPrefix(r.header.Get("Content-Type"), ct) ||
			!strings.Contains(r.header.Get("Cache-Control"), "immutable") {
			t.Errorf("%s: %d %q %q", name, r.status, r.header.Get("Content-Type"), r.header.Get("Cache-Control"))
		}
		if r := b.get(t, "/dashboard/static/"+name+"?v=old"); r.header.Get("Cache-Control") != "no-cache" {
			t.Errorf("%s under an old version is cached: %q", name, r.header.Get("Cache-Control"))
		}
	}
	wantStatus(t, "unknown asset", b.get(t, "/dashboard/static/nope.js"), http.StatusNotFound)
	wantStatus(t, "unknown page", b.get(t, "/dashboard/nope"), http.StatusNotFound)
	r := b.get(t, "/dashboard")
	if r.status != http.StatusSeeOther || r.header.Get("Location") != "/dashboard/" {
		t.Errorf("/dashboard: %d %s", r.status, r.header.Get("Location"))
	}
	if loc := b.get(t, "/dashboard/").header.Get("Location"); loc != "/dashboard/sign-in" {
		t.Errorf("signed out, the overview redirects to %q", loc)
	}
}

// TestBasePath: behind an API Gateway stage every link, form and redirect carries the stage.
func TestBasePath(t *testing.T) {
	f := newFixture(t)
	a, _ := f.newAccount(t)
	b := f.browser()
	b.base = "/prod"
	page := b.get(t, strings.TrimPrefix(f.link(t, a.ID), "http://127.0.0.1:8080"))
	if !strings.Contains(page.body, `action="/prod/dashboard/sign-in"`) || !strings.Contains(page.body, `href="/prod/dashboard/static/app.css?v=`) {
		t.Fatalf("the sign-in page does not use the base path:\n%s", page.body)
	}
	r := b.post(t, "/dashboard/sign-in", url.Values{"token": {hidden(t, page.body, "token")}, "csrf": {hidden(t, page.body, "csrf")}})
	if r.header.Get("Location") != "/prod/dashboard/" {
		t.Fatalf("redirect to %q", r.header.Get("Location"))
	}
	keys := b.get(t, "/dashboard/keys")
	for _, want := range []string{`href="/prod/dashboard/playground"`, `action="/prod/dashboard/keys"`, `action="/prod/dashboard/sign-out"`} {
		if !strings.Contains(keys.body, want) {
			t.Errorf("the keys page lacks %s", want)
		}
	}
	r = b.post(t, "/dashboard/playground", url.Values{"csrf": {hidden(t, keys.body, "csrf")}, "text": {"x"}, "service1": {"test.upper"}})
	if !strings.Contains(r.body, "curl -s http://127.0.0.1:8080/prod/v1/run") {
		t.Error("the curl command does not carry the stage")
	}
}
