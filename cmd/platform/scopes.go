package main

import (
	"sort"
	"strings"

	"platform/cmd/platform/app"
	"platform/kernel/resource"
	"platform/kernel/settings"
	"platform/modules/oauth/scopes"
)

// checkScopes refuses a scope that names no right any module declares
// (a typo such as "nosuch.*" or "crm.consumer.view"), so that
// `platform token` does not mint a token that can do nothing: the same
// rule the OAuth service and API keys apply (scopes.Catalog.Valid).
func checkScopes(requested []string) error {
	cat := scopes.NewCatalog(declaredRights())
	for _, s := range requested {
		if !cat.Valid(s) {
			return &settings.InvalidError{Flag: "scope", Value: s, Reason: "no module declares a right it covers; scopes are rights such as crm.consumers.view, " +
				"wildcards such as crm.consumers.* or crm.*, *, profile or email (modules: " + strings.Join(moduleNames(), ", ") + ")"}
		}
	}
	return nil
}

// declaredRights is the registry of every module's declared resources.
func declaredRights() *resource.Registry {
	reg := resource.NewRegistry()
	for _, m := range app.Modules() {
		for _, r := range m.Resources {
			reg.Add(m.Name, r)
		}
	}
	return reg
}

func moduleNames() []string {
	var out []string
	for _, m := range app.Modules() {
		out = append(out, m.Name)
	}
	sort.Strings(out)
	return out
}
