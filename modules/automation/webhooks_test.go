package automation_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"platform/kernel/events"
	"platform/kernel/query"
	"platform/kernel/store"
	"platform/modules/automation/webhook"
	"platform/test/apitest"
	"platform/test/testenv"
)

const secret = "s3cr3t-0123456789-abcdefghij-KLMNOP" // 35 characters

func validHook(url string) map[string]any {
	return map[string]any{"name": "CRM sync", "url": url, "events": []string{"consumers.created"}}
}

func TestWebhookValidation(t *testing.T) {
	f := newFixture(t)
	p := f.P
	tok := p.Token("automation.*")
	post := func(body map[string]any) *testenv.Resp { return p.Do("POST", "/automation/webhooks", tok, body) }
	refused := func(name string, edit func(m map[string]any), field string) scenario {
		body := validHook("https://example.com/hook")
		edit(body)
		return scenario{Name: name, Method: "POST", Path: "/automation/webhooks", Body: body, Status: 422, Field: field}
	}
	apitest.Run(t, f, []scenario{
		refused("unknown event", func(m map[string]any) { m["events"] = []string{"consumers.exploded"} }, "events[0]"),
		refused("unknown wildcard", func(m map[string]any) { m["events"] = []string{"consumers.created", "nothing.*"} }, "events[1]"),
		refused("suffix wildcard", func(m map[string]any) { m["events"] = []string{"*.created"} }, "events[0]"),
		refused("no events", func(m map[string]any) { m["events"] = []string{} }, "events"),
		refused("short secret", func(m map[string]any) { m["secret"] = strings.Repeat("x", 31) }, "secret"),
		refused("Host header", func(m map[string]any) { m["headers"] = map[string]any{"Host": "evil.example"} }, "headers.Host"),
		refused("hop-by-hop", func(m map[string]any) { m["headers"] = map[string]any{"Connection": "close"} }, "headers.Connection"),
		refused("length", func(m map[string]any) { m["headers"] = map[string]any{"Content-Length": "1"} }, "headers.Content-Length"),
		refused("signature", func(m map[string]any) { m["headers"] = map[string]any{"X-Platform-Signature": "sha256=00"} }, "headers.X-Platform-Signature"),
		refused("standard webhooks", func(m map[string]any) { m["headers"] = map[string]any{"webhook-signature": "v1,x"} }, "headers.webhook-signature"),
		refused("header injection", func(m map[string]any) { m["headers"] = map[string]any{"X-A": "a\r\nX-B: b"} }, "headers.X-A"),
		refused("number value", func(m map[string]any) { m["headers"] = map[string]any{"X-A": 1} }, "headers.X-A"),
		refused("not a URL", func(m map[string]any) { m["url"] = "ftp://example.com/x" }, "url"),
		refused("missing name", func(m map[string]any) { delete(m, "name") }, "name"),
	})

	r := post(validHook("http://127.0.0.1:9/hook"))
	require.Equal(t, 201, r.Status, "saved: the operator may open it with PLATFORM_OUTBOUND_ALLOW")
	requireRefusalWarning(t, r, "url")
	r = p.Do("PATCH", "/automation/webhooks/"+r.Payload()["_id"].(string), tok, map[string]any{"url": "https://example.com/hook"})
	require.Equal(t, 200, r.Status, string(r.Body))
	require.Nil(t, r.Meta()["warnings"], "a host name is checked when called")

	body := validHook("https://example.com/hook")
	body["events"] = []string{"consumers.*", "*", "tasks.assigned", "webhooks.created"}
	body["headers"] = map[string]any{"Authorization": "Bearer receiver-token", "X-Tenant": "acme"}
	r = post(body)
	require.Equal(t, 201, r.Status, string(r.Body))
	rec := r.Payload()
	require.Equal(t, true, rec["active"], "active defaults to true")
	require.Equal(t, false, rec["signed"])
	require.Equal(t, "acme", rec["headers"].(map[string]any)["X-Tenant"])
}

// TestSecretNeverReturned: the secret is accepted and used but no answer,
// format, projection, filter or event ever carries it.
func TestSecretNeverReturned(t *testing.T) {
	t.Parallel()
	p := testenv.NewPlatform(t, testenv.Options{})
	tok := p.Token("automation.*")
	body := validHook("https://example.com/hook")
	body["secret"] = secret
	r := p.Do("POST", "/automation/webhooks", tok, body)
	require.Equal(t, 201, r.Status, string(r.Body))
	id := r.Payload()["_id"].(string)
	require.Equal(t, true, r.Payload()["signed"])
	answers := []*testenv.Resp{r}
	for _, path := range []string{
		"/automation/webhooks/" + id, "/automation/webhooks", "/automation/webhooks?format=csv", "/automation/webhooks?format=yaml",
		"/automation/webhooks/" + id + "?fields=secret,name", "/automation/webhooks?fields=secret",
	} {
		answers = append(answers, p.Do("GET", path, tok, nil))
	}
	answers = append(answers, p.Do("GET", "/automation/webhooks?secret="+secret, tok, nil))
	require.Equal(t, 400, answers[len(answers)-1].Status, "the secret cannot be filtered on (an oracle)")

	// A PUT that does not name the secret keeps it; PATCH null removes it.
	put := validHook("https://example.com/other")
	answers = append(answers, p.Do("PUT", "/automation/webhooks/"+id, tok, put))
	require.Equal(t, 200, answers[len(answers)-1].Status)
	require.Equal(t, true, answers[len(answers)-1].Payload()["signed"])
	stored, err := p.Store.Collection(webhook.Collection).Get(p.Ctx(), id)
	require.NoError(t, err)
	plain, err := p.Vault.Open(p.Customer.ID, id, stored["secret"].(store.Doc))
	require.NoError(t, err)
	require.Equal(t, secret, plain["secret"], "kept in the store, sealed, for signing")
	answers = append(answers, p.Do("PATCH", "/automation/webhooks/"+id, tok, map[string]any{"secret": nil}))
	require.Equal(t, false, answers[len(answers)-1].Payload()["signed"])
	answers = append(answers, p.Do("DELETE", "/automation/webhooks/"+id, tok, nil))

	require.NotContains(t, string(answers[3].Body), "secret", "no CSV column either")
	for _, a := range answers {
		require.NotContains(t, string(a.Body), secret)
		require.NotContains(t, string(a.Body), `"secret":`, "no secret key in any answer")
	}
	evs, err := p.Store.Collection(events.Collection).Find(p.Ctx(), store.FindOptions{Filter: query.Eq("data._id", id)})
	require.NoError(t, err)
	require.Len(t, evs, 4, "created, updated twice, deleted")
	for _, e := range evs {
		require.NotContains(t, e["data"], "secret", "events (delivered to other webhooks) never carry it")
	}
}

// TestWebhooksIsolatedByCustomer: another customer sees none of the
// webhooks, deliveries or parked deliveries, and cannot act on them.
func TestWebhooksIsolatedByCustomer(t *testing.T) {
	t.Parallel()
	p := testenv.NewPlatform(t, testenv.Options{})
	tok := p.Token("automation.*")
	r := p.Do("POST", "/automation/webhooks", tok, validHook("https://example.com/hook"))
	require.Equal(t, 201, r.Status)
	id := r.Payload()["_id"].(string)
	retryID := webhook.RetryRecordID(webhook.DeliveryID(store.NewID(), id))
	require.NoError(t, p.Store.Collection(webhook.RetriesCollection).Insert(p.Ctx(), store.Doc{
		"_id": retryID, "webhook": id, "event": store.NewID(), "status": webhook.StatusParked, "round": int64(0)}))

	other, admin := p.OtherCustomer("isolated")
	otok := p.TokenFor(other.ID, admin.ID, "automation.*")
	for _, path := range []string{"/automation/webhooks/" + id, "/automation/webhooks/" + id + "/deliveries", "/automation/webhookretries/" + retryID} {
		require.Equal(t, 404, p.Do("GET", path, otok, nil).Status, path)
	}
	require.Empty(t, p.Do("GET", "/automation/webhooks", otok, nil).List())
	require.Empty(t, p.Do("GET", "/automation/webhookretries", otok, nil).List())
	require.Equal(t, 404, p.Do("POST", "/automation/webhookretries/"+retryID+"/actions/retry", otok, map[string]any{}).Status)
	require.Equal(t, 404, p.Do("PATCH", "/automation/webhooks/"+id, otok, map[string]any{"active": false}).Status)
	require.Equal(t, 404, p.Do("DELETE", "/automation/webhooks/"+id, otok, nil).Status)
	require.Len(t, p.Do("GET", "/automation/webhookretries", tok, nil).List(), 1, "the owner still sees its record")
	require.Equal(t, 403, p.Do("GET", "/automation/webhooks", p.Token("crm.*"), nil).Status, "rights are per resource")
}

// TestWebhookSecretIsSealedAtRest: the store holds the secret encrypted
// with the customer's key, bound to the webhook; deliveries still sign
// with it (see the delivery tests, which verify every signature).
func TestWebhookSecretIsSealedAtRest(t *testing.T) {
	t.Parallel()
	p := testenv.NewPlatform(t, testenv.Options{})
	tok := p.Token("automation.*")
	body := validHook("https://example.com/hook")
	body["secret"] = secret
	r := p.Do("POST", "/automation/webhooks", tok, body)
	require.Equal(t, 201, r.Status, "%s", r.Body)
	require.NotContains(t, string(r.Body), secret)
	id := r.Payload()["_id"].(string)
	raw, err := p.Store.Collection(webhook.Collection).Get(p.Ctx(), id)
	require.NoError(t, err)
	sealed, ok := raw["secret"].(store.Doc)
	require.True(t, ok, "sealed, not a string: %v", raw["secret"])
	require.NotContains(t, fmt.Sprint(sealed), secret)
	plain, err := p.Vault.Open(p.Customer.ID, id, sealed)
	require.NoError(t, err)
	require.Equal(t, secret, plain["secret"])
	_, err = p.Vault.Open(p.Customer.ID, store.NewID(), sealed)
	require.Error(t, err, "bound to this webhook")

	// A PUT without the secret keeps the sealed one; a new one is sealed anew.
	delete(body, "secret")
	require.Equal(t, 200, p.Do("PUT", "/automation/webhooks/"+id, tok, body).Status)
	raw, _ = p.Store.Collection(webhook.Collection).Get(p.Ctx(), id)
	require.Equal(t, sealed, raw["secret"])
	require.Equal(t, true, raw["signed"])
	short := p.Do("PATCH", "/automation/webhooks/"+id, tok, map[string]any{"secret": "short"})
	require.Equal(t, 422, short.Status, "a new secret is still checked")
}

// requireRefusalWarning checks that a save answered the warning that
// calls to the URL in field will be refused.
func requireRefusalWarning(t *testing.T, r *testenv.Resp, field string) {
	t.Helper()
	warnings, _ := r.Meta()["warnings"].([]any)
	require.Len(t, warnings, 1, "meta.warnings of %s", r.Body)
	w := warnings[0].(map[string]any)
	require.Equal(t, "outbound.refused", w["code"])
	require.Equal(t, field, w["field"])
	require.Contains(t, w["message"], "will be refused")
	require.Contains(t, w["message"], "PLATFORM_OUTBOUND_ALLOW")
}
