package workflows_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"platform/kernel/events"
	"platform/kernel/query"
	"platform/kernel/settings"
	"platform/kernel/store"
	"platform/test/testenv"
	"platform/workflows/contract"
)

// TestRecordHistoriesNotification runs two routed notifications on the
// real servers and writes their histories: one whose first send fails
// with a 503 and whose retry is delivered (notification_delivered.json),
// one whose every send fails, settled as failed (notification_failed.json).
func TestRecordHistoriesNotification(t *testing.T) {
	if os.Getenv("PLATFORM_RECORD_HISTORY") == "" {
		t.Skip("set PLATFORM_RECORD_HISTORY=1 to record testdata/notification_*.json")
	}
	p := testenv.NewPlatform(t, testenv.Options{Worker: true, Configure: func(c *settings.Config) {
		c.OutboundAllow = []string{"127.0.0.1"}
		c.NotifyAttempts, c.NotifyFirstRetry = 2, 100*time.Millisecond
	}})
	var calls atomic.Int32
	flaky := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		if calls.Add(1) == 1 {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
	}))
	defer flaky.Close()
	down := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusBadGateway) }))
	defer down.Close()
	tok := p.Token("config.notificationchannels.create", "config.notificationtemplates.create", "config.notificationroutes.create", "crm.consumers.create")
	post := func(path string, body map[string]any) string {
		r := p.Do("POST", path, tok, body)
		require.Equal(t, 201, r.Status, string(r.Body))
		return r.Payload()["_id"].(string)
	}
	tpl := post("/config/notificationtemplates", map[string]any{"name": "t", "kind": "slack", "body": "{{data.email}}"})
	routes := map[string]string{}
	for name, url := range map[string]string{"delivered": flaky.URL, "failed": down.URL} {
		ch := post("/config/notificationchannels", map[string]any{"name": name, "kind": "slack", "secrets": map[string]any{"webhookUrl": url}})
		routes[name] = post("/config/notificationroutes", map[string]any{"name": name, "event": "consumers.created",
			"filter": map[string]any{"email": name + "@example.com"}, "template": tpl, "channel": ch})
	}
	ctx, cancel := context.WithTimeout(p.Ctx(), time.Minute)
	defer cancel()
	for name, route := range routes {
		consumer := post("/crm/consumers", map[string]any{"email": name + "@example.com"})
		evs, err := p.Store.Collection(events.Collection).Find(p.Ctx(), store.FindOptions{Filter: query.Eq("data._id", consumer)})
		require.NoError(t, err)
		wid := contract.NotificationWorkflowID(route, evs[0]["_id"].(string))
		require.Eventually(t, func() bool {
			_, err := p.Temporal.DescribeWorkflowExecution(ctx, wid, "")
			return err == nil
		}, time.Minute, 50*time.Millisecond)
		require.NoError(t, p.Temporal.GetWorkflow(ctx, wid, "").Get(ctx, nil))
		writeHistory(ctx, t, p.Temporal, wid, filepath.Join("testdata", "notification_"+name+".json"))
	}
}
