package dashboard

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/sluice-api/sluice/internal/store"
)

// Purposes of the HMACs made with the pepper; each names what its input is, so no value made
// for one purpose is valid for another (API keys are HMACed bare and always start sluice_live_).
const (
	purposeLink    = "sluice-dashboard-link"
	purposeSession = "sluice-dashboard-session"
	purposeCSRF    = "sluice-dashboard-csrf"
	purposeSignIn  = "sluice-dashboard-sign-in"
)

// tokenBytes is the entropy of link tokens, session ids and sign-in nonces: 256 bits.
const tokenBytes = 32

func newToken() (string, error) {
	b := make([]byte, tokenBytes)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("dashboard: token: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// validToken reports whether s has the form of a token (43 base64url characters), so that
// nothing else is ever hashed or looked up.
func validToken(s string) bool {
	if len(s) != base64.RawURLEncoding.EncodedLen(tokenBytes) {
		return false
	}
	_, err := base64.RawURLEncoding.DecodeString(s)
	return err == nil
}

func mac(pepper []byte, purpose, value string) []byte {
	m := hmac.New(sha256.New, pepper)
	m.Write([]byte(purpose))
	m.Write([]byte{0})
	m.Write([]byte(value))
	return m.Sum(nil)
}

// hashToken is how a link token or session id is stored.
func hashToken(pepper []byte, purpose, token string) string {
	return hex.EncodeToString(mac(pepper, purpose, token))
}

// csrfToken is the CSRF token of a session or of a sign-in form: an HMAC of its secret, so it
// needs no storage and cannot be made without the secret in the cookie.
func csrfToken(pepper []byte, purpose, secret string) string {
	return base64.RawURLEncoding.EncodeToString(mac(pepper, purpose, secret))
}

// Link is a sign-in link as issued.
type Link struct {
	URL     string
	Account string
	Expires time.Time
}

// NewLink issues a single-use sign-in link for accountID, valid for ttl (DefaultLinkTTL when
// 0), under baseURL (the server's base URL: http://127.0.0.1:8080 locally, the API's URL with
// its stage on AWS). The link's token is returned once, in the URL; the store keeps its HMAC.
// The account must exist and be enabled.
func NewLink(ctx context.Context, st interface {
	store.Sessions
	GetAccount(context.Context, string) (store.Account, error)
}, pepper []byte, accountID, baseURL string, ttl time.Duration, now time.Time) (Link, error) {
	if ttl <= 0 {
		ttl = DefaultLinkTTL
	}
	if err := ValidBaseURL(baseURL); err != nil {
		return Link{}, err
	}
	a, err := st.GetAccount(ctx, accountID)
	if err != nil {
		return Link{}, fmt.Errorf("dashboard: link for %s: %w", accountID, err)
	}
	if a.Disabled {
		return Link{}, fmt.Errorf("dashboard: link for %s: the account is disabled", accountID)
	}
	token, err := newToken()
	if err != nil {
		return Link{}, err
	}
	now = now.UTC()
	l := store.SignInLink{Hash: hashToken(pepper, purposeLink, token), Account: accountID, CreatedAt: now, Expires: now.Add(ttl)}
	if err := st.CreateLink(ctx, l); err != nil {
		return Link{}, fmt.Errorf("dashboard: link for %s: %w", accountID, err)
	}
	return Link{
		URL:     strings.TrimRight(baseURL, "/") + Mount + "/sign-in?token=" + token,
		Account: accountID, Expires: l.Expires,
	}, nil
}

// ValidBaseURL checks a server's base URL for sign-in links: http(s)://host[:port][/path].
func ValidBaseURL(baseURL string) error {
	u, err := url.Parse(baseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return fmt.Errorf("dashboard: base URL %q: want http(s)://host[:port][/path]", baseURL)
	}
	return nil
}

// Cookie names: __Host- cookies need Secure and Path=/, so plain names, with the configured
// suffix (the local server's port), are used over http.
func (h *Handler) sessionCookie() string { return h.cookieName("sluice_session") }

func (h *Handler) signInCookie() string { return h.cookieName("sluice_sign_in") }

func (h *Handler) cookieName(base string) string {
	switch {
	case h.cfg.Secure:
		return "__Host-" + base
	case h.cfg.CookieSuffix != "":
		return base + "_" + h.cfg.CookieSuffix
	}
	return base
}

func (h *Handler) setCookie(w http.ResponseWriter, name, value string, maxAge time.Duration) {
	c := &http.Cookie{
		Name: name, Value: value, Path: "/", HttpOnly: true, Secure: h.cfg.Secure,
		SameSite: http.SameSiteStrictMode, MaxAge: int(maxAge / time.Second),
	}
	if maxAge < 0 {
		c.MaxAge = -1
	}
	http.SetCookie(w, c)
}

// session is the signed-in state of a request.
type session struct {
	id      string // the secret from the cookie
	hash    string
	account store.Account
	csrf    string
}

// errSignedOut: no live session (none, ended, expired, or its account cannot use the dashboard).
var errSignedOut = errors.New("dashboard: not signed in")

// session returns the live session of r; errSignedOut when there is none. It moves the
// session's idle expiry forward, at most once per touchEvery.
func (h *Handler) session(w http.ResponseWriter, r *http.Request) (*session, error) {
	c, err := r.Cookie(h.sessionCookie())
	if err != nil || !validToken(c.Value) {
		return nil, errSignedOut
	}
	ctx, now := r.Context(), h.cfg.Now()
	hash := hashToken(h.cfg.Pepper, purposeSession, c.Value)
	s, err := h.cfg.Store.Session(ctx, hash, now)
	if errors.Is(err, store.ErrNotFound) {
		h.setCookie(w, h.sessionCookie(), "", -1)
		return nil, errSignedOut
	}
	if err != nil {
		return nil, fmt.Errorf("dashboard: read session: %w", err)
	}
	a, err := h.cfg.Store.GetAccount(ctx, s.Account)
	switch {
	case errors.Is(err, store.ErrNotFound), err == nil && a.Disabled, !now.Before(s.CreatedAt.Add(h.cfg.SessionMax)):
		_ = h.cfg.Store.EndSession(ctx, hash)
		h.setCookie(w, h.sessionCookie(), "", -1)
		return nil, errSignedOut
	case err != nil:
		return nil, fmt.Errorf("dashboard: read account: %w", err)
	}
	if s.Expires.Sub(now) < h.cfg.SessionIdle-touchEvery {
		err := h.cfg.Store.TouchSession(ctx, hash, now.Add(h.cfg.SessionIdle), now)
		if errors.Is(err, store.ErrNotFound) { // ended a moment ago
			return nil, errSignedOut
		}
		if err != nil {
			return nil, fmt.Errorf("dashboard: touch session: %w", err)
		}
	}
	noteAccount(w, a.ID)
	return &session{id: c.Value, hash: hash, account: a, csrf: csrfToken(h.cfg.Pepper, purposeCSRF, c.Value)}, nil
}

// signedIn wraps a page that needs a session: without one it sends the browser to sign in.
func (h *Handler) signedIn(page func(http.ResponseWriter, *http.Request, *session)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		s, err := h.session(w, r)
		if errors.Is(err, errSignedOut) {
			h.redirect(w, r, "/sign-in")
			return
		}
		if err != nil {
			h.unavailable(w, r, err)
			return
		}
		page(w, r, s)
	}
}

// changing wraps a state-changing request: it needs a session, a request from this site, and
// the session's CSRF token in the form. The session is checked from its cookie before the body
// is read, so a request without one never has its form parsed; the form is then parsed here,
// with its size bounded.
func (h *Handler) changing(action func(http.ResponseWriter, *http.Request, *session)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		s, err := h.session(w, r)
		if errors.Is(err, errSignedOut) {
			h.errorPage(w, r, http.StatusForbidden, "You are not signed in, or your session has ended. Sign in again with a new link.")
			return
		}
		if err != nil {
			h.unavailable(w, r, err)
			return
		}
		limit := int64(maxFormBytes)
		if r.Pattern == "POST "+Mount+"/playground" {
			limit = maxPlaygroundBytes
		}
		if !h.readForm(w, r, limit) {
			return
		}
		if !equal(r.PostForm.Get("csrf"), s.csrf) {
			h.errorPageAs(w, r, s, http.StatusForbidden, "The form's security token is missing or out of date. Reload the page and try again.")
			return
		}
		action(w, r, s)
	}
}

func equal(a, b string) bool {
	return a != "" && subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1
}

// sameSite refuses a state-changing request that a browser says came from another site: its
// Sec-Fetch-Site, or else its Origin, must name this site. Browsers send at least one of them
// on every POST; a client that sends neither still needs the CSRF token.
func (h *Handler) sameSite(r *http.Request) bool {
	if site := r.Header.Get("Sec-Fetch-Site"); site != "" {
		return site == "same-origin" || site == "none"
	}
	origin := r.Header.Get("Origin")
	if origin == "" {
		return true
	}
	scheme := "http"
	if h.cfg.Secure {
		scheme = "https"
	}
	return origin == scheme+"://"+r.Host
}

// signInPage shows the confirmation form of a sign-in link. Opening a link changes nothing, so
// a mail scanner or a link preview that fetches it cannot use it up.
func (h *Handler) signInPage(w http.ResponseWriter, r *http.Request) {
	token := r.URL.Query().Get("token")
	if token == "" {
		h.render(w, r, http.StatusOK, "signin", page{Title: "Sign in"})
		return
	}
	if refused, err := h.tooManyFailures(w, r); refused || err != nil {
		if err != nil {
			h.unavailable(w, r, err)
		}
		return
	}
	l, err := h.link(r.Context(), token)
	if errors.Is(err, store.ErrNotFound) {
		h.invalidLink(w, r)
		return
	}
	if err != nil {
		h.unavailable(w, r, err)
		return
	}
	nonce, err := newToken()
	if err != nil {
		h.unavailable(w, r, err)
		return
	}
	h.setCookie(w, h.signInCookie(), nonce, DefaultLinkTTL)
	h.render(w, r, http.StatusOK, "signin", page{Title: "Sign in", Data: signInData{
		Token: token, Account: l.Account, CSRF: csrfToken(h.cfg.Pepper, purposeSignIn, nonce), Expires: l.Expires,
	}})
}

// invalidLink answers a link that is unknown, used or expired, counting the failed attempt.
func (h *Handler) invalidLink(w http.ResponseWriter, r *http.Request) {
	if err := h.failed(r); err != nil {
		h.unavailable(w, r, err)
		return
	}
	h.render(w, r, http.StatusNotFound, "signin", page{Title: "Sign in", Data: signInData{Invalid: true}})
}

type signInData struct {
	Invalid bool
	Token   string
	Account string
	CSRF    string
	Expires time.Time
	Region  string // set when the account lives in another region
}

func (h *Handler) link(ctx context.Context, token string) (store.SignInLink, error) {
	if !validToken(token) {
		return store.SignInLink{}, store.ErrNotFound
	}
	return h.cfg.Store.Link(ctx, hashToken(h.cfg.Pepper, purposeLink, token), h.cfg.Now())
}

// readForm refuses a form posted from another site and parses the form, reading at most limit
// bytes of body. It answers the request itself and returns false when the form cannot be used.
func (h *Handler) readForm(w http.ResponseWriter, r *http.Request, limit int64) bool {
	if !h.sameSite(r) {
		h.errorPage(w, r, http.StatusForbidden, "This request came from another site, so it was refused.")
		return false
	}
	if r.ContentLength > limit { // refused before a byte of it is read
		h.errorPage(w, r, http.StatusRequestEntityTooLarge, "The form is too large.")
		return false
	}
	r.Body = http.MaxBytesReader(w, r.Body, limit)
	if err := r.ParseForm(); err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			h.errorPage(w, r, http.StatusRequestEntityTooLarge, "The form is too large.")
			return false
		}
		h.errorPage(w, r, http.StatusBadRequest, "The form could not be read.")
		return false
	}
	return true
}

// signIn uses a link up and starts a session. The form must come from this site with the
// nonce cookie set by the confirmation page (so nobody can sign a victim's browser into the
// attacker's account), and the link must be live.
func (h *Handler) signIn(w http.ResponseWriter, r *http.Request) {
	if !h.readForm(w, r, maxFormBytes) {
		return
	}
	nonce, err := r.Cookie(h.signInCookie())
	if err != nil || !validToken(nonce.Value) || !equal(r.PostForm.Get("csrf"), csrfToken(h.cfg.Pepper, purposeSignIn, nonce.Value)) {
		h.errorPage(w, r, http.StatusForbidden, "The sign-in form is out of date. Open your sign-in link again.")
		return
	}
	if refused, err := h.tooManyFailures(w, r); refused || err != nil {
		if err != nil {
			h.unavailable(w, r, err)
		}
		return
	}
	ctx, now := r.Context(), h.cfg.Now()
	token := r.PostForm.Get("token")
	l, err := h.link(ctx, token)
	if err == nil {
		var a store.Account
		if a, err = h.cfg.Store.GetAccount(ctx, l.Account); err == nil && (a.Disabled || a.Region != h.cfg.Region) {
			data := signInData{Invalid: true}
			if !a.Disabled {
				data.Region = a.Region
			}
			h.render(w, r, http.StatusForbidden, "signin", page{Title: "Sign in", Data: data})
			return
		}
	}
	var s store.Session
	var id string
	if err == nil {
		if id, err = newToken(); err == nil {
			s, err = h.cfg.Store.StartSession(ctx, l.Hash, store.Session{
				Hash: hashToken(h.cfg.Pepper, purposeSession, id), CreatedAt: now, Expires: now.Add(h.cfg.SessionIdle),
			}, now)
		}
	}
	if errors.Is(err, store.ErrNotFound) {
		h.invalidLink(w, r)
		return
	}
	if err != nil {
		h.unavailable(w, r, err)
		return
	}
	// Signing in again ends the session this browser had.
	if old, err := r.Cookie(h.sessionCookie()); err == nil && validToken(old.Value) {
		_ = h.cfg.Store.EndSession(ctx, hashToken(h.cfg.Pepper, purposeSession, old.Value))
	}
	noteAccount(w, s.Account)
	h.setCookie(w, h.signInCookie(), "", -1)
	h.setCookie(w, h.sessionCookie(), id, h.cfg.SessionMax)
	h.redirect(w, r, "/")
}

// signOut ends the session in the store and in the browser.
func (h *Handler) signOut(w http.ResponseWriter, r *http.Request, s *session) {
	if err := h.cfg.Store.EndSession(r.Context(), s.hash); err != nil {
		h.unavailable(w, r, err)
		return
	}
	h.setCookie(w, h.sessionCookie(), "", -1)
	h.redirect(w, r, "/signed-out")
}

func (h *Handler) signedOut(w http.ResponseWriter, r *http.Request) {
	h.render(w, r, http.StatusOK, "signedout", page{Title: "Signed out"})
}

// unavailable answers a store failure: the cause goes to the log only.
func (h *Handler) unavailable(w http.ResponseWriter, r *http.Request, err error) {
	h.cfg.Log.Error("dashboard dependency failed", "route", r.Pattern, "error", err.Error())
	w.Header().Set("Retry-After", "1")
	h.errorPage(w, r, http.StatusServiceUnavailable, "A service the dashboard depends on is unavailable. Try again in a moment.")
}
