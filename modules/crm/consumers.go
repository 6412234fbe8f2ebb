package crm

import (
	"context"
	"strings"

	"platform/kernel/resource"

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
func Consumers(d Deps) *resource.Resource {
	return &resource.Resource{
		Plural: "consumers", Title: "consumer",
		Fields: []resource.Field{
			{Name: "email", Type: resource.TString, Format: resource.FEmail, Required: true, Unique: true, Filter: true, Sort: true, MaxLen: 254, Description: "unique per customer"},
			{Name: "first_name", Type: resource.TString, MaxLen: 200, Filter: true, Sort: true},
			{Name: "last_name", Type: resource.TString, MaxLen: 200, Filter: true, Sort: true},
			{Name: "profilepicture", Type: resource.TString, Format: resource.FURL, MaxLen: 2048},
			{Name: "phone", Type: resource.TString, Format: resource.FPhone, Filter: true, Description: "E.164"},
			{Name: "country", Type: resource.TString, Format: resource.FCountry, Filter: true, Sort: true, Description: "ISO 3166-1 alpha-2"},
			{Name: "_status", Type: resource.TString, Enum: []string{StatusLead, StatusActive, StatusChurned}, ReadOnly: true, Filter: true, Sort: true,
				Description: "lead on create; active after the first completed task; churned when anonymized"},
			{Name: "customCRM", Type: resource.TObject, FreeForm: true, Filter: true, Description: "tenant-specific fields"},
			{Name: "tags", Type: resource.TArray, Items: &resource.Field{Type: resource.TString, MaxLen: 100}, Filter: true},
			{Name: "anonymizedAt", Type: resource.TDate, ReadOnly: true, Filter: true},
			{Name: "unsubscribedAt", Type: resource.TDate, ReadOnly: true, Filter: true,
				Description: "when the consumer opted out of newsletters (their unsubscribe link); newsletters skip them"},
			{Name: "unsubscribedNewsletter", Type: resource.TObjectID, ReadOnly: true, Filter: true,
				Description: "the newsletter whose unsubscribe link the consumer used (the aggregation service's newsletter funnels count it)"},
			{Name: "displayName", Type: resource.TString, Virtual: true, Description: "first name, last name and company; absent when all are empty"},
		},
		Actions: []resource.Action{
			{Name: "anonymize", Title: "irreversibly remove the consumer's personal data", Right: "crm.consumers.delete", Event: "anonymized", Run: anonymize(d)},
			{Name: "merge", Title: "merge this consumer into keepId and remove it", Right: "crm.consumers.delete", Event: "merged", AllowMissing: true,
				Body: []resource.Field{{Name: "keepId", Type: resource.TObjectID, Required: true}}, Run: merge(d)},
		},
		// unsubscribed: the consumer's unsubscribe link (marketing's tracker).
		Events: []string{"unsubscribed"},
		Relations: []resource.Relation{
			{Rel: "tasks", Title: "tasks of the consumer", Target: "crm/tasks", Key: "consumer"},
			{Rel: "notes", Title: "notes on the consumer", Target: "crm/notes", Key: "targetId", Where: targetIs("consumers")},
			{Rel: "maillogs", Title: "mail history", Target: "marketing/maillogs", Key: "consumer"},
			{Rel: "orders", Title: "orders (shop module)", Target: "shop/orders", Key: "consumer", Unavailable: shopInactive},
		},
		Hooks: resource.Hooks{BeforeWrite: consumerWrite, Present: addDisplayName},
	}
}

func consumerWrite(_ context.Context, w *resource.Write) error {
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
		return resource.Conflict("", "an anonymized consumer cannot be changed")
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
	return resource.Inactive("orders need the shop module, which is not active for this customer")
}
