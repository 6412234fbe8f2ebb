package activities

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.temporal.io/sdk/temporal"

	"platform/identity"
	"platform/pipeline"
	"platform/query"
	"platform/runs"
	"platform/store"
	"platform/tenant"
)

// StartRunOutput is what the interpreter needs to run: the frozen
// definition of the run's version and the template root `customer`.
type StartRunOutput struct {
	Definition pipeline.Definition
	Version    int
	Customer   map[string]any
	StartedAt  time.Time // wall clock, for the run's total duration
}

// StartRun loads the definition of the run's pipeline version and makes
// sure the run record exists (a subPipeline child has none yet; a launched
// run has one). A missing pipeline or version fails the run for good.
func (a *Activities) StartRun(ctx context.Context, in runs.Input) (StartRunOutput, error) {
	def, version, name, err := a.loadVersion(ctx, in.Pipeline, in.Version)
	if err != nil {
		return StartRunOutput{}, err
	}
	now := time.Now().UTC().Truncate(time.Millisecond)
	// pipelineVersion is in Set only: a path in both SetOnInsert and Set
	// is a conflict the store refuses.
	rec := store.Doc{
		"pipeline": in.Pipeline, "pipelineName": name, "triggeredBy": in.TriggeredBy,
		"event": in.Event.Doc(), "steps": []any{}, "startedAt": now, "createdAt": now,
		"depth": int64(in.Depth),
	}
	for k, v := range map[string]string{"trigger": in.Trigger, "parentRun": in.ParentRun, "rerunOf": in.RerunOf} {
		if v != "" {
			rec[k] = v
		}
	}
	if _, err := a.Store.Collection(runs.Runs).Upsert(ctx, in.RunID, store.Update{
		SetOnInsert: rec, Set: store.Doc{"pipelineVersion": version, "status": runs.StatusRunning, "updatedAt": now},
		Unset: []string{"error"}, // a start that failed before (see runs.Launcher) and now runs
	}); err != nil {
		return StartRunOutput{}, err
	}
	cust, err := a.customerRoot(ctx)
	if err != nil {
		return StartRunOutput{}, err
	}
	return StartRunOutput{Definition: *def, Version: version, Customer: cust, StartedAt: now}, nil
}

// loadVersion reads a frozen version, or the current one for version 0.
func (a *Activities) loadVersion(ctx context.Context, id string, version int) (*pipeline.Definition, int, string, error) {
	if version == 0 {
		p, err := a.Store.Collection(runs.Pipelines).Get(ctx, id, "version")
		if errors.Is(err, store.ErrNotFound) {
			return nil, 0, "", temporal.NewNonRetryableApplicationError(fmt.Sprintf("pipeline %s does not exist", id), "PipelineNotFound", err)
		}
		if err != nil {
			return nil, 0, "", err
		}
		version = runs.IntOf(p["version"])
	}
	doc, err := a.Store.Collection(runs.Versions).Get(ctx, runs.VersionID(id, version))
	if errors.Is(err, store.ErrNotFound) {
		return nil, 0, "", temporal.NewNonRetryableApplicationError(fmt.Sprintf("version %d of pipeline %s does not exist", version, id), "PipelineNotFound", err)
	}
	if err != nil {
		return nil, 0, "", err
	}
	def, _ := doc["definition"].(store.Doc)
	d, err := pipeline.FromDoc(def)
	if err != nil {
		return nil, 0, "", temporal.NewNonRetryableApplicationError("stored definition unreadable: "+err.Error(), "PipelineInvalid", err)
	}
	return d, version, d.Name, nil
}

// customerRoot is the template root `customer`: what a template may say
// about the tenant.
func (a *Activities) customerRoot(ctx context.Context) (map[string]any, error) {
	id, err := tenant.Customer(ctx)
	if err != nil {
		return nil, err
	}
	doc, err := a.Store.Global(identity.Customers).Get(ctx, id, "slug", "name")
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return nil, err
	}
	return map[string]any{"id": id, "slug": doc["slug"], "name": doc["name"]}, nil
}

// StepRecord is one executed step as the run record shows it.
type StepRecord struct {
	ID         string
	Type       string
	Status     string // success or failed
	Input      any
	Output     any
	Error      *StepError
	Logs       []string
	Attempts   int
	StartedAt  time.Time
	DurationMs float64
}

// StepError is a step's failure as recorded.
type StepError struct {
	Kind    string `json:"kind"`
	Message string `json:"message"`
	Line    int    `json:"line,omitempty"`
	Column  int    `json:"column,omitempty"`
}

func (r StepRecord) doc() store.Doc {
	d := store.Doc{
		"id": r.ID, "type": r.Type, "status": r.Status, "input": r.Input, "output": r.Output,
		"startedAt": r.StartedAt.UTC().Truncate(time.Millisecond), "duration": r.DurationMs,
	}
	if r.Error != nil {
		e := store.Doc{"kind": r.Error.Kind, "message": r.Error.Message}
		if r.Error.Line > 0 {
			e["line"], e["column"] = int64(r.Error.Line), int64(r.Error.Column)
		}
		d["error"] = e
	}
	if len(r.Logs) > 0 {
		d["logs"] = store.List(r.Logs)
	}
	if r.Attempts > 0 {
		d["attempts"] = int64(r.Attempts)
	}
	return d
}

// RecordStepsInput is the run's step list so far.
type RecordStepsInput struct {
	RunID string
	Steps []StepRecord
}

// RecordSteps writes the steps executed so far into the run record. It
// sets the whole list, so a repeated call (a replayed local activity)
// writes the same thing.
func (a *Activities) RecordSteps(ctx context.Context, in RecordStepsInput) error {
	_, err := a.Store.Collection(runs.Runs).Update(ctx, query.ID(in.RunID), store.Update{Set: store.Doc{
		"steps": stepDocs(in.Steps), "updatedAt": time.Now().UTC().Truncate(time.Millisecond),
	}})
	return ignoreMissing(err)
}

// FinishRunInput is a run's outcome.
type FinishRunInput struct {
	RunID      string
	Status     string
	Error      *StepError
	FailedStep string
	Output     any
	Steps      []StepRecord
	StartedAt  time.Time // zero when the run never started
	Cancelled  bool
}

// FinishRun writes the outcome into the run record.
func (a *Activities) FinishRun(ctx context.Context, in FinishRunInput) error {
	now := time.Now().UTC().Truncate(time.Millisecond)
	set := store.Doc{
		"status": in.Status, "steps": stepDocs(in.Steps), "totalDuration": totalMs(in.StartedAt, now),
		"endedAt": now, "updatedAt": now, "output": in.Output,
	}
	if in.Error != nil {
		set["error"] = store.Doc{"kind": in.Error.Kind, "message": in.Error.Message}
	}
	if in.FailedStep != "" {
		set["failedStep"] = in.FailedStep
	}
	if in.Cancelled {
		set["cancelled"] = true
	}
	_, err := a.Store.Collection(runs.Runs).Update(ctx, query.ID(in.RunID), store.Update{Set: set})
	return ignoreMissing(err)
}

func stepDocs(steps []StepRecord) []any {
	out := make([]any, len(steps))
	for i, s := range steps {
		out[i] = s.doc()
	}
	return out
}

func ignoreMissing(err error) error {
	if errors.Is(err, store.ErrNotFound) {
		return nil // the run record was deleted meanwhile
	}
	return err
}

func totalMs(start, end time.Time) float64 {
	if start.IsZero() {
		return 0
	}
	return float64(end.Sub(start).Milliseconds())
}
