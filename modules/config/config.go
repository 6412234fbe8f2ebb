// Package config is the config module (host label config, mounted at
// /config): so far the customers' credentials, stored encrypted (spec:
// Config, "Secrets handled by the service"). Its path is modules/config;
// the package name keeps it apart from platform/config (the settings).
package config

import (
	"platform/api"
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
	// APIKeys registers API keys and checks them for the verifier; nil
	// answers 503 to creating one.
	APIKeys *apikeys.Keys
	// OAuthTokens lists and revokes the token families of the OAuth
	// service; nil answers 503 on /oauthtokens.
	OAuthTokens families.Source
}

// Module returns the config module's declaration.
func Module(d Deps) *api.Module {
	return &api.Module{
		Name: "config", HostLabel: "config", Version: Version,
		Resources: []*resource.Resource{Credentials(d), APIKeys(d)},
		Routes:    oauthTokenRoutes(d), Paths: oauthTokenPaths(),
	}
}
