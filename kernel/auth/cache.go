package auth

import (
	"sync"
	"time"
)

// verifiedCache maps raw tokens to their checked principal until the token
// expires (at most cacheTTL, so a signing key withdrawn from the ring stops
// being honoured soon). It is bounded: when full it starts over.
type verifiedCache struct {
	mu      sync.RWMutex
	entries map[string]cachedPrincipal
}

type cachedPrincipal struct {
	p     *Principal
	until time.Time
}

const (
	cacheTTL  = 5 * time.Minute
	cacheSize = 10000
)

func (c *verifiedCache) get(raw string) (*Principal, bool) {
	c.mu.RLock()
	e, ok := c.entries[raw]
	c.mu.RUnlock()
	if !ok || time.Now().After(e.until) {
		return nil, false
	}
	return e.p, true
}

func (c *verifiedCache) put(raw string, p *Principal, exp time.Time) {
	until := time.Now().Add(cacheTTL)
	if exp.Before(until) {
		until = exp
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.entries == nil || len(c.entries) >= cacheSize {
		c.entries = make(map[string]cachedPrincipal, 256)
	}
	c.entries[raw] = cachedPrincipal{p: p, until: until}
}
