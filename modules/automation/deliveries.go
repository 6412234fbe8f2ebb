package automation

import (
	"platform/api"
	"platform/modules/automation/webhook"
)

// WebhookDeliveries declares the read-only /webhookdeliveries: one record per
// delivery attempt, written by the delivery workflow; also listed per
// webhook at /webhooks/:id/deliveries.
func WebhookDeliveries() *api.Resource {
	return &api.Resource{
		Module: "automation", Plural: webhook.DeliveriesCollection, Title: "webhook delivery attempt", ReadOnly: true,
		Fields: []api.Field{
			{Name: "webhook", Type: api.TObjectID, Filter: true},
			{Name: "event", Type: api.TObjectID, Filter: true, Description: "event id"},
			{Name: "eventName", Type: api.TString, Filter: true, Sort: true},
			{Name: "delivery", Type: api.TString, Filter: true, Description: "X-Platform-Delivery / webhook-id: the same for every attempt of a delivery"},
			{Name: "round", Type: api.TInteger, Filter: true, Description: "0: the first delivery; n: the n-th manual retry"},
			{Name: "attempt", Type: api.TInteger, Filter: true, Sort: true, Description: "1 to 5 within the round"},
			{Name: "url", Type: api.TString, Description: "where it was sent (password hidden)"},
			{Name: "status", Type: api.TString, Enum: []string{webhook.StatusDelivered, webhook.StatusFailed}, Filter: true, Sort: true},
			{Name: "statusCode", Type: api.TInteger, Filter: true, Description: "the receiver's HTTP status; absent when it did not answer"},
			{Name: "error", Type: api.TString, Description: "why the attempt failed"},
			{Name: "durationMs", Type: api.TInteger, Filter: true, Sort: true},
		},
	}
}
