package oauth

import (
	"context"
	"errors"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/ory/fosite"
	"github.com/ory/fosite/handler/oauth2"

	"platform/kernel/auth"
)

// strategy issues access tokens as the platform's RFC 9068 JWTs (the same
// auth.Minter as `platform token`, verified by the API's one auth.Verifier)
// and codes and refresh tokens as fosite's opaque HMAC tokens.
type strategy struct {
	*accessStrategy
	oauth2.RefreshTokenStrategy
	oauth2.AuthorizeCodeStrategy
}

type accessStrategy struct {
	minter   *auth.Minter
	verifier *auth.Verifier
	lifespan time.Duration
	// issuing, when set, runs before each token is minted: tests make
	// something happen while a token request is under way.
	issuing func()
}

var _ oauth2.AccessTokenStrategy = (*accessStrategy)(nil)

// AccessTokenSignature is the token's jti: access-token records are keyed
// by it, which is also what the revocation list is asked about.
func (s *accessStrategy) AccessTokenSignature(_ context.Context, token string) string {
	c := &auth.Claims{}
	if _, _, err := jwt.NewParser().ParseUnverified(token, c); err != nil {
		return ""
	}
	return c.ID
}

// GenerateAccessToken mints the JWT with the grant's frozen scopes. It
// lives exactly the configured lifespan (the token answer's expires_in),
// and the session takes the JWT's expiry, so the stored record (revocation
// cache, sweep) says when the token really stops working.
func (s *accessStrategy) GenerateAccessToken(ctx context.Context, r fosite.Requester) (string, string, error) {
	sess, ok := r.GetSession().(*Session)
	if !ok || sess.Customer == "" {
		return "", "", errors.New("oauth: request without a customer session")
	}
	if s.issuing != nil {
		s.issuing()
	}
	tok, claims, err := s.minter.Mint(ctx, auth.MintInput{
		Customer: sess.Customer, User: sess.User, ClientID: r.GetClient().GetID(), Scopes: r.GetGrantedScopes(), TTL: s.lifespan,
	})
	if err != nil {
		return "", "", err
	}
	sess.SetExpiresAt(fosite.AccessToken, claims.ExpiresAt.Time.UTC())
	return tok, claims.ID, nil
}

// ValidateAccessToken checks the token the way the API does. An API key
// (which the API's verifier also accepts) is no OAuth access token.
func (s *accessStrategy) ValidateAccessToken(ctx context.Context, _ fosite.Requester, token string) error {
	if auth.IsAPIKey(token) {
		return fosite.ErrInactiveToken.WithHint("API keys are revoked at /config/apikeys, not here")
	}
	if _, err := s.verifier.Verify(ctx, token); err != nil {
		return fosite.ErrInactiveToken.WithWrap(err)
	}
	return nil
}
