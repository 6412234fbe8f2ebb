// Package families describes the token families the OAuth service issued
// to apps, for listing without their token values (module config serves
// /oauthtokens from it). A family is every access and refresh token
// rotated from one grant (fosite's request id): revoking it ends them all.
package families

import (
	"context"
	"errors"
	"time"
)

// ErrNotFound: no family of that id for the customer.
var ErrNotFound = errors.New("oauth token family not found")

// Family is one grant's tokens, without any token value or signature.
type Family struct {
	ID            string     `json:"_id"`
	ClientID      string     `json:"clientId"`
	User          string     `json:"user,omitempty"` // empty for client credentials
	Scopes        []string   `json:"scopes"`
	IssuedAt      time.Time  `json:"issuedAt"`     // the grant
	LastIssuedAt  time.Time  `json:"lastIssuedAt"` // the latest token of the family
	ExpiresAt     time.Time  `json:"expiresAt"`    // the latest expiry of its tokens
	AccessTokens  int        `json:"accessTokens"`
	RefreshTokens int        `json:"refreshTokens"`
	Active        bool       `json:"active"` // a token of it still works
	RevokedAt     *time.Time `json:"revokedAt,omitempty"`
}

// Filter narrows a list; empty fields match everything.
type Filter struct {
	ClientID string
	User     string
	Active   *bool
}

// Source lists and revokes the families of a customer.
type Source interface {
	Families(ctx context.Context, customer string, f Filter) ([]Family, error)
	Family(ctx context.Context, customer, id string) (*Family, error)
	// RevokeFamily ends every token of the family (the API refuses its
	// access tokens at their next request).
	RevokeFamily(ctx context.Context, customer, id string) (*Family, error)
}
