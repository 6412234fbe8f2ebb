package newsletter

import (
	"context"
	"errors"
	"time"

	"platform/kernel/query"
	"platform/kernel/resource"
	"platform/kernel/store"
	"platform/workflows/contract"
)

// Check reads the newsletter's status and schedule (empty status: gone).
func (s *Sender) Check(ctx context.Context, id string) (contract.NewsletterState, error) {
	doc, err := s.Service.Store.Collection(Collection).Get(ctx, id, "_status", "scheduleAt")
	if errors.Is(err, store.ErrNotFound) {
		return contract.NewsletterState{}, nil
	}
	if err != nil {
		return contract.NewsletterState{}, err
	}
	st, _ := doc["_status"].(string)
	at, _ := doc["scheduleAt"].(time.Time)
	return contract.NewsletterState{Status: st, ScheduleAt: at}, nil
}

// Begin moves the newsletter from scheduled to sending if it is still
// scheduled at at; false when the record changed meanwhile.
func (s *Sender) Begin(ctx context.Context, in contract.NewsletterBegin) (bool, error) {
	where := query.AllOf(query.ID(in.NewsletterID), query.Eq("_status", StatusScheduled), query.Eq("scheduleAt", in.ScheduleAt))
	_, err := s.Service.Apply(ctx, s.newsletters(), where, resource.Change{Set: store.Doc{
		"_status": StatusSending, "startedAt": now(), "recipients": int64(0), "sent": int64(0), "failed": int64(0),
	}})
	if resource.KindOf(err) == resource.KindNotFound {
		return false, nil
	}
	return err == nil, err
}

// Finish ends a send: sent (newsletters.sent), or failed with the
// reason, with the exact counts of the ledger. A newsletter cancelled
// meanwhile keeps its status and gets the counts only.
func (s *Sender) Finish(ctx context.Context, in contract.NewsletterFinish) error {
	counts, err := s.Recount(ctx, in.NewsletterID)
	if err != nil {
		return err
	}
	set, event := store.Doc{"_status": StatusSent, "sentAt": now()}, EventSent
	if in.Failure != "" {
		set, event = store.Doc{"_status": StatusFailed, "failure": in.Failure}, ""
	}
	for k, v := range counts {
		set[k] = v
	}
	where := query.AllOf(query.ID(in.NewsletterID), query.Eq("_status", StatusSending))
	_, err = s.Service.Apply(ctx, s.newsletters(), where, resource.Change{Set: set, Event: event})
	if resource.KindOf(err) == resource.KindNotFound {
		return s.setCounts(ctx, in.NewsletterID, counts)
	}
	return err
}

// Recount counts the ledger: recipients reached, sent and failed.
func (s *Sender) Recount(ctx context.Context, id string) (store.Doc, error) {
	ledger := s.Service.Store.Collection(Ledger)
	sent, err := ledger.Count(ctx, query.AllOf(query.Eq("newsletter", id), query.Eq("status", entrySent)))
	if err != nil {
		return nil, err
	}
	failed, err := ledger.Count(ctx, query.AllOf(query.Eq("newsletter", id), query.Eq("status", entryFailed)))
	if err != nil {
		return nil, err
	}
	return store.Doc{"recipients": sent + failed, "sent": sent, "failed": failed}, nil
}

// setCounts writes counts whatever the status (a gone record is fine).
func (s *Sender) setCounts(ctx context.Context, id string, counts store.Doc) error {
	_, err := s.Service.Apply(ctx, s.newsletters(), query.ID(id), resource.Change{Set: counts})
	if resource.KindOf(err) == resource.KindNotFound {
		return nil
	}
	return err
}

// now is a write's time at the millisecond precision stores keep.
func now() time.Time { return time.Now().UTC().Truncate(time.Millisecond) }
