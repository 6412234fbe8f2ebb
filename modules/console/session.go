package console

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"platform/kernel/query"
	"platform/kernel/store"
	"platform/modules/identity"
)

// SessionsCollection holds the console's sign-ins and the sign-ins under
// way (global: the cookie is all a request brings, any replica serves it).
const SessionsCollection = "consolesessions"

// pendingTTL bounds the trip through the sign-in and consent screens.
const pendingTTL = 10 * time.Minute

// session is one signed-in browser. The cookie holds 256 random bits; the
// store keeps only their SHA-256 as the id and the tokens sealed with a
// key derived from the cookie, so a copy of the store alone opens nothing.
type session struct {
	ID        string
	key       []byte // sealing key, from the cookie
	Customer  string
	ClientID  string
	User      string
	Email     string
	CSRF      string
	Scopes    []string
	Access    string
	Refresh   string
	AccessExp time.Time
	ExpiresAt time.Time
	Gen       int64 // counts refreshes: the compare-and-set of a refresh
}

// pending is a sign-in under way: the PKCE verifier, the state and the
// console app it signs in to.
type pending struct {
	State, Verifier, Customer, ClientID, ReturnTo string
}

// sessions keeps the console's sign-ins; the OAuth sweep removes the
// expired ones (oauth.Options.SweepAlso).
type sessions struct {
	store  store.Store
	ttl    time.Duration
	secure bool // the console is on https: __Host- cookies, Secure
}

func (s *sessions) coll() store.Collection { return s.store.Global(SessionsCollection) }

func (s *sessions) cookie(base string) string {
	if s.secure {
		return "__Host-" + base
	}
	return base
}

func hashID(v string) string {
	sum := sha256.Sum256([]byte(v))
	return hex.EncodeToString(sum[:])
}

func sealKey(raw string) []byte {
	m := hmac.New(sha256.New, []byte(raw))
	m.Write([]byte("platform console token seal"))
	return m.Sum(nil)
}

func seal(key []byte, plain string) (string, error) {
	gcm, err := newGCM(key)
	if err != nil {
		return "", err
	}
	nonce := make([]byte, gcm.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return "", err
	}
	return base64.RawStdEncoding.EncodeToString(gcm.Seal(nonce, nonce, []byte(plain), nil)), nil
}

func unseal(key []byte, sealed string) (string, error) {
	gcm, err := newGCM(key)
	if err != nil {
		return "", err
	}
	b, err := base64.RawStdEncoding.DecodeString(sealed)
	if err != nil || len(b) < gcm.NonceSize() {
		return "", errors.New("console: sealed token is malformed")
	}
	plain, err := gcm.Open(nil, b[:gcm.NonceSize()], b[gcm.NonceSize():], nil)
	return string(plain), err
}

func newGCM(key []byte) (cipher.AEAD, error) {
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	return cipher.NewGCM(block)
}

// setCookie writes a host-only, HTTP-only cookie; maxAge < 0 deletes it.
func (s *sessions) setCookie(w http.ResponseWriter, name, value string, maxAge int, mode http.SameSite) {
	http.SetCookie(w, &http.Cookie{Name: s.cookie(name), Value: value, Path: "/", HttpOnly: true, Secure: s.secure,
		SameSite: mode, MaxAge: maxAge})
}

// startPending remembers a sign-in under way behind a cookie of its own:
// SameSite=Lax, because the way back from the sign-in screen may be a
// navigation from another site (a login URL of its own).
func (s *sessions) startPending(ctx context.Context, w http.ResponseWriter, p pending) error {
	raw := identity.RandomSecret(32)
	now := time.Now().UTC()
	doc := store.Doc{"_id": hashID(raw), "kind": "pending", "state": p.State, "verifier": p.Verifier, "customer": p.Customer,
		"clientId": p.ClientID, "returnTo": p.ReturnTo, "createdAt": now, "expiresAt": now.Add(pendingTTL)}
	if err := s.coll().Insert(ctx, doc); err != nil {
		return err
	}
	s.setCookie(w, "console_signin", raw, int(pendingTTL.Seconds()), http.SameSiteLaxMode)
	return nil
}

// takePending returns and deletes the browser's sign-in under way: each
// can complete once.
func (s *sessions) takePending(ctx context.Context, w http.ResponseWriter, r *http.Request) (*pending, error) {
	ck, err := r.Cookie(s.cookie("console_signin"))
	if err != nil || ck.Value == "" {
		return nil, nil
	}
	s.setCookie(w, "console_signin", "", -1, http.SameSiteLaxMode)
	id := hashID(ck.Value)
	d, err := s.coll().Get(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil
	} else if err != nil {
		return nil, err
	}
	if n, err := s.coll().Delete(ctx, query.AllOf(query.ID(id), query.Eq("kind", "pending"))); err != nil || n == 0 {
		return nil, err // a parallel callback took it
	}
	if exp, _ := d["expiresAt"].(time.Time); time.Now().After(exp) {
		return nil, nil
	}
	return &pending{State: str(d["state"]), Verifier: str(d["verifier"]), Customer: str(d["customer"]), ClientID: str(d["clientId"]),
		ReturnTo: str(d["returnTo"])}, nil
}

// start stores a new session and sets its cookie: SameSite=Strict, so
// no other site's page can make the browser send it.
func (s *sessions) start(ctx context.Context, w http.ResponseWriter, in *session) error {
	raw := identity.RandomSecret(32)
	in.ID, in.key, in.CSRF = hashID(raw), sealKey(raw), identity.RandomSecret(32)
	now := time.Now().UTC()
	in.ExpiresAt = now.Add(s.ttl)
	access, err := seal(in.key, in.Access)
	if err != nil {
		return err
	}
	refresh, err := seal(in.key, in.Refresh)
	if err != nil {
		return err
	}
	doc := store.Doc{"_id": in.ID, "kind": "session", "customer": in.Customer, "clientId": in.ClientID, "user": in.User, "email": in.Email, "csrf": in.CSRF,
		"scopes": store.List(in.Scopes), "access": access, "refresh": refresh, "accessExp": in.AccessExp, "gen": int64(0), "refreshingUntil": time.Unix(0, 0).UTC(),
		"createdAt": now, "expiresAt": in.ExpiresAt}
	if err := s.coll().Insert(ctx, doc); err != nil {
		return err
	}
	s.setCookie(w, "console_session", raw, int(s.ttl.Seconds()), http.SameSiteStrictMode)
	return nil
}

// load returns the browser's live session, or nil.
func (s *sessions) load(ctx context.Context, r *http.Request) (*session, error) {
	ck, err := r.Cookie(s.cookie("console_session"))
	if err != nil || ck.Value == "" || len(ck.Value) > 100 {
		return nil, nil
	}
	return s.get(ctx, hashID(ck.Value), sealKey(ck.Value))
}

func (s *sessions) get(ctx context.Context, id string, key []byte) (*session, error) {
	d, err := s.coll().Get(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil
	} else if err != nil {
		return nil, err
	}
	if str(d["kind"]) != "session" {
		return nil, nil
	}
	b := &session{ID: id, key: key, Customer: str(d["customer"]), ClientID: str(d["clientId"]), User: str(d["user"]), Email: str(d["email"]), CSRF: str(d["csrf"]),
		Scopes: store.Strings(d["scopes"])}
	b.AccessExp, _ = d["accessExp"].(time.Time)
	b.ExpiresAt, _ = d["expiresAt"].(time.Time)
	b.Gen, _ = d["gen"].(int64)
	if time.Now().After(b.ExpiresAt) {
		return nil, nil
	}
	if b.Access, err = unseal(key, str(d["access"])); err != nil {
		return nil, nil // a cookie that does not open its record is no session
	}
	if b.Refresh, err = unseal(key, str(d["refresh"])); err != nil {
		return nil, nil
	}
	return b, nil
}

// claimRefresh marks the session as being refreshed by this request; false
// when another request refreshed it or is doing so (presenting the same
// refresh token twice would revoke the whole grant).
func (s *sessions) claimRefresh(ctx context.Context, b *session) (bool, error) {
	now := time.Now().UTC()
	f := query.AllOf(query.ID(b.ID), query.Eq("gen", b.Gen), before("refreshingUntil", now))
	_, err := s.coll().Update(ctx, f, store.Update{Set: store.Doc{"refreshingUntil": now.Add(20 * time.Second)}})
	if errors.Is(err, store.ErrNotFound) {
		return false, nil
	}
	return err == nil, err
}

// saveRefresh stores the rotated tokens and counts the refresh.
func (s *sessions) saveRefresh(ctx context.Context, b *session) error {
	access, err := seal(b.key, b.Access)
	if err != nil {
		return err
	}
	refresh, err := seal(b.key, b.Refresh)
	if err != nil {
		return err
	}
	_, err = s.coll().Update(ctx, query.ID(b.ID), store.Update{Set: store.Doc{"access": access, "refresh": refresh,
		"accessExp": b.AccessExp, "scopes": store.List(b.Scopes), "gen": b.Gen + 1, "refreshingUntil": time.Unix(0, 0).UTC()}})
	return err
}

// end deletes a session and its cookie.
func (s *sessions) end(ctx context.Context, w http.ResponseWriter, b *session) {
	s.setCookie(w, "console_session", "", -1, http.SameSiteStrictMode)
	if b != nil {
		_, _ = s.coll().Delete(ctx, query.ID(b.ID))
	}
}

// checkCSRF compares a form's token with the session's in constant time.
func (b *session) checkCSRF(token string) bool {
	return b != nil && token != "" && subtle.ConstantTimeCompare([]byte(b.CSRF), []byte(strings.TrimSpace(token))) == 1
}

func str(v any) string {
	switch t := v.(type) {
	case string:
		return t
	case nil:
		return ""
	default:
		return fmt.Sprint(t)
	}
}

func before(path string, t time.Time) query.Expr {
	return query.Field{Path: path, Conds: []query.Cond{query.Compare{Op: query.OpLt, Value: t}}}
}
