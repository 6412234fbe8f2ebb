// Package automation is the automation module: outbound webhooks, their
// delivery history and parked deliveries (spec: Automation, Events; DESIGN
// §5), and pipelines with their versions, triggers, custom functions and
// runs (docs/pipelines.md). Delivery and runs execute in Temporal
// workflows (packages dispatch, workflows, activities).
package automation

import (
	"platform/api"
	"platform/kernel/resource"
)

// Version is the module's meta.version.host.
const Version = "1.0.0"

// Module returns the automation module's declaration.
func Module(d Deps) *api.Module {
	return &api.Module{
		Name: "automation", HostLabel: "automation", Version: Version,
		Resources: []*resource.Resource{
			Webhooks(d), WebhookDeliveries(), WebhookRetries(),
			Pipelines(d), PipelineVersions(), Triggers(d), Functions(d), PipelineRuns(d),
		},
		Routes: hookRoutes(d),
		Paths:  hookPaths(),
	}
}
