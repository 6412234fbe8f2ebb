package workflows_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/api/temporalproto"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/log"
	sdkworker "go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"platform/activities/delivery"
	"platform/kernel/events"
	"platform/kernel/settings"
	"platform/kernel/store"
	"platform/kernel/temporalx"
	"platform/kernel/tenant"
	"platform/modules/automation/webhook"
	"platform/test/testenv"
	"platform/worker"
	"platform/workflows/contract"
)

// TestReplayRecordedHistories replays histories recorded from real runs
// (testdata/*.json) against the current workflow code, so a change that
// would break workflows already running fails here (a nondeterminism error).
// Re-record with PLATFORM_RECORD_HISTORY=1 go test -run TestRecordHistories
// only for a change that is meant to be incompatible (and versioned).
func TestReplayRecordedHistories(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob(filepath.Join("testdata", "*.json"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	r, err := sdkworker.NewWorkflowReplayerWithOptions(sdkworker.WorkflowReplayerOptions{
		ContextPropagators: []workflow.ContextPropagator{tenant.Propagator{}},
	})
	require.NoError(t, err)
	worker.RegisterWorkflows(r)
	for _, f := range files {
		require.NoError(t, r.ReplayWorkflowHistoryFromJSONFile(log.NewStructuredLogger(testenv.Logger(t)), f), f)
	}
}

// TestRecordHistories runs an event's dispatch, its delivery and a retry
// round on the real servers and writes their histories to testdata.
func TestRecordHistories(t *testing.T) {
	if os.Getenv("PLATFORM_RECORD_HISTORY") == "" {
		t.Skip("set PLATFORM_RECORD_HISTORY=1 to record testdata/*.json")
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusOK) }))
	defer srv.Close()
	p := testenv.NewPlatform(t, testenv.Options{Worker: true, Configure: func(c *settings.Config) { c.OutboundAllow = []string{"127.0.0.1"} }})
	tok := p.Token("automation.*", "crm.*")
	r := p.Do("POST", "/automation/webhooks", tok, map[string]any{"name": "h", "url": srv.URL, "events": []string{"consumers.created"},
		"secret": "0123456789abcdef0123456789abcdef"})
	require.Equal(t, 201, r.Status)
	hookID := r.Payload()["_id"].(string)
	require.Equal(t, 201, p.Do("POST", "/crm/consumers", tok, map[string]any{"email": "replay@example.com", "first_name": "Re"}).Status)
	ctx, cancel := context.WithTimeout(p.Ctx(), time.Minute)
	defer cancel()
	eventID := awaitDelivery(ctx, t, p, hookID)

	// A retry round, as the retry action starts it.
	require.NoError(t, p.Store.Collection(webhook.RetriesCollection).Insert(p.Ctx(), store.Doc{
		"_id": webhook.RetryRecordID(webhook.DeliveryID(eventID, hookID)), "event": eventID, "webhook": hookID,
		"status": webhook.StatusRetrying, "round": int64(1)}))
	retryID := contract.DeliveryWorkflowID(eventID, hookID, 1)
	st := &temporalx.Starter{Client: p.Temporal, TaskQueue: p.TaskQueue}
	_, err := st.Once(p.Ctx(), temporalx.Start{ID: retryID, Workflow: contract.WorkflowWebhookDelivery,
		Input: contract.DeliveryInput{EventID: eventID, Event: "consumers.created", WebhookID: hookID, Round: 1}})
	require.NoError(t, err)
	require.NoError(t, p.Temporal.GetWorkflow(ctx, retryID, "").Get(ctx, nil))

	for name, id := range map[string]string{
		"dispatch": contract.DispatchWorkflowID(eventID), "delivery": contract.DeliveryWorkflowID(eventID, hookID, 0), "delivery_retry": retryID,
	} {
		writeHistory(ctx, t, p.Temporal, id, filepath.Join("testdata", name+".json"))
	}
}

// awaitDelivery waits for the dispatch and delivery of the webhook's first
// event and returns the event id.
func awaitDelivery(ctx context.Context, t *testing.T, p *testenv.Platform, hookID string) string {
	var eventID string
	require.Eventually(t, func() bool {
		docs, err := p.Store.Collection(webhook.DeliveriesCollection).Find(p.Ctx(), store.FindOptions{Limit: 1})
		if err != nil || len(docs) == 0 {
			return false
		}
		eventID, _, _ = strings.Cut(docs[0]["delivery"].(string), "-")
		return true
	}, 30*time.Second, 100*time.Millisecond)
	require.NoError(t, p.Temporal.GetWorkflow(ctx, contract.DispatchWorkflowID(eventID), "").Get(ctx, nil))
	require.NoError(t, p.Temporal.GetWorkflow(ctx, contract.DeliveryWorkflowID(eventID, hookID, 0), "").Get(ctx, nil))
	return eventID
}

func writeHistory(ctx context.Context, t *testing.T, c client.Client, id, file string) {
	it := c.GetWorkflowHistory(ctx, id, "", false, enums.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	h := &historypb.History{}
	for it.HasNext() {
		e, err := it.Next()
		require.NoError(t, err)
		h.Events = append(h.Events, e)
	}
	data, err := temporalproto.CustomJSONMarshalOptions{Indent: "  "}.Marshal(h)
	require.NoError(t, err)
	require.NoError(t, os.MkdirAll(filepath.Dir(file), 0o755))
	require.NoError(t, os.WriteFile(file, data, 0o644))
}

// TestRecordHistoriesRetrier runs a webhook's retrier on the real
// servers and writes its history to testdata/retrier.json: a delivery
// queued with no first attempt, failed once, then delivered on the
// second attempt a minute later, with the check its start signal owes in
// between. It takes about a minute.
func TestRecordHistoriesRetrier(t *testing.T) {
	if os.Getenv("PLATFORM_RECORD_HISTORY") == "" {
		t.Skip("set PLATFORM_RECORD_HISTORY=1 to record testdata/retrier.json")
	}
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if hits.Add(1) == 1 {
			w.WriteHeader(http.StatusInternalServerError)
			return
		}
		w.WriteHeader(http.StatusOK)
	}))
	defer srv.Close()
	p := testenv.NewPlatform(t, testenv.Options{Worker: true, Configure: func(c *settings.Config) { c.OutboundAllow = []string{"127.0.0.1"} }})
	tok := p.Token("automation.*")
	r := p.Do("POST", "/automation/webhooks", tok, map[string]any{"name": "h", "url": srv.URL, "events": []string{"consumers.created"}})
	require.Equal(t, 201, r.Status)
	hookID := r.Payload()["_id"].(string)
	eventID := store.NewID()
	require.NoError(t, p.Store.Collection(events.Collection).Insert(p.Ctx(), store.Doc{
		"_id": eventID, "name": "consumers.created", "timestamp": time.Now().UTC().Truncate(time.Millisecond),
		"data": store.Doc{"_id": store.NewID()}, "dispatched": true}))
	acts := &delivery.Activities{Store: p.Store, Log: p.Log, Outbound: p.Outbound, Records: p.Service,
		Retriers: delivery.NewRetriers(&temporalx.Starter{Client: p.Temporal, TaskQueue: p.TaskQueue})}
	require.NoError(t, acts.QueueRetries(p.Ctx(), []delivery.Failed{{EventID: eventID, Event: "consumers.created", WebhookID: hookID}}))
	ctx, cancel := context.WithTimeout(p.Ctx(), 3*time.Minute)
	defer cancel()
	id := contract.RetrierWorkflowID(hookID)
	require.NoError(t, p.Temporal.GetWorkflow(ctx, id, "").Get(ctx, nil))
	require.EqualValues(t, 2, hits.Load())
	writeHistory(ctx, t, p.Temporal, id, filepath.Join("testdata", "retrier.json"))
}
