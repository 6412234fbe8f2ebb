// Package ads is the advertising module (docs/ads.md): connected ad
// platform accounts (adconnections, authorized by OAuth 2.0 with PKCE),
// their campaigns, ad groups and keywords synced both ways, and daily
// metrics synced from the platform (read-only). The work is done by
// package adsync, in workflows for the sync and the push.
package ads

import (
	"net/http"

	"platform/api"
	"platform/kernel/resource"
	"platform/modules/ads/adsync"
)

// Version is the module's meta.version.host.
const Version = "1.0.0"

// CallbackPath is the OAuth redirect route below the module.
const CallbackPath = "/oauth/callback"

// Deps are the module's dependencies.
type Deps struct {
	Ads *adsync.Service // nil for the declarations alone
}

// Module returns the ads module's declaration.
func Module(d Deps) *api.Module {
	h := &handlers{d: d}
	return &api.Module{Name: adsync.Module, HostLabel: "ads", Version: Version,
		Resources: []*resource.Resource{Connections(h), Campaigns(h), AdGroups(h), Keywords(), Metrics()},
		Routes: func(r *api.ModuleRouter) {
			r.HandlePublic(http.MethodGet, CallbackPath, h.callback)
		},
		Paths: callbackPaths()}
}

type handlers struct{ d Deps }
