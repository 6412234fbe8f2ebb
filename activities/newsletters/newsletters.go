// Package newsletters holds the activities of the newsletter send
// workflow: thin adapters from the workflow's contract to the marketing
// module's newsletter service, which does the work.
package newsletters

import (
	"context"
	"errors"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"

	"platform/modules/marketing/newsletter"
	"platform/workflows/contract"
)

// Sender is the newsletter service the activities call (newsletter.Sender).
type Sender interface {
	Check(ctx context.Context, id string) (contract.NewsletterState, error)
	Begin(ctx context.Context, in contract.NewsletterBegin) (bool, error)
	Page(ctx context.Context, in contract.NewsletterPageInput, beat func(any)) (contract.NewsletterPage, error)
	Finish(ctx context.Context, in contract.NewsletterFinish) error
}

var _ Sender = (*newsletter.Sender)(nil)

// Activities are the newsletter activities.
type Activities struct {
	Sender Sender
}

// CheckNewsletter reads the newsletter's status and schedule.
func (a *Activities) CheckNewsletter(ctx context.Context, id string) (contract.NewsletterState, error) {
	return a.Sender.Check(ctx, id)
}

// BeginNewsletter moves a due newsletter to sending.
func (a *Activities) BeginNewsletter(ctx context.Context, in contract.NewsletterBegin) (bool, error) {
	return a.Sender.Begin(ctx, in)
}

// SendNewsletterPage sends one page, heartbeating after every mail. A
// send that cannot go on is a non-retryable ErrTypeNewsletter; anything
// else (SMTP 4xx, a lost connection, the store) is retried. A worker
// that stops ends the page after the mail in flight, so the next worker
// takes over at once instead of the stop waiting for the whole page.
func (a *Activities) SendNewsletterPage(ctx context.Context, in contract.NewsletterPageInput) (contract.NewsletterPage, error) {
	beat := func(d any) { activity.RecordHeartbeat(ctx, d) }
	stopping := activity.GetWorkerStopChannel(ctx)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-stopping:
			cancel()
		case <-ctx.Done():
		}
	}()
	out, err := a.Sender.Page(ctx, in, beat)
	if err != nil && isClosed(stopping) && errors.Is(err, context.Canceled) {
		// Cut short by the worker's stop: the page's cursor is safe to
		// go on from (package newsletter), without a failed attempt's
		// back-off.
		return out, nil
	}
	var stop *newsletter.Stop
	if errors.As(err, &stop) {
		return out, temporal.NewNonRetryableApplicationError(stop.Reason, contract.ErrTypeNewsletter, err)
	}
	return out, err
}

// FinishNewsletter records the end of the send.
func (a *Activities) FinishNewsletter(ctx context.Context, in contract.NewsletterFinish) error {
	return a.Sender.Finish(ctx, in)
}

func isClosed(c <-chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}
