// Package oauth is the sign-in and token service for third-party apps,
// built on ory/fosite: the authorization code flow with mandatory S256
// PKCE, refresh-token rotation with reuse detection, client credentials,
// revocation (RFC 7009), discovery (RFC 8414), userinfo and the JWKS of the
// access-token keys. Access tokens are the platform's RFC 9068 JWTs from
// auth.Minter, so the API verifies them on its one path (auth.Verifier,
// with RevocationList). All state is in the store: any replica can serve
// any step.
package oauth

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"platform/kernel/resource"

	"github.com/gin-gonic/gin"
	"github.com/ory/fosite"
	"github.com/ory/fosite/compose"

	"platform/kernel/auth"
	"platform/kernel/settings"
	"platform/kernel/store"
	"platform/modules/audit/trail"
	"platform/modules/identity"
	"platform/modules/oauth/scopes"
)

// Options are the service's lifetimes and limits.
type Options struct {
	AccessTTL  time.Duration // default 1 h
	RefreshTTL time.Duration // default 30 days
	CodeTTL    time.Duration // default 1 min: codes are redeemed right after the redirect
	SessionTTL time.Duration // sign-in screen session; default 30 min
	// Sign-in throttle (see Throttle); defaults: 3 failures per account
	// and address and 20 per address without delay, then waits doubling
	// from 1 s up to 60 s, forgotten 15 min after the last failure.
	FreePair, FreeAddress int64
	MaxDelay, Forget      time.Duration
	// SweepAlso are other global collections with expiresAt the sweep
	// keeps bounded (Sweeper.Also).
	SweepAlso []string
}

func (o *Options) defaults() {
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&o.AccessTTL, time.Hour)
	def(&o.RefreshTTL, 30*24*time.Hour)
	def(&o.CodeTTL, time.Minute)
	def(&o.SessionTTL, 30*time.Minute)
	def(&o.MaxDelay, time.Minute)
	def(&o.Forget, 15*time.Minute)
	if o.FreePair <= 0 {
		o.FreePair = 3
	}
	if o.FreeAddress <= 0 {
		o.FreeAddress = 20
	}
}

// Deps are what the service is built from (the composition root has them).
type Deps struct {
	Config   *settings.Config
	Store    store.Store
	Identity *identity.Service
	Minter   *auth.Minter
	Verifier *auth.Verifier
	Keys     *auth.KeyRing
	Registry *resource.Registry // read after every module is mounted
	Audit    trail.Writer
	Revoked  *RevocationList
	Log      *slog.Logger
}

// Service serves the OAuth endpoints.
type Service struct {
	d        Deps
	opts     Options
	storage  *Storage
	strategy *strategy
	provider fosite.OAuth2Provider
	sessions *sessions
	throttle *Throttle
	sweeper  *Sweeper

	catalogOnce sync.Once
	catalog     *scopes.Catalog
}

// New builds the service: the shared HMAC key, fosite with the store-backed
// storage and the JWT access-token strategy, and the indexes.
func New(ctx context.Context, d Deps, o Options) (*Service, error) {
	o.defaults()
	secret, err := loadHMACSecret(ctx, d.Store)
	if err != nil {
		return nil, fmt.Errorf("oauth secret: %w", err)
	}
	st := &Storage{Store: d.Store, Identity: d.Identity, Revoked: d.Revoked}
	if err := st.EnsureIndexes(ctx); err != nil {
		return nil, err
	}
	sw := &Sweeper{Store: d.Store, RefreshTTL: o.RefreshTTL, Forget: max(o.Forget, o.MaxDelay), Also: o.SweepAlso}
	if err := sw.EnsureIndexes(ctx); err != nil {
		return nil, err
	}
	fc := &fosite.Config{
		AccessTokenLifespan: o.AccessTTL, RefreshTokenLifespan: o.RefreshTTL, AuthorizeCodeLifespan: o.CodeTTL,
		GlobalSecret: secret, EnforcePKCE: true, EnablePKCEPlainChallengeMethod: false,
		ScopeStrategy: scopeStrategy, RefreshTokenScopes: []string{}, OmitRedirectScopeParam: true,
		ClientSecretsHasher: secretHasher{}, AccessTokenIssuer: d.Config.AuthURL, TokenURL: d.Config.AuthURL + "/oauth/token",
		MinParameterEntropy: 8,
	}
	hmacStrategy := compose.NewOAuth2HMACStrategy(fc)
	strat := &strategy{
		accessStrategy:        &accessStrategy{minter: d.Minter, verifier: d.Verifier, lifespan: o.AccessTTL},
		RefreshTokenStrategy:  hmacStrategy,
		AuthorizeCodeStrategy: hmacStrategy,
	}
	provider := compose.Compose(fc, st, strat,
		compose.OAuth2AuthorizeExplicitFactory, compose.OAuth2RefreshTokenGrantFactory,
		compose.OAuth2ClientCredentialsGrantFactory, compose.OAuth2TokenRevocationFactory, compose.OAuth2PKCEFactory)
	return &Service{
		d: d, opts: o, storage: st, strategy: strat, provider: provider, sweeper: sw,
		sessions: &sessions{store: d.Store, ttl: o.SessionTTL, secure: strings.HasPrefix(d.Config.LoginURL, "https://")},
		throttle: &Throttle{Store: d.Store, FreePair: o.FreePair, FreeAddress: o.FreeAddress, MaxDelay: o.MaxDelay, Forget: o.Forget},
	}, nil
}

// Storage exposes the store-backed fosite storage (tests, admin tools).
func (s *Service) Storage() *Storage { return s.storage }

// Sweeper removes what expired from the service's collections, with the
// service's lifetimes (the maintenance schedule runs it).
func (s *Service) Sweeper() *Sweeper { return s.sweeper }

// RevokeClient ends every token of an app that is being deleted, after its
// client id was unregistered (module developer calls it).
func (s *Service) RevokeClient(ctx context.Context, clientID string) error {
	return s.storage.RevokeClient(ctx, clientID)
}

// Routes adds the endpoints at the gateway root (DESIGN §1).
func (s *Service) Routes(e *gin.Engine) {
	e.GET("/.well-known/oauth-authorization-server", s.discovery)
	e.GET("/oauth/authorize", s.authorize)
	e.POST("/oauth/authorize", s.authorizePost)
	e.POST("/oauth/token", s.token)
	e.POST("/oauth/revoke", s.revoke)
	e.GET("/oauth/userinfo", s.userinfo)
	e.POST("/oauth/userinfo", s.userinfo)
	e.GET("/oauth/jwks.json", s.jwks)
}

// scopeCatalog is built on first use: modules are mounted after New.
func (s *Service) scopeCatalog() *scopes.Catalog {
	s.catalogOnce.Do(func() { s.catalog = scopes.NewCatalog(s.d.Registry) })
	return s.catalog
}

func (s *Service) refreshSignature(ctx context.Context, token string) string {
	return s.strategy.RefreshTokenSignature(ctx, token)
}

func (s *Service) audit(ctx context.Context, r trail.Record) {
	if s.d.Audit != nil {
		trail.Logged(ctx, s.d.Audit, s.d.Log, r)
	}
}
