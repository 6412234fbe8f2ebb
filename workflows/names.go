// Package workflows holds the platform's Temporal workflow definitions. They
// are deterministic: every side effect runs in an activity (package activities).
package workflows

import "platform/modules/automation/runs"

// DefaultTaskQueue is the task queue the worker polls unless configured otherwise.
const DefaultTaskQueue = "platform"

// Search attributes registered on the Temporal server, so operators can find
// runs of a customer, pipeline, webhook or event in the UI.
const (
	AttrCustomer = runs.AttrCustomer
	AttrPipeline = runs.AttrPipeline
	AttrWebhook  = "PlatformWebhook"
	AttrEvent    = "PlatformEvent"
)
