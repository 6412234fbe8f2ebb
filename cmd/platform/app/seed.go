package app

import (
	"context"
	"errors"
	"fmt"

	"platform/kernel/store"
	"platform/kernel/tenant"
	"platform/modules/identity"
)

// Seed names of the dev seed (DESIGN §1).
const (
	SeedCustomer = "demo"
	SeedAdmin    = "admin@example.com"
)

// SeedResult says what the seed created; secrets are set only on the run
// that created them (they are shown once).
type SeedResult struct {
	Customer      *identity.Customer
	Admin         *identity.User
	AdminPassword string // empty unless generated now
	App           *identity.App
	AppSecret     string // empty unless created now
	Created       bool
}

// Seed creates the demo customer, an admin with every right and a
// confidential app, once; later runs find them and change nothing.
func (a *App) Seed(ctx context.Context, password string) (*SeedResult, error) {
	cust, created, err := a.Identity.EnsureCustomer(ctx, SeedCustomer, "Demo customer", []string{"*"})
	if err != nil {
		return nil, fmt.Errorf("seed customer: %w", err)
	}
	res := &SeedResult{Customer: cust, Created: created}
	ctx = tenant.WithCustomer(ctx, cust.ID)
	generated := password == ""
	if generated {
		password = identity.RandomSecret(12)
	}
	if err := a.Identity.EnsureRole(ctx, "admin", []string{"*"}); err != nil {
		return nil, fmt.Errorf("seed admin role: %w", err)
	}
	admin, made, err := a.Identity.EnsureUser(ctx, SeedAdmin, "Admin", password, nil)
	if err != nil {
		return nil, fmt.Errorf("seed admin: %w", err)
	}
	if made {
		if err := a.Identity.SetRoles(ctx, admin.ID, []string{"admin"}); err != nil {
			return nil, fmt.Errorf("seed admin: %w", err)
		}
		admin.Roles = []string{"admin"}
	}
	res.Admin = admin
	if made && generated {
		res.AdminPassword = password
	}
	app, err := a.Identity.FirstApp(ctx)
	if errors.Is(err, store.ErrNotFound) {
		app, res.AppSecret, err = a.Identity.CreateApp(ctx, identity.AppInput{Name: "Demo app",
			RedirectURIs: []string{"http://localhost:8081/callback"}, Scopes: []string{"crm.*", "profile", "email"}})
	}
	if err != nil {
		return nil, fmt.Errorf("seed app: %w", err)
	}
	res.App = app
	return res, nil
}
