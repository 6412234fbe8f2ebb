// Package developer is the developer module: the apps (OAuth clients) a
// customer registers for third-party sign-in. An app gets a client_id
// starting with "oac_"; a confidential app also gets a secret, shown once
// at creation (and by rotate-secret) and stored only as a hash.
package developer

import (
	"context"
	"net/url"
	"strings"

	"platform/kernel/query"
	"platform/kernel/resource"

	"platform/api"
	"platform/kernel/store"
	"platform/kernel/tenant"
	"platform/modules/identity"
	"platform/modules/oauth/scopes"
)

// Version is the module's meta.version.host.
const Version = "1.0.0"

// Deps are what the developer module uses of other modules; the
// composition root fills them. A nil one leaves out what needs it (the
// declarations alone need none).
type Deps struct {
	// Tokens ends the tokens of a deleted app (module oauth).
	Tokens Tokens
}

// Tokens are the OAuth tokens issued to apps.
type Tokens interface {
	// RevokeClient revokes every access and refresh token of a client id
	// that was just unregistered.
	RevokeClient(ctx context.Context, clientID string) error
}

// Module returns the developer module's declaration.
func Module(d Deps) *api.Module {
	return &api.Module{Name: "developer", HostLabel: "developer", Version: Version, Resources: []*resource.Resource{Apps(d)}}
}

// Apps declares /apps. Rights: developer.apps.{view|create|edit|delete|rotate-secret}.
func Apps(d Deps) *resource.Resource {
	return &resource.Resource{
		Plural: identity.Apps, Title: "app",
		Fields: []resource.Field{
			{Name: "name", Type: resource.TString, Required: true, MaxLen: 200, Filter: true, Sort: true},
			{Name: identity.FieldClientID, Type: resource.TString, ReadOnly: true, Filter: true, Description: "OAuth client id, starts with oac_"},
			{Name: identity.FieldRedirectURIs, Type: resource.TArray, Required: true, Items: &resource.Field{Type: resource.TString, MaxLen: 2000},
				Description: "exact redirect URIs: https, http on a loopback host, or a private-use scheme (com.example.app:/cb)"},
			{Name: identity.FieldScopes, Type: resource.TArray, Required: true, Items: &resource.Field{Type: resource.TString, MaxLen: 200},
				Description: "scopes the app may ask for: rights such as crm.consumers.view, wildcards crm.consumers.* and crm.*, profile, email"},
			{Name: identity.FieldPublic, Type: resource.TBool, Default: false, Filter: true,
				Description: "public clients (PKCE only, no secret); fixed at creation"},
			{Name: "client_secret", Type: resource.TString, ReadOnly: true, Virtual: true,
				Description: "confidential apps only: shown once in the answer of create and of rotate-secret, never stored"},
		},
		Actions: []resource.Action{{
			Name: "rotate-secret", Title: "replace the app's client secret (the old one stops working at once)",
			Right: "developer.apps.rotate-secret", Event: "secret-rotated", Run: rotateSecret,
		}},
		Hooks: resource.Hooks{BeforeWrite: beforeWrite, Present: hideSecretHash, AfterDelete: d.afterDelete},
	}
}

func hideSecretHash(doc store.Doc) { delete(doc, identity.FieldSecretHash) }

// beforeWrite checks redirect URIs and scopes; on create it issues the
// client id, the secret and the global client index entry.
func beforeWrite(ctx context.Context, w *resource.Write) error {
	if errs := checkApp(w.New, scopes.NewCatalog(w.Service.Registry)); len(errs) > 0 {
		return resource.Invalid(errs...)
	}
	if w.Old != nil {
		if w.New[identity.FieldPublic] != w.Old[identity.FieldPublic] {
			return resource.Invalid(resource.FieldError(resource.CodeReadOnly, identity.FieldPublic, "public is fixed at creation; register a new app instead"))
		}
		return nil
	}
	return issueCredentials(ctx, w)
}

func issueCredentials(ctx context.Context, w *resource.Write) error {
	cust, err := tenant.Customer(ctx)
	if err != nil {
		return err
	}
	public, _ := w.New[identity.FieldPublic].(bool)
	w.New[identity.FieldPublic] = public
	clientID := identity.NewClientID()
	w.New[identity.FieldClientID] = clientID
	if !public {
		secret, hash := identity.NewSecret()
		w.New[identity.FieldSecretHash] = hash
		w.Once = store.Doc{"client_secret": secret}
	}
	ids := &identity.Service{Store: w.Service.Store}
	return ids.RegisterClient(ctx, clientID, cust, w.New["_id"].(string))
}

func checkApp(doc store.Doc, cat *scopes.Catalog) []api.ErrorEntry {
	var errs []api.ErrorEntry
	uris, _ := doc[identity.FieldRedirectURIs].([]any)
	if len(uris) == 0 {
		errs = append(errs, resource.FieldError(resource.CodeRequired, identity.FieldRedirectURIs, "register at least one redirect URI"))
	}
	for _, u := range uris {
		if s, _ := u.(string); !validRedirect(s) {
			errs = append(errs, resource.FieldError(resource.CodeFormat, identity.FieldRedirectURIs,
				"%q is not allowed: use an absolute https URI, http on localhost/127.0.0.1/[::1], or a private-use scheme; no fragment, no wildcard", s))
		}
	}
	for _, sc := range store.Strings(doc[identity.FieldScopes]) {
		if !cat.Valid(sc) {
			errs = append(errs, resource.FieldError(resource.CodeInvalid, identity.FieldScopes, "%q names no right of any module (nor profile or email)", sc))
		}
	}
	return errs
}

// validRedirect follows OAuth 2.1 / RFC 8252: exact, absolute URIs only.
func validRedirect(s string) bool {
	u, err := url.Parse(s)
	if err != nil || !u.IsAbs() || u.Fragment != "" || strings.Contains(s, "*") {
		return false
	}
	switch u.Scheme {
	case "https":
		return u.Host != ""
	case "http":
		h := u.Hostname()
		return h == "localhost" || h == "127.0.0.1" || h == "::1"
	default: // private-use scheme of a native app: reverse domain name
		return strings.Contains(u.Scheme, ".")
	}
}

// afterDelete removes the client index entry, so the client id stops
// working at the token endpoint at once, then revokes the tokens already
// issued to it, so they stop working on the API at once too (in that
// order: a token issued meanwhile sees the client gone and is revoked).
func (d Deps) afterDelete(ctx context.Context, s *resource.Service, old store.Doc) error {
	id, _ := old[identity.FieldClientID].(string)
	if id == "" {
		return nil
	}
	if err := (&identity.Service{Store: s.Store}).UnregisterClient(ctx, id); err != nil {
		return err
	}
	if d.Tokens == nil {
		return nil
	}
	return d.Tokens.RevokeClient(ctx, id)
}

func rotateSecret(ctx context.Context, call *resource.ActionCall) (*resource.ActionResult, error) {
	if public, _ := call.Record[identity.FieldPublic].(bool); public {
		return nil, resource.Conflict(identity.FieldPublic, "a public app has no secret to rotate")
	}
	secret, hash := identity.NewSecret()
	doc, err := call.Service.Apply(ctx, call.Resource, query.AllOf(query.ID(call.ID), query.Eq(identity.FieldPublic, false)),
		resource.Change{Set: store.Doc{identity.FieldSecretHash: hash}})
	if err != nil {
		return nil, err
	}
	shown := store.Doc{"client_secret": secret}
	for k, v := range doc {
		shown[k] = v
	}
	return &resource.ActionResult{Payload: shown, EventData: doc}, nil
}
