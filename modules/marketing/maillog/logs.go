package maillog

import (
	"context"
	"errors"
	"time"

	"platform/kernel/query"
	"platform/kernel/resource"
	"platform/kernel/store"
)

// Logs moves the mail logs of the customer in ctx.
type Logs struct {
	Service *resource.Service
}

// Resource is the declared maillogs resource.
func (l Logs) Resource() *resource.Resource { return l.Service.Registry.Get("marketing", "maillogs") }

// Load reads one mail log by id; NotFound when missing.
func (l Logs) Load(ctx context.Context, id string) (store.Doc, error) {
	return l.Service.Load(ctx, l.Resource(), id)
}

// Write is a new mail log, as a sender knows it.
type Write struct {
	ID         string // optional: a sender's derived id, so a retry conflicts
	To         string
	Consumer   string
	Newsletter string
	Source     string // "newsletter" or "notification"
	Status     string // Queued, Sent or Failed
	Error      string // why the send failed
}

// Create stores a new mail log (sentAt is set for a sent one).
func (l Logs) Create(ctx context.Context, w Write) (store.Doc, error) {
	doc := store.Doc{"_id": w.ID, "to": w.To, "consumer": w.Consumer, "newsletter": w.Newsletter,
		"source": w.Source, "status": w.Status, "error": w.Error}
	if w.Status == Sent {
		doc["sentAt"] = time.Now().UTC().Truncate(time.Millisecond)
	}
	for k, v := range doc {
		if v == "" {
			delete(doc, k)
		}
	}
	out, err := l.Service.Insert(ctx, l.Resource(), doc)
	if err != nil || (w.Status != Sent && w.Status != Failed) {
		return out, err
	}
	return out, l.announce(ctx, w.Status, out)
}

// announce emits maillogs.sent or maillogs.failed: a send is settled
// (the aggregation service counts mails sent from it).
func (l Logs) announce(ctx context.Context, status string, doc store.Doc) error {
	if l.Service.Events == nil {
		return nil
	}
	return l.Service.Events.Record(ctx, "maillogs."+status, doc)
}

// apply makes c conditionally; moved is false when where did not hold.
func (l Logs) apply(ctx context.Context, where query.Expr, c resource.Change) (store.Doc, bool, error) {
	doc, err := l.Service.Apply(ctx, l.Resource(), where, c)
	if resource.KindOf(err) == resource.KindNotFound || errors.Is(err, store.ErrNotFound) {
		return nil, false, nil
	}
	return doc, err == nil, err
}

func absent(field string) query.Expr {
	return query.Field{Path: field, Conds: []query.Cond{query.Exists{Want: false}}}
}

func statusIn(values []any) query.Expr {
	return query.Field{Path: "status", Conds: []query.Cond{query.In{Values: values}}}
}

// Settle ends the send of a queued log: sent (failure empty, with sentAt,
// from which the scanner rule counts) or failed with failure. A log that
// is no longer queued is left as it is (a retried send step); moved says
// whether this call settled it.
func (l Logs) Settle(ctx context.Context, id, failure string) (bool, error) {
	now := time.Now().UTC().Truncate(time.Millisecond)
	set := store.Doc{"status": Sent, "sentAt": now}
	if failure != "" {
		set = store.Doc{"status": Failed, "error": failure}
	}
	c := resource.Change{Set: set, Event: Sent}
	if failure != "" {
		c.Event = Failed
	}
	_, moved, err := l.apply(ctx, query.AllOf(query.ID(id), query.Eq("status", Queued)), c)
	return moved, err
}
