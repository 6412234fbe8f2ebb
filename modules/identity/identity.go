// Package identity keeps customers, users, roles and developer apps: who may
// sign in, what each customer licensed (its package), and which rights each
// user holds through roles. The OAuth service builds on it.
package identity

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"time"

	"platform/kernel/query"
	"platform/kernel/store"
)

// Collections.
const (
	Customers = "customers" // global
	Users     = "users"     // scoped
	Roles     = "roles"     // scoped
	Apps      = "apps"      // scoped: the developer module's declared resource
	// Clients is the global index client id -> (customer, app): the token
	// endpoint knows only the client id, and scoped collections need the
	// customer first.
	Clients = "oauthclients"
)

// Customer is a tenant.
type Customer struct {
	ID      string
	Slug    string
	Name    string
	Package []string // licensed rights, wildcards allowed ("crm.*")
}

// Service manages identities.
type Service struct{ Store store.Store }

var slugRE = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{1,62}$`)

// EnsureIndexes creates the identity collections' indexes. The apps
// collection's indexes come from the developer module's declaration.
func (s *Service) EnsureIndexes(ctx context.Context) error {
	if err := s.Store.EnsureIndexes(ctx, Customers, false, []store.Index{{Name: "uniq_slug", Keys: []store.SortField{{Field: "slug"}}, Unique: true}}); err != nil {
		return err
	}
	if err := s.Store.EnsureIndexes(ctx, Users, true, []store.Index{{Name: "uniq_email", Keys: []store.SortField{{Field: "email"}}, Unique: true}}); err != nil {
		return err
	}
	return s.Store.EnsureIndexes(ctx, Roles, true, []store.Index{{Name: "uniq_name", Keys: []store.SortField{{Field: "name"}}, Unique: true}})
}

// EnsureCustomer returns the customer with slug, creating it (idempotent).
func (s *Service) EnsureCustomer(ctx context.Context, slug, name string, pkg []string) (*Customer, bool, error) {
	if !slugRE.MatchString(slug) {
		return nil, false, fmt.Errorf("customer slug %q: use 2-63 lowercase letters, digits and dashes", slug)
	}
	if c, err := s.CustomerBySlug(ctx, slug); err == nil {
		return c, false, nil
	} else if !errors.Is(err, store.ErrNotFound) {
		return nil, false, err
	}
	doc := store.Doc{"_id": store.NewID(), "slug": slug, "name": name, "package": store.List(pkg), "createdAt": time.Now().UTC()}
	if err := s.Store.Global(Customers).Insert(ctx, doc); err != nil {
		if store.IsDuplicate(err) {
			c, err := s.CustomerBySlug(ctx, slug)
			return c, false, err
		}
		return nil, false, err
	}
	return customerOf(doc), true, nil
}

// CustomerBySlug finds a customer.
func (s *Service) CustomerBySlug(ctx context.Context, slug string) (*Customer, error) {
	docs, err := s.Store.Global(Customers).Find(ctx, store.FindOptions{Filter: query.Eq("slug", slug), Limit: 1})
	if err != nil {
		return nil, err
	}
	if len(docs) == 0 {
		return nil, store.ErrNotFound
	}
	return customerOf(docs[0]), nil
}

// CustomerByID finds a customer by id.
func (s *Service) CustomerByID(ctx context.Context, id string) (*Customer, error) {
	d, err := s.Store.Global(Customers).Get(ctx, id)
	if err != nil {
		return nil, err
	}
	return customerOf(d), nil
}

// SetPackage replaces the rights a customer licensed.
func (s *Service) SetPackage(ctx context.Context, id string, pkg []string) error {
	_, err := s.Store.Global(Customers).Update(ctx, query.ID(id), store.Update{Set: store.Doc{"package": store.List(pkg)}})
	return err
}

func customerOf(d store.Doc) *Customer {
	c := &Customer{}
	c.ID, _ = d["_id"].(string)
	c.Slug, _ = d["slug"].(string)
	c.Name, _ = d["name"].(string)
	c.Package = store.Strings(d["package"])
	return c
}

// CustomerIDs lists every customer's id, a page at a time (skip, limit),
// for platform work that goes customer by customer (the event sweeper).
func (s *Service) CustomerIDs(ctx context.Context, skip, limit int64) ([]string, error) {
	docs, err := s.Store.Global(Customers).Find(ctx, store.FindOptions{Fields: []string{"_id"}, Skip: skip, Limit: limit})
	if err != nil {
		return nil, err
	}
	out := make([]string, len(docs))
	for i, d := range docs {
		out[i], _ = d["_id"].(string)
	}
	return out, nil
}
