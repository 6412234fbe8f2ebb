// Package audit is the audit module: admins of a customer read the audit
// trail (package trail writes it) at {audit_url}/auditrecords, a read-only
// declared resource, so nothing can change or delete a record through the API.
package audit

import (
	"platform/api"
	"platform/kernel/resource"
	"platform/kernel/store"
	"platform/modules/audit/trail"
)

// Version is the module's meta.version.host.
const Version = "1.0.0"

// Module serves the trail under {audit_url} (default {gateway_url}/audit).
func Module() *api.Module {
	return &api.Module{Name: "audit", HostLabel: "audit", Version: Version, Resources: []*resource.Resource{Records()}}
}

// Records declares the read-only /auditrecords: list, filter and get only,
// newest first. Right: audit.auditrecords.view.
func Records() *resource.Resource {
	return &resource.Resource{
		Plural: trail.Collection, Title: "audit record", ReadOnly: true,
		DefaultSort: []store.SortField{{Field: "time", Desc: true}},
		Fields: []resource.Field{
			{Name: "time", Type: resource.TDate, Filter: true, Sort: true, Description: "when it happened"},
			{Name: "action", Type: resource.TString, Filter: true, Sort: true, Description: "what happened, e.g. oauth.signin, oauth.token, oauth.revoke"},
			{Name: "outcome", Type: resource.TString, Enum: []string{trail.Success, trail.Failure}, Filter: true},
			{Name: "actor", Type: resource.TString, Filter: true, Description: "user id or client id; empty for an unknown caller"},
			{Name: "actorType", Type: resource.TString, Enum: []string{"user", "app", "anonymous"}, Filter: true},
			{Name: "target", Type: resource.TString, Filter: true, Description: "what was acted on (client id, e-mail, token family)"},
			{Name: "clientAddress", Type: resource.TString, Filter: true},
			{Name: "debugId", Type: resource.TString, Filter: true, Description: "debug id of the request, as in the logs"},
			{Name: "details", Type: resource.TObject, FreeForm: true},
		},
	}
}
