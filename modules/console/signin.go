package console

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"time"

	"golang.org/x/oauth2"

	"platform/kernel/store"
	"platform/kernel/tenant"
	"platform/modules/identity"
)

// oauthConfig is the console's client of a customer, talking to the token
// endpoint in-process.
func (c *Console) oauthConfig(clientID string) *oauth2.Config {
	return &oauth2.Config{ClientID: clientID, RedirectURL: c.redirectURI(), Scopes: c.wantedScopes(),
		Endpoint: oauth2.Endpoint{AuthURL: c.d.Config.LoginURL + "/oauth/authorize", TokenURL: c.d.Config.AuthURL + "/oauth/token",
			AuthStyle: oauth2.AuthStyleInParams}}
}

func (c *Console) tokenContext(ctx context.Context) context.Context {
	return context.WithValue(ctx, oauth2.HTTPClient, &http.Client{Transport: inProcess{h: c.d.Handler}, Timeout: 30 * time.Second})
}

// signin shows the workspace form; with a workspace it starts the OAuth
// flow: a PKCE verifier and a state kept server-side, then the platform's
// own sign-in screen.
func (c *Console) signin(w http.ResponseWriter, r *http.Request) {
	slug := strings.TrimSpace(r.URL.Query().Get("workspace"))
	if slug == "" {
		c.render(w, r, http.StatusOK, "signin", &page{Title: "Sign in", Workspace: c.d.DefaultWorkspace})
		return
	}
	cust, err := c.customer(r.Context(), slug)
	if err != nil {
		c.render(w, r, http.StatusOK, "signin", &page{Title: "Sign in", Workspace: slug, Error: err.Error()})
		return
	}
	app, err := c.app(r.Context(), cust.ID)
	if err != nil {
		c.fail(w, r, err)
		return
	}
	p := pending{State: identity.RandomSecret(24), Verifier: oauth2.GenerateVerifier(), Customer: cust.ID, ClientID: app.ClientID,
		ReturnTo: safeReturn(r.URL.Query().Get("return"))}
	if err := c.sessions.startPending(r.Context(), w, p); err != nil {
		c.fail(w, r, err)
		return
	}
	conf := c.oauthConfig(p.ClientID)
	http.Redirect(w, r, conf.AuthCodeURL(p.State, oauth2.S256ChallengeOption(p.Verifier)), http.StatusSeeOther)
}

var errUnknownWorkspace = errors.New("no workspace has that name")

func (c *Console) customer(ctx context.Context, slug string) (*identity.Customer, error) {
	if len(slug) > 100 {
		return nil, errUnknownWorkspace
	}
	cust, err := c.d.Identity.CustomerBySlug(ctx, slug)
	if errors.Is(err, store.ErrNotFound) {
		return nil, errUnknownWorkspace
	}
	return cust, err
}

// safeReturn keeps only a path of the console itself (no open redirect).
func safeReturn(p string) string {
	if !strings.HasPrefix(p, "/") || strings.HasPrefix(p, "//") || strings.ContainsAny(p, "\\\r\n") || len(p) > 2000 {
		return ""
	}
	return p
}

// callback completes the sign-in: the state must match the one this
// browser started with, the code is exchanged with the PKCE verifier, and
// a new session starts (a new id: nothing planted before survives).
func (c *Console) callback(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	p, err := c.sessions.takePending(ctx, w, r)
	if err != nil {
		c.fail(w, r, err)
		return
	}
	q := r.URL.Query()
	switch {
	case p == nil || q.Get("state") == "" || q.Get("state") != p.State:
		c.render(w, r, http.StatusBadRequest, "signin", &page{Title: "Sign in", Workspace: c.d.DefaultWorkspace,
			Error: "This sign-in expired or was started in another browser. Sign in again."})
		return
	case q.Get("error") != "":
		c.render(w, r, http.StatusForbidden, "signin", &page{Title: "Sign in", Workspace: c.d.DefaultWorkspace,
			Error: "The sign-in was not completed (" + clip(q.Get("error"), 60) + ")."})
		return
	}
	b, err := c.exchange(ctx, p, q.Get("code"))
	if err != nil {
		c.render(w, r, http.StatusForbidden, "signin", &page{Title: "Sign in", Workspace: c.d.DefaultWorkspace, Error: err.Error()})
		return
	}
	if err := c.sessions.start(ctx, w, b); err != nil {
		c.fail(w, r, err)
		return
	}
	to := c.link("/")
	if p.ReturnTo != "" {
		to = c.link(p.ReturnTo)
	}
	// A page, not a redirect: a Strict cookie set at the end of a trip that
	// began on another site is sent by the next navigation this page makes.
	c.render(w, r, http.StatusOK, "continue", &page{Title: "Signed in", Next: to})
}

var errSignin = errors.New("the sign-in could not be completed; sign in again")

// exchange trades the code for tokens with the app the sign-in started
// with (signin found or repaired it; the token endpoint checks it again).
func (c *Console) exchange(ctx context.Context, p *pending, code string) (*session, error) {
	tok, err := c.oauthConfig(p.ClientID).Exchange(c.tokenContext(ctx), code, oauth2.VerifierOption(p.Verifier))
	if err != nil {
		return nil, errSignin
	}
	b := &session{Access: tok.AccessToken, Refresh: tok.RefreshToken, AccessExp: tok.Expiry}
	if err := c.identify(ctx, b); err != nil {
		return nil, err
	}
	if b.Customer != p.Customer {
		return nil, errSignin
	}
	b.ClientID = p.ClientID
	return b, nil
}

// identify reads the user, customer and rights from the access token, as
// the API will.
func (c *Console) identify(ctx context.Context, b *session) error {
	pr, err := c.d.Verifier.Verify(ctx, b.Access)
	if err != nil || pr.User == "" {
		return errSignin
	}
	b.Customer, b.User, b.Scopes = pr.Customer, pr.User, pr.Scopes
	if u, err := c.d.Identity.UserByID(tenant.WithCustomer(ctx, pr.Customer), pr.User); err == nil {
		b.Email = u.Email
	}
	return nil
}

// fresh returns the session with an access token valid for a while yet,
// refreshing it when it is about to expire. Of two requests that find it
// so, one refreshes and the other waits for its result: presenting one
// refresh token twice would revoke the whole grant.
func (c *Console) fresh(ctx context.Context, b *session) (*session, error) {
	if time.Until(b.AccessExp) > 30*time.Second {
		return b, nil
	}
	return c.refresh(ctx, b)
}

var errSignedOut = errors.New("the console session ended")

func (c *Console) refresh(ctx context.Context, b *session) (*session, error) {
	won, err := c.sessions.claimRefresh(ctx, b)
	if err != nil {
		return nil, err
	}
	if !won {
		return c.awaitRefresh(ctx, b)
	}
	// Once the token service rotated the refresh token, only the session
	// record knows the new one: a browser hanging up must not stop the
	// refresh between the two (the old token presented again would be
	// reuse, which revokes the whole grant).
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	src := c.oauthConfig(b.ClientID).TokenSource(c.tokenContext(ctx), &oauth2.Token{RefreshToken: b.Refresh, Expiry: time.Unix(1, 0)})
	tok, err := src.Token()
	if err != nil {
		return nil, errSignedOut
	}
	nb := *b
	nb.Access, nb.AccessExp = tok.AccessToken, tok.Expiry
	if tok.RefreshToken != "" {
		nb.Refresh = tok.RefreshToken
	}
	if err := c.identify(ctx, &nb); err != nil {
		return nil, errSignedOut
	}
	if err := c.sessions.saveRefresh(ctx, &nb); err != nil {
		return nil, err
	}
	nb.Gen++
	return &nb, nil
}

// awaitRefresh polls for the refresh another request is making.
func (c *Console) awaitRefresh(ctx context.Context, b *session) (*session, error) {
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
		nb, err := c.sessions.get(ctx, b.ID, b.key)
		if err != nil || nb == nil {
			return nil, errSignedOut
		}
		if nb.Gen > b.Gen {
			return nb, nil
		}
	}
	return nil, errSignedOut
}

// signout revokes the grant (every token of this sign-in) at the token
// service, then forgets the session.
func (c *Console) signout(w http.ResponseWriter, r *http.Request, b *session) {
	ctx := context.WithoutCancel(r.Context())
	form := url.Values{"token": {b.Refresh}, "token_type_hint": {"refresh_token"}, "client_id": {b.ClientID}}
	req, err := http.NewRequestWithContext(withPeer(ctx, r), http.MethodPost, c.d.Config.AuthURL+"/oauth/revoke", strings.NewReader(form.Encode()))
	if err == nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		if res, err := (inProcess{h: c.d.Handler}).RoundTrip(req); err == nil {
			_ = res.Body.Close()
		}
	}
	c.sessions.end(ctx, w, b)
	http.Redirect(w, r, c.link("/signin"), http.StatusSeeOther)
}

func clip(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}
