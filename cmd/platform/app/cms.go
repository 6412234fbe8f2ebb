package app

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"time"

	"platform/activities/rendering"
	"platform/kernel/llm"
	"platform/kernel/store"
	"platform/kernel/temporalx"
	"platform/modules/cms"
	"platform/modules/cms/pages"
	"platform/modules/hub/wiki"
)

var (
	_ rendering.Renderer = (*pages.Renderer)(nil)
	_ pages.Glossary     = (*wiki.Renderer)(nil)
	_ llm.Provider       = (*llm.OpenAI)(nil)
	_ cms.Signaller      = (*temporalx.Starter)(nil)
)

// llmTimeout bounds one call to the language model: an answer of many
// blocks takes tens of seconds.
const llmTimeout = 90 * time.Second

// wireCMS opens the language model of generate-blocks when configured
// (through the outbound guard).
func (a *App) wireCMS() error {
	if a.Config.LLMURL == "" {
		return nil
	}
	p, err := llm.New(llm.Config{URL: a.Config.LLMURL, Key: a.Config.LLMKey, Model: a.Config.LLMModel, Timeout: llmTimeout},
		a.Outbound.Client(llmTimeout))
	if err != nil {
		return fmt.Errorf("PLATFORM_LLM_URL: %w", err)
	}
	a.llm = p
	return nil
}

// cmsDeps are the CMS module's dependencies; none for the declarations
// alone (Modules).
func (a *App) cmsDeps() cms.Deps {
	d := cms.Deps{Service: a.Service, Translator: a.translator}
	if a.llm != nil {
		d.LLM = a.llm
	}
	if a.Temporal != nil && a.Config != nil {
		d.Workflows = a.starter(a.Config.TaskQueue)
	}
	return d
}

// startSite serves the published pages.
func (a *App) startSite() *cms.Site {
	site := &cms.Site{Store: a.Store, Customer: a.siteCustomer(), PlatformDomain: a.Config.PlatformDomain, Log: a.Log,
		PlatformHosts: hostsOf(a.Config.GatewayURL, a.Config.AuthURL, a.Config.LoginURL, a.Config.AuditURL, a.Config.TrackingURL)}
	site.Mount(a.API)
	return site
}

// hostsOf are the lower-case host names of the URLs.
func hostsOf(urls ...string) []string {
	var out []string
	for _, s := range urls {
		if u, err := url.Parse(s); err == nil && u.Hostname() != "" {
			out = append(out, strings.ToLower(u.Hostname()))
		}
	}
	return out
}

// siteCustomer resolves PLATFORM_SITE_CUSTOMER (default: the seed
// customer). A customer that does not exist (yet) serves no gateway site
// and is looked up again after a minute, so traffic costs no lookups.
func (a *App) siteCustomer() func(ctx context.Context) (string, error) {
	slug := a.Config.SiteCustomer
	if slug == "" {
		slug = SeedCustomer
	}
	var mu sync.Mutex
	var id string
	var missedAt time.Time
	return func(ctx context.Context) (string, error) {
		mu.Lock()
		defer mu.Unlock()
		if id != "" || time.Since(missedAt) < time.Minute {
			return id, nil
		}
		c, err := a.Identity.CustomerBySlug(ctx, slug)
		if errors.Is(err, store.ErrNotFound) {
			missedAt = time.Now()
			return "", nil
		}
		if err != nil {
			return "", fmt.Errorf("PLATFORM_SITE_CUSTOMER %q: %w", slug, err)
		}
		id = c.ID
		return id, nil
	}
}

// pageRenderer renders web pages against the hub's glossary.
func (a *App) pageRenderer(glossary *wiki.Renderer) *pages.Renderer {
	return &pages.Renderer{Service: a.Service, Glossary: glossary, CSS: cms.Stylesheet}
}
