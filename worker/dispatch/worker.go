package dispatch

import (
	"context"

	sdkworker "go.temporal.io/sdk/worker"
)

// Worker is a Temporal worker that also runs the event dispatcher, so
// every process of the worker role dispatches and nothing else has to
// remember to.
type Worker struct {
	sdkworker.Worker
	Dispatcher *Dispatcher
	cancel     context.CancelFunc
	done       chan struct{}
}

// Start starts the worker, then the dispatcher.
func (w *Worker) Start() error {
	if err := w.Worker.Start(); err != nil {
		return err
	}
	w.startDispatcher()
	return nil
}

// Run runs the worker and the dispatcher until interruptCh fires.
func (w *Worker) Run(interruptCh <-chan interface{}) error {
	w.startDispatcher()
	defer w.stopDispatcher()
	return w.Worker.Run(interruptCh)
}

// Stop stops the dispatcher, then drains the worker.
func (w *Worker) Stop() {
	w.stopDispatcher()
	w.Worker.Stop()
}

func (w *Worker) startDispatcher() {
	ctx, cancel := context.WithCancel(context.Background())
	w.cancel, w.done = cancel, make(chan struct{})
	go func() {
		defer close(w.done)
		w.Dispatcher.Run(ctx)
	}()
}

func (w *Worker) stopDispatcher() {
	if w.cancel != nil {
		w.cancel()
		<-w.done
		w.cancel = nil
	}
}
