package config

import (
	"context"
	"reflect"
	"strconv"
	"time"

	"platform/api"
	"platform/kernel/auth"
	"platform/kernel/query"
	"platform/kernel/resource"
	"platform/kernel/store"
	"platform/kernel/tenant"
	"platform/modules/config/apikeys"
	"platform/modules/oauth/scopes"
)

// Rights on API keys beyond view, create, edit (rename) and delete.
const RightRevokeAPIKey = "config.apikeys.revoke"

// MaxAPIKeyScopes bounds the scopes one create asks for.
const MaxAPIKeyScopes = 50

// APIKeys declares /apikeys: long-lived keys for server-to-server calls,
// sent as Authorization: Bearer plk_... and checked by the API's one
// verifier (modules/config/apikeys). The key is in the create answer only;
// the store keeps its SHA-256. docs/config-keys.md.
func APIKeys(d Deps) *resource.Resource {
	h := &keyHandlers{keys: d.APIKeys}
	str := &resource.Field{Type: resource.TString, MaxLen: 200}
	return &resource.Resource{
		Plural: apikeys.Collection, Title: "API key", Grants: oauthTokenGrants,
		Fields: []resource.Field{
			{Name: "name", Type: resource.TString, Required: true, MaxLen: 200, Filter: true, Sort: true, Description: "what the key is for"},
			{Name: "scopes", Type: resource.TArray, Required: true, Items: str, Filter: true,
				Description: "rights the key grants (crm.consumers.view, wildcards crm.consumers.* and crm.*): asked for at create, at most 50, " +
					"then stored as the rights both they and the creator's own token cover, wildcards resolved. Fixed after create"},
			{Name: "expiresAt", Type: resource.TDate, Filter: true, Sort: true,
				Description: "optional; a future time after which the key is refused (401). Fixed after create"},
			{Name: "prefix", Type: resource.TString, ReadOnly: true, Filter: true,
				Description: "the key's first 12 characters, to tell keys apart; the rest is never shown again"},
			{Name: "key", Type: resource.TString, ReadOnly: true, Virtual: true,
				Description: "the key itself (plk_ and 43 characters): in the answer of create only, never stored; send it as Authorization: Bearer <key>"},
			{Name: "_status", Type: resource.TString, Enum: []string{apikeys.StatusActive, apikeys.StatusRevoked}, Default: apikeys.StatusActive,
				ReadOnly: true, Filter: true, Sort: true, Description: "active, or revoked by the revoke action (final)"},
			{Name: "revokedAt", Type: resource.TDate, ReadOnly: true, Filter: true, Description: "when the key was revoked"},
			{Name: "lastUsedAt", Type: resource.TDate, ReadOnly: true, Filter: true, Sort: true,
				Description: "when the key was last accepted, to the minute (written at most once a minute per key)"},
			{Name: apikeys.FieldCreatorUser, Type: resource.TString, ReadOnly: true, Filter: true,
				Description: "the user who created the key; calls made with it act as this user, within the key's scopes"},
			{Name: apikeys.FieldCreatorClient, Type: resource.TString, ReadOnly: true, Description: "the app whose token created the key, if any"},
		},
		Actions: []resource.Action{{Name: "revoke", Title: "revoke the key: refused from then on (every replica within 10 s)",
			Right: RightRevokeAPIKey, Event: "revoked", Run: h.revoke}},
		Hooks: resource.Hooks{BeforeWrite: h.beforeWrite, Present: hideKeyHash, AfterDelete: h.afterDelete},
	}
}

type keyHandlers struct{ keys *apikeys.Keys }

func hideKeyHash(doc store.Doc) { delete(doc, apikeys.FieldHash) }

func (h *keyHandlers) beforeWrite(ctx context.Context, w *resource.Write) error {
	if w.Old != nil {
		return keepFixed(w)
	}
	if h.keys == nil {
		return resource.Unavailable("API keys are unavailable in this process")
	}
	granted, errs := grantedScopes(ctx, w)
	if exp, ok := w.New["expiresAt"].(time.Time); ok && !exp.After(time.Now()) {
		errs = append(errs, resource.FieldError(resource.CodeInvalid, "expiresAt", "expiresAt must be in the future"))
	}
	if len(errs) > 0 {
		return resource.Invalid(errs...)
	}
	return h.issue(ctx, w, granted)
}

// issue makes the key, registers its hash and shows the key once.
func (h *keyHandlers) issue(ctx context.Context, w *resource.Write, granted []string) error {
	cust, err := tenant.Customer(ctx)
	if err != nil {
		return err
	}
	key, hash := apikeys.New()
	id, _ := w.New["_id"].(string)
	p := auth.From(ctx)
	w.New["scopes"] = store.List(granted)
	w.New[apikeys.FieldHash] = hash
	w.New["prefix"] = key[:apikeys.DisplayLen]
	w.New[apikeys.FieldCreatorUser] = p.User
	w.New[apikeys.FieldCreatorClient] = p.ClientID
	w.Once = store.Doc{"key": key}
	return h.keys.Register(ctx, hash, cust, id)
}

// grantedScopes resolves the requested scopes against the creator's: each
// must name real rights, and the creator must hold at least one of them
// (a key never grants more than its creator's token).
func grantedScopes(ctx context.Context, w *resource.Write) ([]string, []api.ErrorEntry) {
	requested := store.Strings(w.New["scopes"])
	if len(requested) == 0 || len(requested) > MaxAPIKeyScopes {
		return nil, []api.ErrorEntry{resource.FieldError(resource.CodeInvalid, "scopes", "scopes needs 1 to %d entries", MaxAPIKeyScopes)}
	}
	cat := scopes.NewCatalog(w.Service.Registry)
	holder := creatorScopes(ctx)
	var errs []api.ErrorEntry
	for i, s := range requested {
		field := "scopes[" + strconv.Itoa(i) + "]"
		switch {
		case scopes.IsStandard(s) || !cat.Valid(s):
			errs = append(errs, resource.FieldError(resource.CodeInvalid, field, "%q names no right of any module", s))
		case len(cat.Grant([]string{s}, holder, []string{"*"}, false)) == 0:
			errs = append(errs, resource.FieldError(resource.CodeScope, field, "%q is outside your own rights: a key cannot grant more than its creator holds", s))
		}
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return cat.Grant(requested, holder, []string{"*"}, false), nil
}

func creatorScopes(ctx context.Context) []string {
	if p := auth.From(ctx); p != nil {
		return p.Scopes
	}
	return nil
}

// keepFixed refuses a change of the scopes or expiry: a key with other
// rights or another lifetime is a new key.
func keepFixed(w *resource.Write) error {
	var errs []api.ErrorEntry
	for _, f := range []string{"scopes", "expiresAt"} {
		if !reflect.DeepEqual(w.New[f], w.Old[f]) {
			errs = append(errs, resource.FieldError(resource.CodeReadOnly, f, "%s is fixed at creation; create a new key instead", f))
		}
	}
	if len(errs) > 0 {
		return resource.Invalid(errs...)
	}
	return nil
}

// revoke ends the key for good: this replica forgets it at once, others
// within apikeys.CacheTTL. Revoking a revoked key changes nothing.
func (h *keyHandlers) revoke(ctx context.Context, call *resource.ActionCall) (*resource.ActionResult, error) {
	if call.Record["_status"] == apikeys.StatusRevoked {
		return &resource.ActionResult{Payload: call.Record, NoEvent: true}, nil
	}
	doc, err := call.Service.Apply(ctx, call.Resource, query.AllOf(query.ID(call.ID), query.Eq("_status", apikeys.StatusActive)),
		resource.Change{Set: store.Doc{"_status": apikeys.StatusRevoked, "revokedAt": time.Now().UTC().Truncate(time.Millisecond)}})
	if err != nil {
		return nil, err
	}
	h.forget(ctx, call)
	return &resource.ActionResult{Payload: doc}, nil
}

// forget drops the key from this replica's cache; the hash is read from
// the store, as answers never carry it.
func (h *keyHandlers) forget(ctx context.Context, call *resource.ActionCall) {
	stored, err := call.Service.Store.Collection(apikeys.Collection).Get(ctx, call.ID, apikeys.FieldHash)
	if err == nil {
		hash, _ := stored[apikeys.FieldHash].(string)
		h.keys.Forget(hash)
	}
}

func (h *keyHandlers) afterDelete(ctx context.Context, _ *resource.Service, old store.Doc) error {
	hash, _ := old[apikeys.FieldHash].(string)
	if h.keys == nil || hash == "" {
		return nil
	}
	return h.keys.Unregister(ctx, hash)
}
