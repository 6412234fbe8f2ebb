package newsletter

import (
	"context"
	"time"
)

// pacer spaces mails to a rate per second.
type pacer struct {
	every time.Duration
	next  time.Time
}

func newPacer(rate float64) *pacer {
	if rate <= 0 {
		return &pacer{}
	}
	return &pacer{every: time.Duration(float64(time.Second) / rate)}
}

// wait blocks until the next mail may go.
func (p *pacer) wait(ctx context.Context) error {
	now := time.Now()
	if p.next.After(now) {
		t := time.NewTimer(p.next.Sub(now))
		defer t.Stop()
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
		now = p.next
	}
	p.next = now.Add(p.every)
	return nil
}
