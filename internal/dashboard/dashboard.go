// Package dashboard is the account holder's web dashboard, served at /dashboard/ by the local
// server and, on AWS, by its own Lambda function behind the same REST API (outside the key
// authorizer). It shows the month's usage, the account's keys (create, rotate, revoke), the
// service catalog and a playground that runs pipelines through the API's own use case
// (package metering).
//
// Pages are rendered on the server with html/template and every action is a plain HTML form
// carrying a CSRF token, so everything works without JavaScript; the embedded script only adds
// dialogs, copy buttons and playground defaults. Charts are SVG drawn on the server. Nothing
// is loaded from elsewhere.
//
// Sign-in has no password: an operator (keyctl dashboard-link, or make run's banner) issues a
// single-use link valid for 15 minutes. Opening it shows a confirmation form; submitting it
// uses the link up and starts a session whose id lives only in an HttpOnly, SameSite=Strict
// cookie (__Host-sluice_session over HTTPS). The store keeps only HMACs of link tokens and
// session ids, with their expiry (12 hours idle). Every state-changing request must carry the
// session's CSRF token (an HMAC of the session id) and must not come from another site. API
// keys are never typed into the dashboard and are shown only once, right after they are
// made. Request text (the playground's included) is never logged or stored.
package dashboard

import (
	"context"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"log/slog"
	"net/http"
	"path"
	"strings"
	"time"

	"github.com/sluice-api/sluice/internal/account"
	"github.com/sluice-api/sluice/internal/metering"
	"github.com/sluice-api/sluice/internal/services"
	"github.com/sluice-api/sluice/internal/store"
)

// Mount is the path the dashboard is served under.
const Mount = "/dashboard"

// Defaults of Config.
const (
	DefaultLinkTTL     = 15 * time.Minute
	DefaultSessionIdle = 12 * time.Hour
	// DefaultSessionMax bounds a session however active it is.
	DefaultSessionMax = 7 * 24 * time.Hour
	// touchEvery: a session's idle expiry is moved forward at most once per this much time, so
	// browsing costs one store write per few minutes, not one per page.
	touchEvery = 5 * time.Minute
	// maxFormBytes bounds every form body but the playground's: sign-in and key forms hold a
	// token or two. It is checked before the body is read, and before anything else is done
	// for a request without a session.
	maxFormBytes = 8 << 10
	// maxPlaygroundBytes bounds the playground's form, which may hold a whole input; it is read
	// only for a signed-in session.
	maxPlaygroundBytes = 2 << 20
)

// Config is what the dashboard needs.
type Config struct {
	Store    store.Store
	Accounts *account.Manager
	// Runner runs the playground's pipelines: the same use case, engine, rate window,
	// allowance and billing as POST /v1/run.
	Runner   *metering.Runner
	Registry *services.Registry
	// Pepper is the key pepper; link tokens, session ids and CSRF tokens are HMACed with it.
	Pepper []byte
	// Region is the region this deployment serves; accounts of other regions cannot sign in.
	Region string
	// Secure: the dashboard is served over HTTPS, so the session cookie is __Host- prefixed and
	// Secure. Off for the local server on http://127.0.0.1.
	Secure bool
	// CookieSuffix, without Secure, is added to the cookie names (the local server passes its
	// port): browsers send a cookie of 127.0.0.1 to every port, so two local servers would
	// otherwise share, and overwrite, one session cookie.
	CookieSuffix string
	SessionIdle  time.Duration // DefaultSessionIdle when 0
	SessionMax   time.Duration // DefaultSessionMax when 0
	Now          func() time.Time
	Log          *slog.Logger // one line per request: route, status, account; never a body
}

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static
var staticFS embed.FS

// Handler serves the dashboard. It is safe for concurrent use.
type Handler struct {
	cfg    Config
	mux    *http.ServeMux
	pages  map[string]*template.Template
	assets map[string]asset
}

type asset struct {
	body        []byte
	contentType string
	version     string // first hex digits of the body's SHA-256
}

// New returns the dashboard handler.
func New(cfg Config) (*Handler, error) {
	if cfg.Store == nil || cfg.Accounts == nil || cfg.Runner == nil || cfg.Registry == nil || len(cfg.Pepper) == 0 || cfg.Region == "" {
		return nil, errors.New("dashboard: Store, Accounts, Runner, Registry, Pepper and Region are required")
	}
	if cfg.SessionIdle == 0 {
		cfg.SessionIdle = DefaultSessionIdle
	}
	if cfg.SessionMax == 0 {
		cfg.SessionMax = DefaultSessionMax
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	h := &Handler{cfg: cfg}
	var err error
	if h.assets, err = loadAssets(); err != nil {
		return nil, err
	}
	if h.pages, err = h.parsePages(); err != nil {
		return nil, err
	}
	h.routes()
	return h, nil
}

func loadAssets() (map[string]asset, error) {
	types := map[string]string{".css": "text/css; charset=utf-8", ".js": "text/javascript; charset=utf-8", ".svg": "image/svg+xml"}
	out := map[string]asset{}
	err := fs.WalkDir(staticFS, "static", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		body, err := staticFS.ReadFile(p)
		if err != nil {
			return err
		}
		ct, ok := types[path.Ext(p)]
		if !ok {
			return fmt.Errorf("dashboard: static file %s has no known type", p)
		}
		sum := sha256.Sum256(body)
		out[path.Base(p)] = asset{body: body, contentType: ct, version: hex.EncodeToString(sum[:6])}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("dashboard: assets: %w", err)
	}
	return out, nil
}

func (h *Handler) routes() {
	m := http.NewServeMux()
	m.HandleFunc("GET "+Mount, func(w http.ResponseWriter, r *http.Request) {
		h.redirect(w, r, "/")
	})
	m.HandleFunc("GET "+Mount+"/{$}", h.signedIn(h.overview))
	m.HandleFunc("GET "+Mount+"/sign-in", h.signInPage)
	m.HandleFunc("POST "+Mount+"/sign-in", h.signIn)
	m.HandleFunc("POST "+Mount+"/sign-out", h.changing(h.signOut))
	m.HandleFunc("GET "+Mount+"/signed-out", h.signedOut)
	m.HandleFunc("GET "+Mount+"/keys", h.signedIn(h.keys))
	m.HandleFunc("POST "+Mount+"/keys", h.changing(h.createKey))
	m.HandleFunc("GET "+Mount+"/keys/{id}/rotate", h.signedIn(h.confirmRotate))
	m.HandleFunc("POST "+Mount+"/keys/{id}/rotate", h.changing(h.rotateKey))
	m.HandleFunc("GET "+Mount+"/keys/{id}/revoke", h.signedIn(h.confirmRevoke))
	m.HandleFunc("POST "+Mount+"/keys/{id}/revoke", h.changing(h.revokeKey))
	m.HandleFunc("GET "+Mount+"/services", h.signedIn(h.servicesPage))
	m.HandleFunc("GET "+Mount+"/playground", h.signedIn(h.playground))
	m.HandleFunc("POST "+Mount+"/playground", h.changing(h.runPlayground))
	m.HandleFunc("GET "+Mount+"/static/{file}", h.static)
	m.HandleFunc(Mount+"/", h.notFound)
	h.mux = m
}

// contextKey keys the values this package keeps in a request's context.
type contextKey int

const basePathKey contextKey = iota

// WithBasePath returns r with the path prefix under which clients reach this server (e.g.
// "/prod", the API Gateway stage): links and redirects start with it. The request's own path
// stays /dashboard/....
func WithBasePath(r *http.Request, prefix string) *http.Request {
	prefix = strings.TrimRight(prefix, "/")
	if prefix == "" {
		return r
	}
	return r.WithContext(context.WithValue(r.Context(), basePathKey, prefix))
}

// base returns the external URL path of the dashboard's root, without a trailing slash.
func base(r *http.Request) string {
	p, _ := r.Context().Value(basePathKey).(string)
	return p + Mount
}

// ServeHTTP answers one request with the security headers every response carries.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := h.cfg.Now()
	rec := &statusRecorder{ResponseWriter: w, status: http.StatusOK}
	hd := w.Header()
	hd.Set("Content-Security-Policy", ContentSecurityPolicy)
	hd.Set("X-Frame-Options", "DENY")
	hd.Set("Referrer-Policy", "no-referrer")
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("Cross-Origin-Opener-Policy", "same-origin")
	hd.Set("Cross-Origin-Resource-Policy", "same-origin")
	hd.Set("Permissions-Policy", "camera=(), microphone=(), geolocation=(), payment=()")
	if h.cfg.Secure {
		hd.Set("Strict-Transport-Security", "max-age=31536000")
	}
	defer func() {
		if p := recover(); p != nil {
			h.cfg.Log.Error("dashboard handler panicked", "panic_type", fmt.Sprintf("%T", p))
			if !rec.wrote {
				h.errorPage(rec, r, http.StatusInternalServerError, "Something went wrong on our side. Try again in a moment.")
			}
		}
		route := r.Pattern
		if route == "" {
			route = "unmatched"
		}
		// The route pattern, never the URL: a sign-in URL carries its token.
		h.cfg.Log.Info("dashboard", "route", route, "status", rec.status,
			"account_id", rec.account, "duration_ms", h.cfg.Now().Sub(start).Milliseconds())
	}()
	h.mux.ServeHTTP(rec, r)
}

// ContentSecurityPolicy allows scripts, styles and images from the dashboard itself only: no
// inline script or style, no frames, forms posting only to the dashboard.
const ContentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; " +
	"connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

// statusRecorder remembers the status and the signed-in account for the log line.
type statusRecorder struct {
	http.ResponseWriter
	status  int
	wrote   bool
	account string
}

func (s *statusRecorder) WriteHeader(code int) {
	if !s.wrote {
		s.status, s.wrote = code, true
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusRecorder) Write(b []byte) (int, error) {
	s.wrote = true
	return s.ResponseWriter.Write(b)
}

// noteAccount records the signed-in account for the log line.
func noteAccount(w http.ResponseWriter, id string) {
	if s, ok := w.(*statusRecorder); ok {
		s.account = id
	}
}

func (h *Handler) static(w http.ResponseWriter, r *http.Request) {
	a, ok := h.assets[r.PathValue("file")]
	if !ok {
		h.notFound(w, r)
		return
	}
	w.Header().Set("Content-Type", a.contentType)
	if r.URL.Query().Get("v") == a.version {
		w.Header().Set("Cache-Control", "public, max-age=31536000, immutable")
	} else {
		w.Header().Set("Cache-Control", "no-cache")
	}
	_, _ = w.Write(a.body)
}

// assetURL is the versioned URL of a static file.
func (h *Handler) assetURL(r *http.Request, name string) string {
	return base(r) + "/static/" + name + "?v=" + h.assets[name].version
}

// redirect answers 303 See Other to the dashboard path p ("/keys").
func (h *Handler) redirect(w http.ResponseWriter, r *http.Request, p string) {
	w.Header().Set("Cache-Control", "no-store")
	http.Redirect(w, r, base(r)+p, http.StatusSeeOther)
}

// notFound answers a path the dashboard does not have. With a live session the page shows the
// signed-in navigation, as every page of a session does; without one (or when the session
// cannot be read: the store is down) it is the signed-out page.
func (h *Handler) notFound(w http.ResponseWriter, r *http.Request) {
	s, err := h.session(w, r)
	if err != nil {
		s = nil
	}
	h.notFoundAs(w, r, s)
}

// notFoundAs is notFound for a handler that has read the session already.
func (h *Handler) notFoundAs(w http.ResponseWriter, r *http.Request, s *session) {
	h.errorPageAs(w, r, s, http.StatusNotFound, "There is no such page in the dashboard.")
}
