// Package cms is the CMS module: web pages made of typed blocks
// (modules/cms/blocks), reusable snippets of blocks, prepared AI prompts
// that propose blocks, and the published site. Pages are rendered by the
// shared render workflow (modules/cms/pages.Renderer) and served by Site.
package cms

import (
	"platform/api"
	"platform/kernel/resource"
)

// Version is the module's meta.version.host.
const Version = "1.0.0"

// Module returns the CMS module's declaration.
func Module(d Deps) *api.Module {
	return &api.Module{Name: "cms", HostLabel: "cms", Version: Version,
		Resources: []*resource.Resource{WebPages(d), Snippets(d), AILibraries()}}
}
