package automation

import (
	"context"
	"errors"
	"time"

	"platform/kernel/resource"

	"platform/kernel/query"
	"platform/kernel/store"
	"platform/kernel/tenant"
	"platform/modules/automation/webhook"
	"platform/workflows/contract"
)

// WebhookRetries declares the read-only /webhookretries: deliveries whose
// attempts all failed, with their attempt history, and the retry action.
func WebhookRetries() *resource.Resource {
	attempt := []resource.Field{
		{Name: "round", Type: resource.TInteger}, {Name: "attempt", Type: resource.TInteger}, {Name: "at", Type: resource.TDate},
		{Name: "statusCode", Type: resource.TInteger}, {Name: "error", Type: resource.TString}, {Name: "durationMs", Type: resource.TInteger, Description: "how long the attempt took, in milliseconds"},
	}
	return &resource.Resource{
		Plural: webhook.RetriesCollection, Title: "retried or parked webhook delivery", ReadOnly: true,
		Fields: []resource.Field{
			{Name: "event", Type: resource.TObjectID, Filter: true, Description: "event id"},
			{Name: "eventName", Type: resource.TString, Filter: true, Sort: true},
			{Name: "webhook", Type: resource.TObjectID, Filter: true},
			{Name: "delivery", Type: resource.TString, Filter: true, Description: "X-Platform-Delivery / webhook-id, kept by retries"},
			{Name: "status", Type: resource.TString, Filter: true, Sort: true,
				Enum:        []string{webhook.StatusParked, webhook.StatusRetrying, webhook.StatusDelivered, webhook.StatusDeactivated, webhook.StatusSkipped},
				Description: "retrying: queued for its webhook's retrier (round 0: nextAttemptAt) or in a manual retry round (round > 0); parked after the last failed attempt, or when the platform disabled the webhook; then delivered, parked again, deactivated (410) or skipped (webhook inactive or deleted)"},
			{Name: "round", Type: resource.TInteger, Filter: true, Description: "number of retry rounds started"},
			{Name: "attemptCount", Type: resource.TInteger, Filter: true, Sort: true},
			{Name: "attempts", Type: resource.TArray, Items: &resource.Field{Type: resource.TObject, Fields: attempt}},
			{Name: "firstAttemptAt", Type: resource.TDate, Filter: true, Sort: true},
			{Name: "lastAttemptAt", Type: resource.TDate, Filter: true, Sort: true},
			{Name: "nextAttemptAt", Type: resource.TDate, Filter: true, Sort: true, Description: "when the retrier attempts it next (status retrying, round 0)"},
		},
		// The retriers read a webhook's queued deliveries in due order.
		Indexes: []store.Index{{Name: "retrier_due", Keys: []store.SortField{{Field: "webhook"}, {Field: "status"}, {Field: "nextAttemptAt"}}}},
		Actions: []resource.Action{{Name: "retry", Title: "deliver again: a new round of up to 5 attempts", Event: "retried", Run: retryDelivery}},
		Relations: []resource.Relation{
			{Rel: "webhook", Title: "the webhook", Target: "automation/" + webhook.Collection, Field: "webhook"},
		},
	}
}

// retryDelivery starts a new round of the parked delivery. The round is
// claimed in the record first (so the round's outcome, however fast, lands
// after it), then its workflow is started under a deterministic id: a
// repeated request, or one after a crash between the two steps, starts the
// round once.
func retryDelivery(ctx context.Context, call *resource.ActionCall) (*resource.ActionResult, error) {
	if call.Service.Workflows == nil {
		return nil, resource.Unavailable("workflows are unavailable in this process")
	}
	rec, claimed, err := claimRound(ctx, call)
	if err != nil {
		return nil, err
	}
	round, _ := rec["round"].(int64)
	in := contract.DeliveryInput{EventID: str(rec["event"]), Event: str(rec["eventName"]), WebhookID: str(rec["webhook"]), Round: int(round)}
	cust, _ := tenant.Customer(ctx)
	attrs := map[string]string{contract.AttrCustomer: cust, contract.AttrWebhook: in.WebhookID, contract.AttrEvent: in.EventID}
	id := contract.DeliveryWorkflowID(in.EventID, in.WebhookID, in.Round)
	if _, err := call.Service.Workflows.StartOnce(ctx, id, attrs, contract.WorkflowWebhookDelivery, in); err != nil {
		return nil, resource.Unavailable("the retry could not be started; try again").WithCause(err)
	}
	return &resource.ActionResult{Payload: rec, NoEvent: !claimed}, nil
}

// claimRound moves a parked record to the next round (status retrying) and
// reports whether this call did. A record already retrying is returned as
// it is, so its round is (re)started; a delivered one is a conflict.
func claimRound(ctx context.Context, call *resource.ActionCall) (store.Doc, bool, error) {
	rec := call.Record
	switch rec["status"] {
	case webhook.StatusDelivered:
		return nil, false, resource.Conflict("status", "the delivery has been delivered; there is nothing to retry")
	case webhook.StatusRetrying:
		if round, _ := rec["round"].(int64); round == 0 {
			next, _ := rec["nextAttemptAt"].(time.Time)
			return nil, false, resource.Conflict("status", "the delivery is queued for automatic retries (next attempt at %s); it can be retried by id once it is parked", next.UTC().Format(time.RFC3339))
		}
		return rec, false, nil
	}
	round, _ := rec["round"].(int64)
	now := time.Now().UTC().Truncate(time.Millisecond)
	coll := call.Service.Store.Collection(webhook.RetriesCollection)
	doc, err := coll.Update(ctx, query.AllOf(query.ID(call.ID), query.Eq("round", round)), store.Update{
		Set: store.Doc{"status": webhook.StatusRetrying, "round": round + 1, "updatedAt": now},
	})
	if errors.Is(err, store.ErrNotFound) {
		// Another request claimed it meanwhile: go on with that round.
		doc, err = coll.Get(ctx, call.ID)
		return doc, false, err
	}
	return doc, err == nil, err
}

func str(v any) string {
	s, _ := v.(string)
	return s
}
