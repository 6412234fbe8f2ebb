package crm

import (
	"context"
	"errors"

	"platform/kernel/resource"

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
	// RightAssign sets a task's assignee, by the assign action or any write.
	RightAssign = "crm.tasks.assign"
)

// Tasks declares /tasks.
func Tasks(d Deps) *resource.Resource {
	return &resource.Resource{
		Plural: "tasks", Title: "task",
		Fields: []resource.Field{
			{Name: "title", Type: resource.TString, Required: true, MaxLen: 500, Filter: true, Sort: true},
			{Name: "description", Type: resource.TString, Format: resource.FMarkdown, MaxLen: 50000, Description: "Markdown"},
			{Name: "assignedTo", Type: resource.TObjectID, Filter: true, Right: RightAssign,
				Description: "user id; setting or changing it needs crm.tasks.assign on any route, and emits tasks.assigned"},
			{Name: "consumer", Type: resource.TObjectID, Filter: true, Description: "consumer id"},
			{Name: "dueDate", Type: resource.TDate, Filter: true, Sort: true},
			{Name: "priority", Type: resource.TString, Enum: []string{"low", "medium", "high", "critical"}, Default: "medium", Filter: true, Sort: true},
			{Name: "type", Type: resource.TString, Enum: []string{"Task", TypeBug, "Feature"}, Default: "Task", Filter: true, Sort: true},
			{Name: "_status", Type: resource.TString, Enum: []string{TaskOpen, TaskInProgress, TaskDone}, Default: TaskOpen, Filter: true, Sort: true,
				Description: "open -> in-progress -> done; done is left only by the reopen action"},
			{Name: "debugId", Type: resource.TString, ReadOnly: true, MaxLen: 100, Filter: true, Description: "debug id of the latest occurrence (Bug tasks recorded by the platform)"},
			{Name: "signature", Type: resource.TString, ReadOnly: true, MaxLen: 500, Unique: true, Filter: true,
				Description: "Bug tasks: where the fault happened and its kind; one task per signature"},
			{Name: "occurrences", Type: resource.TInteger, ReadOnly: true, Filter: true, Sort: true, Description: "Bug tasks: how often the fault happened"},
			{Name: "lastSeenAt", Type: resource.TDate, ReadOnly: true, Filter: true, Sort: true, Description: "Bug tasks: when the fault last happened"},
		},
		Actions: []resource.Action{
			{Name: "assign", Title: "assign the task to a user", Right: RightAssign, Event: "assigned",
				Body: []resource.Field{{Name: "userId", Type: resource.TObjectID, Required: true}}, Run: assign(d)},
			{Name: "reopen", Title: "move a done task back to open", Event: "reopened", Run: reopen},
		},
		Relations: []resource.Relation{{Rel: "consumer", Title: "the task's consumer", Target: "crm/consumers", Field: "consumer"}},
		Hooks:     resource.Hooks{BeforeWrite: taskWrite(d), ReadFilter: hideBugs},
	}
}

// hideBugs keeps Bug tasks from callers without the bugs right.
func hideBugs(ctx context.Context) query.Expr {
	if auth.From(ctx).Allows(RightBugs) {
		return nil
	}
	return query.Field{Path: "type", Conds: []query.Cond{query.Compare{Op: query.OpNe, Value: TypeBug}}}
}

func taskWrite(d Deps) func(context.Context, *resource.Write) error {
	return func(ctx context.Context, w *resource.Write) error {
		if err := checkAssignee(ctx, d, w); err != nil {
			return err
		}
		return checkTask(ctx, w)
	}
}

// checkAssignee refuses an assignee who is no user of the customer, and
// announces a new one (tasks.assigned), as the assign action does.
func checkAssignee(ctx context.Context, d Deps, w *resource.Write) error {
	user, ok := w.New["assignedTo"].(string)
	if !ok || (w.Old != nil && w.Old["assignedTo"] == user) {
		return nil
	}
	if err := userExists(ctx, d, "assignedTo", user); err != nil {
		return err
	}
	w.Emit = append(w.Emit, "assigned")
	return nil
}

// userExists refuses a user id that is no user of the customer (field
// names where it came from).
func userExists(ctx context.Context, d Deps, field, user string) error {
	if _, err := d.Users.UserByID(ctx, user); errors.Is(err, store.ErrNotFound) {
		return resource.InvalidField(field, "no user %s exists for this customer", user)
	} else if err != nil {
		return err
	}
	return nil
}

func checkTask(ctx context.Context, w *resource.Write) error {
	if w.New["type"] == TypeBug && !auth.From(ctx).Allows(RightBugs) {
		return resource.Invalid(resource.FieldError(resource.CodeInvalid, "type", "Bug tasks are recorded by the platform; creating them needs %s", RightBugs))
	}
	if w.Old == nil {
		return activateOnDone(ctx, w)
	}
	from, to := w.Old["_status"], w.New["_status"]
	if from == TaskDone && to != TaskDone {
		return resource.Conflict("_status", "a done task is reopened with POST /tasks/:id/actions/reopen")
	}
	return activateOnDone(ctx, w)
}

// activateOnDone makes a lead active when a task for it is completed.
func activateOnDone(ctx context.Context, w *resource.Write) error {
	cid, ok := w.New["consumer"].(string)
	if !ok || w.New["_status"] != TaskDone || (w.Old != nil && w.Old["_status"] == TaskDone) {
		return nil
	}
	consumers := w.Service.Registry.Get("crm", "consumers")
	_, err := w.Service.Apply(ctx, consumers, query.AllOf(query.ID(cid), query.Eq("_status", StatusLead)),
		resource.Change{Set: store.Doc{"_status": StatusActive}, Event: resource.EventUpdated})
	if resource.KindOf(err) == resource.KindNotFound {
		return nil // not a lead (any more): nothing moves
	}
	return err
}

// assign gives the task to a user of the customer.
func assign(d Deps) func(context.Context, *resource.ActionCall) (*resource.ActionResult, error) {
	return func(ctx context.Context, call *resource.ActionCall) (*resource.ActionResult, error) {
		user, _ := call.Body["userId"].(string)
		if err := userExists(ctx, d, "userId", user); err != nil {
			return nil, err
		}
		doc, err := call.Service.Apply(ctx, call.Resource, query.ID(call.ID), resource.Change{Set: store.Doc{"assignedTo": user}})
		if err != nil {
			return nil, err
		}
		return &resource.ActionResult{Payload: doc}, nil
	}
}

func reopen(ctx context.Context, call *resource.ActionCall) (*resource.ActionResult, error) {
	doc, err := call.Service.Apply(ctx, call.Resource, query.AllOf(query.ID(call.ID), query.Eq("_status", TaskDone)),
		resource.Change{Set: store.Doc{"_status": TaskOpen}})
	if resource.KindOf(err) == resource.KindNotFound {
		return nil, resource.Conflict("_status", "only a done task can be reopened (it is %v)", call.Record["_status"])
	}
	if err != nil {
		return nil, err
	}
	return &resource.ActionResult{Payload: doc}, nil
}
