package pipelines

import (
	"context"
	"fmt"
	"time"

	"platform/kernel/query"
	"platform/kernel/store"
	"platform/modules/automation/runs"
	"platform/workflows/contract"
)

// LaunchTriggerRuns starts a run of every active pipeline that uses the
// trigger (or of the one pipeline whose schedule fired).
func (a *Activities) LaunchTriggerRuns(ctx context.Context, in contract.LaunchTriggerRunsInput) (contract.LaunchedRuns, error) {
	var out contract.LaunchedRuns
	if a.Launcher == nil {
		return out, fmt.Errorf("pipelines cannot be started from this worker")
	}
	pipes, err := a.firedPipelines(ctx, in)
	if err != nil {
		return out, err
	}
	if in.Event.Timestamp.IsZero() {
		in.Event.Timestamp = time.Now().UTC().Truncate(time.Millisecond)
	}
	for _, p := range pipes {
		id, err := a.Launcher.Launch(ctx, runs.Launch{
			RunID: contract.DerivedID(in.TriggeredBy, in.FiringID, p["_id"].(string)), Pipeline: p,
			TriggeredBy: in.TriggeredBy, Trigger: in.Trigger, Event: in.Event,
		})
		if err != nil {
			return out, fmt.Errorf("start run of pipeline %s: %w", p["_id"], err)
		}
		out.Runs = append(out.Runs, id)
	}
	return out, nil
}

// firedPipelines are the active pipelines a firing starts: the one whose
// own schedule fired, or those started by the reusable trigger, through
// their trigger field or their trigger step (which the store cannot
// query, so the trigger is matched here).
func (a *Activities) firedPipelines(ctx context.Context, in contract.LaunchTriggerRunsInput) ([]store.Doc, error) {
	if in.Pipeline != "" {
		return a.Store.Collection(runs.Pipelines).Find(ctx, store.FindOptions{Filter: query.AllOf(query.Eq("active", true), query.ID(in.Pipeline))})
	}
	pipes, err := a.Store.Collection(runs.Pipelines).Find(ctx, store.FindOptions{Filter: query.Eq("active", true)})
	if err != nil {
		return nil, err
	}
	var fired []store.Doc
	for _, p := range pipes {
		if id, _ := runs.TriggerOf(p)["id"].(string); id != "" && id == in.Trigger {
			fired = append(fired, p)
		}
	}
	return fired, nil
}
