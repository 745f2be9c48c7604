package dashboard

import (
	"fmt"
	"net"
	"net/http"
	"strconv"
	"time"
)

// Failed sign-in attempts are limited per client address: a link token is 256 random bits, so
// guessing is hopeless anyway, but a client that keeps trying is refused before its attempts
// reach the token check. The counts live in the store's rate windows (on AWS, DynamoDB), so the
// limit holds across Lambda containers.
const (
	// signInFailures is how many failed attempts (an unknown, used or expired link, on the link's
	// page or in the sign-in form) one address may make per signInWindow.
	signInFailures = 10
	// signInWindow is the length of the windows, aligned to the UTC clock; it is no longer than
	// the store keeps a window.
	signInWindow = 5 * time.Minute
	// purposeAddress keys the HMAC of a client address: the store never holds an address.
	purposeAddress = "sluice-dashboard-address"
)

// attemptsKey is the rate-window "account" that counts the failed sign-ins of r's address.
func (h *Handler) attemptsKey(r *http.Request) string {
	addr := r.RemoteAddr
	if host, _, err := net.SplitHostPort(addr); err == nil {
		addr = host
	}
	return "signin#" + hashToken(h.cfg.Pepper, purposeAddress, addr)[:32]
}

// tooManyFailures reports whether r's address has used up its failed attempts in the current
// window; when it has, it answers 429 with Retry-After and returns true.
func (h *Handler) tooManyFailures(w http.ResponseWriter, r *http.Request) (bool, error) {
	now := h.cfg.Now().UTC()
	start := now.Truncate(signInWindow)
	n, err := h.cfg.Store.Count(r.Context(), h.attemptsKey(r), start)
	if err != nil {
		return false, fmt.Errorf("dashboard: failed sign-ins: %w", err)
	}
	if n < signInFailures {
		return false, nil
	}
	wait := start.Add(signInWindow).Sub(now)
	w.Header().Set("Retry-After", strconv.Itoa(int((wait+time.Second-1)/time.Second)))
	h.errorPage(w, r, http.StatusTooManyRequests, fmt.Sprintf(
		"Too many failed sign-in attempts from your address. Wait %d minutes, then open your sign-in link again.",
		int((wait+time.Minute-1)/time.Minute)))
	return true, nil
}

// failed counts one failed sign-in attempt of r's address.
func (h *Handler) failed(r *http.Request) error {
	start := h.cfg.Now().UTC().Truncate(signInWindow)
	if _, _, err := h.cfg.Store.Hit(r.Context(), h.attemptsKey(r), start, signInFailures); err != nil {
		return fmt.Errorf("dashboard: count a failed sign-in: %w", err)
	}
	return nil
}
