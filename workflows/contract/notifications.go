package contract

import "time"

// Routed notifications (docs/config-notifications.md): an event a
// notification route selects is sent by one NotificationDelivery per
// route and event.
const (
	WorkflowNotificationDelivery = "NotificationDelivery"
	ActivitySendNotification     = "SendNotification"
	ActivitySettleNotification   = "SettleNotification"
	// ErrNotificationPermanent is the error type of a send no retry can
	// fix (a 4xx answer, a refused destination, a deleted channel).
	ErrNotificationPermanent = "NotificationPermanent"
)

// NotificationInput is the input of NotificationDelivery: one event
// through one route, with the retry policy of its sends.
type NotificationInput struct {
	RouteID, EventID, Event string
	Attempts                int           // sends at most; 0: 1
	FirstRetry              time.Duration // wait before the second; doubles, up to 10 minutes
}

// NotificationResult is how the delivery ended: delivered or failed.
type NotificationResult struct {
	Status string
}

// SendNotificationInput names the route and event of one send.
type SendNotificationInput struct {
	RouteID, EventID string
}

// SettleNotificationInput records a delivery whose sends all failed.
type SettleNotificationInput struct {
	RouteID, EventID string
}

// NotificationWorkflowID is the id of the delivery of an event through a
// route: one per pair, so a repeated dispatch sends nothing twice.
func NotificationWorkflowID(routeID, eventID string) string {
	return "notify-" + DerivedID("notify", routeID, eventID)
}
