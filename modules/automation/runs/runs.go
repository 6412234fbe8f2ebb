// Package runs starts pipeline runs: it writes the run record, then starts
// the interpreter workflow under the run's id (the run id is the workflow
// id, so operators find a run in the Temporal UI by the id the API shows).
// Every way a run starts goes through here: events, cron schedules,
// incoming webhooks, the run and rerun actions.
package runs

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"
	"time"

	"go.temporal.io/sdk/temporal"

	"platform/kernel/query"
	"platform/kernel/store"
	"platform/kernel/tenant"
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

// Workflow is the interpreter's registered name (package workflows).
const Workflow = "PipelineRun"

// Search attributes of a run (registered on the server, see workflows).
const (
	AttrCustomer = "PlatformCustomer"
	AttrPipeline = "PlatformPipeline"
)

// What started a run (the run record's triggeredBy).
const (
	ByEvent   = "event"
	ByCron    = "cron"
	ByManual  = "manual"
	ByWebhook = "webhook"
)

// Run statuses.
const (
	StatusRunning = "running"
	StatusSuccess = "success"
	StatusFailed  = "failed"
)

// Event is what a run starts from: a platform event, a cron tick, an
// incoming webhook call or a manual input. Its Data is the run's input.
type Event struct {
	ID        string         `json:"id,omitempty"`
	Name      string         `json:"name"`
	Timestamp time.Time      `json:"timestamp"`
	Data      map[string]any `json:"data"`
}

// Doc is the event as stored in a run record and seen by templates.
func (e Event) Doc() store.Doc {
	d := store.Doc{"name": e.Name, "timestamp": e.Timestamp, "data": e.Data}
	if e.ID != "" {
		d["id"] = e.ID
	}
	return d
}

// Input is the interpreter workflow's input.
type Input struct {
	RunID       string
	Pipeline    string
	Version     int // 0: the pipeline's current version
	TriggeredBy string
	Trigger     string // reusable trigger id, when one fired
	Event       Event
	Depth       int    // 0 for top-level runs; subPipeline children count up
	ParentRun   string // the calling run of a subPipeline child
	RerunOf     string
}

// Launch asks for one run.
type Launch struct {
	// RunID makes the start idempotent (an event's run of a pipeline);
	// empty means a new run.
	RunID       string
	Pipeline    store.Doc // the pipeline record (current version)
	TriggeredBy string
	Trigger     string
	Event       Event
	RerunOf     string
}

// WorkflowStarter is what the launcher needs of Temporal (temporalx.Starter).
type WorkflowStarter interface {
	StartOnce(ctx context.Context, id string, attrs map[string]string, workflow any, input any) (bool, error)
}

// Launcher writes run records and starts their workflows.
type Launcher struct {
	Store    store.Store
	Starter  WorkflowStarter
	Workflow any // the interpreter; defaults to its registered name
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
		"triggeredBy": in.TriggeredBy, "event": in.Event.Doc(), "status": StatusRunning,
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
	wf := l.Workflow
	if wf == nil {
		wf = Workflow
	}
	input := Input{RunID: id, Pipeline: pid, Version: version, TriggeredBy: in.TriggeredBy, Trigger: in.Trigger, Event: in.Event, RerunOf: in.RerunOf}
	if _, err := l.Starter.StartOnce(ctx, id, Attrs(cust, pid), wf, input); err != nil {
		// Say so in the record; a repeated launch of the same id that
		// succeeds sets it running again.
		_, _ = l.Store.Collection(Runs).Update(context.WithoutCancel(ctx), query.ID(id), store.Update{Set: store.Doc{
			"status": StatusFailed, "error": store.Doc{"kind": "start", "message": "the run could not be started: Temporal is unavailable"},
		}})
		return "", err
	}
	return id, nil
}

// Attrs are a run's search attributes.
func Attrs(customer, pipeline string) map[string]string {
	return map[string]string{AttrCustomer: customer, AttrPipeline: pipeline}
}

// TypedAttrs are Attrs for the SDK's typed API (child workflows).
func TypedAttrs(customer, pipeline string) temporal.SearchAttributes {
	return temporal.NewSearchAttributes(
		temporal.NewSearchAttributeKeyKeyword(AttrCustomer).ValueSet(customer),
		temporal.NewSearchAttributeKeyKeyword(AttrPipeline).ValueSet(pipeline),
	)
}

// DerivedID is a deterministic ObjectId-shaped id for the run a given
// cause starts (an event and a pipeline, a schedule tick and a pipeline),
// so that starting it again is a no-op.
func DerivedID(parts ...string) string {
	h := sha256.Sum256([]byte(strings.Join(parts, "\x00")))
	return hex.EncodeToString(h[:12])
}

// VersionID is the id of a pipeline version's frozen definition.
func VersionID(pipeline string, version int) string {
	return DerivedID("pipeline-version", pipeline, strconv.Itoa(version))
}
