package oauth

import (
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/gin-gonic/gin"

	"platform/kernel/auth"
	"platform/kernel/tenant"
	"platform/modules/oauth/scopes"
)

// discovery is the RFC 8414 metadata document. The issuer is {auth_url};
// the authorization endpoint lives at {login_url}.
func (s *Service) discovery(c *gin.Context) {
	a, l := s.d.Config.AuthURL, s.d.Config.LoginURL
	authMethods := []string{"client_secret_basic", "client_secret_post", "none"}
	c.Header("Cache-Control", "public, max-age=300")
	c.JSON(http.StatusOK, gin.H{
		"issuer":                                     a,
		"authorization_endpoint":                     l + "/oauth/authorize",
		"token_endpoint":                             a + "/oauth/token",
		"revocation_endpoint":                        a + "/oauth/revoke",
		"userinfo_endpoint":                          a + "/oauth/userinfo",
		"jwks_uri":                                   a + "/oauth/jwks.json",
		"response_types_supported":                   []string{"code"},
		"response_modes_supported":                   []string{"query"},
		"grant_types_supported":                      []string{"authorization_code", "refresh_token", "client_credentials"},
		"code_challenge_methods_supported":           []string{"S256"},
		"token_endpoint_auth_methods_supported":      authMethods,
		"revocation_endpoint_auth_methods_supported": authMethods,
		"scopes_supported":                           append(s.scopeCatalog().Rights(), scopes.Profile, scopes.Email),
		"subject_types_supported":                    []string{"public"},
	})
}

// jwks publishes the public halves of the KeyRing's published keys: the
// one signing, the next one before it signs, and replaced ones until their
// tokens expired. Clients may cache it auth.JWKSMaxAge, which the
// rotation's lead allows for.
func (s *Service) jwks(c *gin.Context) {
	keys, err := s.d.Keys.Published(c.Request.Context())
	if err != nil {
		s.d.Log.ErrorContext(c.Request.Context(), "load signing keys", "error", err)
		c.JSON(http.StatusServiceUnavailable, gin.H{"error": "temporarily_unavailable"})
		return
	}
	out := make([]gin.H, 0, len(keys))
	for _, k := range keys {
		if jwk, err := publicJWK(k); err == nil {
			out = append(out, jwk)
		}
	}
	c.Header("Cache-Control", fmt.Sprintf("public, max-age=%d", int(auth.JWKSMaxAge.Seconds())))
	c.JSON(http.StatusOK, gin.H{"keys": out})
}

func publicJWK(k *auth.Key) (gin.H, error) {
	pub, err := k.Private.PublicKey.ECDH()
	if err != nil {
		return nil, err
	}
	b := pub.Bytes() // 0x04 || X || Y, 32 bytes each for P-256
	if len(b) != 65 {
		return nil, errors.New("unexpected P-256 point length")
	}
	enc := base64.RawURLEncoding.EncodeToString
	return gin.H{"kty": "EC", "crv": "P-256", "x": enc(b[1:33]), "y": enc(b[33:]), "kid": k.ID, "use": "sig", "alg": "ES256"}, nil
}

// userinfo answers for a user's token with the profile or email scope.
func (s *Service) userinfo(c *gin.Context) {
	raw, ok := strings.CutPrefix(c.GetHeader("Authorization"), "Bearer ")
	if !ok {
		bearerError(c, http.StatusUnauthorized, "invalid_request", "send the access token as Authorization: Bearer <token>")
		return
	}
	p, err := s.d.Verifier.Verify(c.Request.Context(), strings.TrimSpace(raw))
	if err != nil {
		bearerError(c, http.StatusUnauthorized, "invalid_token", "the access token is invalid, expired or revoked")
		return
	}
	profile, email := hasScope(p, scopes.Profile), hasScope(p, scopes.Email)
	if p.User == "" || !(profile || email) {
		bearerError(c, http.StatusForbidden, "insufficient_scope", "userinfo needs a user's token with the profile or email scope")
		return
	}
	u, err := s.d.Identity.UserByID(tenant.WithCustomer(c.Request.Context(), p.Customer), p.User)
	if err != nil {
		bearerError(c, http.StatusUnauthorized, "invalid_token", "the token's user no longer exists")
		return
	}
	out := gin.H{"sub": u.ID}
	if profile {
		out["name"] = u.Name
	}
	if email {
		out["email"] = u.Email
	}
	c.Header("Cache-Control", "no-store")
	c.JSON(http.StatusOK, out)
}

func hasScope(p *auth.Principal, s string) bool {
	for _, x := range p.Scopes {
		if x == s {
			return true
		}
	}
	return false
}

// bearerError is RFC 6750's answer.
func bearerError(c *gin.Context, status int, code, desc string) {
	c.Header("WWW-Authenticate", `Bearer error="`+code+`", error_description="`+desc+`"`)
	c.JSON(status, gin.H{"error": code, "error_description": desc})
}
