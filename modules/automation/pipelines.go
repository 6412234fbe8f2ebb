package automation

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"reflect"
	"time"

	"platform/api"
	"platform/kernel/auth"
	"platform/kernel/events"
	"platform/kernel/store"
	"platform/modules/automation/pipeline"
	"platform/modules/automation/runs"
	"platform/modules/automation/webhook"
	"platform/sandbox"
	"platform/workflows/contract"
)

// Pipelines declares /pipelines: multi-step workflows run by Temporal.
// Every change of name, trigger or steps is a new version, frozen in
// /pipelineversions; a run keeps the version it started with.
func Pipelines(d Deps) *api.Resource {
	stepFields := []api.Field{
		{Name: "id", Type: api.TString, Required: true},
		{Name: "type", Type: api.TString, Required: true, Enum: contract.Types},
	}
	return &api.Resource{
		Module: "automation", Plural: runs.Pipelines, Title: "pipeline",
		Fields: []api.Field{
			{Name: "name", Type: api.TString, Required: true, MaxLen: 200, Filter: true, Sort: true},
			{Name: "description", Type: api.TString, MaxLen: 2000},
			{Name: "active", Type: api.TBool, Default: true, Filter: true, Sort: true, Description: "inactive pipelines are not started by triggers (manual runs still work)"},
			{Name: "trigger", Type: api.TObject, Filter: true, Description: "what starts the pipeline: {event, filter?} (an event name or wildcard and a filter on the event's data in the list query language) or {id} (a reusable trigger); none: manual runs only",
				Fields: []api.Field{
					{Name: "event", Type: api.TString, MaxLen: 200, Filter: true},
					{Name: "filter", Type: api.TObject, FreeForm: true},
					{Name: "cron", Type: api.TString, MaxLen: 200, Description: "five-field cron expression or @hourly, @every 15m ..."},
					{Name: "timezone", Type: api.TString, MaxLen: 64, Description: "IANA time zone of cron, default UTC"},
					{Name: "id", Type: api.TObjectID, Filter: true},
				}},
			{Name: "steps", Type: api.TArray, Required: true, Items: &api.Field{Type: api.TObject, FreeForm: true, Fields: stepFields},
				Description: "steps, run from the first: each {id, type, ...settings}; see docs/pipelines.md"},
			{Name: "version", Type: api.TInteger, ReadOnly: true, Filter: true, Sort: true, Description: "current version; every change of name, trigger or steps adds one"},
		},
		Actions: []api.Action{{
			Name: "run", Title: "start a run now with an input (triggeredBy manual)", Right: "automation.pipelines.run",
			Body: []api.Field{{Name: "input", Type: api.TObject, FreeForm: true, Description: "the run's event data (template roots event.data and input)"}},
			Run: func(ctx context.Context, call *api.ActionCall) (*api.ActionResult, error) {
				return runPipeline(ctx, d, call)
			},
		}},
		Relations: []api.Relation{
			{Rel: "runs", Title: "runs of the pipeline", Module: "automation", Plural: runs.Runs, Right: "automation.pipelineruns.view", Sub: "runs"},
			{Rel: "versions", Title: "frozen versions", Module: "automation", Plural: runs.Versions, Right: "automation.pipelineversions.view", Sub: "versions"},
		},
		Subs: []api.Sub{
			{Name: "runs", Module: "automation", Plural: runs.Runs, Key: "pipeline"},
			{Name: "versions", Module: "automation", Plural: runs.Versions, Key: "pipeline"},
		},
		Hooks: api.Hooks{
			BeforeWrite: func(ctx context.Context, w *api.Write) error { return pipelineWrite(ctx, d, w) },
			AfterDelete: func(ctx context.Context, _ *api.Services, old store.Doc) error {
				return syncPipelineSchedule(ctx, d, old, nil)
			},
		},
	}
}

// PipelineVersions declares the read-only /pipelineversions.
func PipelineVersions() *api.Resource {
	return &api.Resource{
		Module: "automation", Plural: runs.Versions, Title: "pipeline version", ReadOnly: true,
		Fields: []api.Field{
			{Name: "pipeline", Type: api.TObjectID, Filter: true},
			{Name: "version", Type: api.TInteger, Filter: true, Sort: true},
			{Name: "definition", Type: api.TObject, FreeForm: true, Description: "name, trigger and steps as they were"},
		},
		Indexes: []store.Index{{Name: "by_pipeline_version", Keys: []store.SortField{{Field: "pipeline"}, {Field: "version"}}}},
	}
}

// pipelineWrite validates the definition, stores it normalised and freezes
// a new version when it changed.
func pipelineWrite(ctx context.Context, d Deps, w *api.Write) error {
	def, err := pipeline.FromDoc(w.New)
	if err != nil {
		return problemsError(err)
	}
	id, _ := w.New["_id"].(string)
	env := &pipelineEnv{svc: w.Services, deps: d, caller: auth.From(ctx)}
	problems, err := pipeline.Validate(ctx, def, id, env)
	if err != nil {
		return err
	}
	if len(problems) > 0 {
		entries := make([]api.ErrorEntry, len(problems))
		for i, p := range problems {
			entries[i] = api.FieldError(api.CodeInvalid, p.Field, "%s", p.Message)
			if p.Line > 0 {
				entries[i].Code, entries[i].Line, entries[i].Column = api.CodeSyntax, p.Line, p.Column
			}
		}
		return api.Invalid(entries...)
	}
	norm, err := pipeline.ToDoc(def)
	if err != nil {
		return err
	}
	w.New["steps"] = norm["steps"]
	if def.Trigger == nil {
		delete(w.New, "trigger")
	} else {
		w.New["trigger"] = norm["trigger"]
	}
	if err := syncPipelineSchedule(ctx, d, w.Old, w.New); err != nil {
		return err
	}
	if def.Trigger != nil && def.Trigger.Event != "" {
		if err := events.Subscribe(ctx, w.Services.Store, def.Trigger.Event); err != nil {
			return err
		}
	}
	if w.Old != nil && sameDefinition(w.Old, w.New) {
		return nil
	}
	version := int(store.Int(w.Old["version"])) + 1
	w.New["version"] = int64(version)
	_, err = w.Services.Store.Collection(runs.Versions).Upsert(ctx, runs.VersionID(id, version), store.Update{Set: store.Doc{
		"pipeline": id, "version": int64(version), "createdAt": time.Now().UTC().Truncate(time.Millisecond), "createdBy": w.New["modifiedBy"],
		"definition": store.Doc{"name": w.New["name"], "trigger": w.New["trigger"], "steps": w.New["steps"]},
	}})
	return err
}

func problemsError(err error) error {
	var p *pipeline.Problem
	if errors.As(err, &p) {
		return api.Invalid(api.FieldError(api.CodeInvalid, p.Field, "%s", p.Message))
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
	svc    *api.Services
	deps   Deps
	caller *auth.Principal
}

var _ pipeline.Env = (*pipelineEnv)(nil)

func (e *pipelineEnv) EventPattern(p string) string {
	return webhook.CheckPattern(p, e.svc.Registry.EventNames())
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

func (e *pipelineEnv) Function(ctx context.Context, id string) (string, error) {
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
		var apiErr *api.Error
		if errors.As(err, &apiErr) && len(apiErr.Entries) > 0 {
			return apiErr.Entries[0].Message, nil
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
func runPipeline(ctx context.Context, d Deps, call *api.ActionCall) (*api.ActionResult, error) {
	if d.Launcher == nil {
		return nil, unavailable("starting runs")
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
		return nil, api.NewError(http.StatusServiceUnavailable, api.CodeUnavailable, "", "the run could not be started; try again").WithCause(err)
	}
	rec, err := call.Services.Store.Collection(runs.Runs).Get(ctx, id)
	if err != nil {
		return nil, err
	}
	return &api.ActionResult{Payload: map[string]any{"run": rec}, NoEvent: true}, nil
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
		return api.NewError(http.StatusServiceUnavailable, api.CodeUnavailable, "", "the pipeline's schedule could not be saved; try again").WithCause(err)
	}
	return nil
}
