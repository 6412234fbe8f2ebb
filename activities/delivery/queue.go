package delivery

import (
	"context"
	"errors"
	"sort"
	"time"

	"platform/kernel/query"
	"platform/kernel/store"
	"platform/kernel/tenant"
	"platform/modules/automation/webhook"
)

// Failed is a delivery whose first attempt the dispatcher made and lost, or did not make.
type Failed struct {
	EventID, Event, WebhookID string // Event: the event's name
	// First is the first attempt (round 0, attempt 1, already recorded in
	// webhookdeliveries); nil: none was made (the webhook's circuit is
	// open or its queue is full), so the record is due at NotBefore (at
	// once when zero) with attemptCount 0.
	First *Outcome
	// NotBefore delays the first attempt of a delivery none was made for:
	// the dispatcher's open circuit sets it to when the circuit half-opens,
	// so a receiver that just failed five times in a row is not tried
	// again at once for every delivery that waited.
	NotBefore time.Time
}

// RetrierStarter makes sure a webhook's retrier workflow runs; calling it
// often is cheap and never starts a second one (Retriers).
type RetrierStarter interface {
	EnsureRetrier(ctx context.Context, customer, webhookID string) error
}

// QueueRetries hands deliveries of the customer in ctx to their webhooks' retriers (store writes, then each webhook's retrier is made sure to run). Idempotent.
//
// Each delivery becomes its webhookretries record (status retrying,
// round 0) unless that record exists: a delivery queued again, or one
// already further along, is left as it is. A First that did not fail
// (delivered, or 410 Gone) leaves nothing to retry and is ignored.
func (a *Activities) QueueRetries(ctx context.Context, list []Failed) error {
	cust, err := tenant.Customer(ctx)
	if err != nil {
		return err
	}
	if a.Retriers == nil {
		return errors.New("no retrier starter in this process: failed deliveries cannot be queued")
	}
	docs := queuedRecords(list, time.Now().UTC().Truncate(time.Millisecond))
	if err := a.insertRetries(ctx, docs); err != nil {
		return err
	}
	return a.ensureRetriers(ctx, cust, webhooksOf(docs))
}

// queuedRecords are the webhookretries records of the failed deliveries.
func queuedRecords(list []Failed, now time.Time) []store.Doc {
	docs := make([]store.Doc, 0, len(list))
	for _, f := range list {
		if f.First != nil && f.First.Status != webhook.StatusFailed {
			continue
		}
		docs = append(docs, queuedRecord(f, now))
	}
	return docs
}

// queuedRecord is one failed delivery's record: due a minute after its
// first attempt, or, when none was made, at NotBefore or at once.
func queuedRecord(f Failed, now time.Time) store.Doc {
	did := webhook.DeliveryID(f.EventID, f.WebhookID)
	d := store.Doc{
		"_id": webhook.RetryRecordID(did), "event": f.EventID, "eventName": f.Event, "webhook": f.WebhookID, "delivery": did,
		"status": webhook.StatusRetrying, "round": int64(0), "attempts": []any{}, "attemptCount": int64(0),
		"nextAttemptAt": now, "createdAt": now, "updatedAt": now,
	}
	if f.First == nil && f.NotBefore.After(now) {
		d["nextAttemptAt"] = f.NotBefore.UTC()
	}
	if f.First != nil {
		at := f.First.At.UTC()
		d["attempts"] = []any{attemptEntry(1, *f.First)}
		d["attemptCount"] = int64(1)
		d["nextAttemptAt"] = at.Add(webhook.RetryWait(1))
		d["firstAttemptAt"], d["lastAttemptAt"] = at, at
	}
	return d
}

// attemptEntry is one element of a record's attempts, in the shape
// SettleDelivery writes (a round-0 attempt).
func attemptEntry(n int, out Outcome) store.Doc {
	e := store.Doc{"round": int64(0), "attempt": int64(n), "at": out.At.UTC(), "durationMs": out.Duration.Milliseconds()}
	if out.StatusCode != 0 {
		e["statusCode"] = int64(out.StatusCode)
	}
	if out.Status != webhook.StatusDelivered {
		e["error"] = out.Error
	}
	return e
}

// insertRetries writes the records in one call; when some exist already
// (a delivery queued twice), each is written alone, and only if missing.
func (a *Activities) insertRetries(ctx context.Context, docs []store.Doc) error {
	coll := a.Store.Collection(webhook.RetriesCollection)
	err := coll.InsertMany(ctx, docs)
	if err == nil || !store.IsDuplicate(err) {
		return err
	}
	for _, d := range docs {
		insert := store.Doc{}
		for k, v := range d {
			if k != "_id" {
				insert[k] = v
			}
		}
		if _, err := coll.Upsert(ctx, d["_id"].(string), store.Update{SetOnInsert: insert}); err != nil {
			return err
		}
	}
	return nil
}

// webhooksOf lists the records' webhooks, sorted.
func webhooksOf(docs []store.Doc) []string {
	seen := map[string]bool{}
	var out []string
	for _, d := range docs {
		if h := d["webhook"].(string); !seen[h] {
			seen[h] = true
			out = append(out, h)
		}
	}
	sort.Strings(out)
	return out
}

func (a *Activities) ensureRetriers(ctx context.Context, customer string, hooks []string) error {
	for _, h := range hooks {
		if err := a.Retriers.EnsureRetrier(ctx, customer, h); err != nil {
			return err
		}
	}
	return nil
}

// OverdueAfter is how late a queued delivery may be before
// StartOverdueRetriers makes sure its webhook's retrier runs.
const OverdueAfter = time.Minute

// overdueScan bounds the records one StartOverdueRetriers call reads.
const overdueScan = 500

// StartOverdueRetriers makes sure a retrier runs for each webhook of the
// customer in ctx with a queued delivery overdue by more than
// OverdueAfter at now, and answers how many it saw. It is the safety net
// of the queue: for a retrier that failed, and for records whose
// QueueRetries ended before its EnsureRetrier (a process that died in
// between). The event sweeper calls it customer by customer every few
// seconds; it reads at most a few hundred records, without sorting.
func (a *Activities) StartOverdueRetriers(ctx context.Context, now time.Time) (int, error) {
	cust, err := tenant.Customer(ctx)
	if err != nil {
		return 0, err
	}
	if a.Retriers == nil {
		return 0, errors.New("no retrier starter in this process")
	}
	late, err := a.Store.Collection(webhook.RetriesCollection).Find(ctx, store.FindOptions{
		Filter: query.AllOf(retryingFilter(), before("nextAttemptAt", now.Add(-OverdueAfter))),
		Fields: []string{"webhook"}, Limit: overdueScan,
	})
	if err != nil {
		return 0, err
	}
	hooks := webhooksOf(late)
	return len(hooks), a.ensureRetriers(ctx, cust, hooks)
}

// retryingFilter selects the records the retriers own: queued, round 0
// (a manual retry round, status retrying too, belongs to its workflow).
func retryingFilter() query.Expr {
	return query.AllOf(query.Eq("status", webhook.StatusRetrying), query.Eq("round", int64(0)))
}

// before matches a date field earlier than t.
func before(field string, t time.Time) query.Expr {
	return query.Field{Path: field, Conds: []query.Cond{query.Compare{Op: query.OpLt, Value: t.UTC()}}}
}
