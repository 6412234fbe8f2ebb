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
	which := query.Eq("trigger.id", in.Trigger)
	if in.Pipeline != "" {
		which = query.ID(in.Pipeline)
	}
	pipes, err := a.Store.Collection(runs.Pipelines).Find(ctx, store.FindOptions{Filter: query.AllOf(query.Eq("active", true), which)})
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
