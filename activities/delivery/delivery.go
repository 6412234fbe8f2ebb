// Package delivery holds the activities of an event's way out, as the
// DispatchEvent, WebhookDelivery and WebhookRetrier workflows execute
// them: which webhooks the event goes to, the runs of the pipelines it
// triggers, each signed delivery attempt, the retry queue of failed
// deliveries (queue.go, retry.go) with the circuit breaker that disables
// a webhook that keeps failing (breaker.go), the parking of a delivery
// whose attempts all failed, and the event's dispatched mark.
package delivery

import (
	"context"
	"log/slog"
	"time"

	"platform/kernel/outbound"
	"platform/kernel/resource"
	"platform/kernel/store"
	"platform/modules/automation/runs"
)

// Activities are the delivery activities with their dependencies.
type Activities struct {
	Store store.Store
	Log   *slog.Logger
	// Outbound guards calls to tenant URLs; nil refuses them all.
	Outbound *outbound.Guard
	// WebhookTimeout bounds one webhook delivery attempt.
	WebhookTimeout time.Duration
	// Vault opens sealed webhook secrets; nil without a master key.
	Vault Opener
	// Launcher starts the runs events trigger; nil starts none.
	Launcher Launcher
	// Notifications starts the notifications events' routes select; nil
	// starts none.
	Notifications EventRouter
	// Records is the record service the platform's own changes of
	// webhook records go through (the deactivation after a 410); nil
	// fails such a change.
	Records *resource.Service
	// MaxChain bounds an event's causation chain of pipeline runs
	// (PLATFORM_PIPELINE_CHAIN_MAX); 0 means DefaultMaxChain.
	MaxChain int

	// Retriers makes sure the retrier of a webhook with queued deliveries
	// runs (QueueRetries, StartOverdueRetriers); nil fails those calls.
	Retriers RetrierStarter
	// The circuit breaker (breaker.go): a webhook is disabled once
	// DisableAfterParked deliveries in a row were parked with no success
	// in between (PLATFORM_WEBHOOK_DISABLE_AFTER_PARKED), or once every
	// attempt failed for DisableAfter (PLATFORM_WEBHOOK_DISABLE_AFTER).
	// Zero turns that rule off.
	DisableAfterParked int
	DisableAfter       time.Duration
	// Aggregation counts each attempt record in the webhook health read
	// model (aggregation.go); nil: none.
	Aggregation RecordFeed
}

// Opener opens the sealed secrets of one record of a customer
// (credentials.Vault).
type Opener interface {
	Open(customer, recordID string, sealed store.Doc) (map[string]any, error)
}

// EventRouter starts the deliveries of the notification routes that
// select an event (notifications.Activities); load reads its data.
type EventRouter interface {
	RouteEvent(ctx context.Context, eventID, name string, load func() (map[string]any, error)) error
}

// Launcher writes a run record and starts its run (runs.Launcher).
type Launcher interface {
	Launch(ctx context.Context, in runs.Launch) (string, error)
	// Refuse records a run that is not started, with the reason.
	Refuse(ctx context.Context, in runs.Launch, kind, reason string) (string, error)
}
