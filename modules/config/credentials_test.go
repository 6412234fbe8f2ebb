package config_test

import (
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"platform/kernel/events"
	"platform/kernel/obs"
	"platform/kernel/query"
	"platform/kernel/resource"
	"platform/kernel/settings"
	"platform/kernel/store"
	"platform/kernel/tenant"
	"platform/modules/audit/trail"
	"platform/modules/config/credentials"
	"platform/test/apitest"
	"platform/test/testenv"
)

const (
	password = "pw-Zq8v-never-anywhere-0f3b" // must appear in no answer, stored record, event or log
	apiKey   = "key-7d1e-also-never-shown-9a2c"
)

func smtpCredential(name string) map[string]any {
	return map[string]any{"name": name, "type": "smtp",
		"credentials": map[string]any{"host": "smtp.example.com", "port": 587, "username": "mailer", "password": password}}
}

// rawJSON is a stored document as text, to search it for clear values.
func rawJSON(t testing.TB, d any) string {
	t.Helper()
	b, err := json.Marshal(d)
	require.NoError(t, err)
	return string(b)
}

func storedCredential(t testing.TB, p *testenv.Platform, id string) store.Doc {
	t.Helper()
	d, err := p.Store.Collection(credentials.Collection).Get(p.Ctx(), id)
	require.NoError(t, err)
	return d
}

func eventsOf(t *testing.T, p *testenv.Platform, id string) []store.Doc {
	t.Helper()
	evs, err := p.Store.Collection(events.Collection).Find(p.Ctx(), store.FindOptions{Filter: query.Eq("data._id", id)})
	require.NoError(t, err)
	return evs
}

// TestCredentialsNeverShown: the values are accepted, stored only sealed,
// and absent from every answer, format, projection and event.
func TestCredentialsNeverShown(t *testing.T) {
	t.Parallel()
	logs := &testenv.SyncBuffer{}
	p := testenv.NewPlatform(t, testenv.Options{Logger: obs.NewLogger(logs, "debug")})
	p.CheckOpenAPI("config")
	tok := p.Token("config.credentials.view", "config.credentials.create", "config.credentials.edit", "config.credentials.delete")

	r := p.Do("POST", "/config/credentials", tok, smtpCredential("smtp"))
	require.Equal(t, 201, r.Status, string(r.Body))
	rec := r.Payload()
	id := rec["_id"].(string)
	require.Equal(t, "smtp", rec["name"])
	require.Equal(t, "active", rec["_status"], "active by default")
	require.NotContains(t, rec, "credentials")

	// The store holds the sealed form only.
	stored := storedCredential(t, p, id)
	sealed, ok := stored["credentials"].(map[string]any)
	require.True(t, ok, "sealed sub-document")
	require.ElementsMatch(t, []string{"v", "iv", "ct", "tag"}, keys(sealed))
	require.EqualValues(t, 1, sealed["v"])
	for _, clear := range []string{password, "mailer", "smtp.example.com", base64.StdEncoding.EncodeToString([]byte(password))} {
		require.NotContains(t, rawJSON(t, stored), clear)
	}
	plain, err := p.Vault.Open(p.Customer.ID, id, sealed)
	require.NoError(t, err)
	require.Equal(t, password, plain["password"])
	require.Equal(t, int64(587), plain["port"])

	answers := []*testenv.Resp{r}
	for _, path := range []string{
		"/config/credentials/" + id, "/config/credentials", "/config/credentials?format=csv", "/config/credentials?format=yaml",
		"/config/credentials/" + id + "?fields=credentials,name", "/config/credentials?fields=credentials",
	} {
		a := p.Do("GET", path, tok, nil)
		require.Contains(t, []int{200, 400}, a.Status, "%s: the write-only field may be refused in fields=, never shown", path)
		answers = append(answers, a)
	}
	require.NotContains(t, string(answers[3].Body), "credentials", "no CSV column")
	for _, q := range []string{"credentials.password=" + password, "credentials.v=1", `filter={"credentials.ct":{"$exists":true}}`} {
		require.Equal(t, 400, p.Do("GET", "/config/credentials?"+q, tok, nil).Status, "no filter on the values (an oracle): %s", q)
	}

	// Updates without values keep them; PUT, PATCH.
	put := p.Do("PUT", "/config/credentials/"+id, tok, map[string]any{"name": "smtp-main", "type": "smtp"})
	require.Equal(t, 200, put.Status, string(put.Body))
	answers = append(answers, put)
	require.Equal(t, sealed, storedCredential(t, p, id)["credentials"], "PUT without credentials keeps the sealed value as it is")
	patch := p.Do("PATCH", "/config/credentials/"+id, tok, map[string]any{"type": "smtp-relay"})
	require.Equal(t, 200, patch.Status, string(patch.Body))
	answers = append(answers, patch)
	require.Equal(t, sealed, storedCredential(t, p, id)["credentials"], "PATCH without credentials keeps it")
	byBody := p.Do("PUT", "/config/credentials", tok, map[string]any{"_id": id, "name": "smtp-main", "type": "smtp"})
	require.Equal(t, 200, byBody.Status, string(byBody.Body))
	answers = append(answers, byBody)
	require.Equal(t, sealed, storedCredential(t, p, id)["credentials"])

	// New values are sealed anew (new IV), and replace the old ones whole.
	patch = p.Do("PATCH", "/config/credentials/"+id, tok, map[string]any{"credentials": map[string]any{"apiKey": apiKey}})
	require.Equal(t, 200, patch.Status, string(patch.Body))
	answers = append(answers, patch)
	resealed := storedCredential(t, p, id)["credentials"].(map[string]any)
	require.NotEqual(t, sealed["iv"], resealed["iv"])
	plain, err = p.Vault.Open(p.Customer.ID, id, resealed)
	require.NoError(t, err)
	require.Equal(t, map[string]any{"apiKey": apiKey}, plain)

	answers = append(answers, p.Do("DELETE", "/config/credentials/"+id, tok, nil))
	require.Equal(t, 200, answers[len(answers)-1].Status)

	for _, a := range answers {
		for _, clear := range []string{password, apiKey, "mailer", `"credentials":`, `"ct":`} {
			require.NotContains(t, string(a.Body), clear)
		}
	}
	evs := eventsOf(t, p, id)
	require.Len(t, evs, 6, "created, updated four times, deleted")
	for _, e := range evs {
		require.NotContains(t, e["data"], "credentials", "events (delivered to webhooks) carry neither the values nor the sealed form")
		for _, clear := range []string{password, apiKey, "mailer", sealed["ct"].(string), resealed["ct"].(string)} {
			require.NotContains(t, rawJSON(t, e), clear)
		}
	}
	for _, clear := range []string{password, apiKey} {
		require.NotContains(t, logs.String(), clear, "never in a log line")
	}
}

func keys(m map[string]any) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// TestCredentialValidation: required fields, the type slug, states, the
// read-only test fields, unique names; nothing invalid is stored.
func TestCredentialValidation(t *testing.T) {
	f := newFixture(t)
	p, tok := f.P, f.P.Token("config.credentials.*")
	refused := func(name string, edit func(m map[string]any), field string) scenario {
		body := smtpCredential("smtp")
		edit(body)
		return scenario{Name: name, Method: "POST", Path: "/config/credentials", Body: body, Status: 422, Field: field,
			Then: func(f *fixture, _ apitest.IDs, r *testenv.Resp) {
				require.NotContains(f.T, string(r.Body), password, "errors never repeat a value")
			}}
	}
	apitest.Run(t, f, []scenario{
		refused("missing credentials", func(m map[string]any) { delete(m, "credentials") }, "credentials"),
		refused("null credentials", func(m map[string]any) { m["credentials"] = nil }, "credentials"),
		refused("empty credentials", func(m map[string]any) { m["credentials"] = map[string]any{} }, "credentials"),
		refused("credentials not an object", func(m map[string]any) { m["credentials"] = password }, "credentials"),
		refused("too large", func(m map[string]any) { m["credentials"] = map[string]any{"pem": strings.Repeat("A", 70<<10)} }, "credentials"),
		refused("missing name", func(m map[string]any) { delete(m, "name") }, "name"),
		refused("missing type", func(m map[string]any) { delete(m, "type") }, "type"),
		refused("type not a slug", func(m map[string]any) { m["type"] = "SMTP server" }, "type"),
		refused("type with trailing hyphen", func(m map[string]any) { m["type"] = "api-" }, "type"),
		refused("unknown state", func(m map[string]any) { m["_status"] = "deleted" }, "_status"),
		refused("the state is the platform's", func(m map[string]any) { m["_status"] = "revoked" }, "_status"),
		refused("test status is the platform's", func(m map[string]any) { m["lastTestStatus"] = "ok" }, "lastTestStatus"),
		refused("test time is the platform's", func(m map[string]any) { m["lastTestedAt"] = "2026-01-01T00:00:00Z" }, "lastTestedAt"),
		refused("unknown field", func(m map[string]any) { m["secret"] = password }, "secret"),
	})
	n, err := p.Store.Collection(credentials.Collection).Count(p.Ctx(), nil)
	require.NoError(t, err)
	require.Zero(t, n, "nothing invalid was stored")

	for _, typ := range []string{"smtp", "http-basic", "api-key", "oauth2"} {
		r := p.Do("POST", "/config/credentials", tok, map[string]any{"name": "c-" + typ, "type": typ, "credentials": map[string]any{"k": "v"}})
		require.Equal(t, 201, r.Status, "%s: %s", typ, r.Body)
	}
	r := p.Do("POST", "/config/credentials", tok, smtpCredential("c-smtp"))
	require.Equal(t, 409, r.Status, "names are unique per customer: %s", r.Body)
	other, admin := p.OtherCustomer("validation-other")
	r = p.Do("POST", "/config/credentials", p.TokenFor(other.ID, admin.ID, "config.credentials.*"), smtpCredential("c-smtp"))
	require.Equal(t, 201, r.Status, "another customer may use the same name: %s", r.Body)

	id := p.Do("GET", "/config/credentials?name=c-smtp", tok, nil).List()[0]["_id"].(string)
	r = p.Do("PATCH", "/config/credentials/"+id, tok, map[string]any{"credentials": nil})
	require.Equal(t, 422, r.Status, "the values cannot be removed: %s", r.Body)
	require.Contains(t, string(r.Body), `"field":"credentials"`)
	r = p.Do("PATCH", "/config/credentials/"+id, tok, map[string]any{"type": "Bad Type"})
	require.Equal(t, 422, r.Status)
	for _, method := range []string{"PATCH", "PUT"} {
		body := smtpCredential("c-smtp")
		body["_status"] = "revoked"
		r = p.Do(method, "/config/credentials/"+id, tok, body)
		require.Equal(t, 422, r.Status, "%s: the state is the platform's: %s", method, r.Body)
		require.Contains(t, string(r.Body), `"field":"_status"`)
	}
	require.Equal(t, "active", p.Do("GET", "/config/credentials/"+id, tok, nil).Payload()["_status"], "the state did not move")
}

// TestDecrypt: decrypt needs its own right, answers the clear values and
// writes an audit record; no event is emitted.
func TestDecrypt(t *testing.T) {
	f := newFixture(t)
	p := f.P
	editor := p.Token("config.credentials.view", "config.credentials.create", "config.credentials.edit", "config.credentials.delete")
	r := p.Do("POST", "/config/credentials", editor, smtpCredential("smtp"))
	require.Equal(t, 201, r.Status, string(r.Body))
	id := r.Payload()["_id"].(string)
	for _, a := range r.Meta()["actions"].([]any) {
		require.NotEqual(t, "DECRYPT", a.(map[string]any)["action"], "decrypt is offered only to callers holding its right")
	}

	decrypt := func(name string, scopes []string, status int) scenario {
		return scenario{Name: name, Method: "POST", Path: "/config/credentials/" + id + "/actions/decrypt", Scopes: scopes, Body: map[string]any{}, Status: status}
	}
	refused := func(name string, scopes ...string) scenario {
		sc := decrypt(name, scopes, 403)
		sc.Codes = []string{"auth.scope"}
		sc.Then = func(f *fixture, _ apitest.IDs, r *testenv.Resp) { require.NotContains(f.T, string(r.Body), password) }
		return sc
	}
	decrypts := func(name string, scopes ...string) scenario {
		sc := decrypt(name, scopes, 200)
		sc.Then = func(f *fixture, _ apitest.IDs, r *testenv.Resp) {
			got := r.Payload()
			require.Equal(f.T, id, got["_id"])
			require.Equal(f.T, "smtp", got["name"])
			require.Equal(f.T, map[string]any{"host": "smtp.example.com", "port": float64(587), "username": "mailer", "password": password}, got["credentials"])
		}
		return sc
	}
	apitest.Run(t, f, []scenario{
		refused("view, create, edit and delete are not enough", "config.credentials.view", "config.credentials.create", "config.credentials.edit", "config.credentials.delete"),
		refused("another module's rights", "crm.*"),
		decrypts("the decrypt right", "config.credentials.decrypt"),
		refused("config.* does not give the admin-only right", "config.*"),
		refused("config.credentials.* does not give it", "config.credentials.*"),
		refused("* does not give it", "*"),
	})
	// Without a body as well (the action takes none).
	r = p.Do("POST", "/config/credentials/"+id+"/actions/decrypt", p.Token("config.credentials.decrypt"), nil)
	require.Equal(t, 200, r.Status, string(r.Body))

	recs, err := p.Store.Collection(trail.Collection).Find(p.Ctx(), store.FindOptions{Filter: query.Eq("action", "config.credentials.decrypt")})
	require.NoError(t, err)
	require.Len(t, recs, 2, "one audit record per successful decrypt; refusals decrypt nothing")
	for _, rec := range recs {
		require.Equal(t, id, rec["target"])
		require.Equal(t, p.Admin.ID, rec["actor"])
		require.Equal(t, "user", rec["actorType"])
		require.Equal(t, trail.Success, rec["outcome"])
		require.Equal(t, "smtp", rec["details"].(map[string]any)["name"])
		require.NotEmpty(t, rec["debugId"])
		require.NotContains(t, rawJSON(t, rec), password, "the audit trail names the credential, not its values")
	}
	// The trail is readable through the audit module.
	trail := p.Do("GET", "/audit/auditrecords?action=config.credentials.decrypt", p.Token("audit.*"), nil)
	require.Equal(t, 200, trail.Status)
	require.Len(t, trail.List(), 2)

	evs := eventsOf(t, p, id)
	require.Len(t, evs, 1, "only credentials.created: decrypt emits no event")
	require.Equal(t, "credentials.created", evs[0]["name"])
}

// TestDecryptRefusesTamperedValues: a sealed value altered in the store, or
// copied from another record, does not decrypt; the failure is audited.
func TestDecryptRefusesTamperedValues(t *testing.T) {
	t.Parallel()
	p := testenv.NewPlatform(t, testenv.Options{})
	tok := p.Token("config.credentials.*", "config.credentials.decrypt")
	create := func(name string) string {
		r := p.Do("POST", "/config/credentials", tok, smtpCredential(name))
		require.Equal(t, 201, r.Status, string(r.Body))
		return r.Payload()["_id"].(string)
	}
	a, b := create("a"), create("b")
	coll := p.Store.Collection(credentials.Collection)
	sealedA := storedCredential(t, p, a)["credentials"].(map[string]any)

	ct, _ := base64.StdEncoding.DecodeString(sealedA["ct"].(string))
	ct[3] ^= 0x20
	flipped := map[string]any{"v": sealedA["v"], "iv": sealedA["iv"], "tag": sealedA["tag"], "ct": base64.StdEncoding.EncodeToString(ct)}
	_, err := coll.Update(p.Ctx(), query.ID(a), store.Update{Set: store.Doc{"credentials": flipped}})
	require.NoError(t, err)
	_, err = coll.Update(p.Ctx(), query.ID(b), store.Update{Set: store.Doc{"credentials": sealedA}})
	require.NoError(t, err)

	for _, id := range []string{a, b} {
		r := p.Do("POST", "/config/credentials/"+id+"/actions/decrypt", tok, map[string]any{})
		require.Equal(t, 500, r.Status, string(r.Body))
		require.Contains(t, string(r.Body), "cannot be decrypted")
		require.NotContains(t, string(r.Body), password)
	}
	recs, err := p.Store.Collection(trail.Collection).Find(p.Ctx(), store.FindOptions{Filter: query.Eq("outcome", trail.Failure)})
	require.NoError(t, err)
	require.Len(t, recs, 2)
	_, err = p.Vault.Secrets(p.Ctx(), p.Store, []string{"a", "b"})
	require.ErrorIs(t, err, credentials.ErrAuth, "secrets fail rather than silently leave one out")
	require.NotContains(t, err.Error(), password)
}

// TestCredentialsIsolatedByCustomer: another customer sees none of them and
// cannot act on them, even with every right.
func TestCredentialsIsolatedByCustomer(t *testing.T) {
	t.Parallel()
	p := testenv.NewPlatform(t, testenv.Options{})
	admin := []string{"config.*", "config.credentials.decrypt", "config.credentials.delete"}
	tok := p.Token(admin...)
	r := p.Do("POST", "/config/credentials", tok, smtpCredential("smtp"))
	require.Equal(t, 201, r.Status, string(r.Body))
	id := r.Payload()["_id"].(string)

	other, otherAdmin := p.OtherCustomer("isolated")
	otok := p.TokenFor(other.ID, otherAdmin.ID, append(admin, "*")...)
	require.Equal(t, 404, p.Do("GET", "/config/credentials/"+id, otok, nil).Status)
	require.Empty(t, p.Do("GET", "/config/credentials", otok, nil).List())
	require.Equal(t, 404, p.Do("POST", "/config/credentials/"+id+"/actions/decrypt", otok, map[string]any{}).Status)
	require.Equal(t, 404, p.Do("PATCH", "/config/credentials/"+id, otok, map[string]any{"credentials": map[string]any{"password": "x"}}).Status)
	require.Equal(t, 404, p.Do("PUT", "/config/credentials/"+id, otok, smtpCredential("smtp")).Status)
	require.Equal(t, 404, p.Do("DELETE", "/config/credentials/"+id, otok, nil).Status)
	require.Equal(t, 200, p.Do("POST", "/config/credentials/"+id+"/actions/decrypt", tok, map[string]any{}).Status, "the owner still decrypts")

	// A sealed value copied into the other customer's record does not open there.
	r = p.Do("POST", "/config/credentials", otok, map[string]any{"name": "mine", "type": "api-key", "credentials": map[string]any{"key": "k"}})
	require.Equal(t, 201, r.Status, string(r.Body))
	oid := r.Payload()["_id"].(string)
	sealed := storedCredential(t, p, id)["credentials"]
	octx := tenant.WithCustomer(p.Ctx(), other.ID)
	_, err := p.Store.Collection(credentials.Collection).Update(octx, query.ID(oid), store.Update{Set: store.Doc{"credentials": sealed}})
	require.NoError(t, err)
	r = p.Do("POST", "/config/credentials/"+oid+"/actions/decrypt", otok, map[string]any{})
	require.Equal(t, 500, r.Status)
	require.NotContains(t, string(r.Body), password)
}

// TestSecrets: pipelines get the named active credentials of their
// customer, decrypted and keyed by name, and the strings to redact; a
// credential not named is not opened.
func TestSecrets(t *testing.T) {
	t.Parallel()
	p := testenv.NewPlatform(t, testenv.Options{})
	tok := p.Token("config.credentials.*")
	post := func(tok string, body map[string]any) {
		r := p.Do("POST", "/config/credentials", tok, body)
		require.Equal(t, 201, r.Status, string(r.Body))
	}
	post(tok, smtpCredential("smtp"))
	post(tok, map[string]any{"name": "crm-api", "type": "api-key", "credentials": map[string]any{"key": apiKey, "scopes": []any{"read", "write"}}})
	post(tok, map[string]any{"name": "old", "type": "api-key", "credentials": map[string]any{"key": "expired-key"}})
	post(tok, map[string]any{"name": "gone", "type": "api-key", "credentials": map[string]any{"key": "revoked-key"}})
	// Only the platform moves _status (the credential commands); here the
	// test stands in for them.
	setStatus(t, p, "old", credentials.StatusExpired)
	setStatus(t, p, "gone", credentials.StatusRevoked)
	other, admin := p.OtherCustomer("secrets-other")
	post(p.TokenFor(other.ID, admin.ID, "config.credentials.*"), map[string]any{"name": "theirs", "type": "api-key", "credentials": map[string]any{"key": "their-key"}})

	all := []string{"smtp", "crm-api", "old", "gone", "theirs", "unknown"}
	got, err := p.Vault.Secrets(p.Ctx(), p.Store, all)
	require.NoError(t, err)
	require.Equal(t, map[string]any{
		"smtp":    map[string]any{"host": "smtp.example.com", "port": int64(587), "username": "mailer", "password": password},
		"crm-api": map[string]any{"key": apiKey, "scopes": []any{"read", "write"}},
	}, got)
	require.Equal(t, []string{apiKey, password, "smtp.example.com", "mailer", "write", "read"}, credentials.Leaves(got))

	only, err := p.Vault.Secrets(p.Ctx(), p.Store, []string{"crm-api"})
	require.NoError(t, err)
	require.Equal(t, map[string]any{"crm-api": map[string]any{"key": apiKey, "scopes": []any{"read", "write"}}}, only, "only the named credential is opened")

	theirs, err := p.Vault.Secrets(tenant.WithCustomer(p.Ctx(), other.ID), p.Store, all)
	require.NoError(t, err)
	require.Equal(t, map[string]any{"theirs": map[string]any{"key": "their-key"}}, theirs)

	_, err = p.Vault.Secrets(t.Context(), p.Store, all)
	require.ErrorIs(t, err, tenant.ErrMissing, "a customer is required")
}

// TestWithoutMasterKey: a process without a key (a role against a real
// MongoDB without PLATFORM_MASTER_KEY) starts; credentials are listed but
// not created or decrypted, with an answer naming the setting.
func TestWithoutMasterKey(t *testing.T) {
	t.Parallel()
	p := testenv.NewPlatform(t, testenv.Options{Configure: func(c *settings.Config) {
		c.MasterKey, c.MongoURI, c.DataDir = "", "mongodb://external.invalid", t.TempDir()
	}})
	require.Nil(t, p.Vault)
	tok := p.Token("config.*")
	require.Equal(t, 200, p.Do("GET", "/config/credentials", tok, nil).Status)
	r := p.Do("POST", "/config/credentials", tok, smtpCredential("smtp"))
	require.Equal(t, 503, r.Status, string(r.Body))
	require.Contains(t, string(r.Body), "PLATFORM_MASTER_KEY")
	_, err := p.Vault.Secrets(p.Ctx(), p.Store, []string{"smtp"})
	require.ErrorIs(t, err, credentials.ErrNoMasterKey)
}

// TestGeneratedMasterKey: on the embedded store without the setting, the
// key is generated into <data>/master.key and reused by the next start.
func TestGeneratedMasterKey(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	embedded := func(c *settings.Config) { c.MasterKey, c.MongoURI, c.DataDir = "", "", data }
	p := testenv.NewPlatform(t, testenv.Options{Store: "sqlite", Configure: embedded})
	require.NotNil(t, p.Vault)
	st, err := os.Stat(filepath.Join(data, "master.key"))
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), st.Mode().Perm())
	key, err := credentials.LoadOrCreateMasterKey(p.Config)
	require.NoError(t, err)
	v, err := credentials.NewVault(key)
	require.NoError(t, err)
	require.Equal(t, p.Vault.KeyID(), v.KeyID(), "the file holds the key in use")
}

// setStatus moves a credential's _status as the platform's commands do.
func setStatus(t *testing.T, p *testenv.Platform, name, status string) {
	t.Helper()
	r := p.Registry.Get("config", credentials.Collection)
	_, err := p.Service.Apply(p.Ctx(), r, query.Eq("name", name), resource.Change{Set: store.Doc{"_status": status}})
	require.NoError(t, err)
}
