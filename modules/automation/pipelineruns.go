package automation

import (
	"context"
	"errors"
	"time"

	"platform/kernel/resource"

	"go.temporal.io/api/serviceerror"

	"platform/kernel/query"
	"platform/kernel/store"
	"platform/modules/automation/runs"
	"platform/workflows/contract"
)

// PipelineRuns declares the read-only /pipelineruns with the cancel and
// rerun actions. The run id is the id of its Temporal workflow.
func PipelineRuns(d Deps) *resource.Resource {
	stepError := []resource.Field{
		{Name: "kind", Type: resource.TString}, {Name: "message", Type: resource.TString},
		{Name: "line", Type: resource.TInteger}, {Name: "column", Type: resource.TInteger},
	}
	step := []resource.Field{
		{Name: "id", Type: resource.TString}, {Name: "type", Type: resource.TString},
		{Name: "status", Type: resource.TString, Enum: []string{runs.StatusSuccess, runs.StatusFailed}},
		{Name: "input", Type: resource.TAny, Description: "the step's settings after templates were rendered (secrets redacted)"},
		{Name: "output", Type: resource.TAny},
		{Name: "error", Type: resource.TObject, Fields: stepError},
		{Name: "logs", Type: resource.TArray, Items: &resource.Field{Type: resource.TString}, Description: "console.log lines of user code"},
		{Name: "duration", Type: resource.TNumber, Description: "how long the step took, in whole milliseconds"},
		{Name: "startedAt", Type: resource.TDate},
		{Name: "attempts", Type: resource.TInteger},
	}
	return &resource.Resource{
		Plural: runs.Runs, Title: "pipeline run", ReadOnly: true,
		Fields: []resource.Field{
			{Name: "pipeline", Type: resource.TObjectID, Filter: true},
			{Name: "pipelineVersion", Type: resource.TInteger, Filter: true, Sort: true, Description: "the version the run executes"},
			{Name: "pipelineName", Type: resource.TString, Filter: true, Sort: true},
			{Name: "triggeredBy", Type: resource.TString, Filter: true, Enum: []string{runs.ByEvent, runs.ByCron, runs.ByManual, runs.ByWebhook}},
			{Name: "trigger", Type: resource.TObjectID, Filter: true, Description: "the reusable trigger that fired, if any"},
			{Name: "event", Type: resource.TObject, FreeForm: true, Description: "what started the run: {id?, name, timestamp, data}; data is the run's input"},
			{Name: "status", Type: resource.TString, Filter: true, Sort: true, Enum: []string{runs.StatusRunning, runs.StatusSuccess, runs.StatusFailed}},
			{Name: "steps", Type: resource.TArray, Items: &resource.Field{Type: resource.TObject, Fields: step},
				Description: "the executed steps in order; the first 200 with input, output and logs (each capped at 16 KiB), later ones with status, duration and error"},
			{Name: "stepCount", Type: resource.TInteger, Filter: true, Sort: true, Description: "steps executed so far"},
			{Name: "totalDuration", Type: resource.TNumber, Sort: true, Description: "how long the run took from start to end, in whole milliseconds"},
			{Name: "startedAt", Type: resource.TDate, Filter: true, Sort: true},
			{Name: "endedAt", Type: resource.TDate, Filter: true, Sort: true},
			{Name: "output", Type: resource.TAny, Description: "the last successful step's output"},
			{Name: "error", Type: resource.TObject, Fields: stepError},
			{Name: "failedStep", Type: resource.TString, Filter: true},
			{Name: "cancelled", Type: resource.TBool, Filter: true},
			{Name: "cancelRequestedAt", Type: resource.TDate, Description: "when the cancel action was called"},
			{Name: "depth", Type: resource.TInteger, Filter: true, Description: "0 for top-level runs; sub-pipeline runs count up"},
			{Name: "parentRun", Type: resource.TObjectID, Filter: true},
			{Name: "rerunOf", Type: resource.TObjectID, Filter: true},
		},
		DefaultSort: []store.SortField{{Field: "startedAt", Desc: true}},
		Actions: []resource.Action{
			{Name: "cancel", Title: "cancel the running run", Right: "automation.pipelineruns.cancel", Event: "cancelled",
				Run: func(ctx context.Context, call *resource.ActionCall) (*resource.ActionResult, error) {
					return cancelRun(ctx, d, call)
				}},
			{Name: "rerun", Title: "run the pipeline's current version again with the same event", Right: "automation.pipelineruns.rerun",
				Run: func(ctx context.Context, call *resource.ActionCall) (*resource.ActionResult, error) {
					return rerun(ctx, d, call)
				}},
		},
		Relations: []resource.Relation{
			{Rel: "pipeline", Title: "the pipeline", Target: "automation/" + runs.Pipelines, Field: "pipeline"},
		},
	}
}

// cancelRun asks the run's workflow to cancel; the workflow records the
// outcome (status failed, cancelled true). A finished run is a conflict.
func cancelRun(ctx context.Context, d Deps, call *resource.ActionCall) (*resource.ActionResult, error) {
	if call.Record["status"] != runs.StatusRunning {
		return nil, resource.Conflict("status", "the run has ended (%v); only running runs can be cancelled", call.Record["status"])
	}
	if d.Runs == nil {
		return nil, unavailable("cancelling runs")
	}
	err := d.Runs.CancelWorkflow(ctx, call.ID, "")
	var gone *serviceerror.NotFound
	if errors.As(err, &gone) {
		return nil, resource.Conflict("status", "the run's workflow no longer exists; it cannot be cancelled").WithCause(err)
	}
	if err != nil {
		return nil, resource.Unavailable("the run could not be cancelled; try again").WithCause(err)
	}
	rec, err := call.Service.Apply(ctx, call.Resource, query.ID(call.ID), resource.Change{Set: store.Doc{
		"cancelRequestedAt": time.Now().UTC().Truncate(time.Millisecond),
	}})
	if err != nil {
		return nil, err
	}
	return &resource.ActionResult{Payload: rec}, nil
}

// rerun starts a new run of the pipeline's current version with the
// event of this one.
func rerun(ctx context.Context, d Deps, call *resource.ActionCall) (*resource.ActionResult, error) {
	if d.Launcher == nil {
		return nil, unavailable("starting runs")
	}
	pid, _ := call.Record["pipeline"].(string)
	p, err := call.Service.Store.Collection(runs.Pipelines).Get(ctx, pid)
	if errors.Is(err, store.ErrNotFound) {
		return nil, resource.Conflict("pipeline", "the pipeline of this run has been deleted")
	}
	if err != nil {
		return nil, err
	}
	ev, _ := call.Record["event"].(store.Doc)
	event := contract.Event{Name: str(ev["name"]), Data: mapOf(ev["data"])}
	event.ID = str(ev["id"])
	event.Timestamp, _ = ev["timestamp"].(time.Time)
	trig, _ := call.Record["trigger"].(string)
	by, _ := call.Record["triggeredBy"].(string)
	id, err := d.Launcher.Launch(ctx, runs.Launch{Pipeline: p, TriggeredBy: by, Trigger: trig, Event: event, RerunOf: call.ID})
	if err != nil {
		return nil, resource.Unavailable("the run could not be started; try again").WithCause(err)
	}
	rec, err := call.Service.Store.Collection(runs.Runs).Get(ctx, id)
	if err != nil {
		return nil, err
	}
	return &resource.ActionResult{Payload: map[string]any{"run": rec}, NoEvent: true}, nil
}

func mapOf(v any) map[string]any {
	m, _ := v.(map[string]any)
	if m == nil {
		m = map[string]any{}
	}
	return m
}
