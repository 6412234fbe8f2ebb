// Package dispatch hands stored events to Temporal (DESIGN §4): the
// notifier starts an event's dispatch workflow right after the event is
// stored, and the sweeper, in every worker process, starts it for events
// still not dispatched a few seconds later (the API was killed, Temporal
// was briefly away, the notifier was saturated). Both start the same
// deterministic workflow id, so an event is dispatched once however many
// processes try.
package dispatch

import (
	"context"

	"platform/kernel/events"
	"platform/kernel/store"
	"platform/kernel/temporalx"
	"platform/kernel/tenant"
	"platform/workflows/contract"
)

// Start starts the dispatch workflow of one event of customer; started is
// false when it runs or ran already.
func Start(ctx context.Context, s *temporalx.Starter, customer, eventID, name string) (started bool, err error) {
	ctx = tenant.WithCustomer(ctx, customer) // the propagator carries it into the workflow
	return s.Once(ctx, temporalx.Start{
		ID:          contract.DispatchWorkflowID(eventID),
		Workflow:    contract.WorkflowDispatchEvent,
		Input:       contract.DispatchInput{EventID: eventID, Event: name},
		Attrs:       contract.EventAttributes(customer, eventID),
		RerunFailed: true, // a failed or terminated dispatch may be swept again
	})
}

// Dispatch starts the dispatch of one event, unless nothing subscribes to
// its name (events.Subscriptions): then the event is marked dispatched
// without a workflow. started is false in that case too.
func Dispatch(ctx context.Context, st store.Store, s *temporalx.Starter, customer, eventID, name string) (started bool, err error) {
	wanted, err := events.Subscribed(ctx, st, customer, name)
	if err != nil {
		return false, err
	}
	if !wanted {
		return false, events.MarkDispatched(tenant.WithCustomer(ctx, customer), st, eventID)
	}
	return Start(ctx, s, customer, eventID, name)
}
