package oauth

import (
	"context"
	"crypto/subtle"
	"errors"

	"github.com/ory/fosite"

	"platform/kernel/auth"
	"platform/modules/identity"
	"platform/modules/oauth/scopes"
)

// client adapts a developer app to fosite.
type client struct{ app *identity.App }

var _ fosite.Client = client{}

func (c client) GetID() string             { return c.app.ClientID }
func (c client) GetHashedSecret() []byte   { return []byte(c.app.SecretHash) }
func (c client) GetRedirectURIs() []string { return c.app.RedirectURIs }
func (c client) GetResponseTypes() fosite.Arguments {
	return fosite.Arguments{"code"}
}
func (c client) GetScopes() fosite.Arguments   { return c.app.Scopes }
func (c client) IsPublic() bool                { return c.app.Public }
func (c client) GetAudience() fosite.Arguments { return nil }

// GetGrantTypes: only confidential apps act for their customer alone.
func (c client) GetGrantTypes() fosite.Arguments {
	if c.app.Public {
		return fosite.Arguments{"authorization_code", "refresh_token"}
	}
	return fosite.Arguments{"authorization_code", "refresh_token", "client_credentials"}
}

func appOf(c fosite.Client) *identity.App {
	if cl, ok := c.(client); ok {
		return cl.app
	}
	return nil
}

// secretHasher checks client secrets against identity's SHA-256 hashes
// (secrets are 256 random bits, so a slow hash adds nothing).
type secretHasher struct{}

var errSecretMismatch = errors.New("client secret does not match")

func (secretHasher) Compare(_ context.Context, hash, data []byte) error {
	if len(hash) == 0 || subtle.ConstantTimeCompare(hash, []byte(identity.HashSecret(string(data)))) != 1 {
		return errSecretMismatch
	}
	return nil
}

func (secretHasher) Hash(_ context.Context, data []byte) ([]byte, error) {
	return []byte(identity.HashSecret(string(data))), nil
}

// scopeStrategy: a requested scope is allowed when one of the app's scopes
// covers it (crm.* covers crm.consumers.view and crm.consumers.*); the
// standard scopes only match themselves.
func scopeStrategy(haystack []string, needle string) bool {
	for _, h := range haystack {
		if h == needle {
			return true
		}
		if !scopes.IsStandard(h) && !scopes.IsStandard(needle) && auth.ScopeCovers(h, needle) {
			return true
		}
	}
	return false
}
