package temporalx

import (
	"context"
	"errors"
	"fmt"

	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
)

// PutSchedule creates the schedule o describes, or brings an existing one
// with its id to o's spec, action and policies: a process may call it at
// every start, and a changed setting (an interval) takes effect. The
// schedule fires once per tick across all workers.
func PutSchedule(ctx context.Context, c client.Client, o client.ScheduleOptions) error {
	err := c.ScheduleClient().GetHandle(ctx, o.ID).Update(ctx, client.ScheduleUpdateOptions{
		DoUpdate: func(in client.ScheduleUpdateInput) (*client.ScheduleUpdate, error) {
			next := in.Description.Schedule
			next.Spec, next.Action = &o.Spec, o.Action
			if next.Policy == nil {
				next.Policy = &client.SchedulePolicies{}
			}
			next.Policy.Overlap, next.Policy.CatchupWindow = o.Overlap, o.CatchupWindow
			return &client.ScheduleUpdate{Schedule: &next}, nil
		},
	})
	var notFound *serviceerror.NotFound
	if !errors.As(err, &notFound) {
		return wrapSchedule(o.ID, "update", err)
	}
	_, err = c.ScheduleClient().Create(ctx, o)
	if errors.Is(err, temporal.ErrScheduleAlreadyRunning) { // created meanwhile by another process
		return nil
	}
	return wrapSchedule(o.ID, "create", err)
}

func wrapSchedule(id, verb string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s schedule %s: %w", verb, id, err)
}
