package store

import (
	"context"
	"time"
)

// SignInLink is a single-use link that starts a dashboard session for one account. The token
// in the link is never stored: only its HMAC (Hash), like an API key.
type SignInLink struct {
	Hash      string // hex HMAC-SHA256(pepper, token)
	Account   string
	CreatedAt time.Time
	Expires   time.Time // the link is absent from this time on
}

// Session is a signed-in dashboard session. The session id lives only in the browser's cookie;
// the store keeps its HMAC (Hash).
type Session struct {
	Hash      string // hex HMAC-SHA256(pepper, session id)
	Account   string
	CreatedAt time.Time
	// Expires is the idle expiry: the session is absent from this time on unless TouchSession
	// moves it.
	Expires time.Time
}

// Sessions stores the dashboard's sign-in links and sessions. Expired links and sessions are
// absent from every read, whether or not the store has deleted them yet.
type Sessions interface {
	// CreateLink stores a new, unused link. Storing the same link again while it is unused
	// changes nothing (a retried write); ErrExists when any other link, or this one used, has
	// its hash.
	CreateLink(ctx context.Context, l SignInLink) error
	// Link returns the link with hash while it is live at now (not used, not expired);
	// ErrNotFound otherwise.
	Link(ctx context.Context, hash string, now time.Time) (SignInLink, error)
	// StartSession uses up the live link linkHash and stores s for the link's account, as one
	// step: s.Account is set from the link and the stored session is returned. ErrNotFound when
	// the link is unknown, expired or used. A link is used once: the only call that succeeds on
	// a used link is a repeat with the same s.Hash (a retry whose first answer was lost), which
	// returns that same session.
	StartSession(ctx context.Context, linkHash string, s Session, now time.Time) (Session, error)
	// Session returns the session with hash while it is live at now; ErrNotFound otherwise.
	Session(ctx context.Context, hash string, now time.Time) (Session, error)
	// TouchSession moves the expiry of a session live at now to expires (never earlier).
	// ErrNotFound when the session is absent at now: an ended or expired session never comes
	// back.
	TouchSession(ctx context.Context, hash string, expires, now time.Time) error
	// EndSession deletes the session; ending an absent session is not an error.
	EndSession(ctx context.Context, hash string) error
}

// KeyUse records the day each API key was last used, for the dashboard's key list.
type KeyUse interface {
	// MarkKeyUsed records that the key with hash was used on day ("YYYY-MM-DD", UTC) unless the
	// key already records that day or a later one. A key that does not exist is ignored. The
	// result is Key.LastUsed.
	MarkKeyUsed(ctx context.Context, hash, day string) error
}
