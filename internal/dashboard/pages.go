package dashboard

import (
	"bytes"
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/sluice-api/sluice/internal/account"
	"github.com/sluice-api/sluice/internal/numfmt"
	"github.com/sluice-api/sluice/internal/store"
)

// page is what every template gets.
type page struct {
	Title string
	Nav   string // the navigation entry of the page: overview, keys, services, playground
	Data  any
	// Filled by render.
	Base     string
	CSS, JS  string
	Icon     string
	SignedIn bool
	Account  string
	CSRF     string
}

var pageNames = []string{"overview", "keys", "confirm", "services", "playground", "signin", "signedout", "error"}

func (h *Handler) parsePages() (map[string]*template.Template, error) {
	funcs := template.FuncMap{
		"num":   numfmt.Thousands,
		"date":  func(t time.Time) string { return t.UTC().Format("2006-01-02") },
		"when":  func(t time.Time) string { return t.UTC().Format("2006-01-02 15:04 UTC") },
		"join":  strings.Join,
		"count": count,
		"noun":  noun,
	}
	layout, err := template.New("layout.html").Funcs(funcs).ParseFS(templateFS, "templates/layout.html")
	if err != nil {
		return nil, fmt.Errorf("dashboard: templates: %w", err)
	}
	out := map[string]*template.Template{}
	for _, name := range pageNames {
		t, err := template.Must(layout.Clone()).ParseFS(templateFS, "templates/"+name+".html")
		if err != nil {
			return nil, fmt.Errorf("dashboard: template %s: %w", name, err)
		}
		out[name] = t
	}
	return out, nil
}

// render writes page p with template name. Pages are never cached: they hold account data.
func (h *Handler) render(w http.ResponseWriter, r *http.Request, status int, name string, p page) {
	h.renderAs(w, r, nil, status, name, p)
}

func (h *Handler) renderAs(w http.ResponseWriter, r *http.Request, s *session, status int, name string, p page) {
	p.Base = base(r)
	p.CSS, p.JS, p.Icon = h.assetURL(r, "app.css"), h.assetURL(r, "app.js"), h.assetURL(r, "icon.svg")
	if s != nil {
		p.SignedIn, p.Account, p.CSRF = true, s.account.ID, s.csrf
	}
	var buf bytes.Buffer
	if err := h.pages[name].ExecuteTemplate(&buf, "layout.html", p); err != nil {
		h.cfg.Log.Error("dashboard template failed", "template", name, "error", err.Error())
		status = http.StatusInternalServerError
		buf.Reset()
		buf.WriteString("<!doctype html><title>Error</title><p>Something went wrong on our side.</p>")
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

type errorData struct {
	Status  int
	Message string
}

func (h *Handler) errorPage(w http.ResponseWriter, r *http.Request, status int, msg string) {
	h.errorPageAs(w, r, nil, status, msg)
}

// errorPageAs is errorPage for session s: a signed-in user keeps the dashboard's navigation.
func (h *Handler) errorPageAs(w http.ResponseWriter, r *http.Request, s *session, status int, msg string) {
	h.renderAs(w, r, s, status, "error", page{Title: http.StatusText(status), Data: errorData{Status: status, Message: msg}})
}

// count writes a number with its noun: {{count 1 "key" "keys"}} is "1 key".
func count(n any, one, many string) (string, error) {
	v, err := integer(n)
	if err != nil {
		return "", err
	}
	return numfmt.Thousands(v) + " " + plural(v, one, many), nil
}

// noun is only the noun of count, for a number shown apart: {{noun n "character"
// "characters"}}. What is not a number (a missing header) takes the plural.
func noun(n any, one, many string) string {
	v, err := integer(n)
	if err != nil {
		return many
	}
	return plural(v, one, many)
}

// plural returns one when n is 1 (or -1), many otherwise: English counts 0 as plural.
func plural(n int64, one, many string) string {
	if n == 1 || n == -1 {
		return one
	}
	return many
}

// integer reads a template's count: an int, an int64, or a decimal string (a header value).
func integer(n any) (int64, error) {
	switch v := n.(type) {
	case int:
		return int64(v), nil
	case int64:
		return v, nil
	case string:
		i, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("dashboard: count %q: %w", v, err)
		}
		return i, nil
	}
	return 0, fmt.Errorf("dashboard: count of a %T", n)
}

// Overview.

type overviewData struct {
	Report    account.UsageReport
	MonthName string
	Band      bandRow
	Bands     []bandRow
	UsedPct   int     // of the allowance, rounded down, 0 to 100
	UsedWidth float64 // the bar's filled width, 0 to 100
	Chart     chart
	Region    string
}

type bandRow struct {
	Name    string
	Range   string
	Rate    string // USD per 1,000 characters
	Current bool
}

func (h *Handler) overview(w http.ResponseWriter, r *http.Request, s *session) {
	ctx, now := r.Context(), h.cfg.Now().UTC()
	month := account.Month(now)
	u, err := h.cfg.Store.Usage(ctx, s.account.ID, month)
	if err != nil {
		h.unavailable(w, r, err)
		return
	}
	days, err := h.cfg.Store.UsageDays(ctx, s.account.ID, month)
	if err != nil {
		h.unavailable(w, r, err)
		return
	}
	rep := account.Report(s.account, month, u)
	d := overviewData{Report: rep, MonthName: now.Format("January 2006"), Region: s.account.Region, Chart: newChart(now, days)}
	if a := s.account.Allowance; a > 0 {
		used := min(u.Characters, a)
		d.UsedPct = int(used * 100 / a)
		d.UsedWidth = float64(used) * 100 / float64(a)
	} else {
		d.UsedPct, d.UsedWidth = 100, 100
	}
	current := account.PriceBand(u.Characters)
	var from int64
	for _, b := range account.Bands() {
		row := bandRow{Name: b.Name, Rate: account.FormatUSD(b.MicroUSDPerChar * 1000)[:5], Current: b.Name == current.Name}
		if b.UpTo == 0 {
			row.Range = "over " + numfmt.Thousands(from)
		} else {
			row.Range = numfmt.Thousands(from) + " to " + numfmt.Thousands(b.UpTo)
		}
		from = b.UpTo
		if row.Current {
			d.Band = row
		}
		d.Bands = append(d.Bands, row)
	}
	h.renderAs(w, r, s, http.StatusOK, "overview", page{Title: "Overview", Nav: "overview", Data: d})
}

// Keys.

type keyRow struct {
	ID       string
	Label    string // prefix…last4
	Created  time.Time
	LastUsed string // "YYYY-MM-DD" or ""
	Active   bool
	Revoked  time.Time
}

func row(k store.Key) keyRow {
	return keyRow{ID: k.ID, Label: k.Prefix + "…" + k.Last4, Created: k.CreatedAt, LastUsed: k.LastUsed, Active: k.Active(), Revoked: k.RevokedAt}
}

type keysData struct {
	Keys   []keyRow
	Active int
	New    *newKey
	Notice string
	Error  string
}

// newKey is a key shown once, right after it was made.
type newKey struct {
	Key      string
	Row      keyRow
	Replaces string // the label of the key it replaced (rotation)
}

func (h *Handler) keysPage(w http.ResponseWriter, r *http.Request, s *session, status int, d keysData) {
	keys, err := h.cfg.Accounts.ListKeys(r.Context(), s.account.ID)
	if err != nil {
		h.unavailable(w, r, err)
		return
	}
	for i := len(keys) - 1; i >= 0; i-- { // newest first
		d.Keys = append(d.Keys, row(keys[i]))
		if keys[i].Active() {
			d.Active++
		}
	}
	h.renderAs(w, r, s, status, "keys", page{Title: "API keys", Nav: "keys", Data: d})
}

func (h *Handler) keys(w http.ResponseWriter, r *http.Request, s *session) {
	d := keysData{}
	if id := r.URL.Query().Get("revoked"); id != "" {
		if k, err := h.cfg.Accounts.KeyOf(r.Context(), s.account.ID, id); err == nil && !k.Active() {
			d.Notice = "Key " + row(k).Label + " was revoked: requests with it now get 401 invalid_api_key."
		}
	}
	h.keysPage(w, r, s, http.StatusOK, d)
}

func (h *Handler) createKey(w http.ResponseWriter, r *http.Request, s *session) {
	key, k, err := h.cfg.Accounts.CreateKey(r.Context(), s.account.ID)
	if errors.Is(err, account.ErrDisabled) {
		h.errorPageAs(w, r, s, http.StatusForbidden, "This account is disabled: it gets no new keys.")
		return
	}
	if err != nil {
		h.unavailable(w, r, err)
		return
	}
	h.keysPage(w, r, s, http.StatusOK, keysData{New: &newKey{Key: key, Row: row(k)}})
}

type confirmData struct {
	Key    keyRow
	Action string // rotate or revoke
}

func (h *Handler) confirm(w http.ResponseWriter, r *http.Request, s *session, action string) {
	k, err := h.cfg.Accounts.KeyOf(r.Context(), s.account.ID, r.PathValue("id"))
	if errors.Is(err, store.ErrNotFound) {
		h.notFoundAs(w, r, s)
		return
	}
	if err != nil {
		h.unavailable(w, r, err)
		return
	}
	if !k.Active() {
		h.errorPageAs(w, r, s, http.StatusConflict, "Key "+row(k).Label+" is revoked already.")
		return
	}
	title := map[string]string{"rotate": "Rotate key", "revoke": "Revoke key"}[action]
	h.renderAs(w, r, s, http.StatusOK, "confirm", page{Title: title, Nav: "keys", Data: confirmData{Key: row(k), Action: action}})
}

func (h *Handler) confirmRotate(w http.ResponseWriter, r *http.Request, s *session) {
	h.confirm(w, r, s, "rotate")
}

func (h *Handler) confirmRevoke(w http.ResponseWriter, r *http.Request, s *session) {
	h.confirm(w, r, s, "revoke")
}

func (h *Handler) rotateKey(w http.ResponseWriter, r *http.Request, s *session) {
	ctx := r.Context()
	old, err := h.cfg.Accounts.KeyOf(ctx, s.account.ID, r.PathValue("id"))
	if errors.Is(err, store.ErrNotFound) {
		h.notFoundAs(w, r, s)
		return
	}
	if err != nil {
		h.unavailable(w, r, err)
		return
	}
	key, k, err := h.cfg.Accounts.ReplaceKey(ctx, s.account.ID, old.ID)
	switch {
	case key != "" && err != nil:
		// The new key exists and must be shown now or never; the old one still works.
		h.cfg.Log.Error("dashboard rotation left the old key active", "account_id", s.account.ID, "key_id", old.ID, "error", err.Error())
		h.keysPage(w, r, s, http.StatusOK, keysData{New: &newKey{Key: key, Row: row(k)},
			Error: "The new key below was made, but key " + row(old).Label + " could not be revoked and still works. Revoke it once the new key is deployed."})
	case errors.Is(err, account.ErrKeyRevoked):
		h.errorPageAs(w, r, s, http.StatusConflict, "Key "+row(old).Label+" is revoked already.")
	case errors.Is(err, account.ErrDisabled):
		h.errorPageAs(w, r, s, http.StatusForbidden, "This account is disabled: it gets no new keys.")
	case errors.Is(err, store.ErrNotFound):
		h.notFoundAs(w, r, s)
	case err != nil:
		h.unavailable(w, r, err)
	default:
		h.keysPage(w, r, s, http.StatusOK, keysData{New: &newKey{Key: key, Row: row(k), Replaces: row(old).Label}})
	}
}

func (h *Handler) revokeKey(w http.ResponseWriter, r *http.Request, s *session) {
	id := r.PathValue("id")
	err := h.cfg.Accounts.RevokeKeyOf(r.Context(), s.account.ID, id)
	if errors.Is(err, store.ErrNotFound) {
		h.notFoundAs(w, r, s)
		return
	}
	if err != nil {
		h.unavailable(w, r, err)
		return
	}
	h.redirect(w, r, "/keys?revoked="+id)
}
