package config_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"platform/kernel/obs"
	"platform/kernel/query"
	"platform/kernel/settings"
	"platform/kernel/store"
	"platform/modules/audit/trail"
	"platform/modules/config/credentials"
	"platform/test/apitest"
	"platform/test/testenv"
)

// commandsAPI: a platform with a worker, whose outbound calls may reach
// the loopback services the tests start.
func commandsAPI(logs *testenv.SyncBuffer) apitest.Options {
	return apitest.Options{
		Platform: testenv.Options{Worker: true, Logger: obs.NewLogger(logs, "debug"),
			Configure: func(c *settings.Config) { c.OutboundAllow = []string{"127.0.0.1"} }},
		Modules: []string{"config"}, Rights: []string{"config.credentials.*"},
		Collections: []string{credentials.Collection, trail.Collection},
	}
}

// provider is a service answering Basic auth at /basic, and an OAuth 2.0
// token endpoint (rotating refresh tokens) and RFC 7009 revocation
// endpoint for client "app".
type provider struct {
	*httptest.Server
	mu      sync.Mutex
	refresh string
	revoked []string
}

func newProvider(t *testing.T) *provider {
	p := &provider{refresh: "rt-1"}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /basic", func(w http.ResponseWriter, r *http.Request) {
		if u, pw, _ := r.BasicAuth(); u != "me" || pw != password {
			w.WriteHeader(http.StatusUnauthorized)
		}
	})
	mux.HandleFunc("POST /token", p.token)
	mux.HandleFunc("POST /revoke", func(w http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		defer p.mu.Unlock()
		p.revoked = append(p.revoked, r.PostFormValue("token"))
	})
	p.Server = httptest.NewServer(mux)
	t.Cleanup(p.Close)
	return p
}

func (p *provider) token(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	defer p.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	if id, sec, _ := r.BasicAuth(); id != "app" || sec != password || r.PostFormValue("refresh_token") != p.refresh {
		w.WriteHeader(http.StatusBadRequest)
		_ = json.NewEncoder(w).Encode(map[string]string{"error": "invalid_grant"})
		return
	}
	p.refresh += "x"
	_ = json.NewEncoder(w).Encode(map[string]any{"access_token": "at-" + p.refresh, "token_type": "Bearer", "expires_in": 600, "refresh_token": p.refresh})
}

// TestCredentialCommands: test, refresh and revoke run as workflows
// against local services and record their outcome on the credential:
// lastTestedAt, lastTestStatus, lastTestError and the _status moves
// (refresh ok → active, invalid_grant → expired, revoke → revoked, and a
// revoked credential refuses every command). No answer, event or log
// line carries a value.
func TestCredentialCommands(t *testing.T) {
	logs := &testenv.SyncBuffer{}
	f := &fixture{apitest.New(t, commandsAPI(logs))}
	prov := newProvider(t)
	create := func(body map[string]any) func(f *fixture) apitest.IDs {
		return func(f *fixture) apitest.IDs {
			body["name"] = "c-" + store.NewID()
			r := f.P.Do("POST", "/config/credentials", f.Admin, body)
			require.Equal(f.T, 201, r.Status, string(r.Body))
			return apitest.IDs{"id": r.Payload()["_id"].(string)}
		}
	}
	basic := func(pw string) func(f *fixture) apitest.IDs {
		return create(map[string]any{"type": "http-basic", "credentials": map[string]any{"url": prov.URL + "/basic", "username": "me", "password": pw}})
	}
	oauth := func(f *fixture) apitest.IDs {
		prov.mu.Lock()
		rt := prov.refresh
		prov.mu.Unlock()
		return create(map[string]any{"type": "oauth2", "credentials": map[string]any{"tokenUrl": prov.URL + "/token", "revocationUrl": prov.URL + "/revoke",
			"clientId": "app", "clientSecret": password, "refreshToken": rt}})(f)
	}
	revoked := func(f *fixture) apitest.IDs {
		v := oauth(f)
		r := f.P.Do("POST", v.Expand("/config/credentials/{id}/actions/revoke"), f.Admin, nil)
		require.Equal(f.T, 200, r.Status, string(r.Body))
		return v
	}
	state := func(status, test string) func(f *fixture, v apitest.IDs, r *testenv.Resp) {
		return func(f *fixture, v apitest.IDs, r *testenv.Resp) {
			got := r.Payload()
			require.Equal(f.T, status, got["_status"])
			require.Equal(f.T, test, got["lastTestStatus"])
			require.NotEmpty(f.T, got["lastTestedAt"])
			require.NotContains(f.T, string(r.Body), password)
		}
	}
	cmd := func(name string, given func(*fixture) apitest.IDs, action string, status int) scenario {
		return scenario{Name: name, Given: given, Method: "POST", Path: "/config/credentials/{id}/actions/" + action, Status: status}
	}
	testOK := cmd("http-basic accepted", basic(password), "test", 200)
	testOK.Events, testOK.Then = []string{"credentials.tested"}, state("active", "ok")
	testFail := cmd("http-basic refused", basic("wrong"), "test", 200)
	testFail.Events = []string{"credentials.tested"}
	testFail.Then = func(f *fixture, v apitest.IDs, r *testenv.Resp) {
		state("active", "fail")(f, v, r)
		require.Contains(f.T, r.Payload()["lastTestError"], "HTTP 401")
	}
	noURL := cmd("values without url", create(map[string]any{"type": "bearer", "credentials": map[string]any{"token": password}}), "test", 422)
	noURL.Field = "credentials.url"
	unknownType := cmd("a type no provider serves", create(map[string]any{"type": "ftp", "credentials": map[string]any{"k": password}}), "test", 422)
	unknownType.Field = "type"
	noRefresh := cmd("http-basic cannot be refreshed", basic(password), "refresh", 409)
	refreshOK := cmd("oauth2 refresh seals new tokens", oauth, "refresh", 200)
	refreshOK.Events = []string{"credentials.refreshed"}
	refreshOK.Then = func(f *fixture, v apitest.IDs, r *testenv.Resp) {
		state("active", "ok")(f, v, r)
		plain, err := f.P.Vault.Open(f.P.Customer.ID, v["id"], storedCredential(f.T, f.P, v["id"])["credentials"].(map[string]any))
		require.NoError(f.T, err)
		prov.mu.Lock()
		defer prov.mu.Unlock()
		require.Equal(f.T, prov.refresh, plain["refreshToken"], "the rotated refresh token is sealed back")
		require.Equal(f.T, "at-"+prov.refresh, plain["accessToken"])
		require.Equal(f.T, password, plain["clientSecret"])
	}
	expired := cmd("invalid_grant expires it", create(map[string]any{"type": "oauth2", "credentials": map[string]any{
		"tokenUrl": prov.URL + "/token", "clientId": "app", "clientSecret": password, "refreshToken": "used-up"}}), "refresh", 200)
	expired.Events = []string{"credentials.refreshed"}
	expired.Then = func(f *fixture, v apitest.IDs, r *testenv.Resp) {
		state("expired", "fail")(f, v, r)
		require.Equal(f.T, "the token endpoint answered HTTP 400, error invalid_grant", r.Payload()["lastTestError"])
		patch := f.P.Do("PATCH", v.Expand("/config/credentials/{id}"), f.Admin, map[string]any{"credentials": map[string]any{"refreshToken": "new"}})
		require.Equal(f.T, "active", patch.Payload()["_status"], "new values end the expiry")
	}
	revoke := cmd("oauth2 revoke at the provider", oauth, "revoke", 200)
	revoke.Events = []string{"credentials.revoked"}
	revoke.Then = func(f *fixture, v apitest.IDs, r *testenv.Resp) {
		require.Equal(f.T, "revoked", r.Payload()["_status"])
		prov.mu.Lock()
		defer prov.mu.Unlock()
		require.NotEmpty(f.T, prov.revoked, "RFC 7009 request received")
	}
	refused := func(action string) scenario {
		sc := cmd("a revoked credential refuses "+action, revoked, action, 409)
		sc.Codes = []string{"conflict.state"}
		return sc
	}
	rights := func(action string, status int, scopes ...string) scenario {
		sc := cmd(action+" with "+scopes[0], basic(password), action, status)
		sc.Scopes = scopes
		if status == 200 {
			sc.Events = []string{"credentials.tested"}
		}
		return sc
	}
	tampered := cmd("values that do not open", func(f *fixture) apitest.IDs {
		v := basic(password)(f)
		sealed := storedCredential(f.T, f.P, v["id"])["credentials"].(map[string]any)
		sealed["tag"] = sealed["iv"].(string) + sealed["iv"].(string)
		_, err := f.P.Store.Collection(credentials.Collection).Update(f.P.Ctx(), query.ID(v["id"]), store.Update{Set: store.Doc{"credentials": sealed}})
		require.NoError(f.T, err)
		return v
	}, "test", 500)
	tampered.Field = "credentials"
	tampered.Events = []string{"tasks.created"} // a 500 files a Bug task: an integrity alarm
	otherCustomer := cmd("another customer's credential", basic(password), "test", 404)
	otherCustomer.Token = func(f *fixture) string { return f.Other }
	apitest.Run(t, f, []scenario{
		testOK, testFail, noURL, unknownType, noRefresh, refreshOK, expired, revoke,
		refused("test"), refused("refresh"), refused("revoke"),
		rights("test", 200, "config.credentials.test"),
		rights("test", 403, "config.credentials.view", "config.credentials.edit"),
		rights("refresh", 403, "config.credentials.test"),
		rights("revoke", 403, "config.credentials.test", "config.credentials.view"),
		tampered, otherCustomer,
	})
	require.Subset(t, f.P.Registry.EventNames(), []string{"credentials.tested", "credentials.refreshed", "credentials.revoked"}, "published, so webhooks may subscribe")
	evs, err := f.P.Store.Collection("events").Find(f.P.Ctx(), store.FindOptions{})
	require.NoError(t, err)
	require.NotContains(t, rawJSON(t, evs), password, "no event carries a value")
	require.NotContains(t, logs.String(), password, "no log line carries a value")
}
