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

	"platform/store"
	"platform/tenant"
)

// FireWorkflow is the registered name of the workflow a trigger firing
// runs (workflows.FireTrigger).
const FireWorkflow = "FireTrigger"

// FireInput is one firing of a reusable trigger.
type FireInput struct {
	Trigger     string
	TriggeredBy string // ByCron or ByWebhook
	Event       Event
}

// ScheduleID is the Temporal schedule of a cron trigger.
func ScheduleID(trigger string) string { return "trigger-" + trigger }

// Schedules mirrors cron triggers into Temporal schedules: they survive
// restarts and fire once across all workers.
type Schedules struct {
	Client    client.Client
	TaskQueue string
}

// Sync creates or updates the schedule of an active cron trigger, and
// removes it for any other trigger.
func (s *Schedules) Sync(ctx context.Context, t store.Doc) error {
	id, _ := t["_id"].(string)
	expr, _ := t["cron"].(string)
	if t["type"] != "cron" || t["active"] == false || expr == "" {
		return s.Remove(ctx, id)
	}
	tz, _ := t["timezone"].(string)
	cust, err := tenant.Customer(ctx)
	if err != nil {
		return err
	}
	spec := client.ScheduleSpec{CronExpressions: []string{expr}, TimeZoneName: tz}
	// The customer travels in the action's header (the tenant propagator
	// reads ctx), so a tick runs for this customer only.
	action := &client.ScheduleWorkflowAction{
		ID: "cron-" + id, Workflow: FireWorkflow, TaskQueue: s.TaskQueue,
		Args:                  []any{FireInput{Trigger: id, TriggeredBy: ByCron, Event: Event{Name: "cron", Data: map[string]any{"trigger": id}}}},
		TypedSearchAttributes: temporal.NewSearchAttributes(temporal.NewSearchAttributeKeyKeyword(AttrCustomer).ValueSet(cust)),
	}
	h := s.Client.ScheduleClient().GetHandle(ctx, ScheduleID(id))
	err = h.Update(ctx, client.ScheduleUpdateOptions{DoUpdate: func(in client.ScheduleUpdateInput) (*client.ScheduleUpdate, error) {
		sch := in.Description.Schedule
		sch.Spec, sch.Action = &spec, action
		return &client.ScheduleUpdate{Schedule: &sch}, nil
	}})
	var notFound *serviceerror.NotFound
	if !errors.As(err, &notFound) {
		return err
	}
	_, err = s.Client.ScheduleClient().Create(ctx, client.ScheduleOptions{
		ID: ScheduleID(id), Spec: spec, Action: action,
		Overlap:       enums.SCHEDULE_OVERLAP_POLICY_ALLOW_ALL, // each tick's runs are independent
		CatchupWindow: time.Minute,                             // after an outage, fire once for the last missed tick, not for every one
		Memo:          map[string]any{"customer": cust},
	})
	if err != nil && !errors.Is(err, temporal.ErrScheduleAlreadyRunning) {
		return fmt.Errorf("create schedule of trigger %s: %w", id, err)
	}
	return nil
}

// Remove deletes a trigger's schedule; a missing one is fine.
func (s *Schedules) Remove(ctx context.Context, trigger string) error {
	err := s.Client.ScheduleClient().GetHandle(ctx, ScheduleID(trigger)).Delete(ctx)
	var notFound *serviceerror.NotFound
	if errors.As(err, &notFound) {
		return nil
	}
	return err
}
