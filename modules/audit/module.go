package audit

import (
	"platform/api"
	"platform/kernel/store"
)

// Version is the module's meta.version.host.
const Version = "1.0.0"

// Module serves the trail under {audit_url} (default {gateway_url}/audit).
func Module() *api.Module {
	return &api.Module{Name: "audit", HostLabel: "audit", Version: Version, Resources: []*api.Resource{Records()}}
}

// Records declares the read-only /auditrecords: list, filter and get only,
// newest first. Right: audit.auditrecords.view.
func Records() *api.Resource {
	return &api.Resource{
		Module: "audit", Plural: Collection, Title: "audit record", ReadOnly: true,
		DefaultSort: []store.SortField{{Field: "time", Desc: true}},
		Fields: []api.Field{
			{Name: "time", Type: api.TDate, Filter: true, Sort: true, Description: "when it happened"},
			{Name: "action", Type: api.TString, Filter: true, Sort: true, Description: "what happened, e.g. oauth.signin, oauth.token, oauth.revoke"},
			{Name: "outcome", Type: api.TString, Enum: []string{Success, Failure}, Filter: true},
			{Name: "actor", Type: api.TString, Filter: true, Description: "user id or client id; empty for an unknown caller"},
			{Name: "actorType", Type: api.TString, Enum: []string{"user", "app", "anonymous"}, Filter: true},
			{Name: "target", Type: api.TString, Filter: true, Description: "what was acted on (client id, e-mail, token family)"},
			{Name: "clientAddress", Type: api.TString, Filter: true},
			{Name: "debugId", Type: api.TString, Filter: true, Description: "debug id of the request, as in the logs"},
			{Name: "details", Type: api.TObject, FreeForm: true},
		},
	}
}
