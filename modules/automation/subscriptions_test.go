package automation_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"platform/kernel/events"
	"platform/kernel/query"
	"platform/kernel/store"
	"platform/modules/automation"
	"platform/test/testenv"
	"platform/workflows/contract"
)

// TestEventsNeedNoWorkflow: an event no webhook or trigger asked for is
// marked dispatched; once a webhook asks for it, the next event reaches it;
// neither costs a workflow (the dispatcher delivers in the worker).
func TestEventsNeedNoWorkflow(t *testing.T) {
	t.Parallel()
	p := platformWithWorker(t, testenv.Options{})
	tok := p.Token("automation.*", "crm.*")
	eventOf := func(email string) string {
		r := p.Do("POST", "/crm/consumers", tok, map[string]any{"email": email})
		require.Equal(t, 201, r.Status, "%s", r.Body)
		var id string
		require.Eventually(t, func() bool {
			evs, err := p.Store.Collection(events.Collection).Find(p.Ctx(), store.FindOptions{Filter: query.Eq("data.email", email)})
			if err != nil || len(evs) != 1 || evs[0]["dispatched"] != true {
				return false
			}
			id = evs[0]["_id"].(string)
			return true
		}, 30*time.Second, 100*time.Millisecond, "the event is marked dispatched")
		return id
	}
	dispatchRan := func(eventID string) bool {
		_, err := p.Temporal.DescribeWorkflowExecution(context.Background(), contract.DispatchWorkflowID(eventID), "")
		return err == nil
	}

	quiet := eventOf("nobody-listens@example.com")
	require.False(t, dispatchRan(quiet), "no webhook or trigger wants consumers.created")

	rc := newReceiver(t)
	createHook(t, p, tok, rc, hookSpec{path: "/hook", events: []string{"consumers.*"}, active: true})
	heard := eventOf("someone-listens@example.com")
	rc.waitFor(t, "/hook", 1, 30*time.Second)
	require.False(t, dispatchRan(heard), "delivered without a workflow")
}

// TestBackfillSubscriptions: webhooks and triggers stored before event
// subscriptions were recorded get theirs at start-up, once.
func TestBackfillSubscriptions(t *testing.T) {
	t.Parallel()
	p := testenv.NewPlatform(t, testenv.Options{})
	ctx := p.Ctx()
	require.NoError(t, p.Store.Collection("webhooks").Insert(ctx, store.Doc{"_id": store.NewID(), "name": "old", "url": "https://x.example", "events": []any{"tasks.*"}, "active": true}))
	require.NoError(t, p.Store.Collection("triggers").Insert(ctx, store.Doc{"_id": store.NewID(), "name": "old", "type": "event", "event": "notes.created", "active": true}))
	wanted := func(name string) bool {
		ok, err := events.Subscribed(context.Background(), p.Store, p.Customer.ID, name)
		require.NoError(t, err)
		return ok
	}
	require.False(t, wanted("tasks.created"), "stored behind the hooks' back")
	_, err := p.Store.Global("migrations").Delete(context.Background(), query.ID("event-subscriptions-v1"))
	require.NoError(t, err)
	require.NoError(t, automation.BackfillSubscriptions(context.Background(), p.Store))
	require.True(t, wanted("tasks.created"))
	require.True(t, wanted("notes.created"))
	require.False(t, wanted("consumers.created"))
}
