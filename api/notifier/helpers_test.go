package notifier_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/stretchr/testify/require"

	"platform/test/testenv"
)

// msg is one message of the notifier.
type msg struct {
	Type         string         `json:"type"`
	ID           string         `json:"id"`
	Event        string         `json:"event"`
	Customer     string         `json:"customer"`
	Code         string         `json:"code"`
	Data         map[string]any `json:"data"`
	Notification map[string]any `json:"notification"`
}

// wsURL is the ws:// address of path on the platform.
func wsURL(base, path string) string { return "ws" + strings.TrimPrefix(base, "http") + path }

// dial connects with the token in the Authorization header.
func dial(t *testing.T, base, path, token string) *websocket.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, res, err := websocket.Dial(ctx, wsURL(base, path), &websocket.DialOptions{HTTPHeader: http.Header{"Authorization": {"Bearer " + token}}})
	if res != nil && res.Body != nil {
		_ = res.Body.Close()
	}
	require.NoError(t, err)
	c.SetReadLimit(4 << 20)
	t.Cleanup(func() { _ = c.CloseNow() })
	require.Equal(t, "ready", read(t, c).Type)
	return c
}

// refused dials and answers the HTTP status of the refusal.
func refused(t *testing.T, base, path, token string) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	h := http.Header{}
	if token != "" {
		h.Set("Authorization", "Bearer "+token)
	}
	c, res, err := websocket.Dial(ctx, wsURL(base, path), &websocket.DialOptions{HTTPHeader: h})
	if c != nil {
		_ = c.CloseNow()
	}
	require.Error(t, err)
	require.NotNil(t, res)
	return res.StatusCode
}

// read answers the next message (30 seconds at most: FerretDB scans).
func read(t *testing.T, c *websocket.Conn) msg {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, b, err := c.Read(ctx)
	require.NoError(t, err)
	var m msg
	require.NoError(t, json.Unmarshal(b, &m), "%s", b)
	return m
}

// until reads messages until one satisfies ok and answers all read.
func until(t *testing.T, c *websocket.Conn, ok func(msg) bool) []msg {
	t.Helper()
	var out []msg
	for {
		m := read(t, c)
		out = append(out, m)
		if ok(m) {
			return out
		}
	}
}

// eventOf matches the event of a record id.
func eventOf(name, id string) func(msg) bool {
	return func(m msg) bool { return m.Type == "event" && m.Event == name && m.Data["_id"] == id }
}

// post creates a record and answers its id.
func post(t *testing.T, p *testenv.Platform, tok, path string, body map[string]any) string {
	t.Helper()
	r := p.Do(http.MethodPost, path, tok, body)
	require.Equal(t, http.StatusCreated, r.Status, "%s: %s", path, r.Body)
	return r.Payload()["_id"].(string)
}

// send writes one client message.
func send(t *testing.T, c *websocket.Conn, v any) {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	require.NoError(t, c.Write(context.Background(), websocket.MessageText, b))
}

// eventually polls cond until it holds (10 seconds at most).
func eventually(t *testing.T, cond func() bool, what string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
