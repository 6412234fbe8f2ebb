// Package marketing is the marketing module. So far it declares the mail
// logs, which the CRM shows as a consumer's mail history.
package marketing

import (
	"platform/api"
	"platform/kernel/resource"
	"platform/modules/marketing/maillog"
)

// Version is the module's meta.version.host.
const Version = "1.0.0"

// Module returns the marketing module's declaration.
func Module() *api.Module {
	return &api.Module{Name: "marketing", HostLabel: "marketing", Version: Version, Resources: []*resource.Resource{MailLogs()}}
}

// MailLogs declares the read-only /maillogs, written by the platform at send
// time and moved by the tracking service and the bounce intake (package
// maillog, docs/tracking.md). Rights: marketing.maillogs.{view|export}
// (export: CSV and YAML lists).
func MailLogs() *resource.Resource {
	return &resource.Resource{
		Plural: "maillogs", Title: "mail log", ReadOnly: true, Export: true,
		Fields: []resource.Field{
			{Name: "to", Type: resource.TString, Format: resource.FEmail, Filter: true, Sort: true},
			{Name: "consumer", Type: resource.TObjectID, Filter: true},
			{Name: "newsletter", Type: resource.TObjectID, Filter: true},
			{Name: "source", Type: resource.TString, Enum: []string{"newsletter", "notification"}, Filter: true, Description: "what sent the mail"},
			{Name: "status", Type: resource.TString, Enum: maillog.Statuses, Filter: true, Sort: true,
				Description: "moves forward only: queued, then sent or failed, opened, clicked, bounced, complained (docs/tracking.md)"},
			{Name: "error", Type: resource.TString, Description: "why the send failed (status failed)"},
			{Name: "sentAt", Type: resource.TDate, Filter: true, Sort: true},
			{Name: "openedAt", Type: resource.TDate, Filter: true, Sort: true, Description: "first open by a person (machine opens do not set it)"},
			{Name: "clickedAt", Type: resource.TDate, Filter: true, Sort: true, Description: "first click by a person"},
			{Name: "opens", Type: resource.TInteger, Description: "opens by people"},
			{Name: "clicks", Type: resource.TInteger, Description: "clicks by people"},
			{Name: "machineOpens", Type: resource.TInteger, Description: "opens by scanners, image proxies and bots (docs/tracking.md)"},
			{Name: "machineClicks", Type: resource.TInteger, Description: "clicks by scanners and bots"},
			{Name: "bounceReason", Type: resource.TString, Description: "the provider's reason of a bounce or complaint"},
			{Name: "bouncedAt", Type: resource.TDate, Filter: true},
			{Name: "complainedAt", Type: resource.TDate, Filter: true},
		},
		Events: []string{"opened", "clicked", "bounced", "complained"},
	}
}
