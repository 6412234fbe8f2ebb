package app

import "platform/activities/delivery"

// retrierStarter makes sure webhook retriers run on the configured task
// queue; nil in a process without Temporal, where nothing can be queued
// for retries.
func (a *App) retrierStarter() delivery.RetrierStarter {
	if a.Temporal == nil {
		return nil // a nil *Retriers would be a non-nil RetrierStarter
	}
	return delivery.NewRetriers(a.starter(a.Config.TaskQueue))
}
