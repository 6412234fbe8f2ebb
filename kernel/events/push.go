package events

import (
	"context"
	"time"

	"platform/kernel/store"
	"platform/kernel/tenant"
)

// InAppName names the push-only records of in-app notifications in the
// events collection (see RecordPushOnly).
const InAppName = "inapp.notification"

// RecordPushOnly stores a record in the customer's events collection for
// the notifier alone: it is stored as dispatched, so no webhook or trigger
// ever sees it (a route whose channel is in-app and whose trigger is "*"
// would otherwise notify about its own notifications, for ever), and
// retention prunes it like any dispatched event. The notifier's tail reads
// the events collection, so one cheap tail serves both events and in-app
// notifications on every API replica.
func RecordPushOnly(ctx context.Context, st store.Store, name string, data store.Doc) (string, error) {
	if _, err := tenant.Customer(ctx); err != nil {
		return "", err
	}
	id := store.NewID()
	doc := store.Doc{"_id": id, "name": name, "timestamp": time.Now().UTC().Truncate(time.Millisecond), "data": data,
		"dispatched": true, "pushOnly": true}
	return id, st.Collection(Collection).Insert(ctx, doc)
}
