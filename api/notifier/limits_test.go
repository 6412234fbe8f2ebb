package notifier_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/stretchr/testify/require"

	"platform/api/notifier"
	"platform/kernel/events"
	"platform/kernel/store"
	"platform/test/testenv"
)

// ownHub mounts a hub with options of the test at path.
func ownHub(t *testing.T, p *testenv.Platform, path string, o notifier.Options) *notifier.Hub {
	hub := notifier.New(notifier.Deps{Store: p.Store, Verifier: p.Verifier, Registry: p.Registry, Log: p.Log}, o)
	t.Cleanup(hub.Close)
	p.MountNotifier(path, hub)
	return hub
}

// closedWith reads until the connection ends and answers its close code.
func closedWith(t *testing.T, c *websocket.Conn) websocket.StatusCode {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for {
		if _, _, err := c.Read(ctx); err != nil {
			require.NotErrorIs(t, err, context.DeadlineExceeded, "the connection stayed open")
			return websocket.CloseStatus(err)
		}
	}
}

// burst: more events at once than a client's queue holds close it with
// 1013 (the close frame arrives: its socket still has room).
func burst(t *testing.T, p *testenv.Platform) {
	hub := ownHub(t, p, "/notifier-burst", notifier.Options{Poll: time.Hour, QueueSize: 2})
	c := dial(t, p.URL, "/notifier-burst", p.Token("crm.consumers.view"))
	for i := 0; i < 20; i++ {
		require.NoError(t, p.Events.Record(p.Ctx(), "consumers.updated", store.Doc{"_id": store.NewID()}))
	}
	// The hour-long poll never comes: wake the tail as this process's
	// recorder does, and all 20 arrive in one poll.
	hub.Notify(p.Ctx(), events.Event{Customer: p.Customer.ID})
	require.Equal(t, websocket.StatusTryAgainLater, closedWith(t, c))
}

// revoked: a connection whose API key is revoked closes with 1008 at the
// next heartbeat.
func revoked(t *testing.T, p *testenv.Platform) {
	ownHub(t, p, "/notifier-revoke", notifier.Options{Heartbeat: 100 * time.Millisecond})
	admin := p.Token("config.*", "crm.*")
	r := p.Do(http.MethodPost, "/config/apikeys", admin, map[string]any{"name": "listener", "scopes": []any{"crm.consumers.view"}})
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	id, key := r.Payload()["_id"].(string), r.Payload()["key"].(string)
	c := dial(t, p.URL, "/notifier-revoke?events=consumers.*", key)
	consumer := post(t, p, admin, "/crm/consumers", map[string]any{"email": "keyed@example.com"})
	until(t, c, eventOf("consumers.created", consumer))
	require.Equal(t, http.StatusOK, p.Do(http.MethodPost, "/config/apikeys/"+id+"/actions/revoke", admin, nil).Status)
	require.Equal(t, websocket.StatusPolicyViolation, closedWith(t, c))
}
