package worker

import (
	"sync"
	"time"

	"github.com/nexus-rpc/sdk-go/nexus"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	sdkworker "go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"platform/workflows/contract"
)

// Slots bound the worker of one kind's task queue (settings.QueueSlots).
type Slots struct {
	Activities int // activities, and apart local activities, at once
	Workflows  int // workflow tasks at once (at least 2)
	Pollers    int // long polls per task type (at least 2)
}

// Group is a worker process's Temporal workers: one per kind of work, each
// polling its kind's task queue with its own slots, so a saturated kind
// cannot take another's. Each registers every workflow and activity: a
// workflow started on the base queue before the queues were split, with
// the activities and children it schedules there, still finishes on the
// base queue's worker, and a misrouted start still runs. Group is an
// sdkworker.Worker: starting, running, stopping or registering on it does
// so on each of its workers.
type Group struct {
	fanout
	queues []string
}

// NewGroup returns the workers of every kind, on the queues named after
// the base task queue, with every workflow and the activities of acts.
func NewGroup(c client.Client, base string, slots map[contract.Kind]Slots, acts Activities) *Group {
	g := &Group{}
	for _, k := range contract.Kinds {
		q := contract.Queue(base, k)
		w := sdkworker.New(c, q, options(slots[k]))
		Register(w, acts)
		g.fanout = append(g.fanout, w)
		g.queues = append(g.queues, q)
	}
	return g
}

// options are a queue's worker options. Eager activities are off: the
// worker would hand a workflow's activity to itself, past the server's
// fair ordering of the queue (the server's default is off too).
func options(s Slots) sdkworker.Options {
	return sdkworker.Options{
		// Let in-flight activities finish on SIGTERM before the worker stops.
		WorkerStopTimeout:                       30e9,
		MaxConcurrentActivityExecutionSize:      s.Activities,
		MaxConcurrentLocalActivityExecutionSize: s.Activities,
		MaxConcurrentWorkflowTaskExecutionSize:  s.Workflows,
		MaxConcurrentWorkflowTaskPollers:        s.Pollers,
		MaxConcurrentActivityTaskPollers:        s.Pollers,
		DisableEagerActivities:                  true,
		// A workflow's next task waits on this worker's sticky queue,
		// which the server serves first in, first out, not by fairness
		// key: under one customer's burst another's run would wait 5 s
		// (the default) per task there. After 300 ms it goes to the fair
		// queue instead, at the cost of a replay of its history.
		StickyScheduleToStartTimeout: stickyTimeout,
	}
}

// stickyTimeout bounds how long a workflow task waits for the worker
// that has the workflow cached (see options).
const stickyTimeout = 300 * time.Millisecond

// Queues lists the task queues the group polls, the base queue first.
func (g *Group) Queues() []string { return g.queues }

// Start starts every worker; if one fails, those started are stopped.
func (g *Group) Start() error {
	for i, w := range g.fanout {
		if err := w.Start(); err != nil {
			g.fanout[:i].stop()
			return err
		}
	}
	return nil
}

// Run starts the workers and stops them when interruptCh fires.
func (g *Group) Run(interruptCh <-chan interface{}) error {
	if err := g.Start(); err != nil {
		return err
	}
	<-interruptCh
	g.Stop()
	return nil
}

// Stop stops the workers together, so the drains (each up to
// WorkerStopTimeout) overlap.
func (g *Group) Stop() { g.fanout.stop() }

// fanout registers on every worker of a group.
type fanout []sdkworker.Worker

func (f fanout) stop() {
	var wg sync.WaitGroup
	for _, w := range f {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w.Stop()
		}()
	}
	wg.Wait()
}

func (f fanout) RegisterWorkflow(w any) {
	for _, x := range f {
		x.RegisterWorkflow(w)
	}
}

func (f fanout) RegisterWorkflowWithOptions(w any, o workflow.RegisterOptions) {
	for _, x := range f {
		x.RegisterWorkflowWithOptions(w, o)
	}
}

func (f fanout) RegisterDynamicWorkflow(w any, o workflow.DynamicRegisterOptions) {
	for _, x := range f {
		x.RegisterDynamicWorkflow(w, o)
	}
}

func (f fanout) RegisterActivity(a any) {
	for _, x := range f {
		x.RegisterActivity(a)
	}
}

func (f fanout) RegisterActivityWithOptions(a any, o activity.RegisterOptions) {
	for _, x := range f {
		x.RegisterActivityWithOptions(a, o)
	}
}

func (f fanout) RegisterDynamicActivity(a any, o activity.DynamicRegisterOptions) {
	for _, x := range f {
		x.RegisterDynamicActivity(a, o)
	}
}

func (f fanout) RegisterNexusService(s *nexus.Service) {
	for _, x := range f {
		x.RegisterNexusService(s)
	}
}

var _ sdkworker.Worker = (*Group)(nil)
