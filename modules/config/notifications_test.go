package config_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"platform/kernel/events"
	"platform/kernel/obs"
	"platform/kernel/query"
	"platform/kernel/settings"
	"platform/kernel/store"
	"platform/modules/config/channels"
	"platform/modules/config/notification"
	"platform/test/testenv"
	"platform/workflows/contract"
)

// hookToken is the secret part of the Slack-shaped webhook URLs: it must
// appear in no answer, event or stored record in clear.
const hookToken = "T0001/B0002/hook-secret-9f8e7d"

// chatServer is a local Slack-shaped incoming webhook that records the
// texts it is sent and answers status.
type chatServer struct {
	mu     sync.Mutex
	texts  []string
	status int
	URL    string
}

func startChat(t *testing.T, status int) *chatServer {
	t.Helper()
	c := &chatServer{status: status}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			Text string `json:"text"`
		}
		raw, _ := io.ReadAll(r.Body)
		if r.URL.Path != "/services/"+hookToken || json.Unmarshal(raw, &body) != nil || body.Text == "" {
			w.WriteHeader(http.StatusBadRequest)
			_, _ = io.WriteString(w, "invalid_payload")
			return
		}
		c.mu.Lock()
		c.texts = append(c.texts, body.Text)
		c.mu.Unlock()
		w.WriteHeader(c.status)
	}))
	t.Cleanup(srv.Close)
	c.URL = srv.URL + "/services/" + hookToken
	return c
}

func (c *chatServer) received() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.texts...)
}

var notificationRights = []string{
	"config.notificationchannels.view", "config.notificationchannels.create", "config.notificationchannels.edit", "config.notificationchannels.delete",
	"config.notificationtemplates.view", "config.notificationtemplates.create", "config.notificationtemplates.edit", "config.notificationtemplates.delete",
	"config.notificationroutes.view", "config.notificationroutes.create", "config.notificationroutes.edit", "config.notificationroutes.delete",
	"config.notificationroutes.test", "config.notificationdeliveries.view", "crm.consumers.create",
}

// notifyPlatform runs a worker, lets the channels reach local servers and
// retries a failing notification 3 times, 100 ms apart at first.
func notifyPlatform(t *testing.T, logs *testenv.SyncBuffer) (*testenv.Platform, string) {
	p := testenv.NewPlatform(t, testenv.Options{Worker: true, Logger: obs.NewLogger(logs, "debug"), Configure: func(c *settings.Config) {
		c.OutboundAllow = []string{"127.0.0.1"}
		c.NotifyAttempts, c.NotifyFirstRetry = 3, 100*time.Millisecond
	}})
	p.CheckOpenAPI("config")
	return p, p.Token(notificationRights...)
}

func create(t *testing.T, p *testenv.Platform, tok, path string, body map[string]any) string {
	t.Helper()
	r := p.Do("POST", path, tok, body)
	require.Equal(t, 201, r.Status, "%s: %s", path, r.Body)
	return r.Payload()["_id"].(string)
}

func TestNotifications(t *testing.T) {
	t.Parallel()
	logs := &testenv.SyncBuffer{}
	p, tok := notifyPlatform(t, logs)
	ok := startChat(t, http.StatusOK)
	tpl := create(t, p, tok, "/config/notificationtemplates", map[string]any{"name": "signup", "kind": "slack",
		"subject": "New consumer", "body": "{{data.email}} signed up ({{event.name}})"})
	ch := create(t, p, tok, "/config/notificationchannels", map[string]any{"name": "sales", "kind": "slack",
		"secrets": map[string]any{"webhookUrl": ok.URL}})

	t.Run("secrets are sealed and never shown", func(t *testing.T) {
		stored := p.Stored(notification.Channels, ch)
		require.NotContains(t, rawJSON(t, stored), hookToken)
		plain, err := p.Vault.Open(p.Customer.ID, ch, stored["secrets"].(map[string]any))
		require.NoError(t, err)
		require.Equal(t, ok.URL, plain["webhookUrl"])
		for _, path := range []string{"/config/notificationchannels/" + ch, "/config/notificationchannels", "/config/notificationchannels?format=csv"} {
			r := p.Do("GET", path, tok, nil)
			require.Equal(t, 200, r.Status)
			require.NotContains(t, string(r.Body), hookToken, path)
			require.NotContains(t, string(r.Body), `"secrets"`, path)
		}
		patch := p.Do("PATCH", "/config/notificationchannels/"+ch, tok, map[string]any{"description": "the sales team"})
		require.Equal(t, 200, patch.Status, string(patch.Body))
		require.Equal(t, stored["secrets"], p.Stored(notification.Channels, ch)["secrets"], "kept when not sent")
		evs, err := p.Store.Collection(events.Collection).Find(p.Ctx(), store.FindOptions{Filter: query.Eq("data._id", ch)})
		require.NoError(t, err)
		require.NotEmpty(t, evs)
		require.NotContains(t, rawJSON(t, evs), hookToken)
	})

	t.Run("settings are checked per kind", func(t *testing.T) {
		r := p.Do("POST", "/config/notificationchannels", tok, map[string]any{"name": "tg", "kind": "telegram",
			"settings": map[string]any{"chatId": "not a chat", "botToken": "123:abc"}})
		require.Equal(t, 422, r.Status, string(r.Body))
		for _, f := range []string{"settings.chatId", "settings.botToken", "secrets.botToken"} {
			require.Contains(t, string(r.Body), `"field":"`+f+`"`)
		}
		r = p.Do("PATCH", "/config/notificationchannels/"+ch, tok, map[string]any{"kind": "teams"})
		require.Equal(t, 422, r.Status, "a new kind needs its secrets: %s", r.Body)
		moved := create(t, p, tok, "/config/notificationchannels", map[string]any{"name": "moved", "kind": "discord", "secrets": map[string]any{"webhookUrl": "https://discord.example/api/webhooks/1/x"}})
		r = p.Do("PATCH", "/config/notificationchannels/"+moved, tok, map[string]any{"kind": "inapp", "settings": map[string]any{"recipients": []any{p.Admin.ID}}})
		require.Equal(t, 200, r.Status, "a kind without secrets drops the old ones: %s", r.Body)
		require.NotContains(t, p.Stored(notification.Channels, moved), "secrets")
	})

	t.Run("template syntax errors are 422", func(t *testing.T) {
		r := p.Do("POST", "/config/notificationtemplates", tok, map[string]any{"name": "broken", "kind": "slack", "body": "Hi\n{{#if data.vip}}VIP"})
		require.Equal(t, 422, r.Status, string(r.Body))
		require.Contains(t, r.ErrorCodes(), "validation.syntax")
		require.Contains(t, string(r.Body), `"field":"body"`)
		r = p.Do("PATCH", "/config/notificationtemplates/"+tpl, tok, map[string]any{"subject": "{{/each}}"})
		require.Equal(t, 422, r.Status, string(r.Body))
	})

	t.Run("preview renders a sample without escaping", func(t *testing.T) {
		r := p.Do("POST", "/config/notificationtemplates/"+tpl+"/actions/preview", tok, map[string]any{"data": map[string]any{"email": "tom&jerry@example.com"}})
		require.Equal(t, 200, r.Status, string(r.Body))
		require.Equal(t, "tom&jerry@example.com signed up (consumers.created)", r.Payload()["body"])
		require.Equal(t, "New consumer", r.Payload()["subject"])
	})

	t.Run("routes check pattern, filter and kinds", func(t *testing.T) {
		teamsTpl := create(t, p, tok, "/config/notificationtemplates", map[string]any{"name": "teams", "kind": "teams", "body": "x"})
		for name, body := range map[string]map[string]any{
			"kind mismatch": {"name": "r", "event": "consumers.created", "template": teamsTpl, "channel": ch},
			"bad pattern":   {"name": "r", "event": "nothing.here", "template": tpl, "channel": ch},
			"bad filter":    {"name": "r", "event": "consumers.*", "filter": map[string]any{"$nope": 1}, "template": tpl, "channel": ch},
			"no channel":    {"name": "r", "event": "consumers.*", "template": tpl, "channel": "0123456789abcdef01234567"},
		} {
			r := p.Do("POST", "/config/notificationroutes", tok, body)
			require.Equal(t, 422, r.Status, "%s: %s", name, r.Body)
		}
	})

	t.Run("the test action sends through the real channel", func(t *testing.T) {
		route := create(t, p, tok, "/config/notificationroutes", map[string]any{"name": "test-only", "event": "consumers.updated",
			"template": tpl, "channel": ch, "enabled": false})
		before := len(ok.received())
		r := p.Do("POST", "/config/notificationroutes/"+route+"/actions/test", tok, map[string]any{})
		require.Equal(t, 200, r.Status, string(r.Body))
		require.Equal(t, "delivered", r.Payload()["status"])
		require.Equal(t, "New consumer\nada@example.com signed up (consumers.updated)", ok.received()[before])

		bad := startChat(t, http.StatusServiceUnavailable)
		badCh := create(t, p, tok, "/config/notificationchannels", map[string]any{"name": "down", "kind": "slack", "secrets": map[string]any{"webhookUrl": bad.URL}})
		require.Equal(t, 200, p.Do("PATCH", "/config/notificationroutes/"+route, tok, map[string]any{"channel": badCh}).Status)
		r = p.Do("POST", "/config/notificationroutes/"+route+"/actions/test", tok, map[string]any{})
		require.Equal(t, 200, r.Status, string(r.Body))
		require.Equal(t, "failed", r.Payload()["status"])
		require.Equal(t, true, r.Payload()["retryable"])
		require.Contains(t, r.Payload()["error"], "503")
		require.NotContains(t, string(r.Body), hookToken)

		noTest := p.Token("config.notificationroutes.view", "config.notificationroutes.edit")
		require.Equal(t, 403, p.Do("POST", "/config/notificationroutes/"+route+"/actions/test", noTest, map[string]any{}).Status)
		require.Equal(t, 409, p.Do("DELETE", "/config/notificationchannels/"+badCh, tok, nil).Status, "a routed channel stays")
	})

	t.Run("other customers see nothing", func(t *testing.T) {
		other, admin := p.OtherCustomer("notify-other")
		otherTok := p.TokenFor(other.ID, admin.ID, notificationRights...)
		require.Equal(t, 404, p.Do("GET", "/config/notificationchannels/"+ch, otherTok, nil).Status)
		require.Equal(t, 404, p.Do("POST", "/config/notificationtemplates/"+tpl+"/actions/preview", otherTok, map[string]any{}).Status)
		r := p.Do("GET", "/config/notificationchannels", otherTok, nil)
		require.Equal(t, 200, r.Status)
		require.Empty(t, r.List())
		r = p.Do("POST", "/config/notificationroutes", otherTok, map[string]any{"name": "steal", "event": "*", "template": tpl, "channel": ch})
		require.Equal(t, 422, r.Status, "another customer's template and channel do not exist for it")
	})

	t.Run("routed notifications", func(t *testing.T) { routed(t, p, tok, ok, tpl, ch) })
	require.NotContains(t, logs.String(), hookToken, "no secret in the logs")
	require.Contains(t, logs.String(), "notification not sent", "the failures were logged")
}

// routed: a consumer written → the route matches → the Slack-shaped
// server receives the rendered text → the delivery is recorded delivered;
// a filter that does not hold sends nothing; a failing channel is retried
// and recorded failed; an in-app channel writes a record per recipient.
func routed(t *testing.T, p *testenv.Platform, tok string, ok *chatServer, tpl, ch string) {
	vip := create(t, p, tok, "/config/notificationroutes", map[string]any{"name": "ada", "event": "consumers.created",
		"filter": map[string]any{"email": "ada@example.com"}, "template": tpl, "channel": ch})
	down := startChat(t, http.StatusServiceUnavailable)
	downCh := create(t, p, tok, "/config/notificationchannels", map[string]any{"name": "down2", "kind": "slack", "secrets": map[string]any{"webhookUrl": down.URL}})
	failing := create(t, p, tok, "/config/notificationroutes", map[string]any{"name": "failing", "event": "consumers.*",
		"filter": map[string]any{"email": "fail@example.com"}, "template": tpl, "channel": downCh})
	inappTpl := create(t, p, tok, "/config/notificationtemplates", map[string]any{"name": "inapp", "kind": "inapp", "subject": "Hello", "body": "{{data.email}}"})
	inappCh := create(t, p, tok, "/config/notificationchannels", map[string]any{"name": "bell", "kind": "inapp",
		"settings": map[string]any{"recipients": []any{p.Admin.ID}}})
	inappRoute := create(t, p, tok, "/config/notificationroutes", map[string]any{"name": "bell", "event": "consumers.created",
		"filter": map[string]any{"email": "inapp@example.com"}, "template": inappTpl, "channel": inappCh})
	before := len(ok.received())

	bob := consumerEvent(t, p, tok, "bob@example.com")
	ada := consumerEvent(t, p, tok, "ada@example.com")
	rec := p.EventuallyStored(notification.Deliveries, notification.DeliveryID(vip, ada), func(d store.Doc) bool { return d["status"] == "delivered" }, "ada's notification delivered")
	require.EqualValues(t, 1, rec["attempts"])
	require.Equal(t, ch, rec["channel"])
	require.Equal(t, []string{"New consumer\nada@example.com signed up (consumers.created)"}, ok.received()[before:])
	r := p.Do("GET", "/config/notificationdeliveries?route="+vip, tok, nil)
	require.Equal(t, 200, r.Status, string(r.Body))
	require.Len(t, r.List(), 1)
	r = p.Do("GET", "/config/notificationroutes/"+vip+"/deliveries", tok, nil)
	require.Equal(t, 200, r.Status, string(r.Body))
	require.Len(t, r.List(), 1)
	require.Equal(t, "delivered", r.List()[0]["status"])

	p.EventuallyStored(events.Collection, bob, func(d store.Doc) bool { return d["dispatched"] == true }, "bob's event dispatched")
	_, err := p.Store.Collection(notification.Deliveries).Get(p.Ctx(), notification.DeliveryID(vip, bob))
	require.ErrorIs(t, err, store.ErrNotFound, "the filter does not hold for bob: nothing sent")

	fail := consumerEvent(t, p, tok, "fail@example.com")
	rec = p.EventuallyStored(notification.Deliveries, notification.DeliveryID(failing, fail), func(d store.Doc) bool { return d["status"] == "failed" }, "recorded failed")
	require.EqualValues(t, 3, rec["attempts"])
	require.Contains(t, rec["lastError"], "503")
	require.Len(t, down.received(), 3, "sent 3 times")
	p.AwaitWorkflow(contract.NotificationWorkflowID(failing, fail))

	gone := startChat(t, http.StatusNotFound)
	goneCh := create(t, p, tok, "/config/notificationchannels", map[string]any{"name": "gone", "kind": "slack", "secrets": map[string]any{"webhookUrl": gone.URL}})
	goneRoute := create(t, p, tok, "/config/notificationroutes", map[string]any{"name": "gone", "event": "consumers.created",
		"filter": map[string]any{"email": "gone@example.com"}, "template": tpl, "channel": goneCh})
	g := consumerEvent(t, p, tok, "gone@example.com")
	rec = p.EventuallyStored(notification.Deliveries, notification.DeliveryID(goneRoute, g), func(d store.Doc) bool { return d["status"] == "failed" }, "404 recorded failed")
	require.EqualValues(t, 1, rec["attempts"], "a 404 is not retried")
	require.Len(t, gone.received(), 1)

	in := consumerEvent(t, p, tok, "inapp@example.com")
	p.EventuallyStored(notification.Deliveries, notification.DeliveryID(inappRoute, in), func(d store.Doc) bool { return d["status"] == "delivered" }, "in-app delivered")
	note := p.Stored(channels.InAppCollection, channels.InAppID(notification.DeliveryID(inappRoute, in), p.Admin.ID))
	require.Equal(t, "Hello", note["title"])
	require.Equal(t, "inapp@example.com", note["body"])
	require.Equal(t, false, note["read"])
	require.True(t, strings.HasPrefix(note["eventName"].(string), "consumers."))
}

// consumerEvent creates a consumer and answers its created event's id.
func consumerEvent(t *testing.T, p *testenv.Platform, tok, email string) string {
	t.Helper()
	id := create(t, p, tok, "/crm/consumers", map[string]any{"email": email})
	evs, err := p.Store.Collection(events.Collection).Find(p.Ctx(), store.FindOptions{
		Filter: query.AllOf(query.Eq("data._id", id), query.Eq("name", "consumers.created"))})
	require.NoError(t, err)
	require.Len(t, evs, 1)
	return evs[0]["_id"].(string)
}
