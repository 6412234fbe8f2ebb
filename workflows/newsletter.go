package workflows

import (
	"errors"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"platform/workflows/contract"
)

// Newsletter statuses the workflow acts on (the record's _status).
const (
	newsletterScheduled = "scheduled"
	newsletterSending   = "sending"
)

// newsletterRecheck is how long after a signal the workflow reads the
// record once more. The API signals after the write is stored, so the
// first read sees it; the second is a safety net for a signal that
// raced a later write (and for processes of older versions, which
// signalled before storing).
const newsletterRecheck = 5 * time.Second

// maxNewsletterPages bounds one run's history (about seven events a
// page); the send then continues as new from the last page's cursor.
const maxNewsletterPages = 100

// newsletterStoreOptions: short, idempotent reads and writes of the record.
var newsletterStoreOptions = workflow.ActivityOptions{
	StartToCloseTimeout: 30 * time.Second,
	RetryPolicy:         &temporal.RetryPolicy{InitialInterval: time.Second, MaximumInterval: 30 * time.Second, MaximumAttempts: 10},
}

// newsletterPageOptions: a page waits on the send rate and the SMTP
// server and heartbeats throughout. SMTP 4xx replies and lost
// connections fail the attempt and are retried with a growing back-off,
// without limit: the ledger makes a retried page skip whom it reached.
var newsletterPageOptions = workflow.ActivityOptions{
	StartToCloseTimeout: 24 * time.Hour,
	HeartbeatTimeout:    30 * time.Second,
	RetryPolicy: &temporal.RetryPolicy{InitialInterval: time.Second, BackoffCoefficient: 2, MaximumInterval: time.Minute,
		NonRetryableErrorTypes: []string{contract.ErrTypeNewsletter}},
}

// NewsletterSend waits for a newsletter's scheduleAt, sends it page by
// page and records the outcome. The record decides: a signal
// (SignalNewsletterChanged) only makes the workflow read it again, so a
// reschedule, an unschedule or a cancel is whatever the record says.
func NewsletterSend(ctx workflow.Context, in contract.NewsletterInput) error {
	n := &newsletterRun{id: in.NewsletterID, after: in.After, changed: workflow.GetSignalChannel(ctx, contract.SignalNewsletterChanged)}
	ctx = workflow.WithActivityOptions(ctx, newsletterStoreOptions)
	if in.After != "" { // a send that continued as new
		return n.send(ctx)
	}
	return n.schedule(ctx)
}

// newsletterRun is the state of one run.
type newsletterRun struct {
	id      string
	after   string    // the cursor: the last consumer id done
	recheck time.Time // a read owed after a signal; zero: none
	changed workflow.ReceiveChannel
}

// schedule waits until the newsletter is due, then sends it; it ends when
// the record is no longer scheduled (a draft again, cancelled, deleted).
func (n *newsletterRun) schedule(ctx workflow.Context) error {
	for {
		n.drain(ctx)
		var st contract.NewsletterState
		if err := workflow.ExecuteActivity(ctx, contract.ActivityCheckNewsletter, n.id).Get(ctx, &st); err != nil {
			return faultReported(ctx, "workflow NewsletterSend, check", err)
		}
		if st.Status == newsletterSending {
			return n.send(ctx)
		}
		var wake time.Time
		if st.Status == newsletterScheduled {
			began, err := n.beginIfDue(ctx, st.ScheduleAt)
			if err != nil || began {
				return errors.Join(err, n.sendIf(ctx, began))
			}
			wake = st.ScheduleAt
			if !wake.After(workflow.Now(ctx)) {
				wake = time.Time{} // due but not begun: the record changed, read it again
				n.owe(ctx)
			}
		}
		if !n.sleep(ctx, wake) {
			return nil
		}
	}
}

// beginIfDue moves the newsletter to sending once its time has come.
func (n *newsletterRun) beginIfDue(ctx workflow.Context, at time.Time) (bool, error) {
	if at.After(workflow.Now(ctx)) {
		return false, nil
	}
	var began bool
	err := workflow.ExecuteActivity(ctx, contract.ActivityBeginNewsletter, contract.NewsletterBegin{NewsletterID: n.id, ScheduleAt: at}).Get(ctx, &began)
	if err != nil {
		return false, faultReported(ctx, "workflow NewsletterSend, begin", err)
	}
	return began, nil
}

func (n *newsletterRun) sendIf(ctx workflow.Context, began bool) error {
	if !began {
		return nil
	}
	return n.send(ctx)
}

// send sends page after page from the cursor and finishes the send.
func (n *newsletterRun) send(ctx workflow.Context) error {
	pctx := workflow.WithActivityOptions(ctx, newsletterPageOptions)
	for range maxNewsletterPages {
		n.drain(ctx) // a cancel is read from the record by the page
		var p contract.NewsletterPage
		err := workflow.ExecuteActivity(pctx, contract.ActivitySendNewsletterPage, contract.NewsletterPageInput{NewsletterID: n.id, After: n.after}).Get(ctx, &p)
		if err != nil {
			return n.finish(ctx, newsletterFailure(err))
		}
		if p.Next != "" {
			n.after = p.Next
		}
		if p.Stopped {
			return nil
		}
		if p.Done {
			return n.finish(ctx, "")
		}
		if workflow.GetInfo(ctx).GetContinueAsNewSuggested() {
			break
		}
	}
	n.drain(ctx)
	return workflow.NewContinueAsNewError(ctx, contract.WorkflowNewsletterSend, contract.NewsletterInput{NewsletterID: n.id, After: n.after})
}

// finish records the end of the send (failure: why it failed).
func (n *newsletterRun) finish(ctx workflow.Context, failure string) error {
	in := contract.NewsletterFinish{NewsletterID: n.id, Failure: failure}
	if err := workflow.ExecuteActivity(ctx, contract.ActivityFinishNewsletter, in).Get(ctx, nil); err != nil {
		return faultReported(ctx, "workflow NewsletterSend, finish", err)
	}
	return nil
}

// newsletterFailure is the tenant-readable reason of a page that cannot go on.
func newsletterFailure(err error) string {
	var app *temporal.ApplicationError
	if errors.As(err, &app) {
		return app.Message()
	}
	return "the send stopped: " + err.Error()
}

// sleep waits until wake or an owed re-read, whichever is first; a signal
// cuts it short and owes a re-read. False: there is nothing to wait for.
func (n *newsletterRun) sleep(ctx workflow.Context, wake time.Time) bool {
	at := earliest(wake, n.recheck)
	if at.IsZero() {
		return false
	}
	if !n.recheck.After(at) {
		n.recheck = time.Time{} // this wait ends at the owed re-read
	}
	sleepOrSignal(ctx, max(at.Sub(workflow.Now(ctx)), time.Millisecond), n.changed, func() { n.owe(ctx) })
	return true
}

// drain takes the signals that came meanwhile; each owes a re-read.
func (n *newsletterRun) drain(ctx workflow.Context) {
	for n.changed.ReceiveAsync(nil) {
		n.owe(ctx)
	}
}

func (n *newsletterRun) owe(ctx workflow.Context) {
	n.recheck = workflow.Now(ctx).Add(newsletterRecheck)
}
