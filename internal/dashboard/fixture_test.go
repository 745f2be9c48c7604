package dashboard

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sluice-api/sluice/internal/account"
	"github.com/sluice-api/sluice/internal/metering"
	"github.com/sluice-api/sluice/internal/pipeline"
	"github.com/sluice-api/sluice/internal/services"
	"github.com/sluice-api/sluice/internal/store"
	"github.com/sluice-api/sluice/internal/store/sqlite"
)

var pepper = []byte("0123456789abcdef0123456789abcdef")

// t0 is the fixture's starting time.
var t0 = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

// svc is a test service.
type svc struct {
	d   services.Descriptor
	run func(services.Request) services.Result
}

func (s svc) Descriptor() services.Descriptor { return s.d }
func (s svc) Run(_ context.Context, r services.Request) (services.Result, error) {
	return s.run(r), nil
}

func testRegistry(t testing.TB) *services.Registry {
	t.Helper()
	lo, hi := 0.0, 1.0
	reg, err := services.NewRegistry(
		svc{d: services.Descriptor{
			Name: "test.upper", Kind: services.KindTransform, Version: 2, Description: "Upper-cases the text.",
			Accepts: []string{"text"}, Emits: services.EmitsSame, BillingUnit: "characters", Languages: []string{"any"},
			Params: map[string]services.Param{"mode": {Type: services.ParamString, Default: "all", Allowed: []string{"all", "first"}, Description: "What to upper-case."}},
			Model:  services.Model{ID: "upper-v2", License: "MIT"},
		}, run: func(r services.Request) services.Result {
			return services.Result{Payload: services.Payload{Type: "text", Value: strings.ToUpper(r.Payload.Value)}, Changes: 1}
		}},
		svc{d: services.Descriptor{
			Name: "test.flag", Kind: services.KindClassify, Version: 1, Description: "Flags the word bad.",
			Accepts: []string{"text"}, Emits: services.EmitsSame, BillingUnit: "characters", Languages: []string{"en"},
			Params: map[string]services.Param{"threshold": {Type: services.ParamNumber, Default: 0.5, Minimum: &lo, Maximum: &hi, Description: "Flag at this score."}},
			Labels: []string{"bad_word"}, Model: services.Model{ID: "flag-v1", License: "Apache-2.0"},
		}, run: func(r services.Request) services.Result {
			score := 0.0
			if strings.Contains(strings.ToLower(r.Payload.Value), "bad") {
				score = 1
			}
			return services.ClassifyResult(r, score, nil)
		}},
		// Many languages and no parameters.
		svc{d: services.Descriptor{
			Name: "test.many", Kind: services.KindClassify, Version: 1, Description: "Flags nothing, in many languages.",
			Accepts: []string{"text"}, Emits: services.EmitsSame, BillingUnit: "characters",
			Languages: []string{"ar", "de", "el", "en", "es", "fr", "hi", "it", "ja", "nl", "pt", "zh"},
			Params:    map[string]services.Param{}, Model: services.Model{ID: "many-v1", License: "MIT"},
		}, run: func(r services.Request) services.Result { return services.ClassifyResult(r, 0, nil) }},
	)
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

// syncBuffer is a log destination safe for concurrent writers.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// fixture is a dashboard on a fresh SQLite store with a movable clock.
type fixture struct {
	h     *Handler
	st    *sqlite.Store
	mgr   *account.Manager
	clock atomic.Pointer[time.Time]
	logs  *syncBuffer
	cfg   Config
}

func (f *fixture) now() time.Time { return *f.clock.Load() }

func (f *fixture) advance(d time.Duration) {
	n := f.now().Add(d)
	f.clock.Store(&n)
}

func newFixture(t *testing.T, change ...func(*Config)) *fixture {
	t.Helper()
	f := &fixture{logs: &syncBuffer{}}
	start := t0
	f.clock.Store(&start)
	st, err := sqlite.Open(filepath.Join(t.TempDir(), "dash.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	f.st = st
	log := slog.New(slog.NewJSONHandler(f.logs, nil))
	reg := testRegistry(t)
	engine, err := pipeline.New(reg, pipeline.WithLogger(log))
	if err != nil {
		t.Fatal(err)
	}
	f.mgr = account.NewManager(st, pepper, f.now)
	t.Cleanup(f.mgr.WaitKeyUse)
	runner := metering.New(st, engine, metering.Config{Region: "local", TokenKey: []byte("tokenization-key-0123456789abcdef"), Log: log})
	f.cfg = Config{Store: st, Accounts: f.mgr, Runner: runner, Registry: reg, Pepper: pepper, Region: "local", Now: f.now, Log: log}
	for _, c := range change {
		c(&f.cfg)
	}
	h, err := New(f.cfg)
	if err != nil {
		t.Fatal(err)
	}
	f.h = h
	return f
}

// newAccount makes an account and returns it with its first key.
func (f *fixture) newAccount(t *testing.T) (store.Account, string) {
	t.Helper()
	a, key, err := f.mgr.Create(t.Context(), account.Settings{Region: "local", Tier: account.TierStandard, RateLimit: 600, Allowance: 1_000_000})
	if err != nil {
		t.Fatal(err)
	}
	return a, key
}

func (f *fixture) link(t *testing.T, acct string) string {
	t.Helper()
	l, err := NewLink(t.Context(), f.st, pepper, acct, "http://127.0.0.1:8080", 0, f.now())
	if err != nil {
		t.Fatal(err)
	}
	return l.URL
}

// browser is a client with a cookie jar that sends what a browser would on same-site
// requests.
type browser struct {
	f       *fixture
	cookies map[string]string
	site    string // Sec-Fetch-Site on POSTs; "" sends none
	base    string // path prefix set with WithBasePath
	addr    string // RemoteAddr; "" keeps httptest's
}

func (f *fixture) browser() *browser {
	return &browser{f: f, cookies: map[string]string{}, site: "same-origin"}
}

type response struct {
	status int
	header http.Header
	body   string
}

func (b *browser) do(t *testing.T, method, target string, form url.Values) response {
	t.Helper()
	return b.doWith(t, method, target, form, nil)
}

// doWith sends a request with extra headers; a nil value removes a header the browser would
// send.
func (b *browser) doWith(t *testing.T, method, target string, form url.Values, extra http.Header) response {
	t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	r := httptest.NewRequest(method, target, body)
	r.Host = "127.0.0.1:8080"
	if b.addr != "" {
		r.RemoteAddr = b.addr
	}
	if form != nil {
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	if method == http.MethodPost && b.site != "" {
		r.Header.Set("Sec-Fetch-Site", b.site)
	}
	for k, v := range b.cookies {
		r.AddCookie(&http.Cookie{Name: k, Value: v})
	}
	for k, v := range extra {
		if v == nil {
			r.Header.Del(k)
		} else {
			r.Header[k] = v
		}
	}
	if b.base != "" {
		r = WithBasePath(r, b.base)
	}
	w := httptest.NewRecorder()
	b.f.h.ServeHTTP(w, r)
	res := w.Result()
	for _, c := range res.Cookies() {
		if c.MaxAge < 0 || c.Value == "" {
			delete(b.cookies, c.Name)
		} else {
			b.cookies[c.Name] = c.Value
		}
	}
	return response{status: res.StatusCode, header: res.Header, body: w.Body.String()}
}

func (b *browser) get(t *testing.T, target string) response {
	return b.do(t, http.MethodGet, target, nil)
}

func (b *browser) post(t *testing.T, target string, form url.Values) response {
	return b.do(t, http.MethodPost, target, form)
}

var (
	hiddenRE = regexp.MustCompile(`name="(token|csrf)" value="([^"]*)"`)
)

// hidden returns the value of the hidden field name in page.
func hidden(t *testing.T, page, name string) string {
	t.Helper()
	for _, m := range hiddenRE.FindAllStringSubmatch(page, -1) {
		if m[1] == name {
			return m[2]
		}
	}
	t.Fatalf("no hidden field %q in the page", name)
	return ""
}

// signIn opens link and submits its form.
func (b *browser) signIn(t *testing.T, link string) response {
	t.Helper()
	page := b.get(t, strings.TrimPrefix(link, "http://127.0.0.1:8080"))
	if page.status != http.StatusOK {
		t.Fatalf("sign-in page: %d\n%s", page.status, page.body)
	}
	return b.post(t, "/dashboard/sign-in", url.Values{"token": {hidden(t, page.body, "token")}, "csrf": {hidden(t, page.body, "csrf")}})
}

func (b *browser) mustSignIn(t *testing.T, acct string) {
	t.Helper()
	r := b.signIn(t, b.f.link(t, acct))
	if r.status != http.StatusSeeOther || r.header.Get("Location") != "/dashboard/" {
		t.Fatalf("sign-in: %d %s\n%s", r.status, r.header.Get("Location"), r.body)
	}
}

// csrf reads the CSRF token off a signed-in page.
func (b *browser) csrf(t *testing.T) string {
	t.Helper()
	return hidden(t, b.get(t, "/dashboard/keys").body, "csrf")
}

func wantStatus(t *testing.T, what string, r response, status int) {
	t.Helper()
	if r.status != status {
		t.Fatalf("%s: status %d, want %d\n%s", what, r.status, status, r.body)
	}
}
