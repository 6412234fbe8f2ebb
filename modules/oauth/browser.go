package oauth

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"net/http"
	"strings"
	"time"

	"platform/kernel/query"
	"platform/kernel/store"
	"platform/modules/identity"
)

// SessionsCollection holds sign-in sessions of browsers, so any replica can
// continue a flow another one started.
const SessionsCollection = "oauthsessions"

// browserSession is one browser's state at the sign-in screen: a CSRF token
// from the first visit, and the user once signed in. The cookie holds a
// random id; the store keeps only its hash.
type browserSession struct {
	ID       string // hash of the cookie value
	CSRF     string
	Customer string
	User     string
	AuthTime time.Time
}

type sessions struct {
	store  store.Store
	ttl    time.Duration
	secure bool // login URL is https: __Host- cookie, Secure
}

func (s *sessions) cookieName() string {
	if s.secure {
		return "__Host-platform_signin"
	}
	return "platform_signin"
}

func hashID(v string) string {
	sum := sha256.Sum256([]byte(v))
	return hex.EncodeToString(sum[:])
}

// load returns the browser's live session, or nil.
func (s *sessions) load(ctx context.Context, r *http.Request) (*browserSession, error) {
	ck, err := r.Cookie(s.cookieName())
	if err != nil || ck.Value == "" {
		return nil, nil
	}
	d, err := s.store.Global(SessionsCollection).Get(ctx, hashID(ck.Value))
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil
	} else if err != nil {
		return nil, err
	}
	if exp, _ := d["expiresAt"].(time.Time); time.Now().After(exp) {
		return nil, nil
	}
	b := &browserSession{ID: str(d["_id"]), CSRF: str(d["csrf"]), Customer: str(d["customer"]), User: str(d["user"])}
	b.AuthTime, _ = d["authTime"].(time.Time)
	return b, nil
}

// start creates a session (anonymous, or signed in when user is set) and
// sets its cookie. Signing in always starts a new one, so an id planted
// before sign-in is worthless afterwards.
func (s *sessions) start(ctx context.Context, w http.ResponseWriter, customer, user string) (*browserSession, error) {
	raw := identity.RandomSecret(32)
	b := &browserSession{ID: hashID(raw), CSRF: identity.RandomSecret(32), Customer: customer, User: user}
	now := time.Now().UTC()
	doc := store.Doc{"_id": b.ID, "csrf": b.CSRF, "customer": customer, "user": user, "createdAt": now, "expiresAt": now.Add(s.ttl)}
	if user != "" {
		b.AuthTime = now
		doc["authTime"] = now
	}
	if err := s.store.Global(SessionsCollection).Insert(ctx, doc); err != nil {
		return nil, err
	}
	http.SetCookie(w, &http.Cookie{Name: s.cookieName(), Value: raw, Path: "/", HttpOnly: true, Secure: s.secure,
		SameSite: http.SameSiteLaxMode, MaxAge: int(s.ttl.Seconds())})
	return b, nil
}

// end deletes a session (after sign-in replaces it).
func (s *sessions) end(ctx context.Context, b *browserSession) {
	if b != nil {
		_, _ = s.store.Global(SessionsCollection).Delete(ctx, query.ID(b.ID))
	}
}

// checkCSRF compares the form's token with the session's in constant time.
func (b *browserSession) checkCSRF(token string) bool {
	return b != nil && token != "" && subtle.ConstantTimeCompare([]byte(b.CSRF), []byte(strings.TrimSpace(token))) == 1
}
