package app_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"

	"platform/cmd/platform/app"
	"platform/kernel/settings"
	"platform/kernel/store"
	"platform/modules/oauth"
	"platform/test/testenv"
)

// TestOAuthSweepSchedule: the schedule runs the sweep every
// PLATFORM_OAUTH_SWEEP_INTERVAL on the deployment's task queue, a second
// put takes a changed interval, and a tick run by a worker that registered
// the workflow and MaintenanceActivities removes what expired.
func TestOAuthSweepSchedule(t *testing.T) {
	t.Parallel()
	p := testenv.NewPlatform(t, testenv.Options{Configure: func(c *settings.Config) { c.OAuthSweepInterval = 2 * time.Hour }})
	ctx := context.Background()
	startMaintenanceWorker(t, p)

	require.NoError(t, p.PutOAuthSweepSchedule(ctx, p.TaskQueue))
	h := p.Temporal.ScheduleClient().GetHandle(ctx, app.OAuthSweepScheduleID(p.TaskQueue))
	t.Cleanup(func() { _ = h.Delete(context.Background()) })
	requireInterval(t, h, 2*time.Hour)
	p.Config.OAuthSweepInterval = 90 * time.Minute
	require.NoError(t, p.PutOAuthSweepSchedule(ctx, p.TaskQueue))
	requireInterval(t, h, 90*time.Minute)

	codes := p.Store.Global(oauth.CodesCollection)
	require.NoError(t, codes.Insert(ctx, store.Doc{"_id": "expired", "expiresAt": time.Now().Add(-2 * time.Hour).UTC()}))
	require.NoError(t, h.Trigger(ctx, client.ScheduleTriggerOptions{}))
	require.Eventually(t, func() bool {
		_, err := codes.Get(ctx, "expired")
		return errors.Is(err, store.ErrNotFound)
	}, 60*time.Second, 200*time.Millisecond, "a busy machine may take a while to run the tick")
}

func requireInterval(t *testing.T, h client.ScheduleHandle, every time.Duration) {
	t.Helper()
	desc, err := h.Describe(context.Background())
	require.NoError(t, err)
	require.Len(t, desc.Schedule.Spec.Intervals, 1)
	require.Equal(t, every, desc.Schedule.Spec.Intervals[0].Every)
	action, ok := desc.Schedule.Action.(*client.ScheduleWorkflowAction)
	require.True(t, ok)
	require.Equal(t, "OAuthSweep", action.Workflow)
}
