package app

import (
	"fmt"

	"platform/modules/console"
)

// startConsole serves the admin console at /console (and on
// console.<platform domain>). It calls the API in-process as the
// signed-in user, so it is mounted after every module.
func (a *App) startConsole() error {
	workspace := a.Config.SiteCustomer
	if workspace == "" {
		workspace = SeedCustomer
	}
	c, err := console.New(console.Deps{Config: a.Config, Store: a.Store, Identity: a.Identity, Registry: a.Registry,
		Verifier: a.Verifier, Handler: a.API.Handler(), Log: a.Log, DefaultWorkspace: workspace})
	if err != nil {
		return fmt.Errorf("console: %w", err)
	}
	c.Mount(a.API)
	return nil
}

// consoleExpiring are the console's records (its sessions and sign-ins
// under way) the OAuth sweep removes once expired.
var consoleExpiring = []string{console.SessionsCollection}
