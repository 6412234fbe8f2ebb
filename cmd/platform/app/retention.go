package app

import (
	"context"

	"platform/modules/automation"
	"platform/workflows/contract"
)

// RetentionScheduleID names the retention schedule of the deployment whose
// worker polls taskQueue (deployments sharing a Temporal namespace differ
// by their task queues).
func RetentionScheduleID(taskQueue string) string { return taskQueue + "-retention" }

// retention is the automation module's pruner with the configured
// retentions.
func (a *App) retention() *automation.Retention {
	return &automation.Retention{
		Store:  a.Store,
		Events: a.Config.EventRetention, Deliveries: a.Config.DeliveryRetention, Runs: a.Config.RunRetention,
	}
}

// PutRetentionSchedule creates, or updates, the schedule that runs
// workflows.Retention on taskQueue every PLATFORM_RETENTION_INTERVAL. A
// run still going at the next tick makes that tick skip.
func (a *App) PutRetentionSchedule(ctx context.Context, taskQueue string) error {
	return a.putHousekeeping(ctx, RetentionScheduleID(taskQueue), contract.WorkflowRetention, a.Config.RetentionInterval, taskQueue)
}
