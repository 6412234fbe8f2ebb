package workflows

import (
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"platform/kernel/tenant"
	"platform/workflows/contract"
)

// NotificationDelivery sends one event through one notification route:
// the send activity retries a retryable failure (a 5xx or 429 answer, a
// network failure) with a doubling wait, up to in.Attempts sends, and
// stops at a permanent one. The send records every attempt in the
// delivery record; when none succeeded the record is marked failed.
func NotificationDelivery(ctx workflow.Context, in contract.NotificationInput) (contract.NotificationResult, error) {
	if _, err := tenant.WorkflowCustomer(ctx); err != nil {
		return contract.NotificationResult{}, temporal.NewNonRetryableApplicationError("the notification has no customer", "NoCustomer", err)
	}
	sctx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: 2 * time.Minute,
		RetryPolicy:         notificationRetry(in),
	})
	send := contract.SendNotificationInput{RouteID: in.RouteID, EventID: in.EventID}
	if err := workflow.ExecuteActivity(sctx, contract.ActivitySendNotification, send).Get(ctx, nil); err == nil {
		return contract.NotificationResult{Status: "delivered"}, nil
	}
	settle := contract.SettleNotificationInput(send)
	if err := workflow.ExecuteActivity(storeOptions(ctx), contract.ActivitySettleNotification, settle).Get(ctx, nil); err != nil {
		return contract.NotificationResult{}, faultReported(ctx, "workflow NotificationDelivery, settle", err)
	}
	return contract.NotificationResult{Status: "failed"}, nil
}

func notificationRetry(in contract.NotificationInput) *temporal.RetryPolicy {
	first := in.FirstRetry
	if first <= 0 {
		first = 10 * time.Second
	}
	return &temporal.RetryPolicy{
		InitialInterval: first, BackoffCoefficient: 2, MaximumInterval: 10 * time.Minute,
		MaximumAttempts:        int32(max(in.Attempts, 1)),
		NonRetryableErrorTypes: []string{contract.ErrNotificationPermanent},
	}
}
