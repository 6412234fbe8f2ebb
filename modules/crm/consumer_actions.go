package crm

import (
	"context"
	"errors"
	"time"

	"platform/api"
	"platform/kernel/query"
	"platform/kernel/store"
)

// personalFields are removed by anonymize; the e-mail is replaced because
// it is required and unique.
var personalFields = []string{"first_name", "last_name", "profilepicture", "phone", "country", "customCRM", "tags"}

// anonymize removes personal data irreversibly but keeps the record, so
// tasks, notes and mail logs that point at it stay consistent.
func anonymize(ctx context.Context, call *api.ActionCall) (*api.ActionResult, error) {
	if call.Record["anonymizedAt"] != nil {
		return &api.ActionResult{Payload: call.Record, NoEvent: true}, nil
	}
	now := time.Now().UTC().Truncate(time.Millisecond)
	alias := "anonymized-" + call.ID + "@anonymized.invalid"
	oldEmail, _ := call.Record["email"].(string)
	st := call.Services.Store
	// Redact the address in the mail history first: a retry after a crash
	// between the steps then still finds the consumer un-anonymized.
	if _, err := st.Collection("maillogs").UpdateMany(ctx, query.Eq("consumer", call.ID), store.Update{Set: store.Doc{"to": alias}}); err != nil {
		return nil, err
	}
	if oldEmail != "" {
		if _, err := st.Collection("maillogs").UpdateMany(ctx, query.Eq("to", oldEmail), store.Update{Set: store.Doc{"to": alias}}); err != nil {
			return nil, err
		}
	}
	// Notes about the consumer stay (the history keeps its shape) but their
	// free text may hold personal data, so it goes.
	if _, err := st.Collection("notes").UpdateMany(ctx, query.AllOf(targetIs("consumers"), query.Eq("targetId", call.ID)),
		store.Update{Set: store.Doc{"body": NoteRemoved}}); err != nil {
		return nil, err
	}
	doc, err := st.Collection("consumers").Update(ctx, query.ID(call.ID), store.Update{
		Set:   store.Doc{"email": alias, "_status": StatusChurned, "anonymizedAt": now, "updatedAt": now},
		Unset: personalFields,
	})
	if err != nil {
		return nil, err
	}
	addDisplayName(doc)
	return &api.ActionResult{Payload: doc, EventData: store.Doc{"_id": call.ID, "anonymizedAt": now, "_status": StatusChurned}}, nil
}

// NoteRemoved replaces the text of notes about an anonymized consumer.
const NoteRemoved = "_(removed when the consumer was anonymized)_"

// mergesCollection remembers finished merges, so a retried merge answers
// like the first one instead of 404.
const mergesCollection = "consumermerges"

// merge moves the consumer's tasks, notes and mail logs to keepId and
// removes it. Each step is idempotent and ordered so a retry after a crash
// completes the merge.
func merge(ctx context.Context, call *api.ActionCall) (*api.ActionResult, error) {
	keep, _ := call.Body["keepId"].(string)
	st := call.Services.Store
	if keep == call.ID {
		return nil, api.Invalid(api.FieldError(api.CodeInvalid, "keepId", "keepId must differ from the consumer being merged"))
	}
	if call.Record == nil {
		// Gone: only a finished merge may be retried; any other id is unknown.
		if _, err := st.Collection(mergesCollection).Get(ctx, call.ID); errors.Is(err, store.ErrNotFound) {
			return nil, api.NotFound("consumer")
		} else if err != nil {
			return nil, err
		}
	}
	kept, err := st.Collection("consumers").Get(ctx, keep)
	if errors.Is(err, store.ErrNotFound) {
		return nil, api.Invalid(api.FieldError(api.CodeInvalid, "keepId", "no consumer %s exists", keep))
	} else if err != nil {
		return nil, err
	}
	if call.Record == nil {
		return alreadyMerged(ctx, st, call.ID, keep, kept)
	}
	if err := moveHistory(ctx, st, call.ID, keep); err != nil {
		return nil, err
	}
	if _, err := st.Collection(mergesCollection).Upsert(ctx, call.ID, store.Update{Set: store.Doc{"keepId": keep, "at": time.Now().UTC()}}); err != nil {
		return nil, err
	}
	if _, err := st.Collection("consumers").Delete(ctx, query.ID(call.ID)); err != nil {
		return nil, err
	}
	addDisplayName(kept)
	return &api.ActionResult{Payload: kept, EventData: store.Doc{"_id": keep, "mergedId": call.ID, "email": kept["email"]}}, nil
}

func moveHistory(ctx context.Context, st store.Store, from, to string) error {
	steps := []struct {
		coll   string
		filter query.Expr
		set    store.Doc
	}{
		{"tasks", query.Eq("consumer", from), store.Doc{"consumer": to}},
		{"notes", query.AllOf(targetIs("consumers"), query.Eq("targetId", from)), store.Doc{"targetId": to}},
		{"maillogs", query.Eq("consumer", from), store.Doc{"consumer": to}},
	}
	for _, s := range steps {
		if _, err := st.Collection(s.coll).UpdateMany(ctx, s.filter, store.Update{Set: s.set}); err != nil {
			return err
		}
	}
	return nil
}

func alreadyMerged(ctx context.Context, st store.Store, id, keep string, kept store.Doc) (*api.ActionResult, error) {
	m, err := st.Collection(mergesCollection).Get(ctx, id)
	if errors.Is(err, store.ErrNotFound) || (err == nil && m["keepId"] != keep) {
		return nil, api.NotFound("consumer")
	} else if err != nil {
		return nil, err
	}
	addDisplayName(kept)
	return &api.ActionResult{Payload: kept, NoEvent: true}, nil
}

func targetIs(plural string) query.Expr { return query.Eq("targetType", plural) }
