package readmodel

import (
	"context"
	"errors"
	"time"

	"platform/kernel/query"
	"platform/kernel/store"
)

// InboxKeep is how long applied events stay in the inbox, where a
// repeated delivery of one is dropped before it costs a batch.
const InboxKeep = 10 * time.Minute

// Applied is what one ApplyPending call did.
type Applied struct {
	Events int
	More   bool // the inbox held at least limit events: call again
	// MaxLag is the longest time from an applied event's write to now.
	MaxLag time.Duration
}

// ApplyPending finishes a batch left half done, then applies up to limit
// events waiting in the inbox as one batch.
func (e *Engine) ApplyPending(ctx context.Context, limit int) (Applied, error) {
	if err := e.Resume(ctx); err != nil {
		return Applied{}, err
	}
	snaps, ids, ats, err := e.Pending(ctx, limit)
	if err != nil {
		return Applied{}, err
	}
	if len(ids) < limit {
		// Caught up: forget a page of entries applied a while ago (a
		// repeat of their event is refused by its contribution anyway).
		if _, err := e.PruneApplied(ctx, e.now().Add(-InboxKeep), 500); err != nil {
			return Applied{}, err
		}
	}
	if len(ids) == 0 {
		return Applied{}, nil
	}
	if err := e.Apply(ctx, snaps, nil, ids); err != nil {
		return Applied{}, err
	}
	out := Applied{Events: len(ids), More: len(ids) >= limit}
	now := e.now()
	for _, at := range ats {
		if lag := now.Sub(at); lag > out.MaxLag {
			out.MaxLag = lag
		}
	}
	_, err = e.Store.Collection(State).Upsert(ctx, StateID(ctx), store.Update{
		Set: store.Doc{"lastLagMs": out.MaxLag.Milliseconds()}, Inc: map[string]any{"appliedEvents": int64(len(ids))},
	})
	return out, err
}

// StartRebuild empties the rows of models and forgets their entities'
// contributions, except deletions (a late event of a deleted record must
// stay refused). A batch left half done is finished first.
func (e *Engine) StartRebuild(ctx context.Context, models []string) error {
	if err := e.Resume(ctx); err != nil {
		return err
	}
	for _, m := range selected(models) {
		if err := deleteAll(ctx, e.Store.Collection(m.Name), nil); err != nil {
			return err
		}
		live := query.AllOf(query.Eq("model", m.Name), query.Eq("gone", false))
		if err := deleteAll(ctx, e.Store.Collection(Contribs), live); err != nil {
			return err
		}
	}
	return nil
}

func deleteAll(ctx context.Context, c store.Collection, filter query.Expr) error {
	for {
		n, err := store.DeleteBatch(ctx, c, filter, 500)
		if err != nil || n == 0 {
			return err
		}
	}
}

// RebuildPage counts up to limit records of the model's source number
// source whose ids follow after, in id order; next is the last id read,
// "" when the source is exhausted.
func (e *Engine) RebuildPage(ctx context.Context, model string, source int, after string, limit int) (next string, n int, err error) {
	m := ByName(model)
	if m == nil || source < 0 || source >= len(m.Sources) {
		return "", 0, errors.New("readmodel: no such model or source")
	}
	s := m.Sources[source]
	var filter query.Expr
	if after != "" {
		filter = query.Field{Path: "_id", Conds: []query.Cond{query.Compare{Op: query.OpGt, Value: after}}}
	}
	docs, err := e.Store.Collection(s.Collection).Find(ctx, store.FindOptions{
		Filter: filter, Sort: []store.SortField{{Field: "_id"}}, Limit: int64(limit), Fields: append(s.Fields, "updatedAt", "createdAt"),
	})
	if err != nil || len(docs) == 0 {
		return "", 0, err
	}
	snaps := make([]Snapshot, len(docs))
	for i, d := range docs {
		id, _ := d["_id"].(string)
		snaps[i] = Snapshot{Collection: s.Collection, Entity: id, Version: versionOf(d, time.Time{}), Record: d}
	}
	if err := e.Apply(ctx, snaps, []string{model}, nil); err != nil {
		return "", 0, err
	}
	last, _ := docs[len(docs)-1]["_id"].(string)
	if len(docs) < limit {
		last = ""
	}
	return last, len(docs), nil
}

// SetRebuild records a rebuild's progress in the state (nil: none runs).
func (e *Engine) SetRebuild(ctx context.Context, progress store.Doc) error {
	u := store.Update{Set: store.Doc{"rebuild": progress}}
	if progress == nil {
		u = store.Update{Unset: []string{"rebuild"}, Set: store.Doc{"rebuiltAt": e.now()}}
	}
	return e.setState(ctx, u)
}

// FinishRebuild records the rebuild id finished.
func (e *Engine) FinishRebuild(ctx context.Context, id string) error {
	return e.setState(ctx, store.Update{Unset: []string{"rebuild"}, Set: store.Doc{"rebuiltAt": e.now(), "rebuiltId": id}})
}

func (e *Engine) setState(ctx context.Context, u store.Update) error {
	_, err := e.Store.Collection(State).Upsert(ctx, StateID(ctx), u)
	return err
}

// Status is the customer's state: when events were last applied, the lag
// then, and the rebuild under way if any.
func (e *Engine) Status(ctx context.Context) (store.Doc, error) {
	doc, err := e.Store.Collection(State).Get(ctx, StateID(ctx), "appliedAt", "lastLagMs", "appliedEvents", "rebuild", "rebuiltAt", "rebuiltId")
	if errors.Is(err, store.ErrNotFound) {
		return store.Doc{}, nil
	}
	return doc, err
}
