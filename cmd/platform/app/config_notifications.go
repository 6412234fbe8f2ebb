package app

import (
	"platform/activities/notifications"
	"platform/modules/config/credentials"
	"platform/modules/config/notification"
)

var _ notification.Opener = (*credentials.Vault)(nil)

// notificationActivities send routed notifications through the outbound
// guard, with the vault for the channels' secrets and, with Temporal, the
// starter of their delivery workflows.
func (a *App) notificationActivities() *notifications.Activities {
	acts := &notifications.Activities{Store: a.Store, Log: a.Log, Outbound: a.Outbound,
		Attempts: a.Config.NotifyAttempts, FirstRetry: a.Config.NotifyFirstRetry}
	if a.Vault != nil {
		acts.Vault = a.Vault
	}
	if a.Temporal != nil {
		acts.Starter = a.starter(a.Config.TaskQueue)
	}
	return acts
}
