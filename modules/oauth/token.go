package oauth

import (
	"context"
	"errors"
	"strings"

	"github.com/gin-gonic/gin"
	"github.com/ory/fosite"

	"platform/api"
	"platform/kernel/store"
	"platform/modules/audit/trail"
	"platform/modules/oauth/scopes"
)

// token is the token endpoint: authorization_code (with PKCE),
// refresh_token (rotating) and client_credentials; errors in RFC 6749 form.
func (s *Service) token(c *gin.Context) {
	ctx, n := withNotes(c.Request.Context())
	ar, err := s.provider.NewAccessRequest(ctx, c.Request, &Session{})
	if err == nil {
		err = s.prepareGrant(ctx, ar)
	}
	var resp fosite.AccessResponder
	if err == nil {
		resp, err = s.provider.NewAccessResponse(ctx, ar)
	}
	if err == nil {
		err = s.checkGrant(ctx, ar)
	}
	if err != nil {
		s.provider.WriteAccessError(ctx, c.Writer, ar, s.tokenFailed(ctx, c, ar, n, err))
		return
	}
	s.auditToken(ctx, c, ar)
	// fosite's grant handlers write "bearer"; RFC 6750 and the
	// specification write "Bearer" (clients compare either way).
	resp.SetTokenType("Bearer")
	// fosite counts expires_in from the request's start, truncated (one
	// second short at times); the JWT lives exactly AccessTTL.
	resp.SetExpiresIn(s.opts.AccessTTL)
	s.provider.WriteAccessResponse(ctx, c.Writer, ar, resp)
}

// prepareGrant decides the scope of grants fosite leaves to the server:
// client credentials (the app's scopes ∩ its customer's package) and a
// refresh that asks for a scope (it may narrow, never widen).
func (s *Service) prepareGrant(ctx context.Context, ar fosite.AccessRequester) error {
	switch {
	case ar.GetGrantTypes().ExactOne("client_credentials"):
		return s.grantClientCredentials(ctx, ar)
	case ar.GetGrantTypes().ExactOne("refresh_token"):
		return narrowRefresh(ar)
	}
	return nil
}

func (s *Service) grantClientCredentials(ctx context.Context, ar fosite.AccessRequester) error {
	app := appOf(ar.GetClient())
	sess, _ := ar.GetSession().(*Session)
	if app == nil || sess == nil {
		return fosite.ErrServerError.WithDebug("unexpected client or session type")
	}
	cust, err := s.d.Identity.CustomerByID(ctx, app.Customer)
	if err != nil {
		return fosite.ErrServerError.WithWrap(err)
	}
	sess.Customer, sess.User = app.Customer, ""
	requested := []string(ar.GetRequestedScopes())
	if len(requested) == 0 {
		requested = app.Scopes
	}
	granted := s.scopeCatalog().Grant(requested, app.Scopes, cust.Package, false)
	if len(granted) == 0 {
		return fosite.ErrInvalidScope.WithHint("None of the requested scopes is a right the app and its customer's package allow.")
	}
	for _, sc := range granted {
		ar.GrantScope(sc)
	}
	return nil
}

func narrowRefresh(ar fosite.AccessRequester) error {
	raw := ar.GetRequestForm().Get("scope")
	if raw == "" {
		return nil
	}
	want := strings.Fields(raw)
	if !scopes.Within(want, ar.GetGrantedScopes()) {
		return fosite.ErrInvalidScope.WithHint("A refresh may narrow the granted scope, never widen it.")
	}
	req, ok := ar.(*fosite.AccessRequest)
	if !ok {
		return fosite.ErrServerError.WithDebug("unexpected access request type")
	}
	var keep fosite.Arguments
	for _, g := range req.GrantedScope {
		if scopes.Within([]string{g}, want) {
			keep = append(keep, g)
		}
	}
	req.GrantedScope = keep
	return nil
}

// checkGrant refuses tokens issued while their grant was being ended: a
// family revoked meanwhile (a parallel reuse of the same code or refresh
// token), or an app deleted meanwhile (RevokeClient ran before these
// tokens were stored). The tokens are stored by now, so they are revoked.
func (s *Service) checkGrant(ctx context.Context, ar fosite.AccessRequester) error {
	refusal, err := s.grantEnded(ctx, ar)
	if err != nil {
		return fosite.ErrServerError.WithWrap(err)
	}
	if refusal == nil {
		return nil
	}
	if err := s.storage.RevokeFamily(ctx, ar.GetID()); err != nil {
		return fosite.ErrServerError.WithWrap(err)
	}
	return refusal
}

// grantEnded says why the tokens just issued must not be handed out; nil
// when they may.
func (s *Service) grantEnded(ctx context.Context, ar fosite.AccessRequester) (*fosite.RFC6749Error, error) {
	_, err := s.d.Identity.AppByClientID(ctx, ar.GetClient().GetID())
	if errors.Is(err, store.ErrNotFound) {
		return fosite.ErrInvalidClient.WithHint("The app was deleted."), nil
	} else if err != nil {
		return nil, err
	}
	if ar.GetGrantTypes().ExactOne("client_credentials") {
		return nil, nil
	}
	revoked, err := s.storage.familyRevoked(ctx, ar.GetID())
	if err != nil || !revoked {
		return nil, err
	}
	return fosite.ErrInvalidGrant.WithHint("The grant was revoked because its code or refresh token was used twice."), nil
}

// tokenFailed audits reuse and maps the compare-and-set losses to
// invalid_grant (fosite would call any storage error a server error).
func (s *Service) tokenFailed(ctx context.Context, c *gin.Context, ar fosite.AccessRequester, n *notes, err error) error {
	switch {
	case errors.Is(err, errCodeRace):
		err = fosite.ErrInvalidGrant.WithHint("The authorization code has already been used.")
	case errors.Is(err, errRefreshRace):
		err = fosite.ErrInvalidGrant.WithHint("The refresh token was already used.")
	}
	if n.reuse == "code" {
		s.audit(ctx, trail.Record{Customer: n.customer, Action: "oauth.code_reuse", Actor: n.clientID, ActorType: "app",
			Target: n.family, Outcome: trail.Failure, ClientAddress: api.ClientAddress(c.Request),
			Details: map[string]any{"effect": "every token issued from the code was revoked"}})
	}
	if ar != nil && ar.GetGrantTypes().ExactOne("refresh_token") && errors.Is(err, fosite.ErrInvalidGrant) && isReuse(err) {
		s.auditRefreshReuse(ctx, c, ar)
	}
	return err
}

func isReuse(err error) bool {
	return errors.Is(err, fosite.ErrInactiveToken) || strings.Contains(fosite.ErrorToRFC6749Error(err).HintField, "already used")
}

func (s *Service) auditRefreshReuse(ctx context.Context, c *gin.Context, ar fosite.AccessRequester) {
	rec := trail.Record{Action: "oauth.refresh_reuse", ActorType: "app", Outcome: trail.Failure, ClientAddress: api.ClientAddress(c.Request),
		Details: map[string]any{"effect": "every token of the family was revoked"}}
	sig := s.refreshSignature(ctx, ar.GetRequestForm().Get("refresh_token"))
	if prior, err := s.storage.GetRefreshTokenSession(ctx, sig, nil); prior != nil {
		rec.Target = prior.GetID()
		rec.Actor = prior.GetClient().GetID()
		if sess, ok := prior.GetSession().(*Session); ok {
			rec.Customer = sess.Customer
		}
	} else if err != nil {
		return
	}
	s.audit(ctx, rec)
}

func (s *Service) auditToken(ctx context.Context, c *gin.Context, ar fosite.AccessRequester) {
	sess, _ := ar.GetSession().(*Session)
	if sess == nil {
		return
	}
	rec := trail.Record{Customer: sess.Customer, Action: "oauth.token", Actor: sess.User, ActorType: "user",
		Target: ar.GetClient().GetID(), Outcome: trail.Success, ClientAddress: api.ClientAddress(c.Request),
		Details: map[string]any{"grant_type": strings.Join(ar.GetGrantTypes(), " "), "scope": strings.Join(ar.GetGrantedScopes(), " "), "family": ar.GetID()}}
	if sess.User == "" {
		rec.Actor, rec.ActorType = ar.GetClient().GetID(), "app"
	}
	s.audit(ctx, rec)
}

// revoke is RFC 7009: an access or refresh token (and with it its whole
// family) stops working at once; unknown tokens answer 200 as well.
func (s *Service) revoke(c *gin.Context) {
	ctx, n := withNotes(c.Request.Context())
	err := s.provider.NewRevocationRequest(ctx, c.Request)
	clientID := c.Request.PostForm.Get("client_id")
	if id, _, ok := c.Request.BasicAuth(); ok {
		clientID = id
	}
	if app, aerr := s.d.Identity.AppByClientID(ctx, clientID); aerr == nil {
		rec := trail.Record{Customer: app.Customer, Action: "oauth.revoke", Actor: clientID, ActorType: "app",
			Target: strings.Join(n.revoked, " "), Outcome: trail.Success, ClientAddress: api.ClientAddress(c.Request),
			Details: map[string]any{"token_type_hint": c.Request.PostForm.Get("token_type_hint")}}
		if err != nil {
			rec.Outcome, rec.Details["error"] = trail.Failure, fosite.ErrorToRFC6749Error(err).ErrorField
		}
		s.audit(ctx, rec)
	}
	s.provider.WriteRevocationResponse(ctx, c.Writer, err)
}
