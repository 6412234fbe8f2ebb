package crm

import (
	"context"
	"errors"
	"time"

	"platform/kernel/query"
	"platform/kernel/resource"
	"platform/kernel/store"
)

// personalFields are removed by anonymize; the e-mail is replaced because
// it is required and unique.
var personalFields = []string{"first_name", "last_name", "profilepicture", "phone", "country", "customCRM", "tags"}

type actionFunc = func(context.Context, *resource.ActionCall) (*resource.ActionResult, error)

// anonymize removes personal data irreversibly but keeps the record, so
// tasks, notes and mail logs that point at it stay consistent.
func anonymize(d Deps) actionFunc {
	return func(ctx context.Context, call *resource.ActionCall) (*resource.ActionResult, error) {
		if call.Record["anonymizedAt"] != nil {
			return &resource.ActionResult{Payload: call.Record, NoEvent: true}, nil
		}
		alias := "anonymized-" + call.ID + "@anonymized.invalid"
		// Redact the history first: a retry after a crash between the steps
		// then still finds the consumer un-anonymized.
		if err := redactHistory(ctx, d, call, alias); err != nil {
			return nil, err
		}
		now := time.Now().UTC().Truncate(time.Millisecond)
		doc, err := call.Service.Apply(ctx, call.Resource, query.ID(call.ID), resource.Change{
			Set:   store.Doc{"email": alias, "_status": StatusChurned, "anonymizedAt": now},
			Unset: personalFields,
		})
		if err != nil {
			return nil, err
		}
		return &resource.ActionResult{Payload: doc, EventData: store.Doc{"_id": call.ID, "anonymizedAt": now, "_status": StatusChurned}}, nil
	}
}

// redactHistory replaces the consumer's address in the mail history and
// the free text of notes about it (the notes stay: the history keeps its
// shape, but their text may hold personal data).
func redactHistory(ctx context.Context, d Deps, call *resource.ActionCall, alias string) error {
	if d.Mail != nil {
		email, _ := call.Record["email"].(string)
		if err := d.Mail.Redact(ctx, call.ID, email, alias); err != nil {
			return err
		}
	}
	notes := call.Service.Registry.Get("crm", "notes")
	_, err := call.Service.ApplyAll(ctx, notes, aboutConsumer(call.ID), resource.Change{Set: store.Doc{"body": NoteRemoved}})
	return err
}

// NoteRemoved replaces the text of notes about an anonymized consumer.
const NoteRemoved = "_(removed when the consumer was anonymized)_"

// mergesCollection remembers finished merges, so a retried merge answers
// like the first one instead of 404.
const mergesCollection = "consumermerges"

// merge moves the consumer's tasks, notes and mail logs to keepId and
// removes it. Each step is idempotent and ordered so a retry after a crash
// completes the merge.
func merge(d Deps) actionFunc {
	return func(ctx context.Context, call *resource.ActionCall) (*resource.ActionResult, error) {
		keep, _ := call.Body["keepId"].(string)
		if keep == call.ID {
			return nil, resource.InvalidField("keepId", "keepId must differ from the consumer being merged")
		}
		st := call.Service.Store
		if call.Record == nil {
			// Gone: only a finished merge may be retried; any other id is unknown.
			if _, err := st.Collection(mergesCollection).Get(ctx, call.ID); errors.Is(err, store.ErrNotFound) {
				return nil, resource.NotFound("consumer")
			} else if err != nil {
				return nil, err
			}
		}
		kept, err := call.Service.Get(ctx, call.Resource, keep)
		if resource.KindOf(err) == resource.KindNotFound {
			return nil, resource.InvalidField("keepId", "no consumer %s exists", keep)
		} else if err != nil {
			return nil, err
		}
		if call.Record == nil {
			return alreadyMerged(ctx, st, call.ID, keep, kept)
		}
		return mergeInto(ctx, d, call, keep, kept)
	}
}

func mergeInto(ctx context.Context, d Deps, call *resource.ActionCall, keep string, kept store.Doc) (*resource.ActionResult, error) {
	st := call.Service.Store
	if err := moveHistory(ctx, d, call.Service, call.ID, keep); err != nil {
		return nil, err
	}
	if _, err := st.Collection(mergesCollection).Upsert(ctx, call.ID, store.Update{Set: store.Doc{"keepId": keep, "at": time.Now().UTC()}}); err != nil {
		return nil, err
	}
	if _, err := st.Collection(call.Resource.Plural).Delete(ctx, query.ID(call.ID)); err != nil {
		return nil, err
	}
	return &resource.ActionResult{Payload: kept, EventData: store.Doc{"_id": keep, "mergedId": call.ID, "email": kept["email"]}}, nil
}

// moveHistory points the tasks, notes and mail of one consumer at another.
func moveHistory(ctx context.Context, d Deps, svc *resource.Service, from, to string) error {
	tasks, notes := svc.Registry.Get("crm", "tasks"), svc.Registry.Get("crm", "notes")
	if _, err := svc.ApplyAll(ctx, tasks, query.Eq("consumer", from), resource.Change{Set: store.Doc{"consumer": to}}); err != nil {
		return err
	}
	if _, err := svc.ApplyAll(ctx, notes, aboutConsumer(from), resource.Change{Set: store.Doc{"targetId": to}}); err != nil {
		return err
	}
	if d.Mail != nil {
		return d.Mail.Reassign(ctx, from, to)
	}
	return nil
}

func alreadyMerged(ctx context.Context, st store.Store, id, keep string, kept store.Doc) (*resource.ActionResult, error) {
	m, err := st.Collection(mergesCollection).Get(ctx, id)
	if errors.Is(err, store.ErrNotFound) || (err == nil && m["keepId"] != keep) {
		return nil, resource.NotFound("consumer")
	} else if err != nil {
		return nil, err
	}
	return &resource.ActionResult{Payload: kept, NoEvent: true}, nil
}

func aboutConsumer(id string) query.Expr {
	return query.AllOf(targetIs("consumers"), query.Eq("targetId", id))
}

func targetIs(plural string) query.Expr { return query.Eq("targetType", plural) }
