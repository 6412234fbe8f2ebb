// Package identity keeps customers, users, roles and developer apps: who may
// sign in, what each customer licensed (its package), and which rights each
// user holds through roles. The OAuth service builds on it.
package identity

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"platform/query"
	"platform/store"
	"platform/tenant"
)

// Collections.
const (
	Customers = "customers" // global
	Users     = "users"     // scoped
	Apps      = "apps"      // scoped
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

// EnsureIndexes creates the identity collections' indexes.
func (s *Service) EnsureIndexes(ctx context.Context) error {
	if err := s.Store.EnsureIndexes(ctx, Customers, false, []store.Index{{Name: "uniq_slug", Keys: []store.SortField{{Field: "slug"}}, Unique: true}}); err != nil {
		return err
	}
	if err := s.Store.EnsureIndexes(ctx, Users, true, []store.Index{{Name: "uniq_email", Keys: []store.SortField{{Field: "email"}}, Unique: true}}); err != nil {
		return err
	}
	return s.Store.EnsureIndexes(ctx, Apps, false, []store.Index{{Name: "uniq_clientId", Keys: []store.SortField{{Field: "clientId"}}, Unique: true}})
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
	doc := store.Doc{"_id": store.NewID(), "slug": slug, "name": name, "package": toAny(pkg), "createdAt": time.Now().UTC()}
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

func customerOf(d store.Doc) *Customer {
	c := &Customer{}
	c.ID, _ = d["_id"].(string)
	c.Slug, _ = d["slug"].(string)
	c.Name, _ = d["name"].(string)
	c.Package = toStrings(d["package"])
	return c
}

// User is a person who signs in for a customer.
type User struct {
	ID     string
	Email  string
	Name   string
	Rights []string
}

// EnsureUser creates the user if the e-mail is new for the customer of ctx;
// it reports whether it was created.
func (s *Service) EnsureUser(ctx context.Context, email, name, password string, rights []string) (*User, bool, error) {
	if u, err := s.UserByEmail(ctx, email); err == nil {
		return u, false, nil
	} else if !errors.Is(err, store.ErrNotFound) {
		return nil, false, err
	}
	hash, err := HashPassword(password)
	if err != nil {
		return nil, false, err
	}
	doc := store.Doc{"_id": store.NewID(), "email": strings.ToLower(email), "name": name, "passwordHash": hash,
		"rights": toAny(rights), "createdAt": time.Now().UTC()}
	if err := s.Store.Collection(Users).Insert(ctx, doc); err != nil {
		return nil, false, err
	}
	return userOf(doc), true, nil
}

// UserByEmail finds a user of the customer of ctx.
func (s *Service) UserByEmail(ctx context.Context, email string) (*User, error) {
	docs, err := s.Store.Collection(Users).Find(ctx, store.FindOptions{Filter: query.Eq("email", strings.ToLower(email)), Limit: 1})
	if err != nil {
		return nil, err
	}
	if len(docs) == 0 {
		return nil, store.ErrNotFound
	}
	return userOf(docs[0]), nil
}

func userOf(d store.Doc) *User {
	u := &User{}
	u.ID, _ = d["_id"].(string)
	u.Email, _ = d["email"].(string)
	u.Name, _ = d["name"].(string)
	u.Rights = toStrings(d["rights"])
	return u
}

// App is a registered developer app (OAuth client).
type App struct {
	ID           string
	ClientID     string
	Name         string
	RedirectURIs []string
	Scopes       []string
	Public       bool
}

// CreateApp registers an app for the customer of ctx and returns its secret
// (shown once; only its hash is stored) for confidential apps.
func (s *Service) CreateApp(ctx context.Context, name string, redirects, scopes []string, public bool) (*App, string, error) {
	cust, err := tenant.Customer(ctx)
	if err != nil {
		return nil, "", err
	}
	app := &App{ID: store.NewID(), ClientID: "oac_" + RandomSecret(18), Name: name, RedirectURIs: redirects, Scopes: scopes, Public: public}
	doc := store.Doc{"_id": app.ID, "clientId": app.ClientID, "name": name, "redirectUris": toAny(redirects),
		"scopes": toAny(scopes), "public": public, "customer": cust, "createdAt": time.Now().UTC()}
	secret := ""
	if !public {
		secret = "oas_" + RandomSecret(32)
		doc["secretHash"] = HashSecret(secret)
	}
	// Apps are global so the token endpoint can find a client by id alone.
	if err := s.Store.Global(Apps).Insert(ctx, doc); err != nil {
		return nil, "", err
	}
	return app, secret, nil
}

// FirstApp returns an app of the customer of ctx, if any.
func (s *Service) FirstApp(ctx context.Context) (*App, error) {
	cust, err := tenant.Customer(ctx)
	if err != nil {
		return nil, err
	}
	docs, err := s.Store.Global(Apps).Find(ctx, store.FindOptions{Filter: query.Eq("customer", cust), Limit: 1})
	if err != nil {
		return nil, err
	}
	if len(docs) == 0 {
		return nil, store.ErrNotFound
	}
	d := docs[0]
	a := &App{}
	a.ID, _ = d["_id"].(string)
	a.ClientID, _ = d["clientId"].(string)
	a.Name, _ = d["name"].(string)
	a.RedirectURIs = toStrings(d["redirectUris"])
	a.Scopes = toStrings(d["scopes"])
	a.Public, _ = d["public"].(bool)
	return a, nil
}

// HashSecret hashes a high-entropy client secret (SHA-256 suffices for
// random 256-bit secrets; passwords use argon2id).
func HashSecret(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(sum[:])
}

func toAny(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

func toStrings(v any) []string {
	a, _ := v.([]any)
	out := make([]string, 0, len(a))
	for _, e := range a {
		if s, ok := e.(string); ok {
			out = append(out, s)
		}
	}
	return out
}
