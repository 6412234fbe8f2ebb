package config_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"platform/test/apitest"
	"platform/test/testenv"
)

// app creates a marketplace app asking for rights and answers its id.
func (f *catalogFixture) app(rights ...string) string {
	f.T.Helper()
	if rights == nil {
		rights = []string{}
	}
	return f.Create("/config/marketplaceapps", map[string]any{"slug": uniqueName("app-"), "name": "Sync", "publisher": "Acme",
		"version": "1.2.0", "rights": rights})
}

// install installs app with rights, as a user who holds them, and
// answers the installation's id.
func (f *catalogFixture) install(app string, rights ...string) string {
	f.T.Helper()
	tok := f.P.Token(append(append([]string{}, rights...), catalogAPI.Rights...)...)
	r := f.ok(f.P.Do("POST", "/config/appinstallations", tok, map[string]any{"app": app, "grantedRights": rights}))
	return r.Payload()["_id"].(string)
}

func TestMarketplaceApps(t *testing.T) {
	f := newCatalog(t)
	body := func(over map[string]any) map[string]any {
		b := map[string]any{"slug": "crm-sync", "name": "CRM sync", "publisher": "Acme", "version": "2.0.0-beta.1", "rights": []string{"crm.consumers.view"}}
		for k, v := range over {
			b[k] = v
		}
		return b
	}
	apitest.Run(t, f, []catalogScenario{
		{Name: "an app is addressed by its slug", Method: "POST", Path: "/config/marketplaceapps", Body: body(nil), Status: 201,
			Events: []string{"marketplaceapps.created"},
			Then: func(f *catalogFixture, _ apitest.IDs, r *testenv.Resp) {
				got := f.ok(f.P.Do("GET", "/config/marketplaceapps/crm-sync", f.Admin, nil))
				assert.Equal(f.T, r.Payload()["_id"], got.Payload()["_id"])
			}},
		{Name: "a version that is not semver", Method: "POST", Path: "/config/marketplaceapps", Body: body(map[string]any{"slug": "a1", "version": "1.2"}), Status: 422, Field: "version"},
		{Name: "a wildcard right", Method: "POST", Path: "/config/marketplaceapps", Body: body(map[string]any{"slug": "a2", "rights": []string{"crm.*"}}), Status: 422, Field: "rights.0"},
		{Name: "a slug with capitals", Method: "POST", Path: "/config/marketplaceapps", Body: body(map[string]any{"slug": "Sync"}), Status: 422, Field: "slug"},
		{Name: "an icon that is not an image", Given: func(f *catalogFixture) apitest.IDs {
			return apitest.IDs{"a": f.asset("application/pdf", []byte("%PDF-1.4\n"))}
		}, Method: "POST", Path: "/config/marketplaceapps", Body: body(map[string]any{"slug": "a3", "icon": "{a}"}), Status: 422, Field: "icon"},
		{Name: "another customer's asset is no icon", Given: func(f *catalogFixture) apitest.IDs {
			return apitest.IDs{"a": f.asset("image/png", pngFile(t, 1, 1))}
		}, Method: "POST", Path: "/config/marketplaceapps", Token: func(f *catalogFixture) string { return f.Other },
			Body: body(map[string]any{"slug": "a4", "icon": "{a}"}), Status: 422, Field: "icon"},
		{Name: "an installed app cannot be deleted", Given: func(f *catalogFixture) apitest.IDs {
			a := f.app("crm.consumers.view")
			f.install(a, "crm.consumers.view")
			return apitest.IDs{"a": a}
		}, Method: "DELETE", Path: "/config/marketplaceapps/{a}", Status: 409},
		{Name: "an icon in use keeps its asset", Given: func(f *catalogFixture) apitest.IDs {
			a := f.asset("image/png", pngFile(t, 1, 1))
			f.Create("/config/marketplaceapps", map[string]any{"slug": uniqueName("icon-"), "name": "x", "publisher": "p", "version": "1.0.0", "icon": a})
			return apitest.IDs{"a": a}
		}, Method: "DELETE", Path: "/config/assets/{a}", Status: 409},
	})
}

func TestAppInstallations(t *testing.T) {
	f := newCatalog(t)
	withApp := func(f *catalogFixture) apitest.IDs {
		return apitest.IDs{"app": f.app("crm.consumers.view", "crm.consumers.edit", "hub.faqs.view")}
	}
	installed := func(f *catalogFixture) apitest.IDs {
		v := withApp(f)
		v["i"] = f.install(v["app"], "crm.consumers.view")
		return v
	}
	uninstalled := func(f *catalogFixture) apitest.IDs {
		v := installed(f)
		f.ok(f.P.Do("POST", "/config/appinstallations/"+v["i"]+"/actions/uninstall", f.Admin, nil))
		return v
	}
	installer := append([]string{"crm.consumers.view", "crm.consumers.edit"}, catalogAPI.Rights...)
	apitest.Run(t, f, []catalogScenario{
		{Name: "installing records the grant, the version and who", Given: withApp, Method: "POST", Path: "/config/appinstallations",
			Scopes: installer, Body: map[string]any{"app": "{app}", "grantedRights": []string{"crm.consumers.view", "crm.consumers.edit"}},
			Status: 201, Events: []string{"appinstallations.created"},
			Then: func(f *catalogFixture, _ apitest.IDs, r *testenv.Resp) {
				p := r.Payload()
				assert.Equal(f.T, "installed", p["status"])
				assert.Equal(f.T, "1.2.0", p["version"])
				assert.Equal(f.T, f.P.Admin.ID, p["installedBy"])
				assert.NotEmpty(f.T, p["installedAt"])
			}},
		{Name: "a right the installer lacks cannot be granted", Given: withApp, Method: "POST", Path: "/config/appinstallations",
			Scopes: installer, Body: map[string]any{"app": "{app}", "grantedRights": []string{"crm.consumers.view", "hub.faqs.view"}},
			Status: 422, Field: "grantedRights.1", Codes: []string{"auth.scope"}},
		{Name: "a right the app does not ask for", Given: withApp, Method: "POST", Path: "/config/appinstallations",
			Scopes: append([]string{"crm.consumers.delete"}, installer...), Body: map[string]any{"app": "{app}", "grantedRights": []string{"crm.consumers.delete"}},
			Status: 422, Field: "grantedRights.0"},
		{Name: "an app is installed once", Given: installed, Method: "POST", Path: "/config/appinstallations",
			Scopes: installer, Body: map[string]any{"app": "{app}"}, Status: 409, Field: "app"},
		{Name: "an unknown app", Method: "POST", Path: "/config/appinstallations", Body: map[string]any{"app": "0123456789abcdef01234567"}, Status: 422, Field: "app"},
		{Name: "another customer's app cannot be installed", Given: withApp, Method: "POST", Path: "/config/appinstallations",
			Token: func(f *catalogFixture) string { return f.Other }, Body: map[string]any{"app": "{app}"}, Status: 422, Field: "app"},
		{Name: "the grant may change within the same rules", Given: installed, Method: "PATCH", Path: "/config/appinstallations/{i}",
			Scopes: installer, Body: map[string]any{"grantedRights": []string{"crm.consumers.edit"}}, Status: 200, Events: []string{"appinstallations.updated"}},
		{Name: "nor may the grant grow past the editor's rights", Given: installed, Method: "PATCH", Path: "/config/appinstallations/{i}",
			Scopes: installer, Body: map[string]any{"grantedRights": []string{"hub.faqs.view"}}, Status: 422, Field: "grantedRights.0"},
		{Name: "the app cannot change", Given: installed, Method: "PATCH", Path: "/config/appinstallations/{i}",
			Body: map[string]any{"app": "0123456789abcdef01234567"}, Status: 422, Field: "app"},
		{Name: "uninstall takes the rights back", Given: installed, Method: "POST", Path: "/config/appinstallations/{i}/actions/uninstall",
			Status: 200, Events: []string{"appinstallations.uninstalled"},
			Then: func(f *catalogFixture, _ apitest.IDs, r *testenv.Resp) {
				assert.Equal(f.T, "uninstalled", r.Payload()["status"])
				assert.Equal(f.T, []any{}, r.Payload()["grantedRights"])
				assert.NotEmpty(f.T, r.Payload()["uninstalledAt"])
			}},
		{Name: "uninstalling twice changes nothing", Given: uninstalled, Method: "POST", Path: "/config/appinstallations/{i}/actions/uninstall", Status: 200},
		{Name: "an uninstalled app's grant cannot be edited", Given: uninstalled, Method: "PATCH", Path: "/config/appinstallations/{i}",
			Scopes: installer, Body: map[string]any{"grantedRights": []string{"crm.consumers.view"}}, Status: 409},
		{Name: "reinstall grants anew", Given: uninstalled, Method: "POST", Path: "/config/appinstallations/{i}/actions/reinstall",
			Scopes: installer, Body: map[string]any{"grantedRights": []string{"crm.consumers.edit"}}, Status: 200, Events: []string{"appinstallations.reinstalled"},
			Then: func(f *catalogFixture, _ apitest.IDs, r *testenv.Resp) {
				assert.Equal(f.T, "installed", r.Payload()["status"])
				assert.Equal(f.T, []any{"crm.consumers.edit"}, r.Payload()["grantedRights"])
				assert.NotContains(f.T, r.Payload(), "uninstalledAt")
			}},
		{Name: "reinstall checks the grant too", Given: uninstalled, Method: "POST", Path: "/config/appinstallations/{i}/actions/reinstall",
			Scopes: installer, Body: map[string]any{"grantedRights": []string{"hub.faqs.view"}}, Status: 422, Field: "grantedRights.0"},
		{Name: "another customer's installation is not found", Given: installed, Method: "POST", Path: "/config/appinstallations/{i}/actions/uninstall",
			Token: func(f *catalogFixture) string { return f.Other }, Status: 404},
		{Name: "uninstalling needs the edit right", Given: installed, Method: "POST", Path: "/config/appinstallations/{i}/actions/uninstall",
			Scopes: []string{"config.appinstallations.view"}, Status: 403},
	})
}

func TestBundles(t *testing.T) {
	f := newCatalog(t)
	bundle := func(f *catalogFixture) apitest.IDs {
		a, b := f.app("crm.consumers.view"), f.app("hub.faqs.view")
		return apitest.IDs{"a": a, "b": b, "bundle": f.Create("/config/bundles", map[string]any{"slug": uniqueName("pack-"), "name": "Starter", "apps": []string{a, b}})}
	}
	holder := append([]string{"crm.consumers.view", "hub.faqs.view"}, catalogAPI.Rights...)
	apitest.Run(t, f, []catalogScenario{
		{Name: "a bundle of unknown apps", Method: "POST", Path: "/config/bundles",
			Body: map[string]any{"slug": "x", "name": "x", "apps": []string{"0123456789abcdef01234567"}}, Status: 422, Field: "apps.0"},
		{Name: "an app twice", Given: func(f *catalogFixture) apitest.IDs { return apitest.IDs{"a": f.app()} }, Method: "POST", Path: "/config/bundles",
			Body: map[string]any{"slug": "y", "name": "y", "apps": []string{"{a}", "{a}"}}, Status: 422, Field: "apps.1"},
		{Name: "an empty bundle", Method: "POST", Path: "/config/bundles", Body: map[string]any{"slug": "z", "name": "z", "apps": []string{}}, Status: 422, Field: "apps"},
		{Name: "installing a bundle installs each app with the rights it asks for", Given: bundle, Method: "POST",
			Path: "/config/bundles/{bundle}/actions/install", Scopes: holder, Status: 200,
			Events: []string{"appinstallations.created", "appinstallations.created", "bundles.installed"},
			Then: func(f *catalogFixture, v apitest.IDs, r *testenv.Resp) {
				assert.Len(f.T, r.Payload()["installed"], 2)
				list := f.ok(f.P.Do("GET", "/config/appinstallations?app="+v["b"], f.Admin, nil)).List()
				require.Len(f.T, list, 1)
				assert.Equal(f.T, []any{"hub.faqs.view"}, list[0]["grantedRights"])
				again := f.ok(f.P.Do("POST", "/config/bundles/"+v["bundle"]+"/actions/install", f.P.Token(holder...), nil))
				assert.Len(f.T, again.Payload()["unchanged"], 2, "installed apps stay as they are")
			}},
		{Name: "one right the caller lacks refuses the whole bundle", Given: bundle, Method: "POST",
			Path: "/config/bundles/{bundle}/actions/install", Scopes: append([]string{"crm.consumers.view"}, catalogAPI.Rights...),
			Status: 422, Field: "apps.1"},
	})
}

func TestThemes(t *testing.T) {
	f := newCatalog(t)
	logo := func(f *catalogFixture) apitest.IDs {
		return apitest.IDs{"logo": f.asset("image/png", pngFile(t, 8, 8))}
	}
	apitest.Run(t, f, []catalogScenario{
		{Name: "a theme with colours, fonts and a logo", Given: logo, Method: "POST", Path: "/config/themes",
			Body: map[string]any{"name": "Ocean", "colors": map[string]any{"primary": "#1a73e8", "text": "#fff", "background": "#00000080"},
				"fonts": map[string]any{"heading": `"Inter Tight", sans-serif`}, "logo": "{logo}", "default": true},
			Status: 201, Events: []string{"themes.created"}},
		{Name: "a colour that is not hex", Method: "POST", Path: "/config/themes",
			Body: map[string]any{"name": "Bad", "colors": map[string]any{"accent": "red"}}, Status: 422, Field: "colors.accent"},
		{Name: "an unknown colour role", Method: "POST", Path: "/config/themes",
			Body: map[string]any{"name": "Bad2", "colors": map[string]any{"sparkle": "#fff"}}, Status: 422},
		{Name: "a font that would leave its CSS declaration", Method: "POST", Path: "/config/themes",
			Body: map[string]any{"name": "Bad3", "fonts": map[string]any{"body": "x;}body{background:url(//evil)"}}, Status: 422, Field: "fonts.body"},
		{Name: "a logo without a file", Given: func(f *catalogFixture) apitest.IDs { return apitest.IDs{"logo": f.asset("", nil)} },
			Method: "POST", Path: "/config/themes", Body: map[string]any{"name": "Bad4", "logo": "{logo}"}, Status: 422, Field: "logo"},
		{Name: "a logo in use keeps its asset", Given: func(f *catalogFixture) apitest.IDs {
			v := logo(f)
			f.Create("/config/themes", map[string]any{"name": uniqueName("theme-"), "logo": v["logo"]})
			return v
		}, Method: "DELETE", Path: "/config/assets/{logo}", Status: 409},
	})
}
