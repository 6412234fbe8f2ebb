package app_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"
	sdkworker "go.temporal.io/sdk/worker"

	"platform/cmd/platform/app"
	"platform/kernel/settings"
	"platform/kernel/store"
	"platform/modules/automation/webhook"
	"platform/test/testenv"
	"platform/worker"
)

// TestRetentionScheduleCreatedAtStart: PutSchedules (what every worker
// start does) creates the retention schedule next to the OAuth sweep's,
// running the Retention workflow every PLATFORM_RETENTION_INTERVAL on the
// deployment's task queue, and a tick run by a worker with the registered
// workflows and MaintenanceActivities removes an old delivery record and
// keeps a recent one.
func TestRetentionScheduleCreatedAtStart(t *testing.T) {
	t.Parallel()
	p := testenv.NewPlatform(t, testenv.Options{Configure: func(c *settings.Config) { c.RetentionInterval = 3 * time.Hour }})
	ctx := context.Background()
	startMaintenanceWorker(t, p)

	require.NoError(t, p.PutSchedules(ctx, p.TaskQueue))
	for _, id := range []string{app.RetentionScheduleID(p.TaskQueue), app.OAuthSweepScheduleID(p.TaskQueue)} {
		h := p.Temporal.ScheduleClient().GetHandle(ctx, id)
		t.Cleanup(func() { _ = h.Delete(context.Background()) })
	}
	h := p.Temporal.ScheduleClient().GetHandle(ctx, app.RetentionScheduleID(p.TaskQueue))
	desc, err := h.Describe(ctx)
	require.NoError(t, err)
	require.Equal(t, 3*time.Hour, desc.Schedule.Spec.Intervals[0].Every)
	action, ok := desc.Schedule.Action.(*client.ScheduleWorkflowAction)
	require.True(t, ok)
	require.Equal(t, "Retention", action.Workflow)
	require.Equal(t, p.TaskQueue, action.TaskQueue)

	deliveries := p.Store.Collection(webhook.DeliveriesCollection)
	require.NoError(t, deliveries.InsertMany(p.Ctx(), []store.Doc{
		{"_id": "old", "createdAt": time.Now().Add(-31 * 24 * time.Hour).UTC()},
		{"_id": "recent", "createdAt": time.Now().UTC()},
	}))
	require.NoError(t, h.Trigger(ctx, client.ScheduleTriggerOptions{}))
	require.Eventually(t, func() bool {
		_, err := deliveries.Get(p.Ctx(), "old")
		return errors.Is(err, store.ErrNotFound)
	}, 60*time.Second, 200*time.Millisecond, "a busy machine may take a while to run the tick")
	_, err = deliveries.Get(p.Ctx(), "recent")
	require.NoError(t, err, "the recent record stays")
}

// startMaintenanceWorker runs a worker with every workflow and the
// housekeeping activities on the platform's task queue until the test ends.
func startMaintenanceWorker(t *testing.T, p *testenv.Platform) {
	t.Helper()
	w := sdkworker.New(p.Temporal, p.TaskQueue, sdkworker.Options{})
	worker.Register(w, worker.Activities{Maintenance: p.MaintenanceActivities()})
	require.NoError(t, w.Start())
	t.Cleanup(w.Stop)
}
