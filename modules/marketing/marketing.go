// Package marketing is the marketing module: coupons and their
// redemptions, newsletters, references, the mail logs (which the CRM
// shows as a consumer's mail history), the public tracking service at
// {tracking_url} (Tracker) and the mail provider's bounce and complaint
// intake (Intake).
package marketing

import (
	"net/http"

	"platform/api"
	"platform/kernel/resource"
	"platform/modules/marketing/maillog"
)

// Version is the module's meta.version.host.
const Version = "1.0.0"

// Module returns the marketing module's declaration.
func Module(d Deps) *api.Module {
	return &api.Module{Name: "marketing", HostLabel: "marketing", Version: Version,
		Resources: []*resource.Resource{MailLogs(), Newsletters(d), Coupons(d), CouponRedemptions(), References()},
		Routes:    intakeRoutes(d.Intake), Paths: intakePaths()}
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
		// sent, failed: a send settled (the aggregation service counts them).
		Events: []string{"sent", "failed", "opened", "clicked", "bounced", "complained"},
	}
}

func intakeRoutes(in *Intake) func(r *api.ModuleRouter) {
	return func(r *api.ModuleRouter) {
		if in != nil {
			r.HandlePublic(http.MethodPost, IntakePath, in.receive)
		}
	}
}

func intakePaths() map[string]any {
	op := api.PublicOperation("marketing.inbound.mail", "maillogs", "Receive a bounce or complaint report",
		"The mail provider's intake: a JSON object {messageId, type: bounce|complaint, reason}, an RFC 3464 delivery "+
			"status notification or an RFC 5965 feedback report (multipart/report), or the whole report mail "+
			"(message/rfc822). Authenticated by PLATFORM_MAIL_INBOUND_TOKEN as a bearer token or a Basic password "+
			"(401 without it, 403 while it is not set). The mail log named by the reported Message-ID moves to "+
			"bounced or complained unless it is there or past it already (docs/tracking.md); a report of no "+
			"mail of the platform answers matched: false.", nil, http.StatusOK)
	str := map[string]any{"schema": map[string]any{"type": "string"}}
	op["requestBody"] = map[string]any{"required": true, "content": map[string]any{
		"application/json": map[string]any{"schema": map[string]any{"type": "object", "required": []any{"messageId", "type"},
			"properties": map[string]any{"messageId": map[string]any{"type": "string"}, "type": map[string]any{"type": "string", "enum": []any{"bounce", "complaint"}},
				"reason": map[string]any{"type": "string"}}}},
		"multipart/report": str, "message/rfc822": str}}
	return map[string]any{IntakePath: map[string]any{"post": op}}
}
