package delivery

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"platform/kernel/query"
	"platform/kernel/store"
	"platform/kernel/temporalx"
	"platform/modules/automation/webhook"
	"platform/workflows/contract"
)

// RetryConcurrency is how many attempts one retrier round sends at once.
const RetryConcurrency = 8

// DeadProbe bounds what a dead receiver costs: when the first DeadProbe
// attempts of a round all failed without an answer or with a 5xx, the
// round sends nothing more and records the rest of its due deliveries as
// failed attempts without a network call. They count like any attempt,
// so those deliveries park on their normal schedule, at the cost of store
// writes only.
const DeadProbe = 10

// notSentError is the error of an attempt a round did not send.
var notSentError = fmt.Sprintf("not sent: the receiver failed the last %d attempts", DeadProbe)

// RetryDueDeliveries makes the due attempts of one webhook's queued
// deliveries (webhookretries records with status retrying, round 0), at
// most in.Limit, earliest due first: each through Try, as attempt
// attemptCount+1 of round 0. A delivered one ends delivered, a 410 ends
// it deactivated (and the webhook's other queued deliveries skipped); a
// failure either parks it (the fifth attempt) or queues it again
// webhook.RetryWait later. The webhook is read once per call, so a
// changed URL or secret applies; when it is deleted or inactive the
// queued deliveries end skipped, or parked when the circuit breaker
// disabled it (they can be retried by id after enable). in.Now is the
// time due and next times are reckoned from.
func (a *Activities) RetryDueDeliveries(ctx context.Context, in contract.RetryDueInput) (contract.RetryDueOutput, error) {
	stop := temporalx.Heartbeat(ctx, HeartbeatEvery)
	defer stop()
	limit := in.Limit
	if limit <= 0 {
		limit = contract.RetryBatch
	}
	pending, err := a.pendingRetries(ctx, in.WebhookID, limit+1)
	if err != nil {
		return contract.RetryDueOutput{}, err
	}
	due, later := splitDue(pending, in.Now, limit)
	if len(due) == 0 {
		return contract.RetryDueOutput{Next: later}, nil
	}
	hook, err := a.Store.Collection(webhook.Collection).Get(ctx, in.WebhookID)
	if ends, status := hookEnds(hook, err); ends {
		n, err := a.endRetries(ctx, in.WebhookID, status)
		return contract.RetryDueOutput{Ended: int(n)}, err
	} else if err != nil {
		return contract.RetryDueOutput{}, err
	}
	r := &round{a: a, hook: hook, hookID: in.WebhookID, now: in.Now}
	if err := r.run(ctx, due); err != nil {
		return r.out, err
	}
	return a.afterRound(ctx, r, later)
}

// afterRound ends the webhook's queue after a 410, or judges its failure
// streak, and sets when the next delivery falls due.
func (a *Activities) afterRound(ctx context.Context, r *round, later time.Time) (contract.RetryDueOutput, error) {
	if r.gone {
		n, err := a.endRetries(ctx, r.hookID, webhook.StatusSkipped)
		r.out.Ended += int(n)
		return r.out, err
	}
	disabled, err := a.judgeStreak(ctx, r)
	if err != nil || disabled {
		r.out.Disabled = disabled
		return r.out, err
	}
	r.out.Next = earliestTime(later, r.next)
	return r.out, nil
}

// pendingRetries reads up to limit queued deliveries of the webhook,
// earliest due first.
func (a *Activities) pendingRetries(ctx context.Context, hookID string, limit int) ([]store.Doc, error) {
	return a.Store.Collection(webhook.RetriesCollection).Find(ctx, store.FindOptions{
		Filter: query.AllOf(query.Eq("webhook", hookID), retryingFilter()),
		Sort:   []store.SortField{{Field: "nextAttemptAt"}},
		Limit:  int64(limit),
		Fields: []string{"event", "eventName", "attemptCount", "firstAttemptAt", "nextAttemptAt"},
	})
}

// splitDue takes the records due at now, at most limit, from pending
// (sorted by nextAttemptAt), and answers when the first one left falls
// due (zero: none is left).
func splitDue(pending []store.Doc, now time.Time, limit int) ([]store.Doc, time.Time) {
	n := 0
	for n < len(pending) && n < limit && !timeOf(pending[n]["nextAttemptAt"]).After(now) {
		n++
	}
	if n == len(pending) {
		return pending, time.Time{}
	}
	return pending[:n], timeOf(pending[n]["nextAttemptAt"])
}

// hookEnds says whether the webhook (or its read's error) ends its queued
// deliveries, and with which status.
func hookEnds(hook store.Doc, err error) (bool, string) {
	switch {
	case errors.Is(err, store.ErrNotFound):
		return true, webhook.StatusSkipped
	case err != nil, hook["active"] == true:
		return false, ""
	case hook["disabledAt"] != nil: // disabled by the breaker: kept for a retry by id
		return true, webhook.StatusParked
	}
	return true, webhook.StatusSkipped
}

// endRetries ends every queued delivery of the webhook with status, in
// one write.
func (a *Activities) endRetries(ctx context.Context, hookID, status string) (int64, error) {
	return a.Store.Collection(webhook.RetriesCollection).UpdateMany(ctx,
		query.AllOf(query.Eq("webhook", hookID), retryingFilter()),
		store.Update{Set: store.Doc{"status": status, "updatedAt": nowMillis()}, Unset: []string{"nextAttemptAt"}})
}

// round is one call's attempts of one webhook.
type round struct {
	a      *Activities
	hook   store.Doc
	hookID string
	now    time.Time

	mu     sync.Mutex
	out    contract.RetryDueOutput
	next   time.Time // the earliest next attempt of those still queued
	failed int       // attempts that failed
	since  time.Time // the earliest first attempt of the failed deliveries
	gone   bool      // a 410 deactivated the webhook
	err    error
}

// run attempts the due deliveries: the first DeadProbe, then the rest,
// sent only if the receiver did not fail every one of the first.
func (r *round) run(ctx context.Context, due []store.Doc) error {
	probe := due[:min(DeadProbe, len(due))]
	dead := r.attemptAll(ctx, probe)
	if rest := due[len(probe):]; len(rest) > 0 && !r.stopped(ctx) {
		if dead < DeadProbe {
			r.attemptAll(ctx, rest)
		} else {
			r.notSent(ctx, rest)
		}
	}
	return r.err
}

// notSent records a failed attempt without a network call for each of
// recs, one write per attempt number rather than one per record: a dead
// receiver's backlog of thousands then costs the store a few writes a
// round, and other customers' writes are not queued behind it.
func (r *round) notSent(ctx context.Context, recs []store.Doc) {
	out := Outcome{Status: webhook.StatusFailed, Error: notSentError, At: nowMillis()}
	byN := map[int][]store.Doc{}
	for _, rec := range recs {
		n := int(intOf(rec["attemptCount"])) + 1
		byN[n] = append(byN[n], rec)
	}
	for n, group := range byN {
		status, next, err := r.a.settleRetries(ctx, group, n, out, r.now)
		for _, rec := range group {
			r.note(rec, out, status, next, false, err)
		}
	}
}

// attemptAll attempts the records, RetryConcurrency at a time, and
// answers how many failed without an answer or with a 5xx.
func (r *round) attemptAll(ctx context.Context, recs []store.Doc) int {
	sem := make(chan struct{}, RetryConcurrency)
	var wg sync.WaitGroup
	var mu sync.Mutex
	dead := 0
	for _, rec := range recs {
		if r.stopped(ctx) {
			break
		}
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			if r.attempt(ctx, rec) {
				mu.Lock()
				dead++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return dead
}

// stopped: a 410 or a fault ended the round, or the activity is cancelled.
func (r *round) stopped(ctx context.Context) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.gone || r.err != nil || ctx.Err() != nil
}

// attempt makes one attempt of the record and settles it; true when it
// failed without an answer or with a 5xx.
func (r *round) attempt(ctx context.Context, rec store.Doc) bool {
	n := int(intOf(rec["attemptCount"])) + 1
	out, found, err := r.send(ctx, rec, n)
	if err != nil || !found {
		r.ended(ctx, rec, err)
		return false
	}
	status, next, err := r.a.settleRetry(ctx, rec, n, out, r.now)
	r.note(rec, out, status, next, true, err)
	return out.Status == webhook.StatusFailed && (out.StatusCode == 0 || out.StatusCode >= 500)
}

// send loads the record's event and tries it; found is false when the
// event is gone.
func (r *round) send(ctx context.Context, rec store.Doc, n int) (Outcome, bool, error) {
	eventID := str(rec["event"])
	ev, err := r.a.loadEvent(ctx, eventID)
	if errors.Is(err, store.ErrNotFound) {
		return Outcome{}, false, nil
	} else if err != nil {
		return Outcome{}, false, err
	}
	out, err := r.a.Try(ctx, Attempt{EventID: eventID, Event: ev, Hook: r.hook, Round: 0, N: n})
	return out, err == nil, err
}

// ended ends a record whose event is gone (skipped), or notes the fault
// that kept it from being attempted.
func (r *round) ended(ctx context.Context, rec store.Doc, fault error) {
	if fault == nil {
		_, fault = r.a.Store.Collection(webhook.RetriesCollection).Update(ctx,
			query.AllOf(query.ID(str(rec["_id"])), retryingFilter()),
			store.Update{Set: store.Doc{"status": webhook.StatusSkipped, "updatedAt": nowMillis()}, Unset: []string{"nextAttemptAt"}})
		if errors.Is(fault, store.ErrNotFound) {
			fault = nil
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if fault == nil {
		r.out.Ended++
	}
	r.err = firstErr(r.err, fault)
}

// note counts one settled attempt.
func (r *round) note(rec store.Doc, out Outcome, status string, next time.Time, sent bool, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err != nil {
		r.err = firstErr(r.err, err)
		return
	}
	r.out.Attempted++
	if sent {
		r.out.Sent++
	}
	switch status {
	case webhook.StatusDelivered:
		r.out.Delivered++
	case webhook.StatusParked:
		r.out.Parked++
	}
	if out.Status == webhook.StatusDeactivated {
		r.gone = true
	}
	if out.Status == webhook.StatusFailed {
		r.failed++
		r.since = earliestTime(r.since, firstAttempt(rec, out))
	}
	r.next = earliestTime(r.next, next)
}

// firstErr keeps the first error.
func firstErr(first, err error) error {
	if first != nil {
		return first
	}
	return err
}

// firstAttempt is when the record's delivery was first attempted.
func firstAttempt(rec store.Doc, out Outcome) time.Time {
	if t := timeOf(rec["firstAttemptAt"]); !t.IsZero() {
		return t
	}
	return out.At
}

// settleRetry writes one attempt's outcome into the record and answers
// the record's status and, still queued, when it is due next. The write
// holds only if the record is still queued at the attempt count read, so
// a round repeated after a crash, or a breaker that parked the record
// meanwhile, is not overwritten; such a record is left as it is.
func (a *Activities) settleRetry(ctx context.Context, rec store.Doc, n int, out Outcome, now time.Time) (string, time.Time, error) {
	status, next, u := retryUpdate(n, out, now)
	where := query.AllOf(query.ID(str(rec["_id"])), retryingFilter(), query.Eq("attemptCount", int64(n-1)))
	_, err := a.Store.Collection(webhook.RetriesCollection).Update(ctx, where, u)
	if errors.Is(err, store.ErrNotFound) {
		return "", time.Time{}, nil
	}
	return status, next, err
}

// settleRetries is settleRetry for records that all had the same attempt
// n with the same outcome, in one write.
func (a *Activities) settleRetries(ctx context.Context, recs []store.Doc, n int, out Outcome, now time.Time) (string, time.Time, error) {
	status, next, u := retryUpdate(n, out, now)
	ids := make([]any, len(recs))
	for i, rec := range recs {
		ids[i] = str(rec["_id"])
	}
	where := query.AllOf(query.Field{Path: "_id", Conds: []query.Cond{query.In{Values: ids}}}, retryingFilter(), query.Eq("attemptCount", int64(n-1)))
	_, err := a.Store.Collection(webhook.RetriesCollection).UpdateMany(ctx, where, u)
	return status, next, err
}

// retryUpdate is the change attempt n with outcome out makes to a queued
// record, the status it leaves and, still queued, when it is due next.
func retryUpdate(n int, out Outcome, now time.Time) (string, time.Time, store.Update) {
	status := retryStatus(out, n)
	set := store.Doc{"attemptCount": int64(n), "lastAttemptAt": out.At.UTC(), "updatedAt": nowMillis()}
	if n == 1 {
		set["firstAttemptAt"] = out.At.UTC()
	}
	u := store.Update{Set: set, Push: map[string]any{"attempts": attemptEntry(n, out)}}
	var next time.Time
	if status == webhook.StatusRetrying {
		next = now.Add(webhook.RetryWait(n)).UTC()
		set["nextAttemptAt"] = next
	} else {
		set["status"] = status
		u.Unset = []string{"nextAttemptAt"}
	}
	return status, next, u
}

// retryStatus is the record's status after its n-th attempt.
func retryStatus(out Outcome, n int) string {
	switch {
	case out.Status == webhook.StatusDelivered:
		return webhook.StatusDelivered
	case out.Status == webhook.StatusDeactivated:
		return webhook.StatusDeactivated
	case n >= webhook.MaxAttempts:
		return webhook.StatusParked
	}
	return webhook.StatusRetrying
}

func nowMillis() time.Time { return time.Now().UTC().Truncate(time.Millisecond) }

func str(v any) string {
	s, _ := v.(string)
	return s
}

func intOf(v any) int64 {
	switch n := v.(type) {
	case int64:
		return n
	case int32:
		return int64(n)
	case float64:
		return int64(n)
	}
	return 0
}

func timeOf(v any) time.Time {
	t, _ := v.(time.Time)
	return t
}

// earliestTime of two times, zero meaning none.
func earliestTime(a, b time.Time) time.Time {
	if a.IsZero() || (!b.IsZero() && b.Before(a)) {
		return b
	}
	return a
}
