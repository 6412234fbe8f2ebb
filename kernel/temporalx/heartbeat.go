package temporalx

import (
	"context"
	"time"

	"go.temporal.io/sdk/activity"
)

// Heartbeat records an activity heartbeat every period until stop is
// called or ctx ends. A long call heartbeats so that a cancellation
// (which reaches an activity only through a heartbeat) cancels ctx, and
// so that a worker that died is noticed within the heartbeat time-out.
func Heartbeat(ctx context.Context, every time.Duration) (stop func()) {
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-t.C:
				activity.RecordHeartbeat(ctx)
			}
		}
	}()
	return func() { close(done) }
}
