// Package config is the config module (host label config, mounted at
// /config): so far the customers' credentials, stored encrypted (spec:
// Config, "Secrets handled by the service"), and feature flags with their
// rules, history and evaluation (flags*.go, package config/flags; docs/
// config-flags.md). Its path is modules/config;
// the package name keeps it apart from platform/config (the settings).
package config

import (
	"platform/api"
	"platform/kernel/outbound"
	"platform/kernel/resource"
	"platform/modules/audit/trail"
	"platform/modules/config/apikeys"
	"platform/modules/config/credentials"
	"platform/modules/oauth/families"
)

// Version is the module's meta.version.host.
const Version = "1.0.0"

// Deps are what the module needs beyond api.Service.
type Deps struct {
	// Vault seals and opens the credential values; nil when the process has
	// no master key: credentials are then listed and edited (without new
	// values) but not created, re-keyed or decrypted (503).
	Vault *credentials.Vault
	// Audit receives one record per decrypt; nil refuses decrypt (503), as
	// decrypt is only allowed audited.
	Audit trail.Writer
	// Service reads the feature flags that evaluations compile; nil
	// (declarations only) answers evaluations 503.
	Service *resource.Service
	// Outbound guards the notification channels' calls (the test action
	// of notificationroutes); nil refuses them.
	Outbound *outbound.Guard
	// MaxAssetBytes bounds an asset's file (DefaultMaxAssetBytes when 0).
	MaxAssetBytes int64
	// Commands runs the credential commands (test, refresh, revoke) as
	// workflows; nil answers them 503.
	Commands Commands
	// Computing configures the computing entities' actions.
	Computing ComputingDeps
	// APIKeys registers API keys and checks them for the verifier; nil
	// answers 503 to creating one.
	APIKeys *apikeys.Keys
	// OAuthTokens lists and revokes the token families of the OAuth
	// service; nil answers 503 on /oauthtokens.
	OAuthTokens families.Source
}

// Module returns the config module's declaration.
func Module(d Deps) *api.Module {
	fl := newFlagEngine(d.Service)
	return &api.Module{
		Name: "config", HostLabel: "config", Version: Version,
		Resources: []*resource.Resource{Credentials(d), Flags(fl), FlagRules(fl), FlagHistory(),
			NotificationChannels(d), NotificationTemplates(d), NotificationRoutes(d), NotificationDeliveries(),
			Translations(), Locales(), MarketplaceApps(), Bundles(&installer{}), AppInstallations(&installer{}), Themes(), Assets(),
			ComputingEntities(d), Programs(), ComputingInstallations(), PlatformStates(), ModuleStateCache(), APIKeys(d)},
		Routes: moduleRoutes(fl.routes, catalogRoutes(d), oauthTokenRoutes(d)),
		Paths:  modulePaths(flagPaths(), catalogPaths(d), oauthTokenPaths()),
	}
}

// moduleRoutes mounts each area's routes beyond its resources.
func moduleRoutes(parts ...func(*api.ModuleRouter)) func(*api.ModuleRouter) {
	return func(r *api.ModuleRouter) {
		for _, mount := range parts {
			mount(r)
		}
	}
}

// modulePaths joins each area's OpenAPI paths; two areas documenting one
// path is a programming error.
func modulePaths(parts ...map[string]any) map[string]any {
	out := map[string]any{}
	for _, p := range parts {
		for path, item := range p {
			if _, dup := out[path]; dup {
				panic("config: two areas document " + path)
			}
			out[path] = item
		}
	}
	return out
}
