// Package marketing is the marketing module: the mail logs, which the CRM
// shows as a consumer's mail history, and newsletters.
package marketing

import (
	"platform/api"
	"platform/kernel/resource"
)

// Version is the module's meta.version.host.
const Version = "1.0.0"

// Module returns the marketing module's declaration.
func Module(d Deps) *api.Module {
	return &api.Module{Name: "marketing", HostLabel: "marketing", Version: Version, Resources: []*resource.Resource{MailLogs(), Newsletters(d)}}
}

// MailLogs declares the read-only /maillogs, written by the platform at send
// time. Rights: marketing.maillogs.{view|export} (export: CSV and YAML lists).
func MailLogs() *resource.Resource {
	return &resource.Resource{
		Plural: "maillogs", Title: "mail log", ReadOnly: true, Export: true,
		Fields: []resource.Field{
			{Name: "to", Type: resource.TString, Format: resource.FEmail, Filter: true, Sort: true},
			{Name: "consumer", Type: resource.TObjectID, Filter: true},
			{Name: "newsletter", Type: resource.TObjectID, Filter: true},
			{Name: "status", Type: resource.TString, Enum: []string{"queued", "sent", "bounced", "complained", "opened", "clicked"}, Filter: true, Sort: true},
			{Name: "openedAt", Type: resource.TDate, Filter: true, Sort: true},
			{Name: "clickedAt", Type: resource.TDate, Filter: true, Sort: true},
			{Name: "bounceReason", Type: resource.TString},
		},
	}
}
