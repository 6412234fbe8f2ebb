package console

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"slices"
	"sort"
	"time"

	"platform/kernel/auth"
	"platform/kernel/query"
	"platform/kernel/store"
	"platform/kernel/tenant"
	"platform/modules/identity"
)

// appName is the name of the console's app in each customer's apps.
const appName = "Admin console (built in)"

// appID is the console app's record id in a customer's apps: fixed per
// customer, so two replicas creating it at once make one app.
func appID(customer string) string {
	sum := sha256.Sum256([]byte("platform console app\x00" + customer))
	return hex.EncodeToString(sum[:12])
}

// redirectURI is where the sign-in comes back.
func (c *Console) redirectURI() string { return c.base.String() + "/callback" }

// wantedScopes: every right of every mounted module (the wildcards), plus
// the admin-only rights, which no wildcard covers. The grant narrows them
// to what the signing-in user holds.
func (c *Console) wantedScopes() []string {
	seen := map[string]bool{}
	var out []string
	for _, r := range c.d.Registry.All() {
		if !seen[r.Module] {
			seen[r.Module] = true
			out = append(out, r.Module+".*")
		}
	}
	out = append(out, auth.AdminOnlyRights()...)
	sort.Strings(out)
	return slices.Compact(out)
}

// app is the customer's console client: a public app (PKCE, no secret) in
// its apps, created on the first sign-in and put back as the console needs
// it (its redirect URI and scopes) if an admin changed or deleted it.
func (c *Console) app(ctx context.Context, customer string) (*identity.App, error) {
	ctx = tenant.WithCustomer(ctx, customer)
	coll := c.d.Store.Collection(identity.Apps)
	id := appID(customer)
	d, err := coll.Get(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return c.createApp(ctx, customer, id)
	}
	if err != nil {
		return nil, err
	}
	return c.repairApp(ctx, customer, d)
}

func (c *Console) createApp(ctx context.Context, customer, id string) (*identity.App, error) {
	now := time.Now().UTC().Truncate(time.Millisecond)
	clientID := identity.NewClientID()
	doc := store.Doc{"_id": id, "name": appName, identity.FieldClientID: clientID, identity.FieldRedirectURIs: store.List([]string{c.redirectURI()}),
		identity.FieldScopes: store.List(c.wantedScopes()), identity.FieldPublic: true, "createdAt": now, "updatedAt": now}
	// Index first, as identity.CreateApp does: a dangling entry points at nothing.
	if err := c.d.Identity.RegisterClient(ctx, clientID, customer, id); err != nil {
		return nil, err
	}
	err := c.d.Store.Collection(identity.Apps).Insert(ctx, doc)
	if store.IsDuplicate(err) { // another replica made it first
		_ = c.d.Identity.UnregisterClient(ctx, clientID)
		return c.app(ctx, customer)
	}
	if err != nil {
		return nil, err
	}
	return c.d.Identity.AppByClientID(ctx, clientID)
}

// repairApp makes sure the stored app is what the console needs.
func (c *Console) repairApp(ctx context.Context, customer string, d store.Doc) (*identity.App, error) {
	clientID := str(d[identity.FieldClientID])
	set := store.Doc{}
	if !slices.Equal(store.Strings(d[identity.FieldRedirectURIs]), []string{c.redirectURI()}) {
		set[identity.FieldRedirectURIs] = store.List([]string{c.redirectURI()})
	}
	if want := c.wantedScopes(); !slices.Equal(store.Strings(d[identity.FieldScopes]), want) {
		set[identity.FieldScopes] = store.List(want)
	}
	if pub, _ := d[identity.FieldPublic].(bool); !pub {
		set[identity.FieldPublic] = true
	}
	if len(set) > 0 {
		set["updatedAt"] = time.Now().UTC().Truncate(time.Millisecond)
		if _, err := c.d.Store.Collection(identity.Apps).Update(ctx, query.ID(str(d["_id"])), store.Update{Set: set, Unset: []string{identity.FieldSecretHash}}); err != nil {
			return nil, err
		}
	}
	a, err := c.d.Identity.AppByClientID(ctx, clientID)
	if errors.Is(err, store.ErrNotFound) { // the index entry went: put it back
		if err := c.d.Identity.RegisterClient(ctx, clientID, customer, str(d["_id"])); err != nil && !store.IsDuplicate(err) {
			return nil, err
		}
		return c.d.Identity.AppByClientID(ctx, clientID)
	}
	return a, err
}
