package automation

import (
	"platform/kernel/resource"
	"platform/modules/automation/webhook"
)

// WebhookDeliveries declares the read-only /webhookdeliveries: one record per
// delivery attempt, written by the delivery workflow; also listed per
// webhook at /webhooks/:id/deliveries.
func WebhookDeliveries() *resource.Resource {
	return &resource.Resource{
		Plural: webhook.DeliveriesCollection, Title: "webhook delivery attempt", ReadOnly: true,
		Fields: []resource.Field{
			{Name: "webhook", Type: resource.TObjectID, Filter: true},
			{Name: "event", Type: resource.TObjectID, Filter: true, Description: "event id"},
			{Name: "eventName", Type: resource.TString, Filter: true, Sort: true},
			{Name: "delivery", Type: resource.TString, Filter: true, Description: "X-Platform-Delivery / webhook-id: the same for every attempt of a delivery"},
			{Name: "round", Type: resource.TInteger, Filter: true, Description: "0: the first delivery; n: the n-th manual retry"},
			{Name: "attempt", Type: resource.TInteger, Filter: true, Sort: true, Description: "1 to 5 within the round"},
			{Name: "url", Type: resource.TString, Description: "where it was sent (password hidden)"},
			{Name: "status", Type: resource.TString, Enum: []string{webhook.StatusDelivered, webhook.StatusFailed}, Filter: true, Sort: true},
			{Name: "statusCode", Type: resource.TInteger, Filter: true, Description: "the receiver's HTTP status; absent when it did not answer"},
			{Name: "error", Type: resource.TString, Description: "why the attempt failed"},
			{Name: "durationMs", Type: resource.TInteger, Filter: true, Sort: true, Description: "how long the attempt took, in milliseconds"},
		},
	}
}
