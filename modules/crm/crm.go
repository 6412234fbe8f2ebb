// Package crm is the CRM module: consumers (leads and end customers), tasks
// and notes, and the Bug tasks that record the platform's runtime errors.
package crm

import (
	"context"

	"platform/api"
	"platform/kernel/resource"
	"platform/modules/identity"
)

// Version is the module's meta.version.host.
const Version = "1.0.0"

// Deps are what the CRM uses of other modules; the composition root fills
// them. A nil one leaves out what needs it (the declarations alone need
// none).
type Deps struct {
	// Users finds the customer's users (module identity): a task is
	// assigned to one of them.
	Users Users
	// Mail is the consumers' mail history (module marketing).
	Mail MailHistory
}

// Users finds a user of the customer in ctx (store.ErrNotFound if none).
type Users interface {
	UserByID(ctx context.Context, id string) (*identity.User, error)
}

// MailHistory is the mail sent to consumers, kept by the marketing module:
// anonymizing a consumer redacts it, merging moves it.
type MailHistory interface {
	Redact(ctx context.Context, consumer, email, alias string) error
	Reassign(ctx context.Context, from, to string) error
}

// Module returns the CRM module's declaration.
func Module(d Deps) *api.Module {
	return &api.Module{
		Name: "crm", HostLabel: "crm", Version: Version,
		Resources: []*resource.Resource{Consumers(d), Tasks(d), Notes()},
	}
}
