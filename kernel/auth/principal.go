// Package auth verifies the platform's JWT access tokens and answers whether
// a caller holds a right. There is one verification path: tokens minted by
// `platform token` and tokens issued by the OAuth service are the same kind
// of RFC 9068 JWT, checked here.
package auth

import "context"

// Principal is the authenticated caller of a request.
type Principal struct {
	Customer string   // customer (tenant) id
	Subject  string   // user id, or the client id for service tokens
	User     string   // user id; empty for customer-level service tokens
	ClientID string   // OAuth client that obtained the token
	Scopes   []string // granted rights, possibly with wildcards
	TokenID  string   // jti, for revocation
	// APIKey is the id of the API key the caller authenticated with (User
	// is then the key's creator); empty for access tokens.
	APIKey string
}

// Allows reports whether the principal's scopes grant right
// (<module>.<entity>.<verb>); "crm.consumers.*" and "crm.*" are wildcards,
// which never cover an admin-only right (ScopeCovers).
func (p *Principal) Allows(right string) bool {
	if p == nil || right == "" {
		return false
	}
	for _, s := range p.Scopes {
		if ScopeCovers(s, right) {
			return true
		}
	}
	return false
}

// ScopeCovers reports whether one granted scope covers right. A wildcard
// covers every right of its shape except the admin-only ones
// (DeclareAdminOnly), which only the exact scope covers.
func ScopeCovers(scope, right string) bool {
	if scope == right {
		return true
	}
	return !IsAdminOnly(right) && PatternMatches(scope, right)
}

type principalKey struct{}

// WithPrincipal stores p in ctx.
func WithPrincipal(ctx context.Context, p *Principal) context.Context {
	return context.WithValue(ctx, principalKey{}, p)
}

// From returns the principal of ctx, or nil.
func From(ctx context.Context) *Principal {
	p, _ := ctx.Value(principalKey{}).(*Principal)
	return p
}
