package dispatch

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"platform/activities/delivery"
	"platform/kernel/events"
	"platform/kernel/store"
	"platform/workflows/contract"
)

// Deliveries is what the dispatcher needs of the delivery activities
// (activities/delivery.Activities): one attempt, the hand-over of failed
// deliveries to their webhook's retrier, and the pipeline runs an event
// starts.
type Deliveries interface {
	Try(ctx context.Context, at delivery.Attempt) (delivery.Outcome, error)
	QueueRetries(ctx context.Context, list []delivery.Failed) error
	LaunchEventRuns(ctx context.Context, in contract.LaunchEventRunsInput) (contract.LaunchedRuns, error)
	// StartOverdueRetriers makes sure a retrier runs for every webhook of
	// the customer in ctx with a queued delivery long overdue.
	StartOverdueRetriers(ctx context.Context, now time.Time) (int, error)
}

var _ Deliveries = (*delivery.Activities)(nil)

// Dispatcher delivers stored events from inside a worker process, without
// a workflow per event: it claims a customer's undispatched events in
// batches, starts the pipeline runs they trigger, makes the first attempt
// of every webhook delivery itself (per-webhook lanes, fair between
// webhooks and customers), hands failed deliveries to their webhook's
// retrier workflow (which owns the back-off in Temporal), and marks the
// events dispatched. docs/webhooks.md has the numbers behind the design.
type Dispatcher struct {
	Deps
	Limits Limits

	owner    string // this process's claim token
	hot      hotEvents
	draining drains
	wake     chan struct{}
	lanes    lanes
	out      outbox
	inflight inflight
	runs     runSlots
	// hintsSeen is the newest hint read (pollHints runs in loop only).
	hintsSeen time.Time
	sweeps    int // sweeps so far (loop only)
	started   atomic.Bool
	metrics   *metrics
}

// Deps are the dispatcher's collaborators.
type Deps struct {
	Store      store.Store
	Deliveries Deliveries
	Customers  CustomerLister
	Log        *slog.Logger
	// Bugs files a customer's dispatch that failed for a reason other than
	// an unreachable store (crm's bugs.Recorder); nil: logs only.
	Bugs BugReporter
	// Metrics registers the dispatcher's collectors; nil: none.
	Metrics prometheus.Registerer
	// Aggregation takes the events the read models count; nil: none.
	Aggregation AggregationFeed
}

// CustomerLister lists customer ids a page at a time (identity.Service).
type CustomerLister interface {
	CustomerIDs(ctx context.Context, skip, limit int64) ([]string, error)
}

// BugReporter files a fault of the code as a customer's Bug task.
type BugReporter interface {
	ReportBug(ctx context.Context, debugID, where string, cause error)
}

var _ events.Notifier = (*Dispatcher)(nil)

// NewDispatcher returns a dispatcher; Run starts it.
func NewDispatcher(deps Deps, limits Limits) *Dispatcher {
	d := &Dispatcher{Deps: deps, Limits: limits.withDefaults(), owner: newOwner(), wake: make(chan struct{}, 1)}
	d.lanes.init(d)
	d.metrics = newMetrics(d)
	return d
}

func newOwner() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// Notify implements events.Notifier: an event stored by this process is
// claimed at once (the fast path). A full buffer drops it, which loses
// nothing: the event is stored, and the next sweep claims it.
func (d *Dispatcher) Notify(_ context.Context, e events.Event) {
	if !d.started.Load() || !d.hot.add(e, d.Limits.HotBuffer) {
		return
	}
	select {
	case d.wake <- struct{}{}:
	default:
	}
}

// Run dispatches until ctx ends, then lets the attempts under way end
// (bounded by the webhook time-out), writes what they left, and gives up
// the claims of events not finished, for another process to take.
func (d *Dispatcher) Run(ctx context.Context) {
	d.started.Store(true)
	octx, stopOut := context.WithCancel(context.WithoutCancel(ctx))
	outDone, renewDone := make(chan struct{}), make(chan struct{})
	go func() { defer close(outDone); d.out.run(octx, d) }()
	go func() { defer close(renewDone); d.renewLoop(ctx) }()
	d.loop(ctx)
	d.started.Store(false)
	d.lanes.wait()
	stopOut()
	<-outDone
	<-renewDone
	d.releaseAll()
}

// loop claims hot events as they come and sweeps every customer now and
// then for events nobody claimed (stored by another process, or by one
// that died).
func (d *Dispatcher) loop(ctx context.Context) {
	sweep := time.NewTicker(d.Limits.SweepEvery)
	defer sweep.Stop()
	poll := time.NewTicker(d.Limits.PollEvery)
	defer poll.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-d.wake:
			d.drainHot(ctx)
		case <-poll.C:
			d.drainHot(ctx)
			d.pollHints(ctx)
		case <-sweep.C:
			d.sweepAll(ctx)
		}
	}
}
