package app

import (
	"context"
	"errors"
	"net/http"

	"platform/api"
	"platform/api/notifier"
	"platform/kernel/events"
)

var _ api.Upgrader = upgrader{}

// NotifierPath is the notifier's gateway path ({notifier_url}, DESIGN §7).
const NotifierPath = "/notifier"

// wireNotifier serves the WebSocket notifier at /notifier and lets this
// process's recorded events wake it (other replicas' events reach it
// through the store, within a poll).
func (a *App) wireNotifier() {
	a.Notifier = notifier.New(notifier.Deps{Store: a.Store, Verifier: a.Verifier, Registry: a.Registry, Log: a.Log, Metrics: a.Metrics.Registry},
		notifier.Options{Retention: a.Config.EventRetention})
	a.Events.Notifier = notifiers{a.Events.Notifier, a.Notifier}
	a.MountNotifier(NotifierPath, a.Notifier)
}

// MountNotifier serves hub at path (tests mount hubs of their own).
func (a *App) MountNotifier(path string, hub *notifier.Hub) {
	a.API.HandleUpgrade(path, upgrader{hub})
}

// upgrader renders the notifier's refusals as the API's errors.
type upgrader struct{ hub *notifier.Hub }

func (u upgrader) Prepare(r *http.Request) (http.HandlerFunc, error) {
	serve, err := u.hub.Prepare(r)
	var re *notifier.RequestError
	if errors.As(err, &re) {
		e := api.NewError(re.Status, re.Code, re.Field, "%s", re.Text())
		if re.Status == http.StatusTooManyRequests || re.Status == http.StatusServiceUnavailable {
			e.Header = http.Header{"Retry-After": {"5"}}
		}
		return nil, e
	}
	return serve, err
}

// notifiers tells each of its non-nil notifiers about an event.
type notifiers []events.Notifier

func (ns notifiers) Notify(ctx context.Context, e events.Event) {
	for _, n := range ns {
		if n != nil {
			n.Notify(ctx, e)
		}
	}
}
