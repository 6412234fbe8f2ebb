package oauth

import (
	"context"
	"net/http"
	"strconv"
	"strings"

	"github.com/gin-gonic/gin"
	"github.com/ory/fosite"

	"platform/api"
	"platform/kernel/auth"
	"platform/kernel/tenant"
	"platform/modules/audit/trail"
	"platform/modules/identity"
	"platform/modules/oauth/scopes"
)

// grant is what consent would freeze: requested ∩ the user's rights ∩ the
// customer's package, wildcards expanded against the real rights.
type grant struct {
	user     *identity.User
	scopes   []string
	withheld []string // requested patterns that yield nothing
}

func (s *Service) consentGrant(ctx context.Context, ar fosite.AuthorizeRequester, app *identity.App, userID string) (*grant, error) {
	tctx := tenant.WithCustomer(ctx, app.Customer)
	u, err := s.d.Identity.UserByID(tctx, userID)
	if err != nil {
		return nil, err
	}
	rights, err := s.d.Identity.EffectiveRights(tctx, u)
	if err != nil {
		return nil, err
	}
	cust, err := s.d.Identity.CustomerByID(ctx, app.Customer)
	if err != nil {
		return nil, err
	}
	requested := []string(ar.GetRequestedScopes())
	if len(requested) == 0 { // RFC 6749 §3.3: the registered scopes are the default
		requested = app.Scopes
	}
	g := &grant{user: u, scopes: s.scopeCatalog().Grant(requested, rights, cust.Package, true)}
	for _, r := range requested {
		if !scopes.IsStandard(r) && !coversAny(r, g.scopes) {
			g.withheld = append(g.withheld, r)
		}
	}
	return g, nil
}

func coversAny(pattern string, rights []string) bool {
	for _, r := range rights {
		if auth.ScopeCovers(pattern, r) {
			return true
		}
	}
	return false
}

func (s *Service) showConsent(c *gin.Context, ar fosite.AuthorizeRequester, app *identity.App, b *browserSession) {
	ctx := c.Request.Context()
	g, err := s.consentGrant(ctx, ar, app, b.User)
	if err != nil {
		s.unavailable(c, err)
		return
	}
	renderPage(c.Writer, http.StatusOK, "consent", ar.GetRedirectURI(), pageData{
		Title: app.Name + " wants to use your account", App: app.Name, Customer: s.customerName(ctx, app.Customer),
		Email: g.user.Email, CSRF: b.CSRF, Action: c.Request.URL.RequestURI(),
		Groups: s.scopeCatalog().Describe(g.scopes), Withheld: strings.Join(g.withheld, ", "),
	})
}

// approve freezes the grant as it is now and redirects to the app with the
// code and its state.
func (s *Service) approve(c *gin.Context, ar fosite.AuthorizeRequester, app *identity.App, b *browserSession) {
	ctx := c.Request.Context()
	g, err := s.consentGrant(ctx, ar, app, b.User)
	if err != nil {
		s.unavailable(c, err)
		return
	}
	if len(g.scopes) == 0 {
		s.provider.WriteAuthorizeError(ctx, c.Writer, ar, fosite.ErrInvalidScope.WithHint("Nothing the app asked for can be granted by this account."))
		return
	}
	for _, sc := range g.scopes {
		ar.GrantScope(sc)
	}
	resp, err := s.provider.NewAuthorizeResponse(ctx, ar, &Session{Customer: app.Customer, User: b.User, AuthTime: b.AuthTime})
	if err != nil {
		s.provider.WriteAuthorizeError(ctx, c.Writer, ar, err)
		return
	}
	s.audit(ctx, trail.Record{Customer: app.Customer, Action: "oauth.consent", Actor: b.User, ActorType: "user",
		Target: app.ClientID, Outcome: trail.Success, ClientAddress: api.ClientAddress(c.Request),
		Details: map[string]any{"scope": strings.Join(g.scopes, " ")}})
	s.provider.WriteAuthorizeResponse(ctx, c.Writer, ar, resp)
}

// deny answers the app with error=access_denied (and its state).
func (s *Service) deny(c *gin.Context, ar fosite.AuthorizeRequester, app *identity.App, b *browserSession) {
	ctx := c.Request.Context()
	s.audit(ctx, trail.Record{Customer: app.Customer, Action: "oauth.consent", Actor: b.User, ActorType: "user",
		Target: app.ClientID, Outcome: trail.Failure, ClientAddress: api.ClientAddress(c.Request),
		Details: map[string]any{"reason": "denied by the user"}})
	s.provider.WriteAuthorizeError(ctx, c.Writer, ar, fosite.ErrAccessDenied.WithHint("The user denied the request."))
}

func itoa(n int) string { return strconv.Itoa(n) }

func seconds(n int) string {
	if n == 1 {
		return "a second"
	}
	return strconv.Itoa(n) + " seconds"
}
