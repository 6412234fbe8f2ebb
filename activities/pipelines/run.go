package pipelines

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"time"

	"go.temporal.io/sdk/temporal"

	"platform/kernel/query"
	"platform/kernel/store"
	"platform/kernel/tenant"
	"platform/modules/automation/pipeline"
	"platform/modules/automation/runs"
	"platform/modules/identity"
	"platform/workflows/contract"
)

// StartRun loads the definition of the run's pipeline version and makes
// sure the run record exists (a subPipeline child has none yet; a launched
// run has one). A missing pipeline or version fails the run for good.
func (a *Activities) StartRun(ctx context.Context, in contract.RunInput) (contract.StartRunOutput, error) {
	def, version, name, err := a.loadVersion(ctx, in.Pipeline, in.Version)
	if err != nil {
		return contract.StartRunOutput{}, err
	}
	now := time.Now().UTC().Truncate(time.Millisecond)
	// pipelineVersion is in Set only: a path in both SetOnInsert and Set
	// is a conflict the store refuses.
	rec := store.Doc{
		"pipeline": in.Pipeline, "pipelineName": name, "triggeredBy": in.TriggeredBy,
		"event": runs.EventDoc(in.Event), "steps": []any{}, "stepCount": int64(0), "startedAt": now, "createdAt": now,
		"depth": int64(in.Depth),
	}
	for k, v := range map[string]string{"trigger": in.Trigger, "parentRun": in.ParentRun, "rerunOf": in.RerunOf} {
		if v != "" {
			rec[k] = v
		}
	}
	if _, err := a.Store.Collection(runs.Runs).Upsert(ctx, in.RunID, store.Update{
		SetOnInsert: rec, Set: store.Doc{"pipelineVersion": version, "status": contract.StatusRunning, "updatedAt": now},
		Unset: []string{"error"}, // a start that failed before (see runs.Launcher) and now runs
	}); err != nil {
		return contract.StartRunOutput{}, err
	}
	if err := a.checkCredentialGrants(ctx, in.Pipeline, version, def); err != nil {
		return contract.StartRunOutput{}, err
	}
	cust, err := a.customerRoot(ctx)
	if err != nil {
		return contract.StartRunOutput{}, err
	}
	return contract.StartRunOutput{Definition: *def, Version: version, Customer: cust, StartedAt: now, StepLimit: a.stepLimit()}, nil
}

// loadVersion reads a frozen version, or the current one for version 0.
func (a *Activities) loadVersion(ctx context.Context, id string, version int) (*contract.Definition, int, string, error) {
	if version == 0 {
		p, err := a.Store.Collection(runs.Pipelines).Get(ctx, id, "version")
		if errors.Is(err, store.ErrNotFound) {
			return nil, 0, "", temporal.NewNonRetryableApplicationError(fmt.Sprintf("pipeline %s does not exist", id), contract.ErrTypePipelineNotFound, err)
		}
		if err != nil {
			return nil, 0, "", err
		}
		version = int(store.Int(p["version"]))
	}
	doc, err := a.Store.Collection(runs.Versions).Get(ctx, runs.VersionID(id, version))
	if errors.Is(err, store.ErrNotFound) {
		return nil, 0, "", temporal.NewNonRetryableApplicationError(fmt.Sprintf("version %d of pipeline %s does not exist", version, id), contract.ErrTypePipelineNotFound, err)
	}
	if err != nil {
		return nil, 0, "", err
	}
	def, _ := doc["definition"].(store.Doc)
	d, err := pipeline.FromDoc(def)
	if err != nil {
		return nil, 0, "", temporal.NewNonRetryableApplicationError("stored definition unreadable: "+err.Error(), contract.ErrTypePipelineInvalid, err)
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

// Run-record limits: a record stays far below a document's maximum size
// however many steps a run executes (contract.MaxExecutedSteps).
const (
	// MaxRecordedValue caps a step's input or output as its record shows
	// it (the run's history keeps the whole value).
	MaxRecordedValue = 16 << 10
	// MaxDetailedSteps steps are recorded with input, output and logs;
	// later ones with status, duration and error only.
	MaxDetailedSteps = 200
)

// stepDoc is the run record's entry of the index-th executed step.
func stepDoc(r contract.StepRecord, index int) store.Doc {
	d := store.Doc{
		"id": r.ID, "type": r.Type, "status": r.Status,
		"startedAt": r.StartedAt.UTC().Truncate(time.Millisecond), "duration": wholeMs(r.DurationMs),
	}
	if index < MaxDetailedSteps {
		d["input"], d["output"] = capped(r.Input), capped(r.Output)
		if len(r.Logs) > 0 {
			d["logs"] = store.List(r.Logs)
		}
	}
	if r.Error != nil {
		e := store.Doc{"kind": r.Error.Kind, "message": r.Error.Message}
		if r.Error.Line > 0 {
			e["line"], e["column"] = int64(r.Error.Line), int64(r.Error.Column)
		}
		d["error"] = e
	}
	if r.Attempts > 0 {
		d["attempts"] = int64(r.Attempts)
	}
	return d
}

// capped replaces a value too large for the record by a note of its size.
func capped(v any) any {
	raw, err := json.Marshal(v)
	if err != nil || len(raw) <= MaxRecordedValue {
		return v
	}
	return store.Doc{"truncated": true, "bytes": int64(len(raw)), "note": "larger than the run record keeps; the run's Temporal history has it whole"}
}

// RecordStep appends the step to the run record. The append is
// conditional on the record holding Index steps, so a repeated call (a
// local activity retried after it wrote) appends nothing.
func (a *Activities) RecordStep(ctx context.Context, in contract.RecordStepInput) error {
	coll := a.Store.Collection(runs.Runs)
	_, err := coll.Update(ctx, query.AllOf(query.ID(in.RunID), query.Eq("stepCount", int64(in.Index))), store.Update{
		Push: map[string]any{"steps": stepDoc(in.Step, in.Index)},
		Set:  store.Doc{"stepCount": int64(in.Index + 1), "updatedAt": time.Now().UTC().Truncate(time.Millisecond)},
	})
	if errors.Is(err, store.ErrNotFound) {
		rec, gerr := coll.Get(ctx, in.RunID, "stepCount")
		if gerr == nil && int(store.Int(rec["stepCount"])) <= in.Index {
			return fmt.Errorf("run record %s holds %v steps, expected %d", in.RunID, rec["stepCount"], in.Index)
		}
		return ignoreMissing(gerr)
	}
	return err
}

// FinishRun writes the outcome into the run record.
func (a *Activities) FinishRun(ctx context.Context, in contract.FinishRunInput) error {
	now := time.Now().UTC().Truncate(time.Millisecond)
	set := store.Doc{
		"status": in.Status, "totalDuration": totalMs(in.StartedAt, now),
		"endedAt": now, "updatedAt": now, "output": capped(in.Output),
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
	rec, err := a.Store.Collection(runs.Runs).Update(ctx, query.ID(in.RunID), store.Update{Set: set})
	if err == nil {
		a.Log.InfoContext(ctx, "pipeline run ended", "run", in.RunID, "status", in.Status, "failedStep", in.FailedStep, "totalMs", set["totalDuration"])
		err = a.aggregateRun(ctx, rec)
	}
	return ignoreMissing(err)
}

func ignoreMissing(err error) error {
	if errors.Is(err, store.ErrNotFound) {
		return nil // the run record was deleted meanwhile
	}
	return err
}

// wholeMs rounds a duration to whole milliseconds, the unit of every
// duration the API shows (docs/decisions.md, "Durations").
func wholeMs(ms float64) float64 { return math.Round(ms) }

func totalMs(start, end time.Time) float64 {
	if start.IsZero() {
		return 0
	}
	return float64(end.Sub(start).Milliseconds())
}

// stepLimit is the runs' limit of executed steps: StepLimit when it is
// below the contract's, else the contract's.
func (a *Activities) stepLimit() int {
	if a.StepLimit > 0 && a.StepLimit < contract.MaxExecutedSteps {
		return a.StepLimit
	}
	return contract.MaxExecutedSteps
}
