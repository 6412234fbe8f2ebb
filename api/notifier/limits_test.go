package notifier_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"strings"
	"syscall"
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

// slow: a client that stops reading is dropped while a fast one keeps
// receiving. Its socket buffers fill first (a few MB), then its queue.
// Events go in batches of 10, each woken explicitly: on FerretDB every
// poll scans the events collection.
func slow(t *testing.T, p *testenv.Platform) {
	hub := ownHub(t, p, "/notifier-slow", notifier.Options{Poll: time.Hour, QueueSize: 16, WriteTimeout: time.Second})
	tok := p.Token("crm.consumers.view")
	lazy := dialLazy(t, p.URL+"/notifier-slow", tok) // never reads until the end
	fast := dial(t, p.URL, "/notifier-slow", tok)
	require.Equal(t, 2, hub.Stats().Connections)
	big := strings.Repeat("x", 64<<10)
	for round := 0; round < 30 && hub.Stats().Connections == 2; round++ {
		var last string
		for i := 0; i < 10; i++ {
			last = store.NewID()
			require.NoError(t, p.Events.Record(p.Ctx(), "consumers.updated", store.Doc{"_id": last, "note": big}))
		}
		hub.Notify(p.Ctx(), events.Event{Customer: p.Customer.ID})
		until(t, fast, eventOf("consumers.updated", last))
	}
	eventually(t, func() bool { return hub.Stats().Connections == 1 }, "the lazy client dropped")
	closedWith(t, lazy)
	after := store.NewID()
	require.NoError(t, p.Events.Record(p.Ctx(), "consumers.created", store.Doc{"_id": after}))
	hub.Notify(p.Ctx(), events.Event{Customer: p.Customer.ID})
	until(t, fast, eventOf("consumers.created", after))
}

// dialLazy connects with a 4 KiB socket receive buffer.
func dialLazy(t *testing.T, url, token string) *websocket.Conn {
	t.Helper()
	small := &net.Dialer{Control: func(_, _ string, rc syscall.RawConn) error {
		var err error
		if cerr := rc.Control(func(fd uintptr) { err = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096) }); cerr != nil {
			return cerr
		}
		return err
	}}
	hc := &http.Client{Transport: &http.Transport{DialContext: small.DialContext}}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, _, err := websocket.Dial(ctx, wsURL(url, ""), &websocket.DialOptions{HTTPClient: hc, HTTPHeader: http.Header{"Authorization": {"Bearer " + token}}})
	require.NoError(t, err)
	c.SetReadLimit(4 << 20)
	t.Cleanup(func() { _ = c.CloseNow() })
	return c
}

// late: an event that becomes visible after a later one (another
// replica's id of the same second sorts lower; group commit) still
// arrives, with the next sweep of the lookback window.
func late(t *testing.T, p *testenv.Platform, crm string) {
	c := dial(t, p.URL, "/notifier?events=consumers.*", crm)
	now := post(t, p, crm, "/crm/consumers", map[string]any{"email": "now@example.com"})
	until(t, c, eventOf("consumers.created", now))
	lateID := fmt.Sprintf("%08x", uint32(time.Now().Add(-time.Second).Unix())) + "ffffffffff000001"
	require.Less(t, lateID, now, "the late event sorts before one already sent")
	require.NoError(t, p.Store.Collection(events.Collection).Insert(p.Ctx(), store.Doc{"_id": lateID, "name": "consumers.updated",
		"timestamp": time.Now().UTC().Truncate(time.Millisecond), "data": store.Doc{"_id": lateID}, "dispatched": true}))
	until(t, c, eventOf("consumers.updated", lateID))
}
