package runs

import (
	"context"
	"errors"
	"fmt"
	"time"
	_ "time/tzdata" // cron triggers name IANA time zones; do not depend on the host's files

	"go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	"platform/kernel/store"
	"platform/kernel/temporalx"
	"platform/kernel/tenant"
	"platform/workflows/contract"
)

// Schedule is one cron schedule that fires runs.
type Schedule struct {
	ID       string // the Temporal schedule id
	Cron     string
	Timezone string
	Fire     contract.FireInput
}

// TriggerScheduleID and PipelineScheduleID name the Temporal schedules of
// a cron trigger and of a pipeline with an inline cron trigger.
func TriggerScheduleID(trigger string) string   { return "trigger-" + trigger }
func PipelineScheduleID(pipeline string) string { return "pipeline-" + pipeline }

// TriggerSchedule is the schedule a trigger record needs; false when it
// needs none (not cron, or inactive).
func TriggerSchedule(t store.Doc) (Schedule, bool) {
	id, _ := t["_id"].(string)
	expr, _ := t["cron"].(string)
	tz, _ := t["timezone"].(string)
	sc := Schedule{ID: TriggerScheduleID(id), Cron: expr, Timezone: tz,
		Fire: contract.FireInput{Trigger: id, TriggeredBy: ByCron, Event: contract.Event{Name: "cron", Data: map[string]any{"trigger": id}}}}
	return sc, t["type"] == "cron" && t["active"] != false && expr != ""
}

// TriggerOf is what starts a stored pipeline, in the shape of its trigger
// field ({event, filter} | {cron, timezone} | {id}): the record's trigger,
// or the settings of its first step when that is a trigger step (whose
// reusable trigger id is its setting trigger); nil when neither.
func TriggerOf(p store.Doc) store.Doc {
	if t, ok := p["trigger"].(map[string]any); ok && len(t) > 0 {
		return t
	}
	steps, _ := p["steps"].([]any)
	if len(steps) == 0 {
		return nil
	}
	first, _ := steps[0].(map[string]any)
	if first["type"] != contract.TypeTrigger {
		return nil
	}
	t := store.Doc{}
	for _, k := range []string{"event", "filter", "cron", "timezone"} {
		if v, ok := first[k]; ok {
			t[k] = v
		}
	}
	if id, ok := first["trigger"]; ok {
		t["id"] = id
	}
	return t
}

// PipelineSchedule is the schedule a pipeline record with an inline cron
// trigger needs; false when it needs none.
func PipelineSchedule(p store.Doc) (Schedule, bool) {
	id, _ := p["_id"].(string)
	t := TriggerOf(p)
	expr, _ := t["cron"].(string)
	tz, _ := t["timezone"].(string)
	sc := Schedule{ID: PipelineScheduleID(id), Cron: expr, Timezone: tz,
		Fire: contract.FireInput{Pipeline: id, TriggeredBy: ByCron, Event: contract.Event{Name: "cron", Data: map[string]any{"pipeline": id}}}}
	return sc, p["active"] != false && expr != ""
}

// Schedules mirrors cron triggers into Temporal schedules: they survive
// restarts and fire once across all workers.
type Schedules struct {
	Client client.Client
	// TaskQueue is the base task queue; ticks start on the pipelines
	// queue named after it. A schedule put before the queues were split
	// fires on the base queue, whose worker still runs every workflow,
	// until its trigger is saved again.
	TaskQueue string
}

// Put creates or updates a schedule for the customer of ctx.
func (s *Schedules) Put(ctx context.Context, sc Schedule) error {
	cust, err := tenant.Customer(ctx)
	if err != nil {
		return err
	}
	tz := sc.Timezone
	if tz == "" {
		tz = "UTC"
	}
	spec := client.ScheduleSpec{CronExpressions: []string{sc.Cron}, TimeZoneName: tz}
	// The customer travels in the action's header (the tenant propagator
	// reads ctx), so a tick runs for this customer only; it is also the
	// tick's fairness key on the pipelines queue.
	action := &client.ScheduleWorkflowAction{
		ID: "cron-" + sc.ID, Workflow: contract.WorkflowFireTrigger, TaskQueue: contract.QueueOf(s.TaskQueue, contract.WorkflowFireTrigger), Args: []any{sc.Fire},
		TypedSearchAttributes: temporal.NewSearchAttributes(temporal.NewSearchAttributeKeyKeyword(contract.AttrCustomer).ValueSet(cust)),
		Priority:              temporalx.Fairness(ctx),
	}
	h := s.Client.ScheduleClient().GetHandle(ctx, sc.ID)
	err = h.Update(ctx, client.ScheduleUpdateOptions{DoUpdate: func(in client.ScheduleUpdateInput) (*client.ScheduleUpdate, error) {
		next := in.Description.Schedule
		next.Spec, next.Action = &spec, action
		return &client.ScheduleUpdate{Schedule: &next}, nil
	}})
	var notFound *serviceerror.NotFound
	if !errors.As(err, &notFound) {
		return err
	}
	_, err = s.Client.ScheduleClient().Create(ctx, client.ScheduleOptions{
		ID: sc.ID, Spec: spec, Action: action,
		Overlap:       enums.SCHEDULE_OVERLAP_POLICY_ALLOW_ALL, // each tick's runs are independent
		CatchupWindow: time.Minute,                             // after an outage, fire once for the last missed tick, not for every one
		Memo:          map[string]any{"customer": cust},
	})
	if err != nil && !errors.Is(err, temporal.ErrScheduleAlreadyRunning) {
		return fmt.Errorf("create schedule %s: %w", sc.ID, err)
	}
	return nil
}

// Remove deletes a schedule; a missing one is fine.
func (s *Schedules) Remove(ctx context.Context, id string) error {
	err := s.Client.ScheduleClient().GetHandle(ctx, id).Delete(ctx)
	var notFound *serviceerror.NotFound
	if errors.As(err, &notFound) {
		return nil
	}
	return err
}

// Sync puts or removes a schedule as a record needs.
func (s *Schedules) Sync(ctx context.Context, sc Schedule, needed bool) error {
	if needed {
		return s.Put(ctx, sc)
	}
	return s.Remove(ctx, sc.ID)
}
