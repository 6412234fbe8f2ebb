package resource

import (
	"context"

	"platform/kernel/auth"
)

// PlatformActor is createdBy/modifiedBy of what the platform writes on its
// own (a Bug task, a workflow's bookkeeping): an id no user or app has.
const PlatformActor = "000000000000000000000000"

// Actor is who makes a change: the user, the app for service tokens, the
// principal a workflow acts as (a pipeline), or the platform.
func Actor(ctx context.Context) string {
	p := auth.From(ctx)
	switch {
	case p == nil:
		return PlatformActor
	case p.User != "":
		return p.User
	case p.ClientID != "":
		return p.ClientID
	case p.APIKey != "":
		return p.APIKey // a key created by a service token: no user
	}
	return PlatformActor
}

// AsPlatform is ctx with the platform as its principal: every right of
// the customer in ctx, for the platform's own writes (a Bug task), which
// hooks that check rights must let through.
func AsPlatform(ctx context.Context, customer string) context.Context {
	return auth.WithPrincipal(ctx, &auth.Principal{Customer: customer, Subject: PlatformActor, Scopes: []string{"*"}})
}
