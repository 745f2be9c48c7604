package dashboard

import (
	"maps"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/sluice-api/sluice/internal/account"
	"github.com/sluice-api/sluice/internal/pipeline"
	"github.com/sluice-api/sluice/internal/services/builtin"
	"github.com/sluice-api/sluice/internal/store"
)

// singular1 finds a count of one with a plural noun ("1 keys") in a page.
var singular1 = regexp.MustCompile(`(?:^|[^\d,.])1 (keys|characters|requests|items|languages|runs|steps)\b`)

// TestCountsAgreeWithTheirNoun: every count a page shows takes the noun's singular for 1 and
// its plural otherwise. Accounts with one key, one request a minute and an allowance of one
// character, used up on one day, show a one in every place that counts.
func TestCountsAgreeWithTheirNoun(t *testing.T) {
	f := newFixture(t)
	a, _, err := f.mgr.Create(t.Context(), account.Settings{Region: "local", Tier: account.TierStandard, RateLimit: 1, Allowance: 1})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok, err := f.st.Settle(t.Context(), store.Settlement{Pass: store.Pass{Account: a.ID, Month: "2026-11"}, Day: 3, Characters: 1, Limit: 1, TraceID: "sluice_t1"}); err != nil || !ok {
		t.Fatal(ok, err)
	}
	// The API's own refusal of a used-up allowance is not the dashboard's copy: one request a
	// minute, with characters to spare.
	oneRequest, _, err := f.mgr.Create(t.Context(), account.Settings{Region: "local", Tier: account.TierStandard, RateLimit: 1, Allowance: 1000})
	if err != nil {
		t.Fatal(err)
	}
	many, _ := f.newAccount(t) // rate limit 600, allowance 1,000,000
	if _, _, err := f.mgr.CreateKey(t.Context(), many.ID); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		account string
		target  string
		form    url.Values // POSTed with the session's CSRF token when set
		want    []string
	}{
		{"OneKey", a.ID, "/dashboard/keys", nil, []string{"<caption>1 key, 1 active, newest first</caption>"}},
		{"TwoKeys", many.ID, "/dashboard/keys", nil, []string{"<caption>2 keys, 2 active, newest first</caption>"}},
		{"OneCharacter", a.ID, "/dashboard/", nil, []string{
			"of 1 character left", "Nov 3: 1 character</title>", "1 character in all this month", "1 character billed in November 2026",
		}},
		{"NoCharacters", many.ID, "/dashboard/", nil, []string{"of 1,000,000 characters left", "0 characters in all this month", "0 characters billed in"}},
		{"OneRequest", oneRequest.ID, "/dashboard/playground", url.Values{"text": {"x"}, "service1": {"test.upper"}}, []string{"of 1 request left"}},
		{"ManyRequests", many.ID, "/dashboard/playground", url.Values{"text": {"x"}, "service1": {"test.upper"}}, []string{"of 600 requests left"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := f.browser()
			b.mustSignIn(t, tc.account)
			var r response
			if tc.form != nil {
				tc.form.Set("csrf", b.csrf(t))
				r = b.post(t, tc.target, tc.form)
			} else {
				r = b.get(t, tc.target)
			}
			wantStatus(t, tc.target, r, http.StatusOK)
			for _, want := range tc.want {
				if !strings.Contains(r.body, want) {
					t.Errorf("%s lacks %q", tc.target, want)
				}
			}
			if m := singular1.FindString(r.body); m != "" {
				t.Errorf("%s says %q", tc.target, strings.TrimSpace(m))
			}
		})
	}
}

func TestCount(t *testing.T) {
	for _, tc := range []struct {
		n          any
		count, one string
	}{
		{0, "0 keys", "keys"}, {1, "1 key", "key"}, {2, "2 keys", "keys"}, {int64(1), "1 key", "key"},
		{int64(1234), "1,234 keys", "keys"}, {"1", "1 key", "key"}, {"600", "600 keys", "keys"},
	} {
		if got, err := count(tc.n, "key", "keys"); err != nil || got != tc.count {
			t.Errorf("count(%#v) = %q, %v; want %q", tc.n, got, err, tc.count)
		}
		if got := noun(tc.n, "key", "keys"); got != tc.one {
			t.Errorf("noun(%#v) = %q, want %q", tc.n, got, tc.one)
		}
	}
	if _, err := count("", "key", "keys"); err == nil {
		t.Error("count of an empty string: no error")
	}
	if got := noun("", "request", "requests"); got != "requests" {
		t.Errorf("noun of a missing header = %q, want the plural", got)
	}
}

// TestParamsHint: the playground's message for parameters that are not a JSON object names the
// parameters of the step's service, and its example is one the API accepts for that service.
func TestParamsHint(t *testing.T) {
	reg, err := builtin.New()
	if err != nil {
		t.Fatal(err)
	}
	engine, err := pipeline.New(reg)
	if err != nil {
		t.Fatal(err)
	}
	example := regexp.MustCompile(`, e\.g\. (\{.*\}); leave them empty for the defaults\.$`)
	every := map[string]bool{} // every parameter name of every service
	for _, name := range reg.Names() {
		_, d, _ := reg.Lookup(name)
		for p := range d.Params {
			every[p] = true
		}
	}
	for _, name := range reg.Names() {
		t.Run(name, func(t *testing.T) {
			_, d, _ := reg.Lookup(name)
			msg := paramsHint(reg, 2, name)
			if !strings.HasPrefix(msg, "The parameters of step 2 are not a JSON object. "+name+" takes ") {
				t.Fatalf("hint %q", msg)
			}
			for p := range every {
				_, has := d.Params[p]
				if named := regexp.MustCompile(`\b` + p + `\b`).MatchString(msg); named != has {
					t.Errorf("hint %q names %s: %v; the service has it: %v", msg, p, named, has)
				}
			}
			m := example.FindStringSubmatch(msg)
			if m == nil {
				t.Fatalf("hint %q has no example", msg)
			}
			body := `{"input":{"type":"text","value":"x"},"pipeline":[{"id":"s","service":"` + name + `","params":` + m[1] + `}]}`
			if _, perr := engine.Parse([]byte(body)); perr != nil {
				t.Errorf("the example %s is refused: %v", m[1], perr)
			}
		})
	}
	if msg := paramsHint(reg, 1, "no.such.service"); msg != "The parameters of step 1 are not a JSON object. Leave them empty for the service's defaults." {
		t.Errorf("hint for an unknown service: %q", msg)
	}

	// On the page, for the services of the test registry.
	f := newFixture(t)
	a, _ := f.newAccount(t)
	b := f.browser()
	b.mustSignIn(t, a.ID)
	csrf := b.csrf(t)
	for _, tc := range []struct{ service, want, not string }{
		{"test.many", `test.many takes no parameters: leave them empty.`, "e.g."},
		{"test.upper", `test.upper takes mode, e.g. {&#34;mode&#34;: &#34;all&#34;}`, "threshold"},
		{"test.flag", `test.flag takes threshold, e.g. {&#34;threshold&#34;: 0.5}`, "mode"},
	} {
		r := b.post(t, "/dashboard/playground", url.Values{"csrf": {csrf}, "text": {"x"}, "service1": {tc.service}, "params1": {"x=1"}})
		notice := regexp.MustCompile(`<p class="notice error" role="alert" data-focus>([^<]*)</p>`).FindStringSubmatch(r.body)
		if notice == nil || !strings.Contains(notice[1], tc.want) || strings.Contains(notice[1], tc.not) {
			t.Errorf("%s: the message %q lacks %q or suggests %s", tc.service, notice, tc.want, tc.not)
		}
	}
}

// TestServicesPageLanguages: a service's languages are listed in its card, and a long list is
// folded under its count, so that it does not stretch the card's row.
func TestServicesPageLanguages(t *testing.T) {
	f := newFixture(t)
	a, _ := f.newAccount(t)
	b := f.browser()
	b.mustSignIn(t, a.ID)
	r := b.get(t, "/dashboard/services")
	wantStatus(t, "services", r, http.StatusOK)
	card := regexp.MustCompile(`(?s)<section class="service" id="svc-([a-z-]+)".*?<dt>Languages</dt><dd>(.*?)</dd>`)
	got := map[string]string{}
	for _, m := range card.FindAllStringSubmatch(r.body, -1) {
		got[m[1]] = m[2]
	}
	for service, want := range map[string]string{
		"test-flag":  "en",
		"test-upper": "any",
		"test-many": `<details class="codes"><summary>12 languages</summary>` +
			`<p class="mono">ar, de, el, en, es, fr, hi, it, ja, nl, pt, zh</p></details>`,
	} {
		if got[service] != want {
			t.Errorf("the languages of %s are shown as %q, want %q", service, got[service], want)
		}
	}
}

// TestErrorPagesKeepNavigation: a signed-in user's error pages (the 404 page above all) show the
// dashboard's navigation and the sign-out button, as every other page of the session does; a
// signed-out visitor's do not.
func TestErrorPagesKeepNavigation(t *testing.T) {
	f := newFixture(t)
	a, _ := f.newAccount(t)
	in := f.browser()
	in.mustSignIn(t, a.ID)
	csrf := in.csrf(t)
	ks, _ := f.mgr.ListKeys(t.Context(), a.ID)
	_, revoked, err := f.mgr.CreateKey(t.Context(), a.ID)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.mgr.RevokeKeyOf(t.Context(), a.ID, revoked.ID); err != nil {
		t.Fatal(err)
	}
	// A browser that still sends the cookie of a session that has ended.
	ended := f.browser()
	ended.mustSignIn(t, a.ID)
	saved := maps.Clone(ended.cookies)
	wantStatus(t, "sign out", ended.post(t, "/dashboard/sign-out", url.Values{"csrf": {ended.csrf(t)}}), http.StatusSeeOther)
	ended.cookies = saved
	nav := `<nav aria-label="Dashboard">`
	for _, tc := range []struct {
		name    string
		b       *browser
		method  string
		target  string
		form    url.Values
		status  int
		withNav bool
	}{
		{"UnknownPage", in, http.MethodGet, "/dashboard/nope", nil, http.StatusNotFound, true},
		{"UnknownAsset", in, http.MethodGet, "/dashboard/static/nope.css", nil, http.StatusNotFound, true},
		{"UnknownKey", in, http.MethodGet, "/dashboard/keys/key_missing/rotate", nil, http.StatusNotFound, true},
		{"RevokedKey", in, http.MethodPost, "/dashboard/keys/" + revoked.ID + "/rotate", url.Values{"csrf": {csrf}}, http.StatusConflict, true},
		{"StaleForm", in, http.MethodPost, "/dashboard/keys/" + ks[0].ID + "/revoke", url.Values{"csrf": {"stale"}}, http.StatusForbidden, true},
		{"SignedOut", f.browser(), http.MethodGet, "/dashboard/nope", nil, http.StatusNotFound, false},
		{"SessionEnded", ended, http.MethodGet, "/dashboard/nope", nil, http.StatusNotFound, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := tc.b.do(t, tc.method, tc.target, tc.form)
			wantStatus(t, tc.target, r, tc.status)
			if got := strings.Contains(r.body, nav) && strings.Contains(r.body, a.ID) &&
				strings.Contains(r.body, `action="/dashboard/sign-out"`); got != tc.withNav {
				t.Errorf("%s %s shows the signed-in navigation: %v, want %v", tc.method, tc.target, got, tc.withNav)
			}
			if !tc.withNav && strings.Contains(r.body, nav) {
				t.Errorf("%s %s shows navigation to a signed-out visitor", tc.method, tc.target)
			}
		})
	}
}
