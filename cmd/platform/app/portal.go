package app

import (
	"context"

	"platform/api/portal"
	"platform/docs"
	"platform/modules/cms"
)

// sitePagesShown bounds the site's pages the landing page links.
const sitePagesShown = 20

// startPortal serves the landing page at /, the API reference at
// /reference and the docs at /docs/ (api/portal), once every module is
// mounted.
func (a *App) startPortal(site *cms.Site) {
	sites := func(ctx context.Context) ([]portal.Link, error) {
		pages, err := site.Pages(ctx, sitePagesShown)
		out := make([]portal.Link, 0, len(pages))
		for _, p := range pages {
			out = append(out, portal.Link{Title: p.Title, URL: p.Path})
		}
		return out, err
	}
	cfg := a.Config
	hosts := hostsOf(cfg.GatewayURL, cfg.AuthURL, cfg.LoginURL, cfg.AuditURL, cfg.TrackingURL, cfg.ConsoleURL(), "http://"+cfg.PlatformDomain)
	portal.New(portal.Deps{Config: cfg, OpenAPI: a.API.OpenAPIAll, Modules: a.API.ModuleNames,
		Sites: sites, Hosts: hosts, Docs: &portal.Docs{FS: docs.FS}}).Mount(a.API)
}
