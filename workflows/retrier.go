package workflows

import (
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"platform/workflows/contract"
)

// maxRetrierRounds bounds one run's history (about ten events a round);
// the retrier then continues as new.
const maxRetrierRounds = 200

// retrierRoundOptions run one round of retries: a round sends at most
// RetryBatch attempts (eight at a time, each bounded by the webhook
// time-out) and heartbeats throughout. A round that keeps failing is a
// platform fault: the retrier ends with it, and the overdue check starts
// it again.
var retrierRoundOptions = workflow.ActivityOptions{
	StartToCloseTimeout: 10 * time.Minute,
	HeartbeatTimeout:    30 * time.Second,
	RetryPolicy:         &temporal.RetryPolicy{InitialInterval: 5 * time.Second, MaximumInterval: time.Minute, MaximumAttempts: 10},
}

// WebhookRetrier retries the queued deliveries of one webhook
// (webhookretries records with status retrying): a round attempts those
// due, then the workflow sleeps until the next falls due (the timer is
// the back-off the Temporal UI shows) and ends when none is left and no
// check is owed. A signal (SignalRetrierQueued) says more were queued.
func WebhookRetrier(ctx workflow.Context, in contract.RetrierInput) error {
	r := &retrier{webhookID: in.WebhookID, checkAt: in.CheckAt, queued: workflow.GetSignalChannel(ctx, contract.SignalRetrierQueued)}
	actx := workflow.WithActivityOptions(ctx, retrierRoundOptions)
	for range maxRetrierRounds {
		next, err := r.round(actx)
		if err != nil {
			return faultReported(ctx, "workflow WebhookRetrier, retry due deliveries", err)
		}
		if !r.wait(ctx, next) {
			return nil
		}
		if workflow.GetInfo(ctx).GetContinueAsNewSuggested() {
			break
		}
	}
	r.drain(ctx) // signals a run leaves unread are lost
	return workflow.NewContinueAsNewError(ctx, contract.WorkflowWebhookRetrier, contract.RetrierInput{WebhookID: r.webhookID, CheckAt: r.checkAt})
}

// retrier is the state of one retrier run.
type retrier struct {
	webhookID string
	// checkAt is when a round is owed because deliveries were queued
	// (contract.RetrierCheckAfter after the last signal); zero: none.
	checkAt time.Time
	queued  workflow.ReceiveChannel
}

// round runs one round of retries and answers when the next is due
// (zero: nothing left queued).
func (r *retrier) round(ctx workflow.Context) (time.Time, error) {
	start := workflow.Now(ctx)
	var out contract.RetryDueOutput
	in := contract.RetryDueInput{WebhookID: r.webhookID, Now: start, Limit: contract.RetryBatch}
	if err := workflow.ExecuteActivity(ctx, contract.ActivityRetryDueDeliveries, in).Get(ctx, &out); err != nil {
		return time.Time{}, err
	}
	if !start.Before(r.checkAt) {
		r.checkAt = time.Time{} // this round looked after the owed check's time
	}
	return nextRound(out.Next, start), nil
}

// nextRound is when to run the round after one that started at start and
// found the earliest queued delivery due at next: at once for a backlog,
// otherwise not before RetrierMinPause, so that deliveries falling due
// close together are attempted in one round.
func nextRound(next, start time.Time) time.Time {
	if next.IsZero() || !next.After(start) {
		return next
	}
	if least := start.Add(contract.RetrierMinPause); next.Before(least) {
		return least
	}
	return next
}

// wait sleeps until the next round: the earliest of next and an owed
// check. False: nothing is queued and no check is owed, the run may end.
func (r *retrier) wait(ctx workflow.Context, next time.Time) bool {
	for {
		r.drain(ctx)
		wake := earliest(next, r.checkAt)
		if wake.IsZero() {
			return false
		}
		d := wake.Sub(workflow.Now(ctx))
		if d <= 0 || r.sleep(ctx, d) {
			return true
		}
	}
}

// sleep waits d or until a signal comes (then the wait is reconsidered);
// true when the time ran out.
func (r *retrier) sleep(ctx workflow.Context, d time.Duration) bool {
	return sleepOrSignal(ctx, d, r.queued, func() { r.owe(ctx) })
}

// drain takes the signals that came meanwhile.
func (r *retrier) drain(ctx workflow.Context) {
	for r.queued.ReceiveAsync(nil) {
		r.owe(ctx)
	}
}

// owe notes a check after a signal: what the signaller queues while it
// trusts the retrier to see it is queued before then.
func (r *retrier) owe(ctx workflow.Context) {
	at := workflow.Now(ctx).Add(contract.RetrierCheckAfter)
	if at.After(r.checkAt) {
		r.checkAt = at
	}
}

// earliest of two times, zero meaning none.
func earliest(a, b time.Time) time.Time {
	if a.IsZero() || (!b.IsZero() && b.Before(a)) {
		return b
	}
	return a
}
