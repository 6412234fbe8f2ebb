package cms

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"sync"
	"time"

	"platform/kernel/store"
	"platform/modules/cms/blocks"
	"platform/modules/cms/pages"
)

// domainTTL is how long a custom domain's claim (or its absence) is
// trusted: a new domain is served at most this late, on every replica.
const domainTTL = 10 * time.Second

// maxCachedDomains bounds the cache: requests with made-up Host headers
// must not grow it without limit.
const maxCachedDomains = 10_000

// domainCache remembers claims of custom domains, and hosts that are
// none, for domainTTL.
type domainCache struct {
	mu      sync.Mutex
	entries map[string]cachedDomain
}

type cachedDomain struct {
	claim   pages.Domain
	ok      bool
	expires time.Time
}

// lookup is host's claim. A store failure counts as no claim and is not
// remembered: the request gets the platform's answer, the next one asks
// again.
func (c *domainCache) lookup(ctx context.Context, s store.Store, host string) (pages.Domain, bool) {
	if e, hit := c.get(host); hit {
		return e.claim, e.ok
	}
	ctx, cancel := context.WithTimeout(ctx, lookupTimeout)
	defer cancel()
	claim, err := pages.LookupDomain(ctx, s, host)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return pages.Domain{}, false
	}
	c.put(host, cachedDomain{claim: claim, ok: err == nil, expires: time.Now().Add(domainTTL)})
	return claim, err == nil
}

func (c *domainCache) get(host string) (cachedDomain, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[host]
	return e, ok && time.Now().Before(e.expires)
}

func (c *domainCache) put(host string, e cachedDomain) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.entries == nil || len(c.entries) >= maxCachedDomains {
		c.entries = map[string]cachedDomain{}
	}
	c.entries[host] = e
}

var cssETag = sync.OnceValue(func() string {
	sum := sha256.Sum256(blocks.CSS())
	return `"` + hex.EncodeToString(sum[:8]) + `"`
})
