package app

import (
	"context"
	"time"

	"go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"

	"platform/activities/maintenance"
	"platform/kernel/temporalx"
	"platform/workflows/contract"
)

// OAuthSweepScheduleID names the OAuth sweep's schedule of the deployment
// whose worker polls taskQueue ("platform-oauth-sweep" by default):
// deployments sharing a Temporal namespace differ by their task queues.
func OAuthSweepScheduleID(taskQueue string) string { return taskQueue + "-oauth-sweep" }

// MaintenanceActivities are the housekeeping activities the worker
// registers (the OAuthSweep and Retention workflows call them).
func (a *App) MaintenanceActivities() *maintenance.Activities {
	return &maintenance.Activities{OAuth: a.OAuth.Sweeper(), Retention: a.retention(), Customers: a.Identity}
}

// PutOAuthSweepSchedule creates, or updates, the schedule that runs
// workflows.OAuthSweep on taskQueue every PLATFORM_OAUTH_SWEEP_INTERVAL.
// A sweep still running at the next tick makes that tick skip.
func (a *App) PutOAuthSweepSchedule(ctx context.Context, taskQueue string) error {
	return a.putHousekeeping(ctx, OAuthSweepScheduleID(taskQueue), contract.WorkflowOAuthSweep, a.Config.OAuthSweepInterval, taskQueue)
}

// putHousekeeping puts the schedule id that runs workflow on taskQueue
// every interval. A run still going at the next tick makes that tick skip;
// after an outage, one run catches up on everything.
func (a *App) putHousekeeping(ctx context.Context, id, workflow string, every time.Duration, taskQueue string) error {
	return temporalx.PutSchedule(ctx, a.Temporal, client.ScheduleOptions{
		ID:            id,
		Spec:          client.ScheduleSpec{Intervals: []client.ScheduleIntervalSpec{{Every: every}}},
		Action:        &client.ScheduleWorkflowAction{ID: id, Workflow: workflow, TaskQueue: taskQueue},
		Overlap:       enums.SCHEDULE_OVERLAP_POLICY_SKIP,
		CatchupWindow: time.Minute,
	})
}

// PutSchedules creates or updates the Temporal schedules of the platform's
// housekeeping on taskQueue; every worker start does it (idempotent).
func (a *App) PutSchedules(ctx context.Context, taskQueue string) error {
	if err := a.PutOAuthSweepSchedule(ctx, taskQueue); err != nil {
		return err
	}
	return a.PutRetentionSchedule(ctx, taskQueue)
}
