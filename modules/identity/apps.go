package identity

import (
	"context"
	"crypto/subtle"
	"fmt"
	"time"

	"platform/kernel/query"
	"platform/kernel/store"
	"platform/kernel/tenant"
)

// Stored field names of an app (the developer module declares the same
// names for its API; secretHash is never shown).
const (
	FieldClientID     = "client_id"
	FieldRedirectURIs = "redirect_uris"
	FieldScopes       = "scopes"
	FieldPublic       = "public"
	FieldSecretHash   = "secretHash"
)

// App is a registered developer app (OAuth client) of one customer.
type App struct {
	ID           string
	ClientID     string
	Customer     string
	Name         string
	RedirectURIs []string
	Scopes       []string
	Public       bool
	SecretHash   string
}

// AppInput describes a new app.
type AppInput struct {
	Name         string
	RedirectURIs []string
	Scopes       []string
	Public       bool
}

// NewClientID returns a fresh client id ("oac_" + 144 random bits).
func NewClientID() string { return "oac_" + RandomSecret(18) }

// NewSecret returns a client secret (256 random bits) and its stored hash.
func NewSecret() (secret, hash string) {
	secret = "oas_" + RandomSecret(32)
	return secret, HashSecret(secret)
}

// RegisterClient adds client id -> (customer, app) to the global index.
func (s *Service) RegisterClient(ctx context.Context, clientID, customer, appID string) error {
	return s.Store.Global(Clients).Insert(ctx, store.Doc{"_id": clientID, "customer": customer, "app": appID, "createdAt": time.Now().UTC()})
}

// UnregisterClient removes a client id from the global index.
func (s *Service) UnregisterClient(ctx context.Context, clientID string) error {
	_, err := s.Store.Global(Clients).Delete(ctx, query.ID(clientID))
	return err
}

// CreateApp registers an app for the customer of ctx outside the API (seed,
// tests) and returns its secret for confidential apps (shown once).
func (s *Service) CreateApp(ctx context.Context, in AppInput) (*App, string, error) {
	cust, err := tenant.Customer(ctx)
	if err != nil {
		return nil, "", err
	}
	now := time.Now().UTC().Truncate(time.Millisecond)
	doc := store.Doc{"_id": store.NewID(), "name": in.Name, FieldClientID: NewClientID(), FieldRedirectURIs: store.List(in.RedirectURIs),
		FieldScopes: store.List(in.Scopes), FieldPublic: in.Public, "createdAt": now, "updatedAt": now}
	secret := ""
	if !in.Public {
		var hash string
		secret, hash = NewSecret()
		doc[FieldSecretHash] = hash
	}
	// Index first: an app without its index entry could never sign in,
	// while a dangling entry only points at nothing.
	if err := s.RegisterClient(ctx, doc[FieldClientID].(string), cust, doc["_id"].(string)); err != nil {
		return nil, "", err
	}
	if err := s.Store.Collection(Apps).Insert(ctx, doc); err != nil {
		return nil, "", err
	}
	return appOf(doc, cust), secret, nil
}

// AppByClientID finds an app by client id alone (the token endpoint's view).
func (s *Service) AppByClientID(ctx context.Context, clientID string) (*App, error) {
	ix, err := s.Store.Global(Clients).Get(ctx, clientID)
	if err != nil {
		return nil, err
	}
	cust, _ := ix["customer"].(string)
	appID, _ := ix["app"].(string)
	if cust == "" || appID == "" {
		return nil, fmt.Errorf("client index entry %s is incomplete: %w", clientID, store.ErrNotFound)
	}
	d, err := s.Store.Collection(Apps).Get(tenant.WithCustomer(ctx, cust), appID)
	if err != nil {
		return nil, err
	}
	if d[FieldClientID] != clientID {
		return nil, store.ErrNotFound
	}
	return appOf(d, cust), nil
}

// FirstApp returns an app of the customer of ctx, if any.
func (s *Service) FirstApp(ctx context.Context) (*App, error) {
	cust, err := tenant.Customer(ctx)
	if err != nil {
		return nil, err
	}
	docs, err := s.Store.Collection(Apps).Find(ctx, store.FindOptions{Limit: 1})
	if err != nil {
		return nil, err
	}
	if len(docs) == 0 {
		return nil, store.ErrNotFound
	}
	return appOf(docs[0], cust), nil
}

// CheckSecret reports whether secret is the app's current secret.
func (a *App) CheckSecret(secret string) bool {
	if a.Public || a.SecretHash == "" {
		return false
	}
	return subtle.ConstantTimeCompare([]byte(HashSecret(secret)), []byte(a.SecretHash)) == 1
}

func appOf(d store.Doc, customer string) *App {
	a := &App{Customer: customer}
	a.ID, _ = d["_id"].(string)
	a.ClientID, _ = d[FieldClientID].(string)
	a.Name, _ = d["name"].(string)
	a.RedirectURIs = store.Strings(d[FieldRedirectURIs])
	a.Scopes = store.Strings(d[FieldScopes])
	a.Public, _ = d[FieldPublic].(bool)
	a.SecretHash, _ = d[FieldSecretHash].(string)
	return a
}
