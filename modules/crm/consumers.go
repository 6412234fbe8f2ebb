package crm

import (
	"context"
	"strings"

	"platform/api"
	"platform/kernel/store"
)

// Consumer states. A consumer starts as a lead; it becomes active with its
// first completed interaction (a task for it is done); anonymizing churns it.
const (
	StatusLead    = "lead"
	StatusActive  = "active"
	StatusChurned = "churned"
)

// Consumers declares /consumers.
func Consumers() *api.Resource {
	return &api.Resource{
		Module: "crm", Plural: "consumers", Title: "consumer",
		Fields: []api.Field{
			{Name: "email", Type: api.TString, Format: api.FEmail, Required: true, Unique: true, Filter: true, Sort: true, MaxLen: 254, Description: "unique per customer"},
			{Name: "first_name", Type: api.TString, MaxLen: 200, Filter: true, Sort: true},
			{Name: "last_name", Type: api.TString, MaxLen: 200, Filter: true, Sort: true},
			{Name: "profilepicture", Type: api.TString, Format: api.FURL, MaxLen: 2048},
			{Name: "phone", Type: api.TString, Format: api.FPhone, Filter: true, Description: "E.164"},
			{Name: "country", Type: api.TString, Format: api.FCountry, Filter: true, Sort: true, Description: "ISO 3166-1 alpha-2"},
			{Name: "_status", Type: api.TString, Enum: []string{StatusLead, StatusActive, StatusChurned}, ReadOnly: true, Filter: true, Sort: true,
				Description: "lead on create; active after the first completed task; churned when anonymized"},
			{Name: "customCRM", Type: api.TObject, FreeForm: true, Filter: true, Description: "tenant-specific fields"},
			{Name: "tags", Type: api.TArray, Items: &api.Field{Type: api.TString, MaxLen: 100}, Filter: true},
			{Name: "anonymizedAt", Type: api.TDate, ReadOnly: true, Filter: true},
			{Name: "displayName", Type: api.TString, Virtual: true, Description: "first name, last name and company; absent when all are empty"},
		},
		Actions: []api.Action{
			{Name: "anonymize", Title: "irreversibly remove the consumer's personal data", Right: "crm.consumers.delete", Event: "anonymized", Run: anonymize},
			{Name: "merge", Title: "merge this consumer into keepId and remove it", Right: "crm.consumers.delete", Event: "merged", AllowMissing: true,
				Body: []api.Field{{Name: "keepId", Type: api.TObjectID, Required: true}}, Run: merge},
		},
		Relations: []api.Relation{
			{Rel: "tasks", Title: "tasks of the consumer", Module: "crm", Plural: "tasks", Right: "crm.tasks.view", Sub: "tasks"},
			{Rel: "notes", Title: "notes on the consumer", Module: "crm", Plural: "notes", Right: "crm.notes.view", Sub: "notes"},
			{Rel: "maillogs", Title: "mail history", Module: "marketing", Plural: "maillogs", Right: "marketing.maillogs.view", Sub: "maillogs"},
			{Rel: "orders", Title: "orders (shop module)", Module: "shop", Plural: "orders", Right: "shop.orders.view", Sub: "orders"},
		},
		Subs: []api.Sub{
			{Name: "tasks", Module: "crm", Plural: "tasks", Key: "consumer"},
			{Name: "notes", Module: "crm", Plural: "notes", Key: "targetId", Where: targetIs("consumers")},
			{Name: "maillogs", Module: "marketing", Plural: "maillogs", Key: "consumer"},
			{Name: "orders", Module: "shop", Plural: "orders", Key: "consumer", Unavailable: shopInactive},
		},
		Hooks: api.Hooks{BeforeWrite: consumerWrite, Present: addDisplayName},
	}
}

func consumerWrite(_ context.Context, w *api.Write) error {
	// E-mail addresses are compared without case (uniqueness, filters), so
	// they are stored lower-cased.
	if e, ok := w.New["email"].(string); ok {
		w.New["email"] = strings.ToLower(e)
	}
	if w.Old == nil {
		w.New["_status"] = StatusLead
		return nil
	}
	if w.Old["anonymizedAt"] != nil {
		return api.NewError(409, api.CodeConflict, "", "an anonymized consumer cannot be changed")
	}
	return nil
}

// addDisplayName composes the virtual display name; it is never stored and
// never falls back to another value such as the e-mail address.
func addDisplayName(doc store.Doc) {
	var parts []string
	for _, v := range []any{doc["first_name"], doc["last_name"], company(doc)} {
		if s, ok := v.(string); ok && strings.TrimSpace(s) != "" {
			parts = append(parts, strings.TrimSpace(s))
		}
	}
	if len(parts) > 0 {
		doc["displayName"] = strings.Join(parts, " ")
	}
}

func company(doc store.Doc) any {
	if c, ok := doc["customCRM"].(map[string]any); ok {
		return c["company"]
	}
	return nil
}

func shopInactive(context.Context) error {
	return api.NewError(404, api.CodeInactive, "", "orders need the shop module, which is not active for this customer")
}
