package delivery

import (
	"context"
	"errors"
	"fmt"

	"platform/kernel/events"
	"platform/kernel/query"
	"platform/kernel/store"
	"platform/modules/automation/runs"
	"platform/workflows/contract"
)

// LaunchEventRuns starts a run of every active pipeline whose trigger
// selects the event: an inline trigger (event name or wildcard, optional
// filter on the event's data) or a reusable event trigger. Run ids derive
// from the event and the pipeline, so a repeated dispatch starts nothing
// twice.
func (a *Activities) LaunchEventRuns(ctx context.Context, in contract.LaunchEventRunsInput) (contract.LaunchedRuns, error) {
	if a.Launcher == nil {
		return contract.LaunchedRuns{}, nil
	}
	pipes, err := a.Store.Collection(runs.Pipelines).Find(ctx, store.FindOptions{Filter: query.Eq("active", true)})
	if err != nil || len(pipes) == 0 {
		return contract.LaunchedRuns{}, err
	}
	var ev *storedEvent
	load := func() (*storedEvent, error) {
		if ev == nil {
			e, err := a.loadEvent(ctx, in.EventID)
			if err != nil {
				return nil, err
			}
			ev = &e
		}
		return ev, nil
	}
	triggers := map[string]bool{} // reusable event triggers that select the event
	var out contract.LaunchedRuns
	for _, p := range pipes {
		t := runs.TriggerOf(p)
		selected, err := a.selects(ctx, t, in.Event, load, triggers)
		if err != nil {
			return out, err
		}
		if !selected {
			continue
		}
		e, err := load()
		if err != nil {
			return out, err
		}
		if e.Data["modifiedBy"] == p["_id"] {
			// The pipeline wrote this record itself: starting it again
			// would loop (a tasks.created pipeline that creates a task).
			a.Log.InfoContext(ctx, "pipeline not started by its own write", "pipeline", p["_id"], "event", in.EventID)
			continue
		}
		trig, _ := t["id"].(string)
		id, err := a.Launcher.Launch(ctx, runs.Launch{
			RunID: contract.DerivedID("event", in.EventID, p["_id"].(string)), Pipeline: p, TriggeredBy: runs.ByEvent, Trigger: trig,
			Event: contract.Event{ID: in.EventID, Name: e.Name, Timestamp: e.Timestamp, Data: e.Data},
		})
		if err != nil {
			return out, fmt.Errorf("start run of pipeline %s: %w", p["_id"], err)
		}
		out.Runs = append(out.Runs, id)
	}
	return out, nil
}

// selects reports whether a pipeline's trigger selects the event.
func (a *Activities) selects(ctx context.Context, t store.Doc, name string, load func() (*storedEvent, error), cache map[string]bool) (bool, error) {
	if id, _ := t["id"].(string); id != "" {
		if v, ok := cache[id]; ok {
			return v, nil
		}
		trig, err := a.Store.Collection(runs.Triggers).Get(ctx, id)
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			return false, err
		}
		ok := false
		if err == nil && trig["type"] == "event" && trig["active"] != false {
			ok, err = eventSelected(trig, name, load)
		}
		cache[id] = ok
		return ok, err
	}
	return eventSelected(t, name, load)
}

// eventSelected applies an event pattern and optional filter (the fields
// event and filter of an inline trigger or of a trigger record).
func eventSelected(t store.Doc, name string, load func() (*storedEvent, error)) (bool, error) {
	pattern, _ := t["event"].(string)
	if pattern == "" || !events.Matches([]string{pattern}, name) {
		return false, nil
	}
	f, _ := t["filter"].(store.Doc)
	if len(f) == 0 {
		return true, nil
	}
	expr, err := query.Parse(f, nil)
	if err != nil {
		return false, nil // saved filters are valid; a broken one selects nothing
	}
	e, err := load()
	if err != nil {
		return false, err
	}
	return query.Match(expr, e.Data), nil
}
