package config_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"platform/kernel/auth"
	"platform/kernel/obs"
	"platform/kernel/query"
	"platform/kernel/store"
	"platform/modules/config/apikeys"
	"platform/test/testenv"
)

// keysPlatform is one platform for the API key tests, with its logs.
func keysPlatform(t *testing.T) (*testenv.Platform, *testenv.SyncBuffer) {
	logs := &testenv.SyncBuffer{}
	p := testenv.NewPlatform(t, testenv.Options{Logger: obs.NewLogger(logs, "debug")})
	p.CheckOpenAPI("config")
	return p, logs
}

func createKey(t *testing.T, p *testenv.Platform, tok string, body map[string]any) (id, key string) {
	t.Helper()
	r := p.Do("POST", "/config/apikeys", tok, body)
	require.Equal(t, 201, r.Status, string(r.Body))
	key, _ = r.Payload()["key"].(string)
	require.True(t, strings.HasPrefix(key, "plk_"), "the key is in the create answer")
	return r.Payload()["_id"].(string), key
}

// TestAPIKeys covers the life of a key: shown once, hashed at rest, scoped
// to its creator's rights, accepted as a bearer credential, revoked,
// expired, and invisible to another customer.
func TestAPIKeys(t *testing.T) {
	t.Parallel()
	p, logs := keysPlatform(t)
	admin := p.Token("config.apikeys.*", "crm.consumers.view", "crm.consumers.create")

	t.Run("shown once, hashed at rest", func(t *testing.T) {
		r := p.Do("POST", "/config/apikeys", admin, map[string]any{"name": "erp sync", "scopes": []any{"crm.consumers.view", "config.apikeys.view"}})
		require.Equal(t, 201, r.Status, string(r.Body))
		rec := r.Payload()
		id, key := rec["_id"].(string), rec["key"].(string)
		require.Len(t, key, 47)
		require.Equal(t, key[:12], rec["prefix"])
		require.Equal(t, "active", rec["_status"])
		require.NotContains(t, rec, apikeys.FieldHash)

		stored := p.Stored(apikeys.Collection, id)
		require.Equal(t, apikeys.Hash(key), stored[apikeys.FieldHash], "only the SHA-256 is stored")
		require.NotContains(t, rawJSON(t, stored), key[12:], "the key is not stored")
		for _, path := range []string{"/config/apikeys/" + id, "/config/apikeys", "/config/apikeys?format=csv"} {
			a := p.Do("GET", path, admin, nil)
			require.Equal(t, 200, a.Status)
			require.NotContains(t, string(a.Body), key[12:], "%s: never shown again", path)
			require.NotContains(t, string(a.Body), apikeys.FieldHash)
		}
		require.Equal(t, 400, p.Do("GET", "/config/apikeys?keyHash="+apikeys.Hash(key), admin, nil).Status, "no lookup by hash")

		// Accepted as a bearer credential, acting for its creator.
		got := p.Do("GET", "/config/apikeys/"+id, key, nil)
		require.Equal(t, 200, got.Status, string(got.Body))
		require.Equal(t, p.Admin.ID, got.Payload()[apikeys.FieldCreatorUser])
		used := p.Stored(apikeys.Collection, id)["lastUsedAt"]
		require.NotNil(t, used, "lastUsedAt written on first use")
		require.Equal(t, 200, p.Do("GET", "/crm/consumers", key, nil).Status)
		require.Equal(t, used, p.Stored(apikeys.Collection, id)["lastUsedAt"], "at most once a minute")

		for _, e := range eventsOf(t, p, id) {
			require.NotContains(t, rawJSON(t, e), key[4:], "events never carry the key")
			require.NotContains(t, rawJSON(t, e), apikeys.Hash(key), "nor its hash")
		}
		require.NotContains(t, logs.String(), key[4:], "never in a log line")
	})

	t.Run("scopes within the creator's rights", func(t *testing.T) {
		viewer := p.Token("config.apikeys.create", "config.apikeys.view", "crm.consumers.view")
		id, key := createKey(t, p, viewer, map[string]any{"name": "narrowed", "scopes": []any{"crm.*"}})
		require.Equal(t, []any{"crm.consumers.view"}, p.Do("GET", "/config/apikeys/"+id, admin, nil).Payload()["scopes"],
			"crm.* resolved to the creator's crm rights")
		require.Equal(t, 200, p.Do("GET", "/crm/consumers", key, nil).Status)
		r := p.Do("POST", "/crm/consumers", key, map[string]any{"firstName": "A", "lastName": "B", "email": "a@example.com"})
		require.Equal(t, 403, r.Status, string(r.Body))

		for _, tc := range []struct{ scope, field string }{{"audit.*", "scopes[0]"}, {"crm.consumers.delete", "scopes[0]"}, {"nope.things.view", "scopes[0]"}, {"profile", "scopes[0]"}} {
			r := p.Do("POST", "/config/apikeys", viewer, map[string]any{"name": "x", "scopes": []any{tc.scope}})
			require.Equal(t, 422, r.Status, "%s: %s", tc.scope, r.Body)
			require.Contains(t, string(r.Body), `"field":"`+tc.field+`"`)
		}
		for _, body := range []map[string]any{
			{"name": "x", "scopes": []any{}},
			{"name": "x"},
			{"name": "x", "scopes": []any{"crm.*"}, "expiresAt": "2020-01-01T00:00:00Z"},
			{"name": "x", "scopes": []any{"crm.*"}, "key": "plk_mine"},
			{"name": "x", "scopes": []any{"crm.*"}, "_status": "revoked"},
		} {
			require.Equal(t, 422, p.Do("POST", "/config/apikeys", viewer, body).Status, "%v", body)
		}
		r = p.Do("PATCH", "/config/apikeys/"+id, admin, map[string]any{"scopes": []any{"crm.*"}})
		require.Equal(t, 422, r.Status, "scopes are fixed: %s", r.Body)
		r = p.Do("PATCH", "/config/apikeys/"+id, admin, map[string]any{"name": "renamed"})
		require.Equal(t, 200, r.Status, string(r.Body))
		r = p.Do("PUT", "/config/apikeys/"+id, admin, map[string]any{"name": "renamed again", "scopes": []any{"crm.consumers.view"}})
		require.Equal(t, 200, r.Status, string(r.Body))
		require.Equal(t, apikeys.Hash(key), p.Stored(apikeys.Collection, id)[apikeys.FieldHash], "a rename keeps the key's hash")
	})

	t.Run("revoked key is refused", func(t *testing.T) {
		id, key := createKey(t, p, admin, map[string]any{"name": "to revoke", "scopes": []any{"crm.consumers.view"}})
		require.Equal(t, 200, p.Do("GET", "/crm/consumers", key, nil).Status)
		require.Equal(t, 403, p.Do("POST", "/config/apikeys/"+id+"/actions/revoke", p.Token("config.apikeys.view", "config.apikeys.create"), nil).Status)
		r := p.Do("POST", "/config/apikeys/"+id+"/actions/revoke", admin, nil)
		require.Equal(t, 200, r.Status, string(r.Body))
		require.Equal(t, "revoked", r.Payload()["_status"])
		require.NotNil(t, r.Payload()["revokedAt"])
		r = p.Do("GET", "/crm/consumers", key, nil)
		require.Equal(t, 401, r.Status, "this replica forgets the key at once")
		require.NotEmpty(t, r.Header.Get("WWW-Authenticate"))
		require.Equal(t, 200, p.Do("POST", "/config/apikeys/"+id+"/actions/revoke", admin, nil).Status, "revoking again changes nothing")
		require.Equal(t, 1, countEvents(t, p, "apikeys.revoked", id))
	})

	t.Run("deleted key is refused", func(t *testing.T) {
		id, key := createKey(t, p, admin, map[string]any{"name": "to delete", "scopes": []any{"crm.consumers.view"}})
		require.Equal(t, 200, p.Do("GET", "/crm/consumers", key, nil).Status)
		require.Equal(t, 200, p.Do("DELETE", "/config/apikeys/"+id, admin, nil).Status)
		require.Equal(t, 401, p.Do("GET", "/crm/consumers", key, nil).Status)
	})

	t.Run("expired key is refused", func(t *testing.T) {
		id, key := createKey(t, p, admin, map[string]any{"name": "dated", "scopes": []any{"crm.consumers.view"},
			"expiresAt": time.Now().Add(time.Hour).UTC().Format(time.RFC3339)})
		// Time passes (the test moves the stored expiry instead of waiting).
		_, err := p.Store.Collection(apikeys.Collection).Update(p.Ctx(), query.ID(id), store.Update{Set: store.Doc{"expiresAt": time.Now().Add(-time.Minute).UTC()}})
		require.NoError(t, err)
		require.Equal(t, 401, p.Do("GET", "/crm/consumers", key, nil).Status)

		// A key accepted and cached is still refused once it expires.
		_, soon := createKey(t, p, admin, map[string]any{"name": "soon", "scopes": []any{"crm.consumers.view"},
			"expiresAt": time.Now().Add(1500 * time.Millisecond).UTC().Format(time.RFC3339Nano)})
		require.Equal(t, 200, p.Do("GET", "/crm/consumers", soon, nil).Status)
		require.Eventually(t, func() bool { return p.Do("GET", "/crm/consumers", soon, nil).Status == 401 }, 5*time.Second, 100*time.Millisecond)
	})

	t.Run("another customer", func(t *testing.T) {
		id, key := createKey(t, p, admin, map[string]any{"name": "mine", "scopes": []any{"config.apikeys.view"}})
		other, oadmin := p.OtherCustomer("keys-other")
		otok := p.TokenFor(other.ID, oadmin.ID, "*")
		require.Equal(t, 404, p.Do("GET", "/config/apikeys/"+id, otok, nil).Status)
		require.Empty(t, p.Do("GET", "/config/apikeys", otok, nil).List())
		require.Equal(t, 404, p.Do("POST", "/config/apikeys/"+id+"/actions/revoke", otok, nil).Status)
		require.Equal(t, 404, p.Do("DELETE", "/config/apikeys/"+id, otok, nil).Status)
		oid, okey := createKey(t, p, otok, map[string]any{"name": "theirs", "scopes": []any{"config.apikeys.view"}})
		// Each key acts for its own customer only.
		require.Equal(t, 404, p.Do("GET", "/config/apikeys/"+oid, key, nil).Status)
		require.Equal(t, 404, p.Do("GET", "/config/apikeys/"+id, okey, nil).Status)
		require.Equal(t, 200, p.Do("GET", "/config/apikeys/"+id, key, nil).Status)
	})

	t.Run("garbage is refused", func(t *testing.T) {
		for _, raw := range []string{"plk_", "plk_short", "plk_" + strings.Repeat("A", 43), "plk_" + strings.Repeat("!", 43)} {
			require.Equal(t, 401, p.Do("GET", "/crm/consumers", raw, nil).Status, raw)
		}
	})
}

// TestAPIKeyRevocationReachesOtherReplicas: a replica that cached a key
// refuses it within its cache TTL after another one revoked it.
func TestAPIKeyRevocationReachesOtherReplicas(t *testing.T) {
	t.Parallel()
	p := testenv.NewPlatform(t, testenv.Options{})
	admin := p.Token("config.apikeys.*", "crm.consumers.view")
	id, key := createKey(t, p, admin, map[string]any{"name": "shared", "scopes": []any{"crm.consumers.view"}})
	replica := &apikeys.Keys{Store: p.Store, TTL: 300 * time.Millisecond}
	ctx := context.Background()
	pr, err := replica.VerifyAPIKey(ctx, key)
	require.NoError(t, err)
	require.Equal(t, p.Customer.ID, pr.Customer)
	require.Equal(t, id, pr.APIKey)
	require.Equal(t, []string{"crm.consumers.view"}, pr.Scopes)

	require.Equal(t, 200, p.Do("POST", "/config/apikeys/"+id+"/actions/revoke", admin, nil).Status)
	start := time.Now()
	require.Eventually(t, func() bool {
		_, err := replica.VerifyAPIKey(ctx, key)
		return err != nil
	}, 3*time.Second, 20*time.Millisecond)
	require.Less(t, time.Since(start), time.Second, "within the replica's TTL")
	_, err = replica.VerifyAPIKey(ctx, key)
	require.ErrorIs(t, err, auth.ErrInvalidToken)
}

func countEvents(t *testing.T, p *testenv.Platform, name, id string) int {
	t.Helper()
	n := 0
	for _, e := range eventsOf(t, p, id) {
		if e["name"] == name {
			n++
		}
	}
	return n
}
