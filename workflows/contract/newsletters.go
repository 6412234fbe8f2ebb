package contract

import "time"

// Newsletter sends: one workflow per newsletter (docs/newsletters.md). The
// newsletter record is the truth about what to do (its _status and
// scheduleAt); the signal only tells a waiting workflow to look again.
const (
	WorkflowNewsletterSend = "NewsletterSend"
	// SignalNewsletterChanged: the record's schedule or status changed.
	SignalNewsletterChanged = "changed"

	// ActivityCheckNewsletter reads the newsletter's status and schedule.
	ActivityCheckNewsletter = "CheckNewsletter"
	// ActivityBeginNewsletter moves a scheduled newsletter that is due to
	// sending, if its schedule is still the one the workflow waited for.
	ActivityBeginNewsletter = "BeginNewsletter"
	// ActivitySendNewsletterPage sends to one page of recipients.
	ActivitySendNewsletterPage = "SendNewsletterPage"
	// ActivityFinishNewsletter counts the ledger and ends the send.
	ActivityFinishNewsletter = "FinishNewsletter"
)

// NewsletterPageSize is how many consumers one page activity resolves.
const NewsletterPageSize = 200

// ErrTypeNewsletter is a send that cannot go on (the mail channel is off,
// the template no longer compiles): the newsletter ends failed.
const ErrTypeNewsletter = "NewsletterFailed"

// NewsletterInput names the newsletter (of the customer in the context).
// After is the last consumer id a previous run of a send that continued
// as new had finished; empty at the start.
type NewsletterInput struct {
	NewsletterID string
	After        string
}

// NewsletterState is what CheckNewsletter reads: the status ("" when the
// newsletter is gone) and the schedule (zero when none).
type NewsletterState struct {
	Status     string
	ScheduleAt time.Time
}

// NewsletterBegin asks to start the send scheduled at ScheduleAt.
type NewsletterBegin struct {
	NewsletterID string
	ScheduleAt   time.Time
}

// NewsletterPageInput asks for the page of recipients after the consumer
// id After (empty: from the first).
type NewsletterPageInput struct {
	NewsletterID string
	After        string
}

// NewsletterPage is how one page went. Next is the last consumer id of
// the page; Done when no consumer is left; Stopped when the newsletter
// was cancelled (or deleted) meanwhile.
type NewsletterPage struct {
	Next    string
	Done    bool
	Stopped bool
	Sent    int
	Failed  int
	Skipped int
}

// NewsletterFinish ends a send: Failure, when set, is why it failed.
type NewsletterFinish struct {
	NewsletterID string
	Failure      string
}

// NewsletterWorkflowID is the one workflow id of a newsletter: the
// customer is part of it because ids are unique per customer only.
func NewsletterWorkflowID(customer, newsletterID string) string {
	return "newsletter-" + customer + "-" + newsletterID
}
