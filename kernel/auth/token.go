package auth

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"platform/kernel/store"
)

// Claims are the RFC 9068 access-token claims plus the customer.
type Claims struct {
	jwt.RegisteredClaims
	ClientID string `json:"client_id,omitempty"`
	Scope    string `json:"scope"`
	Customer string `json:"customer"`
	User     string `json:"uid,omitempty"`
}

// MaxTokenTTL is the longest lifetime Mint signs: a signing key taken out
// of use stays published this long, until every token it signed expired.
const MaxTokenTTL = 24 * time.Hour

// Minter issues access tokens.
type Minter struct {
	Keys     *KeyRing
	Issuer   string
	Audience string
}

// MintInput describes one access token.
type MintInput struct {
	Customer string
	User     string // empty for a customer-level service token
	ClientID string
	Scopes   []string
	TTL      time.Duration
}

// Mint signs an access token (typ at+jwt, ES256).
func (m *Minter) Mint(ctx context.Context, in MintInput) (string, *Claims, error) {
	key, err := m.Keys.Active(ctx)
	if err != nil {
		return "", nil, err
	}
	if in.TTL <= 0 {
		in.TTL = time.Hour
	}
	if in.TTL > MaxTokenTTL {
		return "", nil, fmt.Errorf("access token lifetime %s is longer than %s: its signing key could retire first", in.TTL, MaxTokenTTL)
	}
	now := time.Now()
	sub := in.User
	if sub == "" {
		sub = in.ClientID
	}
	if sub == "" {
		sub = "customer:" + in.Customer
	}
	c := &Claims{
		RegisteredClaims: jwt.RegisteredClaims{
			Issuer:    m.Issuer,
			Subject:   sub,
			Audience:  jwt.ClaimStrings{m.Audience},
			ExpiresAt: jwt.NewNumericDate(now.Add(in.TTL)),
			IssuedAt:  jwt.NewNumericDate(now),
			NotBefore: jwt.NewNumericDate(now.Add(-5 * time.Second)),
			ID:        store.NewID(),
		},
		ClientID: in.ClientID,
		Scope:    strings.Join(in.Scopes, " "),
		Customer: in.Customer,
		User:     in.User,
	}
	t := jwt.NewWithClaims(jwt.SigningMethodES256, c)
	t.Header["typ"] = "at+jwt"
	t.Header["kid"] = key.ID
	s, err := t.SignedString(key.Private)
	return s, c, err
}

// RevocationList answers whether a token id was revoked (the OAuth service
// keeps it; nil means no token is ever revoked).
type RevocationList interface {
	Revoked(ctx context.Context, tokenID string) (bool, error)
}

// Verifier checks access tokens.
type Verifier struct {
	Keys     *KeyRing
	Issuer   string
	Audience string
	Revoked  RevocationList
	// APIKeys checks bearer credentials that start with APIKeyPrefix; nil
	// refuses them all.
	APIKeys APIKeys

	// verified remembers tokens whose signature and claims were checked, so
	// a client's repeated calls cost one ECDSA verification (measured: half
	// of the API's CPU per request) instead of one each. Revocation is still
	// asked on every call.
	verified verifiedCache
}

// leeway is the clock difference between replicas a token's times may
// show (exp, nbf).
const leeway = 5 * time.Second

// ErrInvalidToken is returned for every token that must not be accepted; the
// reason stays in the wrapped message for logs.
var ErrInvalidToken = errors.New("invalid access token")

// Verify parses and checks a bearer token and returns its principal.
// An API key (APIKeyPrefix) takes the same path: the same 401 when it is
// refused, the same kind of principal when it is accepted.
func (v *Verifier) Verify(ctx context.Context, raw string) (*Principal, error) {
	if IsAPIKey(raw) {
		if v.APIKeys == nil {
			return nil, fmt.Errorf("%w: API keys are not accepted by this process", ErrInvalidToken)
		}
		return v.APIKeys.VerifyAPIKey(ctx, raw)
	}
	p, ok := v.verified.get(raw)
	if !ok {
		var exp time.Time
		var err error
		if p, exp, err = v.verifySignature(ctx, raw); err != nil {
			return nil, err
		}
		v.verified.put(raw, p, exp)
	}
	if v.Revoked != nil {
		revoked, err := v.Revoked.Revoked(ctx, p.TokenID)
		if err != nil {
			return nil, err
		}
		if revoked {
			return nil, fmt.Errorf("%w: revoked", ErrInvalidToken)
		}
	}
	cp := *p // callers may not change the cached principal
	cp.Scopes = append([]string(nil), p.Scopes...)
	return &cp, nil
}

// verifySignature parses raw and checks its signature and claims.
func (v *Verifier) verifySignature(ctx context.Context, raw string) (*Principal, time.Time, error) {
	c := &Claims{}
	_, err := jwt.ParseWithClaims(raw, c, func(t *jwt.Token) (any, error) {
		if typ, _ := t.Header["typ"].(string); !strings.EqualFold(typ, "at+jwt") {
			return nil, errors.New("typ is not at+jwt")
		}
		kid, _ := t.Header["kid"].(string)
		key, err := v.Keys.Lookup(ctx, kid)
		if err != nil {
			return nil, err
		}
		return &key.Private.PublicKey, nil
	}, jwt.WithValidMethods([]string{"ES256"}), jwt.WithIssuer(v.Issuer), jwt.WithAudience(v.Audience),
		jwt.WithExpirationRequired(), jwt.WithLeeway(leeway))
	if err != nil {
		return nil, time.Time{}, fmt.Errorf("%w: %v", ErrInvalidToken, err)
	}
	if c.Customer == "" {
		return nil, time.Time{}, fmt.Errorf("%w: no customer claim", ErrInvalidToken)
	}
	return &Principal{
		Customer: c.Customer, Subject: c.Subject, User: c.User, ClientID: c.ClientID,
		Scopes: strings.Fields(c.Scope), TokenID: c.ID,
	}, c.ExpiresAt.Time, nil
}
