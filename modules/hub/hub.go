// Package hub is the hub module: knowledge bases, wiki pages rendered by a
// Temporal workflow (the shared pipeline of kernel/render), FAQs,
// glossaries, and a ranked search across them (package hub/search).
package hub

import (
	"platform/api"
	"platform/kernel/resource"
)

// Version is the module's meta.version.host.
const Version = "1.0.0"

// Module returns the hub module's declaration.
func Module(d Deps) *api.Module {
	return &api.Module{Name: "hub", HostLabel: "hub", Version: Version,
		Resources: []*resource.Resource{KnowledgeBases(), WikiPages(d), FAQs(d), Glossaries(d)},
		Routes:    searchRoutes(d), Paths: searchPaths()}
}
