package app

import (
	"context"
	"fmt"

	"platform/modules/config/states"
)

// registerStates registers every module's states, derived from the
// mounted declarations, under the release name, and rebuilds the module
// state cache from them. Each process does it at start-up; an unchanged
// declaration writes nothing.
func (a *App) registerStates(ctx context.Context) error {
	app := a.Config.Release
	res, err := states.Register(ctx, a.Store, app, states.Derive(a.Registry, app))
	if err != nil {
		return fmt.Errorf("register platform states: %w", err)
	}
	cache, err := states.Rebuild(ctx, a.Store, app)
	if err != nil {
		return fmt.Errorf("rebuild the module state cache: %w", err)
	}
	a.States = res
	if res.Changed() || cache.Changed() {
		a.Log.Info("platform states registered", "release", app, "inserted", res.Inserted, "updated", res.Updated,
			"deleted", res.Deleted, "unchanged", res.Unchanged, "summariesWritten", cache.Inserted+cache.Updated+cache.Deleted)
	}
	return nil
}
