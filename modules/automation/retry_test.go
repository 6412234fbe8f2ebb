package automation_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"platform/kernel/events"
	"platform/kernel/query"
	"platform/kernel/store"
	"platform/modules/automation/webhook"
	"platform/test/testenv"
	"platform/test/workflowtest"
	"platform/workflows/contract"
)

// TestParkedDeliveryIsRetriedByID: after five failures the delivery is
// parked; POST /webhookretries/:id/actions/retry runs a new round on the
// real servers that delivers once the receiver is back, with the same
// delivery id; repeating the request starts nothing twice.
func TestParkedDeliveryIsRetriedByID(t *testing.T) {
	t.Parallel()
	p := platformWithWorker(t, testenv.Options{})
	p.CheckOpenAPI("automation")
	rc := newReceiver(t)
	rc.status.Store(http.StatusServiceUnavailable)
	tok := p.Token("automation.*")
	hookID := createHook(t, p, tok, rc, hookSpec{path: "/hook", events: []string{"consumers.created"}, secret: secret, active: true})
	eventID := store.NewID()
	require.NoError(t, p.Store.Collection(events.Collection).Insert(p.Ctx(), store.Doc{
		"_id": eventID, "name": "consumers.created", "timestamp": time.Now().UTC().Truncate(time.Millisecond),
		"data": store.Doc{"_id": store.NewID(), "email": "parked@example.com"}, "dispatched": true,
	}))
	workflowtest.ParkDelivery(t, p, eventID, hookID)
	require.Len(t, rc.requests("/hook"), 5)

	list := p.Do("GET", "/automation/webhookretries?status=parked&webhook="+hookID, tok, nil).List()
	require.Len(t, list, 1)
	rec := list[0]
	id := rec["_id"].(string)
	require.Len(t, rec["attempts"], 5)
	require.EqualValues(t, 503, rec["attempts"].([]any)[4].(map[string]any)["statusCode"])
	require.Equal(t, eventID, rec["event"])
	require.Len(t, p.Do("GET", "/automation/webhooks/"+hookID+"/retries", tok, nil).List(), 1)
	require.Equal(t, 405, p.Do("DELETE", "/automation/webhookretries/"+id, tok, nil).Status, "read-only")

	rc.status.Store(http.StatusOK)
	r := p.Do("POST", "/automation/webhookretries/"+id+"/actions/retry", tok, map[string]any{})
	require.Equal(t, 200, r.Status, string(r.Body))
	require.Equal(t, webhook.StatusRetrying, r.Payload()["status"])
	require.EqualValues(t, 1, r.Payload()["round"])
	require.Equal(t, 200, p.Do("POST", "/automation/webhookretries/"+id+"/actions/retry", tok, map[string]any{}).Status, "a repeated retry is harmless")

	got := rc.waitFor(t, "/hook", 6, 30*time.Second)
	require.Equal(t, webhook.DeliveryID(eventID, hookID), got[5].Header.Get(webhook.HeaderDelivery))
	require.Eventually(t, func() bool {
		d := p.Do("GET", "/automation/webhookretries/"+id, tok, nil).Payload()
		return d["status"] == webhook.StatusDelivered
	}, 30*time.Second, 100*time.Millisecond)
	rec = p.Do("GET", "/automation/webhookretries/"+id, tok, nil).Payload()
	require.Len(t, rec["attempts"], 6)
	require.Equal(t, 409, p.Do("POST", "/automation/webhookretries/"+id+"/actions/retry", tok, map[string]any{}).Status, "nothing left to retry")
	time.Sleep(500 * time.Millisecond)
	require.Len(t, rc.requests("/hook"), 6, "the repeated request started no second round")

	evs, err := p.Store.Collection(events.Collection).Find(p.Ctx(), store.FindOptions{Filter: query.Eq("name", "webhookretries.retried")})
	require.NoError(t, err)
	require.Len(t, evs, 1, "one event for the one claimed round")
	desc, err := p.Temporal.DescribeWorkflowExecution(context.Background(), contract.DeliveryWorkflowID(eventID, hookID, 1), "")
	require.NoError(t, err)
	require.True(t, strings.HasSuffix(desc.GetWorkflowExecutionInfo().GetExecution().GetWorkflowId(), "-retry1"))
}
