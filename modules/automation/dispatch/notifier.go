package dispatch

import (
	"context"
	"log/slog"
	"time"

	"platform/kernel/events"
	"platform/kernel/store"
	"platform/kernel/temporalx"
)

// notifyTimeout bounds one start; past it the sweeper takes over.
const notifyTimeout = 10 * time.Second

// Notifier starts an event's dispatch as soon as it is stored (the fast
// path). It starts in the background so the write's answer does not wait
// for Temporal, and at most Concurrency starts at a time; an event that
// finds every slot taken is left to the sweeper, which loses nothing:
// the event is already stored.
type Notifier struct {
	Store   store.Store
	Starter *temporalx.Starter
	Log     *slog.Logger
	slots   chan struct{}
}

var _ events.Notifier = (*Notifier)(nil)

// NewNotifier returns a notifier allowing concurrency starts in flight.
func NewNotifier(st store.Store, s *temporalx.Starter, log *slog.Logger, concurrency int) *Notifier {
	return &Notifier{Store: st, Starter: s, Log: log, slots: make(chan struct{}, concurrency)}
}

// Notify implements events.Notifier.
func (n *Notifier) Notify(ctx context.Context, e events.Event) {
	select {
	case n.slots <- struct{}{}:
	default:
		n.Log.DebugContext(ctx, "notifier saturated; the sweeper dispatches the event", "event", e.ID)
		return
	}
	// The request ends when its answer is sent; the start must not.
	ctx = context.WithoutCancel(ctx)
	go func() {
		defer func() { <-n.slots }()
		ctx, cancel := context.WithTimeout(ctx, notifyTimeout)
		defer cancel()
		if _, err := Dispatch(ctx, n.Store, n.Starter, e.Customer, e.ID, e.Name); err != nil {
			n.Log.WarnContext(ctx, "event dispatch left to the sweeper", "event", e.ID, "name", e.Name, "error", err)
		}
	}()
}
