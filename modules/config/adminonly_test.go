package config_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"platform/kernel/store"
	"platform/test/apitest"
	"platform/test/testenv"
)

// TestDeleteIsAdminOnly: deleting a credential needs
// config.credentials.delete by name (the admin role's grant); no wildcard
// gives it, and callers without it are not offered DELETE in meta.actions.
func TestDeleteIsAdminOnly(t *testing.T) {
	f := newFixture(t)
	given := func(f *fixture) apitest.IDs {
		r := f.P.Do("POST", "/config/credentials", f.P.Token("config.credentials.create"), smtpCredential("del-"+store.NewID()))
		require.Equal(f.T, 201, r.Status, string(r.Body))
		return apitest.IDs{"id": r.Payload()["_id"].(string)}
	}
	refused := func(scopes ...string) scenario {
		return scenario{Name: "refused with " + scopes[0], Given: given, Method: "DELETE", Path: "/config/credentials/{id}",
			Scopes: scopes, Status: 403, Codes: []string{"auth.scope"}}
	}
	apitest.Run(t, f, []scenario{
		refused("config.*"),
		refused("config.credentials.*"),
		refused("*"),
		{Name: "the exact right deletes", Given: given, Method: "DELETE", Path: "/config/credentials/{id}",
			Scopes: []string{"config.credentials.delete"}, Status: 200, Events: []string{"credentials.deleted"}},
		{Name: "DELETE is not offered under a wildcard", Given: given, Method: "GET", Path: "/config/credentials/{id}",
			Scopes: []string{"config.*"}, Status: 200, Then: func(f *fixture, _ apitest.IDs, r *testenv.Resp) {
				for _, a := range r.Meta()["actions"].([]any) {
					require.NotContains(f.T, []string{"DELETE", "DECRYPT"}, a.(map[string]any)["action"])
				}
			}},
	})
}
