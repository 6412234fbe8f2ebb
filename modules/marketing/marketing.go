// Package marketing is the marketing module. So far it declares the mail
// logs, which the CRM shows as a consumer's mail history.
package marketing

import "platform/api"

// Version is the module's meta.version.host.
const Version = "1.0.0"

// Module returns the marketing module's declaration.
func Module() *api.Module {
	return &api.Module{Name: "marketing", HostLabel: "marketing", Version: Version, Resources: []*api.Resource{MailLogs()}}
}

// MailLogs declares the read-only /maillogs, written by the platform at send time.
func MailLogs() *api.Resource {
	return &api.Resource{
		Module: "marketing", Plural: "maillogs", Title: "mail log", ReadOnly: true,
		Fields: []api.Field{
			{Name: "to", Type: api.TString, Format: api.FEmail, Filter: true, Sort: true},
			{Name: "consumer", Type: api.TObjectID, Filter: true},
			{Name: "newsletter", Type: api.TObjectID, Filter: true},
			{Name: "status", Type: api.TString, Enum: []string{"queued", "sent", "bounced", "complained", "opened", "clicked"}, Filter: true, Sort: true},
			{Name: "openedAt", Type: api.TDate, Filter: true, Sort: true},
			{Name: "clickedAt", Type: api.TDate, Filter: true, Sort: true},
			{Name: "bounceReason", Type: api.TString},
		},
	}
}
