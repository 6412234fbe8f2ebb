package dispatch

import (
	"context"

	sdkworker "go.temporal.io/sdk/worker"
)

// Worker is a Temporal worker that also runs the sweeper, so every process
// of the worker role sweeps and nothing else has to remember to.
type Worker struct {
	sdkworker.Worker
	Sweeper *Sweeper
	cancel  context.CancelFunc
	done    chan struct{}
}

// Start starts the worker, then the sweeper.
func (w *Worker) Start() error {
	if err := w.Worker.Start(); err != nil {
		return err
	}
	w.startSweeper()
	return nil
}

// Run runs the worker and the sweeper until interruptCh fires.
func (w *Worker) Run(interruptCh <-chan interface{}) error {
	w.startSweeper()
	defer w.stopSweeper()
	return w.Worker.Run(interruptCh)
}

// Stop stops the sweeper, then drains the worker.
func (w *Worker) Stop() {
	w.stopSweeper()
	w.Worker.Stop()
}

func (w *Worker) startSweeper() {
	ctx, cancel := context.WithCancel(context.Background())
	w.cancel, w.done = cancel, make(chan struct{})
	go func() {
		defer close(w.done)
		w.Sweeper.Run(ctx)
	}()
}

func (w *Worker) stopSweeper() {
	if w.cancel != nil {
		w.cancel()
		<-w.done
		w.cancel = nil
	}
}
