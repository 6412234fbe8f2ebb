// Package crm is the CRM module: consumers (leads and end customers), tasks
// and notes.
package crm

import "platform/api"

// Version is the module's meta.version.host.
const Version = "1.0.0"

// Module returns the CRM module's declaration.
func Module() *api.Module {
	return &api.Module{
		Name: "crm", HostLabel: "crm", Version: Version,
		Resources: []*api.Resource{Consumers(), Tasks(), Notes()},
	}
}
