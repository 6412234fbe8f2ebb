package oauth

import (
	"context"
	"errors"
	"math"
	"net/http"
	"regexp"
	"slices"

	"github.com/gin-gonic/gin"
	"github.com/ory/fosite"

	"platform/api"
	"platform/kernel/tenant"
	"platform/modules/audit/trail"
	"platform/modules/identity"
)

// authorize (GET) shows the sign-in form, or the consent screen when this
// browser already signed in for the app's customer.
func (s *Service) authorize(c *gin.Context) {
	ar, app, ok := s.parseAuthorize(c)
	if !ok {
		return
	}
	ctx := c.Request.Context()
	b, err := s.sessions.load(ctx, c.Request)
	if err == nil && (b == nil || b.Customer != app.Customer) {
		b, err = s.sessions.start(ctx, c.Writer, app.Customer, "")
	}
	if err != nil {
		s.unavailable(c, err)
		return
	}
	if b.User == "" {
		s.showLogin(c, ar, app, b, http.StatusOK, "", "")
		return
	}
	s.showConsent(c, ar, app, b)
}

// authorizePost handles the forms: sign in, approve, deny. Every form
// carries the session's CSRF token; without it nothing happens.
func (s *Service) authorizePost(c *gin.Context) {
	ar, app, ok := s.parseAuthorize(c)
	if !ok {
		return
	}
	b, err := s.sessions.load(c.Request.Context(), c.Request)
	if err != nil {
		s.unavailable(c, err)
		return
	}
	if b == nil || b.Customer != app.Customer || !b.checkCSRF(c.PostForm("csrf_token")) {
		renderError(c.Writer, http.StatusForbidden, "Sign-in expired",
			"This form is missing its security token or has expired. Go back to the app and start the sign-in again.")
		return
	}
	switch action := c.PostForm("action"); {
	case action == "login":
		s.login(c, ar, app, b)
	case action == "approve" && b.User != "":
		s.approve(c, ar, app, b)
	case action == "deny" && b.User != "":
		s.deny(c, ar, app, b)
	default:
		renderError(c.Writer, http.StatusBadRequest, "Unknown step", "Go back to the app and start the sign-in again.")
	}
}

// parseAuthorize validates the app's request. The client and the exact
// redirect URI are checked before anything else: an error is redirected to
// the app only once its redirect URI is known to be registered.
func (s *Service) parseAuthorize(c *gin.Context) (fosite.AuthorizeRequester, *identity.App, bool) {
	ctx := c.Request.Context()
	get := queryOnly(c.Request)
	q := get.URL.Query()
	cl, err := s.storage.GetClient(ctx, q.Get("client_id"))
	if err != nil {
		renderError(c.Writer, http.StatusBadRequest, "Unknown app", "The app that sent you here is not registered (unknown client_id).")
		return nil, nil, false
	}
	app := appOf(cl)
	if ru := q.Get("redirect_uri"); ru == "" || !slices.Contains(app.RedirectURIs, ru) {
		renderError(c.Writer, http.StatusBadRequest, "Wrong redirect address",
			"The app sent a redirect_uri that is not exactly one of its registered addresses.")
		return nil, nil, false
	}
	ar, err := s.provider.NewAuthorizeRequest(ctx, get)
	if err == nil {
		err = checkRequest(ar)
	}
	if err != nil {
		s.authorizeError(c, ar, err)
		return nil, nil, false
	}
	return ar, app, true
}

// queryOnly is the request as the app sent it (a GET with its query), so
// form fields such as the password never reach fosite or the store.
func queryOnly(r *http.Request) *http.Request {
	g := r.Clone(r.Context())
	g.Method, g.Body, g.ContentLength = http.MethodGet, http.NoBody, 0
	g.Form, g.PostForm, g.MultipartForm = nil, nil, nil
	g.Header.Del("Content-Type")
	return g
}

var s256Challenge = regexp.MustCompile(`^[A-Za-z0-9_-]{43}$`)

// checkRequest adds what fosite checks only later or not at all: PKCE
// with S256 for every client (plain and a missing challenge are refused
// before the user is asked anything) and the query response mode only.
func checkRequest(ar fosite.AuthorizeRequester) error {
	f := ar.GetRequestForm()
	if m := f.Get("code_challenge_method"); m != "S256" {
		return fosite.ErrInvalidRequest.WithHint("PKCE is required: send code_challenge with code_challenge_method=S256 (plain is not accepted).")
	}
	if !s256Challenge.MatchString(f.Get("code_challenge")) {
		return fosite.ErrInvalidRequest.WithHint("code_challenge must be the base64url SHA-256 of the code_verifier (43 characters).")
	}
	if m := ar.GetResponseMode(); m != fosite.ResponseModeDefault && m != fosite.ResponseModeQuery {
		return fosite.ErrInvalidRequest.WithHint("Only response_mode=query is supported.")
	}
	return nil
}

func (s *Service) authorizeError(c *gin.Context, ar fosite.AuthorizeRequester, err error) {
	if ar != nil && ar.IsRedirectURIValid() {
		s.provider.WriteAuthorizeError(c.Request.Context(), c.Writer, ar, err)
		return
	}
	rfc := fosite.ErrorToRFC6749Error(err)
	renderError(c.Writer, http.StatusBadRequest, "The app's request is invalid", rfc.GetDescription())
}

func (s *Service) unavailable(c *gin.Context, err error) {
	s.d.Log.ErrorContext(c.Request.Context(), "sign-in failed", "error", err)
	renderError(c.Writer, http.StatusServiceUnavailable, "Sign-in is unavailable", "Please try again in a moment.")
}

// login checks the password under the throttle; success starts a new
// signed-in session and shows the consent screen (post/redirect/get).
func (s *Service) login(c *gin.Context, ar fosite.AuthorizeRequester, app *identity.App, b *browserSession) {
	ctx := c.Request.Context()
	email, addr := clip(c.PostForm("email"), 320), api.ClientAddress(c.Request)
	rec := trail.Record{Customer: app.Customer, Action: "oauth.signin", Target: email, ClientAddress: addr,
		ActorType: "anonymous", Outcome: trail.Failure, Details: map[string]any{"client_id": app.ClientID}}
	claims, wait, err := s.throttle.admit(ctx, s.throttle.keys(app.Customer, email, addr))
	if err != nil {
		s.unavailable(c, err)
		return
	}
	if wait > 0 {
		rec.Details["reason"] = "throttled"
		s.audit(ctx, rec)
		secs := int(math.Ceil(wait.Seconds()))
		c.Header("Retry-After", itoa(secs))
		s.showLogin(c, ar, app, b, http.StatusTooManyRequests, email,
			"Too many failed sign-ins. Wait "+seconds(secs)+" before trying again.")
		return
	}
	u, err := s.d.Identity.Authenticate(tenant.WithCustomer(ctx, app.Customer), email, c.PostForm("password"))
	if errors.Is(err, identity.ErrBadCredentials) {
		rec.Details["reason"] = "bad credentials"
		s.audit(ctx, rec)
		s.showLogin(c, ar, app, b, http.StatusUnauthorized, email, "Wrong e-mail or password.")
		return
	} else if err != nil {
		s.releaseThrottle(ctx, claims)
		s.unavailable(c, err)
		return
	}
	if err := s.throttle.succeeded(ctx, claims); err != nil {
		s.d.Log.ErrorContext(ctx, "clear failed sign-ins", "error", err)
	}
	s.sessions.end(ctx, b)
	if _, err := s.sessions.start(ctx, c.Writer, app.Customer, u.ID); err != nil {
		s.unavailable(c, err)
		return
	}
	rec.Actor, rec.ActorType, rec.Outcome = u.ID, "user", trail.Success
	s.audit(ctx, rec)
	c.Redirect(http.StatusSeeOther, c.Request.URL.RequestURI())
}

// releaseThrottle takes back the counts of an attempt whose password was
// never checked (the identity store failed).
func (s *Service) releaseThrottle(ctx context.Context, claims []claim) {
	if err := s.throttle.release(ctx, claims); err != nil {
		s.d.Log.ErrorContext(ctx, "release sign-in attempt", "error", err)
	}
}

func (s *Service) showLogin(c *gin.Context, ar fosite.AuthorizeRequester, app *identity.App, b *browserSession, status int, email, msg string) {
	renderPage(c.Writer, status, "login", ar.GetRedirectURI(), pageData{
		Title: "Sign in to " + app.Name, App: app.Name, Customer: s.customerName(c.Request.Context(), app.Customer),
		Email: email, Error: msg, CSRF: b.CSRF, Action: c.Request.URL.RequestURI(),
	})
}

func (s *Service) customerName(ctx context.Context, id string) string {
	if cust, err := s.d.Identity.CustomerByID(ctx, id); err == nil && cust.Name != "" {
		return cust.Name
	}
	return "your organisation"
}

// clip bounds what an anonymous form can make us store (audit, throttle keys).
func clip(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}
