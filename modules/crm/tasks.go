package crm

import (
	"context"
	"errors"
	"net/http"

	"platform/api"
	"platform/kernel/auth"
	"platform/kernel/query"
	"platform/kernel/store"
)

// Task states and their moves: open -> in-progress -> done (open -> done is
// allowed, in-progress -> open too); done is left only by the reopen action.
const (
	TaskOpen       = "open"
	TaskInProgress = "in-progress"
	TaskDone       = "done"
	// TypeBug marks runtime errors recorded by the platform.
	TypeBug = "Bug"
	// RightBugs lets a caller see Bug tasks; normal sales users do not.
	RightBugs = "crm.tasks.bugs"
)

// Tasks declares /tasks.
func Tasks() *api.Resource {
	return &api.Resource{
		Module: "crm", Plural: "tasks", Title: "task",
		Fields: []api.Field{
			{Name: "title", Type: api.TString, Required: true, MaxLen: 500, Filter: true, Sort: true},
			{Name: "description", Type: api.TString, Format: api.FMarkdown, MaxLen: 50000, Description: "Markdown"},
			{Name: "assignedTo", Type: api.TObjectID, Filter: true, Description: "user id"},
			{Name: "consumer", Type: api.TObjectID, Filter: true, Description: "consumer id"},
			{Name: "dueDate", Type: api.TDate, Filter: true, Sort: true},
			{Name: "priority", Type: api.TString, Enum: []string{"low", "medium", "high", "critical"}, Default: "medium", Filter: true, Sort: true},
			{Name: "type", Type: api.TString, Enum: []string{"Task", TypeBug, "Feature"}, Default: "Task", Filter: true, Sort: true},
			{Name: "_status", Type: api.TString, Enum: []string{TaskOpen, TaskInProgress, TaskDone}, Default: TaskOpen, Filter: true, Sort: true,
				Description: "open -> in-progress -> done; done is left only by the reopen action"},
			{Name: "debugId", Type: api.TString, ReadOnly: true, MaxLen: 100, Filter: true, Description: "debug id of the failed request (Bug tasks recorded by the platform)"},
		},
		Actions: []api.Action{
			{Name: "assign", Title: "assign the task to a user", Right: "crm.tasks.assign", Event: "assigned",
				Body: []api.Field{{Name: "userId", Type: api.TObjectID, Required: true}}, Run: assign},
			{Name: "reopen", Title: "move a done task back to open", Event: "reopened", Run: reopen},
		},
		Relations: []api.Relation{{Rel: "consumer", Title: "the task's consumer", Module: "crm", Plural: "consumers", Right: "crm.consumers.view"}},
		Hooks:     api.Hooks{BeforeWrite: taskWrite, ReadFilter: hideBugs},
	}
}

// hideBugs keeps Bug tasks from callers without the bugs right.
func hideBugs(ctx context.Context) query.Expr {
	if auth.From(ctx).Allows(RightBugs) {
		return nil
	}
	return query.Field{Path: "type", Conds: []query.Cond{query.Compare{Op: query.OpNe, Value: TypeBug}}}
}

func taskWrite(ctx context.Context, w *api.Write) error {
	if err := checkConsumer(ctx, w); err != nil {
		return err
	}
	if w.New["type"] == TypeBug && !auth.From(ctx).Allows(RightBugs) {
		return api.Invalid(api.FieldError(api.CodeInvalid, "type", "Bug tasks are recorded by the platform; creating them needs %s", RightBugs))
	}
	if w.Old == nil {
		return activateOnDone(ctx, w)
	}
	from, to := w.Old["_status"], w.New["_status"]
	if from == TaskDone && to != TaskDone {
		return api.NewError(http.StatusConflict, api.CodeConflict, "_status", "a done task is reopened with POST /tasks/:id/actions/reopen")
	}
	return activateOnDone(ctx, w)
}

func checkConsumer(ctx context.Context, w *api.Write) error {
	id, ok := w.New["consumer"].(string)
	if !ok || (w.Old != nil && w.Old["consumer"] == id) {
		return nil
	}
	_, err := w.Services.Store.Collection("consumers").Get(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return api.Invalid(api.FieldError(api.CodeInvalid, "consumer", "no consumer %s exists", id))
	}
	return err
}

// activateOnDone makes a lead active when a task for it is completed.
func activateOnDone(ctx context.Context, w *api.Write) error {
	cid, ok := w.New["consumer"].(string)
	if !ok || w.New["_status"] != TaskDone || (w.Old != nil && w.Old["_status"] == TaskDone) {
		return nil
	}
	doc, err := w.Services.Store.Collection("consumers").Update(ctx,
		query.AllOf(query.ID(cid), query.Eq("_status", StatusLead)), store.Update{Set: store.Doc{"_status": StatusActive}})
	if errors.Is(err, store.ErrNotFound) {
		return nil // not a lead (any more): nothing moves
	}
	if err != nil {
		return err
	}
	addDisplayName(doc)
	return w.Services.Events.Record(ctx, "consumers.updated", doc)
}

func assign(ctx context.Context, call *api.ActionCall) (*api.ActionResult, error) {
	user, _ := call.Body["userId"].(string)
	if _, err := call.Services.Store.Collection("users").Get(ctx, user); errors.Is(err, store.ErrNotFound) {
		return nil, api.Invalid(api.FieldError(api.CodeInvalid, "userId", "no user %s exists for this customer", user))
	} else if err != nil {
		return nil, err
	}
	doc, err := call.Services.Store.Collection("tasks").Update(ctx, query.ID(call.ID), store.Update{Set: store.Doc{"assignedTo": user}})
	if err != nil {
		return nil, err
	}
	return &api.ActionResult{Payload: doc}, nil
}

func reopen(ctx context.Context, call *api.ActionCall) (*api.ActionResult, error) {
	doc, err := call.Services.Store.Collection("tasks").Update(ctx,
		query.AllOf(query.ID(call.ID), query.Eq("_status", TaskDone)), store.Update{Set: store.Doc{"_status": TaskOpen}})
	if errors.Is(err, store.ErrNotFound) {
		return nil, api.NewError(http.StatusConflict, api.CodeConflict, "_status", "only a done task can be reopened (it is %v)", call.Record["_status"])
	}
	if err != nil {
		return nil, err
	}
	return &api.ActionResult{Payload: doc}, nil
}
