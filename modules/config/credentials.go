package config

import (
	"context"
	"encoding/json"
	"net/http"
	"reflect"
	"regexp"

	"platform/kernel/resource"

	"platform/api"
	"platform/kernel/auth"
	"platform/kernel/store"
	"platform/kernel/tenant"
	"platform/modules/audit/trail"
	"platform/modules/config/credentials"
)

// Rights beyond the generic view, create, edit and delete.
const (
	RightDecrypt = credentials.RightDecrypt
)

// AuditDecrypt is the audit action of a decrypt.
const AuditDecrypt = "config.credentials.decrypt"

// MaxCredentialsBytes bounds the JSON of one credential's values (a PEM key
// or a service-account file fits).
const MaxCredentialsBytes = 64 << 10

// typeSlug is a provider slug: smtp, http-basic, api-key, oauth2.
var typeSlug = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)

// Credentials declares /credentials: records per customer whose values are
// sealed by the vault before they are stored (credentials.Vault) and are
// never part of an answer, an event or a log line. Only the audit-logged
// decrypt action returns them.
func Credentials(d Deps) *resource.Resource {
	h := &handlers{d: d}
	return &resource.Resource{
		Plural: credentials.Collection, Title: "credential",
		Grants: []resource.Grant{{Right: credentials.RightUse, Title: "use in pipelines"}},
		// Spec: "Decrypt and delete are meant for admins only".
		AdminOnly: []string{"delete", "decrypt"},
		Fields: []resource.Field{
			{Name: "name", Type: resource.TString, Required: true, MaxLen: 200, Unique: true, Filter: true, Sort: true,
				Description: "unique per customer; pipeline templates read the values as {{secrets.<name>.<key>}}"},
			{Name: "type", Type: resource.TString, Required: true, MaxLen: 64, Filter: true, Sort: true,
				Description: "provider slug: lowercase letters and digits, words joined by hyphens (smtp, http-basic, api-key)"},
			{Name: credentials.Field, Type: resource.TObject, FreeForm: true, WriteOnly: true,
				Description: "the secret values, any JSON object (e.g. {\"username\": \"...\", \"password\": \"...\"}); required on create. " +
					"Stored encrypted (AES-256-CTR with HMAC-SHA256, keys per customer) and never returned: only the audit-logged decrypt action shows them. " +
					"A PUT or PATCH without it keeps the stored values; sending it replaces them whole; it cannot be removed"},
			{Name: "_status", Type: resource.TString, Enum: []string{credentials.StatusActive, credentials.StatusExpired, credentials.StatusRevoked},
				Default: credentials.StatusActive, ReadOnly: true, Filter: true, Sort: true,
				Description: "set by the platform only: active when stored; the credential commands move it (expired, revoked). Only active credentials are given to pipelines as secrets"},
			{Name: "lastTestedAt", Type: resource.TDate, ReadOnly: true, Filter: true, Sort: true, Description: "when the credential was last tested against its provider"},
			{Name: "lastTestStatus", Type: resource.TString, Enum: []string{"ok", "fail"}, ReadOnly: true, Filter: true, Description: "outcome of the last test or refresh"},
			{Name: "lastTestError", Type: resource.TString, ReadOnly: true,
				Description: "why the last test or refresh failed: the provider's status or error code, never a value; absent after a success"},
		},
		Actions: append([]resource.Action{
			{Name: "decrypt", Title: "return the clear values (admins only; every call is written to the audit trail)", Right: RightDecrypt, Run: h.decrypt},
		}, h.commandActions()...),
		// Emitted by the command workflows when they record an outcome.
		Events: []string{"tested", "refreshed", "revoked"},
		Hooks:  resource.Hooks{BeforeWrite: h.beforeWrite},
	}
}

type handlers struct{ d Deps }

// beforeWrite checks the type slug and seals new credential values. The
// value in w.New is then the sealed form; the clear one goes nowhere else
// (events and answers leave write-only fields out).
func (h *handlers) beforeWrite(ctx context.Context, w *resource.Write) error {
	var errs []api.ErrorEntry
	if t, _ := w.New["type"].(string); !typeSlug.MatchString(t) {
		errs = append(errs, resource.FieldError(resource.CodeFormat, "type",
			"type must be a provider slug: lowercase letters and digits, words joined by hyphens, such as smtp, http-basic or api-key"))
	}
	raw, has := w.New[credentials.Field]
	var plain map[string]any
	switch {
	case !has && w.Old == nil:
		errs = append(errs, resource.FieldError(resource.CodeRequired, credentials.Field, "credentials is required: an object with the values to keep, such as {\"password\": \"...\"}"))
	case !has:
		errs = append(errs, resource.FieldError(resource.CodeRequired, credentials.Field,
			"credentials cannot be removed; send new values or delete the credential"))
	case w.Old != nil && reflect.DeepEqual(raw, w.Old[credentials.Field]):
		// Not sent (PUT and PATCH keep write-only fields): stays sealed as it is.
	default:
		plain, _ = raw.(map[string]any)
		if len(plain) == 0 {
			errs = append(errs, resource.FieldError(resource.CodeInvalid, credentials.Field, "credentials needs at least one value"))
		} else if b, err := json.Marshal(plain); err != nil || len(b) > MaxCredentialsBytes {
			errs = append(errs, resource.FieldError(resource.CodeInvalid, credentials.Field, "credentials holds at most %d bytes of JSON", MaxCredentialsBytes))
		}
	}
	if len(errs) > 0 {
		return resource.Invalid(errs...)
	}
	if plain == nil {
		return nil
	}
	sealed, err := sealFor(ctx, h.d.Vault, w, plain)
	if err != nil {
		return err
	}
	w.New[credentials.Field] = sealed
	// New values end an expiry (a refresh token the provider refused is
	// replaced); a revoked credential stays revoked.
	if w.Old != nil && w.Old["_status"] == credentials.StatusExpired {
		w.New["_status"] = credentials.StatusActive
	}
	return nil
}

// decrypt answers the clear values. It writes the audit record first and
// answers nothing when that fails: an unaudited decrypt must not happen.
func (h *handlers) decrypt(ctx context.Context, call *resource.ActionCall) (*resource.ActionResult, error) {
	if h.d.Vault == nil {
		return nil, noVault()
	}
	if h.d.Audit == nil {
		return nil, resource.Unavailable("decrypt is unavailable: this process has no audit trail")
	}
	cust, err := tenant.Customer(ctx)
	if err != nil {
		return nil, err
	}
	rec := call.Record
	id, _ := rec["_id"].(string)
	sealed, _ := rec[credentials.Field].(map[string]any)
	plain, openErr := h.d.Vault.Open(cust, id, sealed)

	p := auth.From(ctx)
	r := trail.Record{Action: AuditDecrypt, Target: id, Outcome: trail.Success,
		Details: map[string]any{"name": rec["name"], "type": rec["type"]}}
	if p != nil {
		r.Actor, r.ActorType = p.User, "user"
		if p.User == "" {
			r.Actor, r.ActorType = p.ClientID, "app"
		}
		if p.ClientID != "" {
			r.Details["client"] = p.ClientID
		}
	}
	if openErr != nil {
		r.Outcome = trail.Failure
		r.Details["reason"] = "the stored value does not open"
		trail.Logged(ctx, h.d.Audit, call.Service.Log, r)
		return nil, resource.Internal(credentials.Field,
			"the stored credentials cannot be decrypted: they were altered or sealed under another master key").WithCause(openErr)
	}
	if err := h.d.Audit.Write(ctx, r); err != nil {
		return nil, api.NewError(http.StatusServiceUnavailable, resource.CodeUnavailable, "",
			"the decrypt could not be written to the audit trail, so no values are returned; try again").WithCause(err)
	}
	out := store.Doc{"_id": id, "name": rec["name"], "type": rec["type"], "_status": rec["_status"], credentials.Field: plain}
	return &resource.ActionResult{Payload: out, NoEvent: true}, nil
}

// sealFor seals a record's secret values under the customer's key, bound
// to the record's id, and notes in the store that sealed values exist.
func sealFor(ctx context.Context, vault *credentials.Vault, w *resource.Write, plain map[string]any) (map[string]any, error) {
	if vault == nil {
		return nil, noVault()
	}
	cust, err := tenant.Customer(ctx)
	if err != nil {
		return nil, err
	}
	id, _ := w.New["_id"].(string)
	sealed, err := vault.Seal(cust, id, plain)
	if err != nil {
		return nil, err
	}
	// From now on the store holds values under this key: no process may
	// start with another one.
	if err := vault.NoteSealed(ctx, w.Service.Store); err != nil {
		return nil, resource.Unavailable("secret storage is unavailable; try again").WithCause(err)
	}
	return sealed, nil
}

func noVault() error {
	return api.NewError(http.StatusServiceUnavailable, resource.CodeUnavailable, credentials.Field,
		"credential encryption is not configured in this process: set PLATFORM_MASTER_KEY").WithCause(credentials.ErrNoMasterKey)
}
