// Package runs starts pipeline runs: it writes the run record, then starts
// the interpreter workflow under the run's id (the run id is the workflow
// id, so operators find a run in the Temporal UI by the id the API shows).
// Every way a run starts goes through here: events, cron schedules,
// incoming webhooks, the run and rerun actions.
package runs

import (
	"context"
	"strconv"
	"time"

	"platform/kernel/query"
	"platform/kernel/store"
	"platform/kernel/tenant"
	"platform/modules/aggregation/readmodel"
	"platform/workflows/contract"
)

// Collections.
const (
	Pipelines = "pipelines"
	Versions  = "pipelineversions"
	Runs      = "pipelineruns"
	Triggers  = "triggers"
	Functions = "functions"
	// FunctionVersions holds each deployed version's frozen code.
	FunctionVersions = "functionversions"
)

// What started a run (the run record's triggeredBy).
const (
	ByEvent   = "event"
	ByCron    = "cron"
	ByManual  = "manual"
	ByWebhook = "webhook"
)

// Run statuses, as the run record stores them: the contract's words,
// which the interpreter reports.
const (
	StatusRunning = contract.StatusRunning
	StatusSuccess = contract.StatusSuccess
	StatusFailed  = contract.StatusFailed
)

// EventDoc is the event a run starts from as stored in its run record.
func EventDoc(e contract.Event) store.Doc {
	d := store.Doc{"name": e.Name, "timestamp": e.Timestamp, "data": e.Data}
	if e.ID != "" {
		d["id"] = e.ID
	}
	if len(e.Cause) > 0 {
		chain := make([]any, len(e.Cause))
		for i, c := range e.Cause {
			chain[i] = store.Doc{"run": c.Run, "pipeline": c.Pipeline}
		}
		d["cause"] = chain
	}
	return d
}

// Launch asks for one run.
type Launch struct {
	// RunID makes the start idempotent (an event's run of a pipeline);
	// empty means a new run.
	RunID       string
	Pipeline    store.Doc // the pipeline record (current version)
	TriggeredBy string
	Trigger     string
	Event       contract.Event
	RerunOf     string
}

// WorkflowStarter is what the launcher needs of Temporal
// (temporalx.Starter): it starts a workflow by its contract name.
type WorkflowStarter interface {
	StartOnce(ctx context.Context, id string, attrs map[string]string, workflow string, input any) (bool, error)
}

// Launcher writes run records and starts their workflows.
type Launcher struct {
	Store   store.Store
	Starter WorkflowStarter
	// Aggregation counts refused runs (ended at once) in the pipeline
	// statistics read model (readmodel.Feed); nil: none.
	Aggregation interface {
		Record(ctx context.Context, name string, rec store.Doc) error
	}
}

// Launch records the run as running and starts its workflow; a repeated
// Launch with the same RunID starts nothing new. It returns the run id.
func (l *Launcher) Launch(ctx context.Context, in Launch) (string, error) {
	p := in.Pipeline
	id := in.RunID
	if id == "" {
		id = store.NewID()
	}
	version := int(store.Int(p["version"]))
	pid, _ := p["_id"].(string)
	name, _ := p["name"].(string)
	now := time.Now().UTC().Truncate(time.Millisecond)
	rec := store.Doc{
		"_id": id, "pipeline": pid, "pipelineVersion": version, "pipelineName": name,
		"triggeredBy": in.TriggeredBy, "event": EventDoc(in.Event), "status": StatusRunning,
		"steps": []any{}, "stepCount": int64(0), "startedAt": now, "createdAt": now, "updatedAt": now, "depth": int64(0),
	}
	if in.Trigger != "" {
		rec["trigger"] = in.Trigger
	}
	if in.RerunOf != "" {
		rec["rerunOf"] = in.RerunOf
	}
	if err := l.Store.Collection(Runs).Insert(ctx, rec); err != nil && !store.IsDuplicate(err) {
		return "", err
	}
	cust, err := tenant.Customer(ctx)
	if err != nil {
		return "", err
	}
	input := contract.RunInput{RunID: id, Pipeline: pid, Version: version, TriggeredBy: in.TriggeredBy, Trigger: in.Trigger, Event: in.Event, RerunOf: in.RerunOf}
	if _, err := l.Starter.StartOnce(ctx, id, Attrs(cust, pid), contract.WorkflowPipelineRun, input); err != nil {
		// Say so in the record; a repeated launch of the same id that
		// succeeds sets it running again.
		_, _ = l.Store.Collection(Runs).Update(context.WithoutCancel(ctx), query.ID(id), store.Update{Set: store.Doc{
			"status": StatusFailed, "error": store.Doc{"kind": "start", "message": "the run could not be started: Temporal is unavailable"},
		}})
		return "", err
	}
	return id, nil
}

// Refuse records a run that is not started, as failed with the reason,
// so the author sees it among the pipeline's runs; a repeated Refuse with
// the same RunID records nothing new.
func (l *Launcher) Refuse(ctx context.Context, in Launch, kind, reason string) (string, error) {
	p := in.Pipeline
	id := in.RunID
	if id == "" {
		id = store.NewID()
	}
	pid, _ := p["_id"].(string)
	name, _ := p["name"].(string)
	now := time.Now().UTC().Truncate(time.Millisecond)
	rec := store.Doc{
		"_id": id, "pipeline": pid, "pipelineVersion": int(store.Int(p["version"])), "pipelineName": name,
		"triggeredBy": in.TriggeredBy, "event": EventDoc(in.Event), "status": StatusFailed,
		"error": store.Doc{"kind": kind, "message": reason},
		"steps": []any{}, "stepCount": int64(0), "startedAt": now, "endedAt": now, "totalDuration": int64(0),
		"createdAt": now, "updatedAt": now, "depth": int64(0),
	}
	if err := l.Store.Collection(Runs).Insert(ctx, rec); err != nil && !store.IsDuplicate(err) {
		return "", err
	}
	if l.Aggregation != nil {
		// The repeated call after a duplicate feeds the same record
		// again: the read model counts it once.
		if err := l.Aggregation.Record(ctx, readmodel.EventRunEnded, rec); err != nil {
			return "", err
		}
	}
	return id, nil
}

// Attrs are a run's search attributes (contract.RunAttributes) by name.
func Attrs(customer, pipeline string) map[string]string {
	return map[string]string{contract.AttrCustomer: customer, contract.AttrPipeline: pipeline}
}

// VersionID is the id of a pipeline version's frozen definition.
func VersionID(pipeline string, version int) string {
	return contract.DerivedID("pipeline-version", pipeline, strconv.Itoa(version))
}
