// Package automation is the automation module. So far it declares outbound
// webhooks, their delivery history and the deliveries parked after their
// last failed attempt (spec: Automation, Events; DESIGN §5). Delivery
// itself runs in Temporal workflows (packages dispatch, workflows,
// activities).
package automation

import "platform/api"

// Version is the module's meta.version.host.
const Version = "1.0.0"

// Module returns the automation module's declaration.
func Module() *api.Module {
	return &api.Module{
		Name: "automation", HostLabel: "automation", Version: Version,
		Resources: []*api.Resource{Webhooks(), WebhookDeliveries(), WebhookRetries()},
	}
}
