package automation

import (
	"context"
	"errors"
	"net/http"
	"time"

	"go.temporal.io/api/serviceerror"

	"platform/api"
	"platform/kernel/query"
	"platform/kernel/store"
	"platform/modules/automation/runs"
	"platform/workflows/contract"
)

// PipelineRuns declares the read-only /pipelineruns with the cancel and
// rerun actions. The run id is the id of its Temporal workflow.
func PipelineRuns(d Deps) *api.Resource {
	stepError := []api.Field{
		{Name: "kind", Type: api.TString}, {Name: "message", Type: api.TString},
		{Name: "line", Type: api.TInteger}, {Name: "column", Type: api.TInteger},
	}
	step := []api.Field{
		{Name: "id", Type: api.TString}, {Name: "type", Type: api.TString},
		{Name: "status", Type: api.TString, Enum: []string{runs.StatusSuccess, runs.StatusFailed}},
		{Name: "input", Type: api.TAny, Description: "the step's settings after templates were rendered (secrets redacted)"},
		{Name: "output", Type: api.TAny},
		{Name: "error", Type: api.TObject, Fields: stepError},
		{Name: "logs", Type: api.TArray, Items: &api.Field{Type: api.TString}, Description: "console.log lines of user code"},
		{Name: "duration", Type: api.TNumber, Description: "milliseconds"},
		{Name: "startedAt", Type: api.TDate},
		{Name: "attempts", Type: api.TInteger},
	}
	return &api.Resource{
		Module: "automation", Plural: runs.Runs, Title: "pipeline run", ReadOnly: true,
		Fields: []api.Field{
			{Name: "pipeline", Type: api.TObjectID, Filter: true},
			{Name: "pipelineVersion", Type: api.TInteger, Filter: true, Sort: true, Description: "the version the run executes"},
			{Name: "pipelineName", Type: api.TString, Filter: true, Sort: true},
			{Name: "triggeredBy", Type: api.TString, Filter: true, Enum: []string{runs.ByEvent, runs.ByCron, runs.ByManual, runs.ByWebhook}},
			{Name: "trigger", Type: api.TObjectID, Filter: true, Description: "the reusable trigger that fired, if any"},
			{Name: "event", Type: api.TObject, FreeForm: true, Description: "what started the run: {id?, name, timestamp, data}; data is the run's input"},
			{Name: "status", Type: api.TString, Filter: true, Sort: true, Enum: []string{runs.StatusRunning, runs.StatusSuccess, runs.StatusFailed}},
			{Name: "steps", Type: api.TArray, Items: &api.Field{Type: api.TObject, Fields: step},
				Description: "the executed steps in order; the first 200 with input, output and logs (each capped at 16 KiB), later ones with status, duration and error"},
			{Name: "stepCount", Type: api.TInteger, Filter: true, Sort: true, Description: "steps executed so far"},
			{Name: "totalDuration", Type: api.TNumber, Sort: true, Description: "milliseconds from start to end"},
			{Name: "startedAt", Type: api.TDate, Filter: true, Sort: true},
			{Name: "endedAt", Type: api.TDate, Filter: true, Sort: true},
			{Name: "output", Type: api.TAny, Description: "the last successful step's output"},
			{Name: "error", Type: api.TObject, Fields: stepError},
			{Name: "failedStep", Type: api.TString, Filter: true},
			{Name: "cancelled", Type: api.TBool, Filter: true},
			{Name: "cancelRequestedAt", Type: api.TDate, Description: "when the cancel action was called"},
			{Name: "depth", Type: api.TInteger, Filter: true, Description: "0 for top-level runs; sub-pipeline runs count up"},
			{Name: "parentRun", Type: api.TObjectID, Filter: true},
			{Name: "rerunOf", Type: api.TObjectID, Filter: true},
		},
		DefaultSort: []store.SortField{{Field: "startedAt", Desc: true}},
		Actions: []api.Action{
			{Name: "cancel", Title: "cancel the running run", Right: "automation.pipelineruns.cancel", Event: "cancelled",
				Run: func(ctx context.Context, call *api.ActionCall) (*api.ActionResult, error) {
					return cancelRun(ctx, d, call)
				}},
			{Name: "rerun", Title: "run the pipeline's current version again with the same event", Right: "automation.pipelineruns.rerun",
				Run: func(ctx context.Context, call *api.ActionCall) (*api.ActionResult, error) { return rerun(ctx, d, call) }},
		},
		Relations: []api.Relation{
			{Rel: "pipeline", Title: "the pipeline", Module: "automation", Plural: runs.Pipelines, Right: "automation.pipelines.view"},
		},
	}
}

// cancelRun asks the run's workflow to cancel; the workflow records the
// outcome (status failed, cancelled true). A finished run is a conflict.
func cancelRun(ctx context.Context, d Deps, call *api.ActionCall) (*api.ActionResult, error) {
	if call.Record["status"] != runs.StatusRunning {
		return nil, api.NewError(http.StatusConflict, api.CodeConflict, "status", "the run has ended (%v); only running runs can be cancelled", call.Record["status"])
	}
	if d.Runs == nil {
		return nil, unavailable("cancelling runs")
	}
	err := d.Runs.CancelWorkflow(ctx, call.ID, "")
	var gone *serviceerror.NotFound
	if errors.As(err, &gone) {
		return nil, api.NewError(http.StatusConflict, api.CodeConflict, "status", "the run's workflow no longer exists; it cannot be cancelled").WithCause(err)
	}
	if err != nil {
		return nil, api.NewError(http.StatusServiceUnavailable, api.CodeUnavailable, "", "the run could not be cancelled; try again").WithCause(err)
	}
	rec, err := call.Services.Store.Collection(runs.Runs).Update(ctx, query.ID(call.ID), store.Update{Set: store.Doc{
		"cancelRequestedAt": time.Now().UTC().Truncate(time.Millisecond),
	}})
	if err != nil {
		return nil, err
	}
	return &api.ActionResult{Payload: rec}, nil
}

// rerun starts a new run of the pipeline's current version with the
// event of this one.
func rerun(ctx context.Context, d Deps, call *api.ActionCall) (*api.ActionResult, error) {
	if d.Launcher == nil {
		return nil, unavailable("starting runs")
	}
	pid, _ := call.Record["pipeline"].(string)
	p, err := call.Services.Store.Collection(runs.Pipelines).Get(ctx, pid)
	if errors.Is(err, store.ErrNotFound) {
		return nil, api.NewError(http.StatusConflict, api.CodeConflict, "pipeline", "the pipeline of this run has been deleted")
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
		return nil, api.NewError(http.StatusServiceUnavailable, api.CodeUnavailable, "", "the run could not be started; try again").WithCause(err)
	}
	rec, err := call.Services.Store.Collection(runs.Runs).Get(ctx, id)
	if err != nil {
		return nil, err
	}
	return &api.ActionResult{Payload: map[string]any{"run": rec}, NoEvent: true}, nil
}

func mapOf(v any) map[string]any {
	m, _ := v.(map[string]any)
	if m == nil {
		m = map[string]any{}
	}
	return m
}
