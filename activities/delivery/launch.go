package delivery

import (
	"context"
	"errors"
	"fmt"
	"strings"

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
	var ev *Event
	load := func() (*Event, error) {
		if ev == nil {
			e, err := a.loadEvent(ctx, in.EventID)
			if err != nil {
				return nil, err
			}
			ev = &e
		}
		return ev, nil
	}
	// Notification routes are matched like triggers, with the same lazily
	// read event (docs/config-notifications.md).
	if err := a.routeNotifications(ctx, in, load); err != nil {
		return contract.LaunchedRuns{}, err
	}
	if a.Launcher == nil {
		return contract.LaunchedRuns{}, nil
	}
	pipes, err := a.Store.Collection(runs.Pipelines).Find(ctx, store.FindOptions{Filter: query.Eq("active", true)})
	if err != nil || len(pipes) == 0 {
		return contract.LaunchedRuns{}, err
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
		launch := runs.Launch{
			RunID: contract.DerivedID("event", in.EventID, p["_id"].(string)), Pipeline: p, TriggeredBy: runs.ByEvent, Trigger: trig,
			Event: contract.Event{ID: in.EventID, Name: e.Name, Timestamp: e.Timestamp, Data: e.Data, Cause: e.Cause},
		}
		start := a.Launcher.Launch
		if why := a.loops(e.Cause, p["_id"].(string)); why != "" {
			a.Log.InfoContext(ctx, "pipeline run refused: it would loop", "pipeline", p["_id"], "event", in.EventID, "reason", why)
			start = func(ctx context.Context, l runs.Launch) (string, error) {
				return a.Launcher.Refuse(ctx, l, "cycle", why)
			}
		}
		id, err := start(ctx, launch)
		if err != nil {
			return out, fmt.Errorf("start run of pipeline %s: %w", p["_id"], err)
		}
		out.Runs = append(out.Runs, id)
	}
	return out, nil
}

// routeNotifications starts the notifications the event's routes select.
func (a *Activities) routeNotifications(ctx context.Context, in contract.LaunchEventRunsInput, load func() (*Event, error)) error {
	if a.Notifications == nil {
		return nil
	}
	return a.Notifications.RouteEvent(ctx, in.EventID, in.Event, func() (map[string]any, error) {
		e, err := load()
		if err != nil {
			return nil, err
		}
		return e.Data, nil
	})
}

// selects reports whether a pipeline's trigger selects the event.
func (a *Activities) selects(ctx context.Context, t store.Doc, name string, load func() (*Event, error), cache map[string]bool) (bool, error) {
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
func eventSelected(t store.Doc, name string, load func() (*Event, error)) (bool, error) {
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

// DefaultMaxChain is the default of PLATFORM_PIPELINE_CHAIN_MAX.
const DefaultMaxChain = 8

// loops says why a run of pipeline started by an event with this
// causation chain would loop: the pipeline's own runs already wrote on
// the way to the event (A writes what starts B, B what starts A), or the
// chain is as long as the limit. "" when it may start.
func (a *Activities) loops(chain []contract.Cause, pipeline string) string {
	for _, c := range chain {
		if c.Pipeline == pipeline {
			return fmt.Sprintf("not started: the event was caused by this pipeline's own run %s through the chain %s, which would loop", c.Run, chainText(chain))
		}
	}
	limit := a.MaxChain
	if limit <= 0 {
		limit = DefaultMaxChain
	}
	if len(chain) >= limit {
		return fmt.Sprintf("not started: the event comes at the end of a chain of %d pipeline runs (%s); PLATFORM_PIPELINE_CHAIN_MAX allows %d", len(chain), chainText(chain), limit)
	}
	return ""
}

// chainText names the pipelines of a chain, oldest first.
func chainText(chain []contract.Cause) string {
	names := make([]string, len(chain))
	for i, c := range chain {
		names[i] = c.Pipeline
	}
	return strings.Join(names, " → ")
}
