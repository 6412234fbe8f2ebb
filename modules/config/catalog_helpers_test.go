package config_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"platform/kernel/settings"
	"platform/modules/config"
	"platform/test/apitest"
	"platform/test/testenv"
)

// catalogFixture is the fixture of translations, marketplace and
// branding: a platform of its own per top-level test, with a second
// customer, every answer checked against the config OpenAPI document.
type catalogFixture struct{ *apitest.Env }

// assetLimit is the platforms' PLATFORM_MAX_ASSET: an odd size, so a
// test of the limit shows the setting reaches the routes.
const assetLimit = 1<<20 + 7

var catalogAPI = apitest.Options{
	Platform: testenv.Options{Configure: func(c *settings.Config) { c.MaxAssetBytes = assetLimit }},
	Modules:  []string{"config"},
	Rights: []string{"config.translations.*", "config.locales.*", "config.marketplaceapps.*", "config.bundles.*",
		"config.appinstallations.*", "config.themes.*", "config.assets.*"},
	Collections: []string{"translations", "locales", "marketplaceapps", "bundles", "appinstallations", "themes", "assets", config.BlobCollection},
}

type catalogScenario = apitest.Scenario[*catalogFixture]

func newCatalog(t *testing.T) *catalogFixture {
	t.Helper()
	return &catalogFixture{apitest.New(t, catalogAPI)}
}

func (f *catalogFixture) For(t testing.TB) *catalogFixture { return &catalogFixture{f.Env.For(t)} }

// send makes a call with a raw body of contentType.
func (f *catalogFixture) send(method, path, token, contentType string, body []byte, header ...string) *testenv.Resp {
	f.T.Helper()
	return f.P.Do(method, path, token, body, append([]string{"Content-Type", contentType}, header...)...)
}

// ok requires status 200 or 201 and answers the response.
func (f *catalogFixture) ok(r *testenv.Resp) *testenv.Resp {
	f.T.Helper()
	require.Contains(f.T, []int{http.StatusOK, http.StatusCreated}, r.Status, "%s", r.Body)
	return r
}
