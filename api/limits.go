package api

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/gin-gonic/gin"

	"platform/kernel/auth"
	"platform/kernel/resource"
	"platform/kernel/tenant"
)

// keyIdentity holds what limit learnt of the caller's bearer token, so
// authenticate neither verifies it twice nor differs from what was counted.
const keyIdentity = "platform.identity"

// identity is the outcome of verifying a request's bearer token: a
// principal, an error, or neither when no token was sent.
type identity struct {
	principal *auth.Principal
	err       error
	sent      bool
}

// limit counts the request before anything else answers it, so that 401s,
// unmatched paths, OpenAPI documents and public routes carry the limit
// too: a valid token counts against its own share and its customer's
// budget, every other call against its client address.
func (s *Server) limit(c *gin.Context) {
	id := s.identify(c)
	d, err := s.take(c.Request.Context(), id.principal, ClientAddress(c.Request))
	if err != nil {
		s.renderError(c, NewError(http.StatusServiceUnavailable, resource.CodeUnavailable, "", "rate limiter unavailable").WithCause(err))
		c.Abort()
		return
	}
	reportLimit(c, d)
	if !d.Allowed {
		s.renderError(c, tooManyRequests(d))
		c.Abort()
		return
	}
	c.Next()
}

// identify verifies the bearer token, if any, once per request, and puts a
// valid one's principal and customer into the request's ctx.
func (s *Server) identify(c *gin.Context) identity {
	if v, ok := c.Get(keyIdentity); ok {
		return v.(identity)
	}
	id := identity{}
	if raw, ok := bearer(c.GetHeader("Authorization")); ok {
		id.sent = true
		id.principal, id.err = s.verify.Verify(c.Request.Context(), raw)
		if id.err != nil {
			id.principal = nil
		}
	}
	if p := id.principal; p != nil {
		c.Request = c.Request.WithContext(tenant.WithCustomer(auth.WithPrincipal(c.Request.Context(), p), p.Customer))
	}
	c.Set(keyIdentity, id)
	return id
}

// take counts one request of p, or of the anonymous caller at addr.
func (s *Server) take(ctx context.Context, p *auth.Principal, addr string) (LimitInfo, error) {
	if p == nil {
		return s.anonLimiter.Take(ctx, "addr:"+addr)
	}
	if s.tokenLimiter == nil {
		return s.limiter.Take(ctx, p.Customer)
	}
	// The token's share first: a token past it is refused without using
	// up the customer's budget, which its other apps still need.
	tok, err := s.tokenLimiter.Take(ctx, tokenKey(p))
	if err != nil || !tok.Allowed {
		return tok, err
	}
	cust, err := s.limiter.Take(ctx, p.Customer)
	if err != nil {
		return cust, err
	}
	return tighter(tok, cust), nil
}

// tokenKey names a token's bucket: its id (jti), or the app that holds it
// for a token without one.
func tokenKey(p *auth.Principal) string {
	if p.TokenID != "" {
		return "token:" + p.TokenID
	}
	return "app:" + p.Customer + ":" + p.ClientID
}

// tighter is the decision a client must heed of two: a refusal, else the
// one with fewer requests left.
func tighter(a, b LimitInfo) LimitInfo {
	switch {
	case !a.Allowed:
		return a
	case !b.Allowed:
		return b
	case b.Remaining < a.Remaining:
		return b
	}
	return a
}

// reportLimit puts d into the X-RateLimit headers and meta.rateLimit; a
// later report (a public route's own limit) replaces an earlier one.
func reportLimit(c *gin.Context, d LimitInfo) {
	resetIn := secondsUntil(d.Reset)
	rl := &RateLimit{
		Limit: strconv.Itoa(d.Limit), Remaining: strconv.Itoa(d.Remaining),
		Reset: strconv.Itoa(resetIn), ResetDate: d.Reset.UTC().Format(time.RFC3339),
	}
	c.Set(keyRateLimit, rl)
	c.Header("X-RateLimit-Limit", rl.Limit)
	c.Header("X-RateLimit-Remaining", rl.Remaining)
	c.Header("X-RateLimit-Reset", rl.Reset)
}

// tooManyRequests is the 429 of a refused decision.
func tooManyRequests(d LimitInfo) *Error {
	resetIn := secondsUntil(d.Reset)
	e := NewError(http.StatusTooManyRequests, CodeRateLimit, "", "rate limit of %d requests per window exceeded; retry in %d s", d.Limit, resetIn)
	e.Header = http.Header{"Retry-After": {strconv.Itoa(max(resetIn, 1))}}
	return e
}

// secondsUntil rounds up, so a client that waits that long is in the next window.
func secondsUntil(t time.Time) int {
	return max(int(time.Until(t).Seconds()+0.999), 0)
}

// authenticate answers 401 (or 503 when tokens cannot be verified) unless
// limit found a valid bearer token.
func (s *Server) authenticate(c *gin.Context) {
	id := s.identify(c)
	switch {
	case id.principal != nil:
		c.Next()
		return
	case !id.sent:
		s.renderError(c, Unauthorized("send an access token as Authorization: Bearer <token>"))
	case errors.Is(id.err, auth.ErrInvalidToken):
		s.renderError(c, Unauthorized("the access token is invalid, expired or revoked").WithCause(id.err))
	default:
		s.renderError(c, NewError(http.StatusServiceUnavailable, resource.CodeUnavailable, "", "token verification is unavailable").WithCause(id.err))
	}
	c.Abort()
}
