// Package worker registers the platform's workflows and activities on a
// Temporal worker.
package worker

import (
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"

	"platform/activities"
	"platform/workflows"
)

// New returns a worker on taskQueue with every workflow and activity registered.
func New(c client.Client, taskQueue string, acts *activities.Activities) worker.Worker {
	w := worker.New(c, taskQueue, worker.Options{
		// Let in-flight activities finish on SIGTERM before the worker stops.
		WorkerStopTimeout: 30e9,
	})
	w.RegisterWorkflow(workflows.SelfCheck)
	w.RegisterWorkflow(workflows.DispatchEvent)
	w.RegisterWorkflow(workflows.WebhookDelivery)
	w.RegisterWorkflow(workflows.PipelineRun)
	w.RegisterWorkflow(workflows.FireTrigger)
	w.RegisterActivity(acts)
	return w
}
