package notifier_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/stretchr/testify/require"

	"platform/cmd/platform/app"
	"platform/kernel/store"
	"platform/test/testenv"
)

// TestNotifier drives /notifier with real WebSocket clients (Go and
// headless Chromium) on one platform with a worker.
func TestNotifier(t *testing.T) {
	p := testenv.NewPlatform(t, testenv.Options{Worker: true})
	crm := p.Token("crm.consumers.view", "crm.consumers.create", "hub.faqs.create")

	t.Run("refusals before the upgrade", func(t *testing.T) { refusals(t, p) })
	t.Run("two customers see only their own events", func(t *testing.T) { tenants(t, p, crm) })
	t.Run("events of a resource the token may not view never arrive", func(t *testing.T) { rights(t, p, crm) })
	t.Run("first-message auth and subscriptions", func(t *testing.T) { firstMessage(t, p, crm) })
	t.Run("reconnect with lastEventId replays what was missed", func(t *testing.T) { resume(t, p, crm) })
	t.Run("an event visible after a later one still arrives", func(t *testing.T) { late(t, p, crm) })
	t.Run("a second replica on the same store delivers", func(t *testing.T) { replica(t, p, crm) })
	t.Run("in-app notifications reach the addressed user", func(t *testing.T) { inApp(t, p, crm) })
	t.Run("chromium", func(t *testing.T) { inChromium(t, p, crm) })
	t.Run("a burst beyond the queue closes with 1013", func(t *testing.T) { burst(t, p) })
	t.Run("a revoked API key's connection closes with 1008", func(t *testing.T) { revoked(t, p) })
	t.Run("a slow client is dropped, a fast one keeps receiving", func(t *testing.T) { slow(t, p) })
}

func refusals(t *testing.T, p *testenv.Platform) {
	require.Equal(t, http.StatusUnauthorized, refused(t, p.URL, "/notifier", "not-a-token"))
	require.Equal(t, http.StatusBadRequest, refused(t, p.URL, "/notifier?token="+p.Token("crm.consumers.view"), ""),
		"a token in the query string is refused, never used")
	tok := p.Token("hub.faqs.view")
	require.Equal(t, http.StatusForbidden, refused(t, p.URL, "/notifier?events=consumers.*", tok), "no right to view consumers")
	require.Equal(t, http.StatusBadRequest, refused(t, p.URL, "/notifier?events=nothing.here", tok))
	require.Equal(t, http.StatusBadRequest, refused(t, p.URL, "/notifier?lastEventId=xyz", tok))
	many := strings.Join(p.Registry.EventNames()[:21], ",")
	require.Equal(t, http.StatusBadRequest, refused(t, p.URL, "/notifier?events="+many, tok), "21 patterns")
}

func tenants(t *testing.T, p *testenv.Platform, crm string) {
	other, user := p.OtherCustomer("notified")
	otherTok := p.TokenFor(other.ID, user.ID, "crm.consumers.view", "crm.consumers.create")
	a := dial(t, p.URL, "/notifier?events=consumers.*", crm)
	b := dial(t, p.URL, "/notifier", otherTok)
	theirs := post(t, p, otherTok, "/crm/consumers", map[string]any{"email": "b1@example.com"})
	ours := post(t, p, crm, "/crm/consumers", map[string]any{"email": "a1@example.com"})
	marker := post(t, p, crm, "/crm/consumers", map[string]any{"email": "a2@example.com"})
	for _, m := range until(t, a, eventOf("consumers.created", marker)) {
		require.NotEqual(t, theirs, m.Data["_id"], "customer A got B's event")
		require.Equal(t, p.Customer.ID, m.Customer)
	}
	for _, m := range until(t, b, eventOf("consumers.created", theirs)) {
		require.NotEqual(t, ours, m.Data["_id"], "customer B got A's event")
	}
	res, err := http.Get(p.URL + "/metrics")
	require.NoError(t, err)
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	require.Regexp(t, `platform_notifier_connections [1-9]`, string(body))
	require.Contains(t, string(body), "platform_notifier_messages_total")
}

func rights(t *testing.T, p *testenv.Platform, crm string) {
	c := dial(t, p.URL, "/notifier", p.Token("hub.faqs.view"))
	consumer := post(t, p, crm, "/crm/consumers", map[string]any{"email": "hidden@example.com"})
	faq := post(t, p, crm, "/hub/faqs", map[string]any{"slug": "seen", "question": "Seen?", "answer": "Yes."})
	for _, m := range until(t, c, eventOf("faqs.created", faq)) {
		require.NotEqual(t, consumer, m.Data["_id"], "a consumer event without crm.consumers.view")
		require.True(t, strings.HasPrefix(m.Event, "faqs."), "%s", m.Event)
	}
}

func firstMessage(t *testing.T, p *testenv.Platform, crm string) {
	ctx := context.Background()
	c, _, err := websocket.Dial(ctx, wsURL(p.URL, "/notifier"), nil)
	require.NoError(t, err)
	defer c.CloseNow()
	send(t, c, map[string]any{"type": "auth", "token": crm, "events": []string{"consumers.updated"}})
	require.Equal(t, "ready", read(t, c).Type)
	send(t, c, map[string]any{"type": "subscribe", "events": []string{"nothing.*"}})
	require.Equal(t, "notifier.subscription", read(t, c).Code)
	send(t, c, map[string]any{"type": "subscribe", "events": []string{"consumers.created"}})
	require.Equal(t, "subscribed", read(t, c).Type)
	send(t, c, map[string]any{"type": "ping"})
	require.Equal(t, "pong", read(t, c).Type)
	id := post(t, p, crm, "/crm/consumers", map[string]any{"email": "first@example.com"})
	until(t, c, eventOf("consumers.created", id))

	bad, _, err := websocket.Dial(ctx, wsURL(p.URL, "/notifier"), nil)
	require.NoError(t, err)
	defer bad.CloseNow()
	send(t, bad, map[string]any{"type": "auth", "token": "forged"})
	_, _, err = bad.Read(ctx)
	require.Equal(t, websocket.StatusPolicyViolation, websocket.CloseStatus(err), "%v", err)
}

func resume(t *testing.T, p *testenv.Platform, crm string) {
	c := dial(t, p.URL, "/notifier?events=consumers.created", crm)
	first := post(t, p, crm, "/crm/consumers", map[string]any{"email": "r1@example.com"})
	seen := until(t, c, eventOf("consumers.created", first))
	last := seen[len(seen)-1].ID
	require.NoError(t, c.Close(websocket.StatusNormalClosure, ""))
	missed := []string{post(t, p, crm, "/crm/consumers", map[string]any{"email": "r2@example.com"}),
		post(t, p, crm, "/crm/consumers", map[string]any{"email": "r3@example.com"})}
	again := dial(t, p.URL, "/notifier?events=consumers.created&lastEventId="+last, crm)
	got := map[string]bool{}
	until(t, again, func(m msg) bool {
		require.NotEqual(t, last, m.ID, "the resume point itself is not sent again")
		got[m.Data["_id"].(string)] = true
		return got[missed[0]] && got[missed[1]]
	})
}

func replica(t *testing.T, p *testenv.Platform, crm string) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	second, err := app.New(ctx, p.Config, p.Store, p.Temporal, p.Log)
	require.NoError(t, err)
	t.Cleanup(func() { _ = second.Close() })
	srv := httptest.NewServer(second.API.Handler())
	t.Cleanup(srv.Close)
	c := dial(t, srv.URL, "/notifier?events=consumers.*", crm)
	id := post(t, p, crm, "/crm/consumers", map[string]any{"email": "replica@example.com"}) // on the first platform
	until(t, c, eventOf("consumers.created", id))
}

func inApp(t *testing.T, p *testenv.Platform, crm string) {
	tok := p.Token("config.*")
	tpl := post(t, p, tok, "/config/notificationtemplates", map[string]any{"name": "bell", "kind": "inapp", "subject": "New consumer", "body": "{{data.email}}"})
	ch := post(t, p, tok, "/config/notificationchannels", map[string]any{"name": "bell", "kind": "inapp",
		"settings": map[string]any{"recipients": []any{p.Admin.ID}}})
	post(t, p, tok, "/config/notificationroutes", map[string]any{"name": "bell", "event": "consumers.created",
		"filter": map[string]any{"email": "bell@example.com"}, "template": tpl, "channel": ch})
	admin := dial(t, p.URL, "/notifier?events=faqs.*", p.Token("hub.faqs.view"))
	someone := dial(t, p.URL, "/notifier?events=faqs.*", p.TokenFor(p.Customer.ID, store.NewID(), "hub.faqs.view"))
	post(t, p, crm, "/crm/consumers", map[string]any{"email": "bell@example.com"})
	got := until(t, admin, func(m msg) bool { return m.Type == "notification" })
	n := got[len(got)-1].Notification
	require.Equal(t, "New consumer", n["title"])
	require.Equal(t, "bell@example.com", n["body"])
	require.Equal(t, p.Admin.ID, n["user"])
	marker := post(t, p, crm, "/hub/faqs", map[string]any{"slug": "after-bell", "question": "Q?", "answer": "A."})
	for _, m := range until(t, someone, eventOf("faqs.created", marker)) {
		require.NotEqual(t, "notification", m.Type, "another user got the admin's notification")
	}
}
