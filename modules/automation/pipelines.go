package automation

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"time"

	"platform/kernel/resource"

	"platform/api"
	"platform/kernel/auth"
	"platform/kernel/events"
	"platform/kernel/store"
	"platform/modules/automation/pipeline"
	"platform/modules/automation/runs"
	"platform/sandbox"
	"platform/workflows/contract"
)

// Pipelines declares /pipelines: multi-step workflows run by Temporal.
// Every change of name, trigger or steps is a new version, frozen in
// /pipelineversions; a run keeps the version it started with.
func Pipelines(d Deps) *resource.Resource {
	stepFields := []resource.Field{
		{Name: "id", Type: resource.TString, Required: true},
		{Name: "type", Type: resource.TString, Required: true, Enum: contract.Types},
	}
	return &resource.Resource{
		Plural: runs.Pipelines, Title: "pipeline",
		Fields: []resource.Field{
			{Name: "name", Type: resource.TString, Required: true, MaxLen: 200, Filter: true, Sort: true},
			{Name: "description", Type: resource.TString, MaxLen: 2000},
			{Name: "active", Type: resource.TBool, Default: true, Filter: true, Sort: true, Description: "inactive pipelines are not started by triggers (manual runs still work)"},
			{Name: "trigger", Type: resource.TObject, Filter: true, Description: "what starts the pipeline: {event, filter?} (an event name or wildcard and a filter on the event's data in the list query language) or {id} (a reusable trigger); none: manual runs only",
				Fields: []resource.Field{
					{Name: "event", Type: resource.TString, MaxLen: 200, Filter: true},
					{Name: "filter", Type: resource.TObject, FreeForm: true},
					{Name: "cron", Type: resource.TString, MaxLen: 200, Description: "five-field cron expression or @hourly, @every 15m ..."},
					{Name: "timezone", Type: resource.TString, MaxLen: 64, Description: "IANA time zone of cron, default UTC"},
					{Name: "id", Type: resource.TObjectID, Filter: true},
				}},
			{Name: "steps", Type: resource.TArray, Required: true, Items: &resource.Field{Type: resource.TObject, FreeForm: true, Fields: stepFields},
				Description: "steps, run from the first: each {id, type, ...settings}; see docs/pipelines.md"},
			{Name: "version", Type: resource.TInteger, ReadOnly: true, Filter: true, Sort: true, Description: "current version; every change of name, trigger or steps adds one"},
		},
		Actions: []resource.Action{{
			Name: "run", Title: "start a run now with an input (triggeredBy manual)", Right: "automation.pipelines.run",
			Body: []resource.Field{{Name: "input", Type: resource.TObject, FreeForm: true, Description: "the run's event data (template roots event.data and input)"}},
			Run: func(ctx context.Context, call *resource.ActionCall) (*resource.ActionResult, error) {
				return runPipeline(ctx, d, call)
			},
		}},
		Relations: []resource.Relation{
			{Rel: "runs", Title: "runs of the pipeline", Target: "automation/" + runs.Runs, Key: "pipeline"},
			{Rel: "versions", Title: "frozen versions", Target: "automation/" + runs.Versions, Key: "pipeline"},
		},
		Hooks: resource.Hooks{
			BeforeWrite: func(ctx context.Context, w *resource.Write) error { return pipelineWrite(ctx, d, w) },
			AfterDelete: func(ctx context.Context, _ *resource.Service, old store.Doc) error {
				return syncPipelineSchedule(ctx, d, old, nil)
			},
		},
	}
}

// PipelineVersions declares the read-only /pipelineversions.
func PipelineVersions() *resource.Resource {
	return &resource.Resource{
		Plural: runs.Versions, Title: "pipeline version", ReadOnly: true,
		Fields: []resource.Field{
			{Name: "pipeline", Type: resource.TObjectID, Filter: true},
			{Name: "version", Type: resource.TInteger, Filter: true, Sort: true},
			{Name: "definition", Type: resource.TObject, FreeForm: true, Description: "name, trigger and steps as they were"},
			{Name: "credentials", Type: resource.TArray, Description: "the credentials the version's author was entitled to read ({{secrets...}}), re-checked when a run starts; see docs/pipelines.md",
				Items: &resource.Field{Type: resource.TObject, Fields: []resource.Field{
					{Name: "name", Type: resource.TString}, {Name: "id", Type: resource.TObjectID},
				}}},
		},
		Indexes: []store.Index{{Name: "by_pipeline_version", Keys: []store.SortField{{Field: "pipeline"}, {Field: "version"}}}},
	}
}

// pipelineWrite validates the definition, stores it normalised and freezes
// a new version when it changed.
func pipelineWrite(ctx context.Context, d Deps, w *resource.Write) error {
	def, err := pipeline.FromDoc(w.New)
	if err != nil {
		return problemsError(err)
	}
	id, _ := w.New["_id"].(string)
	env := &pipelineEnv{svc: w.Service, deps: d, caller: auth.From(ctx)}
	problems, err := pipeline.Validate(ctx, def, id, env)
	if err != nil {
		return err
	}
	entries := make([]api.ErrorEntry, len(problems))
	for i, p := range problems {
		entries[i] = resource.FieldError(resource.CodeInvalid, p.Field, "%s", p.Message)
		if p.Line > 0 {
			entries[i].Code, entries[i].Line, entries[i].Column = resource.CodeSyntax, p.Line, p.Column
		}
	}
	grants, refused, err := credentialGrants(ctx, w.Service.Store, env.caller, def)
	if err != nil {
		return err
	}
	if entries = append(entries, refused...); len(entries) > 0 {
		return resource.Invalid(entries...)
	}
	norm, err := pipeline.ToDoc(def)
	if err != nil {
		return err
	}
	warnRefusedSteps(ctx, d, def)
	w.New["steps"] = norm["steps"]
	if def.Trigger == nil {
		delete(w.New, "trigger")
	} else {
		w.New["trigger"] = norm["trigger"]
	}
	if err := syncPipelineSchedule(ctx, d, w.Old, w.New); err != nil {
		return err
	}
	if t := def.StartTrigger(); t != nil && t.Event != "" {
		if err := events.Subscribe(ctx, w.Service.Store, t.Event); err != nil {
			return err
		}
	}
	if w.Old != nil && sameDefinition(w.Old, w.New) {
		current, err := grantsRecorded(ctx, w.Service.Store, id, int(store.Int(w.Old["version"])), grants)
		if err != nil || current {
			return err
		}
	}
	version := int(store.Int(w.Old["version"])) + 1
	w.New["version"] = int64(version)
	_, err = w.Service.Store.Collection(runs.Versions).Upsert(ctx, runs.VersionID(id, version), store.Update{Set: store.Doc{
		"pipeline": id, "version": int64(version), "createdAt": time.Now().UTC().Truncate(time.Millisecond), "createdBy": w.New["modifiedBy"],
		"definition": store.Doc{"name": w.New["name"], "trigger": w.New["trigger"], "steps": w.New["steps"]},
		// The credentials its author was entitled to read: a run start
		// re-checks each (runs.VersionCredentials).
		"credentials": grants,
	}})
	return err
}

func problemsError(err error) error {
	var p *pipeline.Problem
	if errors.As(err, &p) {
		return resource.Invalid(resource.FieldError(resource.CodeInvalid, p.Field, "%s", p.Message))
	}
	return err
}

// sameDefinition compares what a version freezes, as JSON (stored numbers
// and decoded ones differ in Go type only).
func sameDefinition(a, b store.Doc) bool {
	norm := func(d store.Doc) any {
		raw, _ := json.Marshal(store.Doc{"name": d["name"], "trigger": d["trigger"], "steps": d["steps"]})
		var v any
		_ = json.Unmarshal(raw, &v)
		return v
	}
	return reflect.DeepEqual(norm(a), norm(b))
}

// pipelineEnv answers the validator's questions from the store, the
// registry, the sandbox and the caller's rights.
type pipelineEnv struct {
	svc    *resource.Service
	deps   Deps
	caller *auth.Principal
}

var _ pipeline.Env = (*pipelineEnv)(nil)

func (e *pipelineEnv) EventPattern(p string) string {
	return events.CheckPattern(p, e.svc.Registry.EventNames())
}

func (e *pipelineEnv) exists(ctx context.Context, coll, id, what string) (store.Doc, string, error) {
	if !store.ValidID(id) {
		return nil, "must be an ObjectId", nil
	}
	doc, err := e.svc.Store.Collection(coll).Get(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return nil, "names no " + what + " of this customer", nil
	}
	return doc, "", err
}

func (e *pipelineEnv) Trigger(ctx context.Context, id string) (string, error) {
	_, why, err := e.exists(ctx, runs.Triggers, id, "trigger")
	return why, err
}

// RightInvokeFunction is what a function step needs of its author: the
// right the same call through the invoke action needs.
const RightInvokeFunction = "automation.functions.invoke"

func (e *pipelineEnv) Function(ctx context.Context, id string) (string, error) {
	if !e.caller.Allows(RightInvokeFunction) {
		return "needs the right " + RightInvokeFunction + " (the step calls the function as its invoke action does), which you do not hold", nil
	}
	doc, why, err := e.exists(ctx, runs.Functions, id, "function")
	if why != "" || err != nil {
		return why, err
	}
	if int(store.Int(doc["deployedVersion"])) == 0 {
		return "names a function that has not been deployed yet: deploy it first", nil
	}
	return "", nil
}

func (e *pipelineEnv) SubPipelines(ctx context.Context, id string) ([]string, bool, error) {
	doc, err := e.svc.Store.Collection(runs.Pipelines).Get(ctx, id, "steps")
	if errors.Is(err, store.ErrNotFound) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	def, err := pipeline.FromDoc(doc)
	if err != nil {
		return nil, true, nil
	}
	return pipeline.SubPipelineRefs(def), true, nil
}

// verbOf is the right verb a db operation needs.
var verbOf = map[string]string{contract.OpCreate: "create", contract.OpRead: "view", contract.OpUpdate: "edit", contract.OpDelete: "delete"}

// Collection allows a db step on a declared resource of a data module
// when the author holds the right the same call through the API needs:
// a pipeline cannot do what its author could not.
func (e *pipelineEnv) Collection(_ context.Context, coll, op string) (string, error) {
	if e.deps.Records == nil {
		return "", unavailable("db steps")
	}
	r, err := e.deps.Records.Resource(coll, op != contract.OpRead)
	if err != nil {
		var re *resource.Error
		if errors.As(err, &re) && len(re.Entries) > 0 {
			return re.Entries[0].Message, nil
		}
		return "", err
	}
	if right := r.Right(verbOf[op]); !e.caller.Allows(right) {
		return "op " + op + " needs the right " + right + ", which you do not hold", nil
	}
	return "", nil
}

func (e *pipelineEnv) Compile(ctx context.Context, lang, code string) (*pipeline.CodeError, error) {
	if e.deps.Code == nil {
		return nil, unavailable("the sandbox")
	}
	kind := sandbox.KindJSONata
	if lang == contract.LangJavaScript {
		kind = sandbox.KindJSExpression
	}
	se, err := e.deps.Code.Compile(ctx, kind, code)
	if err != nil {
		return nil, sandboxUnavailable(err, "the sandbox could not check the expression")
	}
	if se == nil {
		return nil, nil
	}
	return &pipeline.CodeError{Message: se.Message, Line: se.Line, Column: se.Column}, nil
}

// runPipeline starts a manual run with the body's input.
func runPipeline(ctx context.Context, d Deps, call *resource.ActionCall) (*resource.ActionResult, error) {
	if d.Launcher == nil {
		return nil, unavailable("starting runs")
	}
	if err := mayStartManualRun(ctx, call); err != nil {
		return nil, err
	}
	input, _ := call.Body["input"].(map[string]any)
	if input == nil {
		input = map[string]any{}
	}
	id, err := d.Launcher.Launch(ctx, runs.Launch{
		Pipeline: call.Record, TriggeredBy: runs.ByManual,
		Event: contract.Event{Name: "manual", Timestamp: time.Now().UTC().Truncate(time.Millisecond), Data: input},
	})
	if err != nil {
		return nil, resource.Unavailable("the run could not be started; try again").WithCause(err)
	}
	rec, err := call.Service.Store.Collection(runs.Runs).Get(ctx, id)
	if err != nil {
		return nil, err
	}
	return &resource.ActionResult{Payload: map[string]any{"run": rec}, NoEvent: true}, nil
}

// syncPipelineSchedule keeps the Temporal schedule of a pipeline with an
// inline cron trigger in step with the record (next nil: deleted).
func syncPipelineSchedule(ctx context.Context, d Deps, old, next store.Doc) error {
	_, hadCron := runs.PipelineSchedule(old)
	sc, needed := runs.PipelineSchedule(next)
	if next == nil {
		sc, _ = runs.PipelineSchedule(old)
	}
	if !hadCron && !needed {
		return nil
	}
	if d.Schedules == nil {
		return unavailable("cron schedules")
	}
	if err := d.Schedules.Sync(ctx, sc, needed); err != nil {
		return resource.Unavailable("the pipeline's schedule could not be saved; try again").WithCause(err)
	}
	return nil
}

// warnRefusedSteps warns of http steps whose URL (one without
// placeholders) the outbound guard will refuse.
func warnRefusedSteps(ctx context.Context, d Deps, def *contract.Definition) {
	for i, s := range def.Steps {
		if s.Type == contract.TypeHTTP && !strings.Contains(s.URL, "{{") {
			d.warnRefused(ctx, fmt.Sprintf("steps[%d].url", i), s.URL)
		}
	}
}
