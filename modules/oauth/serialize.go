package oauth

import (
	"context"
	"errors"
	"net/url"
	"time"

	"github.com/ory/fosite"

	"platform/kernel/store"
)

// formKeys are the only request parameters kept with a code or token: what
// the token endpoint compares later. Nothing else (never a password) is stored.
var formKeys = []string{"redirect_uri", "code_challenge", "code_challenge_method"}

// requestDoc is the stored form of a fosite request: its family id
// (requestId, shared by every token rotated from one grant), client,
// scopes, kept parameters and session.
func requestDoc(r fosite.Requester) store.Doc {
	sess, _ := r.GetSession().(*Session)
	if sess == nil {
		sess = &Session{}
	}
	form := store.Doc{}
	for _, k := range formKeys {
		if v := r.GetRequestForm().Get(k); v != "" {
			form[k] = v
		}
	}
	return store.Doc{
		"requestId": r.GetID(), "requestedAt": r.GetRequestedAt().UTC(), "clientId": r.GetClient().GetID(),
		"customer": sess.Customer, "user": sess.User,
		"requestedScopes": store.List(r.GetRequestedScopes()), "grantedScopes": store.List(r.GetGrantedScopes()),
		"form": form, "session": sess.doc(),
	}
}

// requestOf rebuilds a request, looking its client up again so a deleted
// app's codes and tokens stop working. fosite passes the session to fill
// (it validates expiry on it before adopting the stored request).
func (st *Storage) requestOf(ctx context.Context, d store.Doc, into fosite.Session) (*fosite.Request, error) {
	clientID, _ := d["clientId"].(string)
	c, err := st.GetClient(ctx, clientID)
	if err != nil {
		return nil, err
	}
	r := fosite.NewRequest()
	r.ID, _ = d["requestId"].(string)
	r.RequestedAt, _ = d["requestedAt"].(time.Time)
	r.Client = c
	r.RequestedScope = store.Strings(d["requestedScopes"])
	r.GrantedScope = store.Strings(d["grantedScopes"])
	r.Form = url.Values{}
	form, _ := d["form"].(store.Doc)
	for k, v := range form {
		if s, ok := v.(string); ok {
			r.Form.Set(k, s)
		}
	}
	sd, _ := d["session"].(store.Doc)
	sess := sessionOf(sd)
	if ps, ok := into.(*Session); ok && ps != nil {
		sess.keepExpiries(ps)
		*ps = *sess
		sess = ps
	}
	r.Session = sess
	return r, nil
}

// keepExpiries keeps the expiries already set on the session fosite asks
// to fill: a code exchange loads the code again after setting the new
// tokens' expiries on it, and losing them left the refresh token without
// any (fosite takes that as an unlimited lifetime).
func (s *Session) keepExpiries(into *Session) {
	for k, v := range into.ExpiresAt {
		if !v.IsZero() {
			s.SetExpiresAt(k, v)
		}
	}
}

// notFound maps the store's miss to fosite's.
func notFound(err error) error {
	if errors.Is(err, store.ErrNotFound) {
		return fosite.ErrNotFound.WithWrap(err)
	}
	return err
}

func merge(a, b store.Doc) store.Doc {
	for k, v := range b {
		a[k] = v
	}
	return a
}
