package automation

import (
	"context"
	"fmt"
	"sort"
	"unicode/utf8"

	"platform/kernel/resource"

	"platform/api"
	"platform/kernel/events"
	"platform/kernel/query"
	"platform/kernel/store"
	"platform/kernel/tenant"
	"platform/modules/automation/webhook"
)

// MaxEventPatterns caps the events filter of one webhook.
const MaxEventPatterns = 100

// Webhooks declares /webhooks.
func Webhooks(d Deps) *resource.Resource {
	return &resource.Resource{
		Plural: webhook.Collection, Title: "webhook",
		Fields: []resource.Field{
			{Name: "name", Type: resource.TString, Required: true, MaxLen: 200, Filter: true, Sort: true, Description: "display name"},
			{Name: "url", Type: resource.TString, Format: resource.FURL, Required: true, MaxLen: 2048, Filter: true,
				Description: "receiver; HTTPS recommended. Special-purpose addresses (private, loopback, link-local, documentation, ... every range of the IANA special-purpose registries) and the platform host's own addresses are refused at delivery time unless PLATFORM_OUTBOUND_ALLOW opens them"},
			{Name: "events", Type: resource.TArray, Items: &resource.Field{Type: resource.TString, MaxLen: 200}, Required: true, Filter: true,
				Description: "event names (GET /events), <plural>.* or *"},
			{Name: "secret", Type: resource.TString, WriteOnly: true, MaxLen: 1024,
				Description: "at least 32 characters; enables X-Platform-Signature and webhook-signature. Never returned; a PUT without it keeps it, PATCH with null removes it"},
			{Name: "active", Type: resource.TBool, Default: true, Filter: true, Sort: true, Description: "inactive webhooks receive nothing"},
			{Name: "headers", Type: resource.TObject, FreeForm: true,
				Description: "extra request headers, name to string value; the platform's own headers cannot be set"},
			{Name: "signed", Type: resource.TBool, ReadOnly: true, Filter: true, Description: "a secret is set: deliveries are signed"},
			{Name: "deactivatedAt", Type: resource.TDate, ReadOnly: true, Filter: true, Description: "when a 410 Gone answer deactivated the webhook"},
			{Name: "deactivatedReason", Type: resource.TString, ReadOnly: true},
			{Name: "disabledAt", Type: resource.TDate, ReadOnly: true, Filter: true,
				Description: "when the platform disabled the webhook because its deliveries kept failing (PLATFORM_WEBHOOK_DISABLE_AFTER_PARKED, PLATFORM_WEBHOOK_DISABLE_AFTER); cleared by the enable action or active: true"},
			{Name: "disabledReason", Type: resource.TString, ReadOnly: true},
			{Name: "failingSince", Type: resource.TDate, ReadOnly: true, Filter: true,
				Description: "the first failed attempt of the deliveries failing since the last success the retries saw; absent when none fails"},
			{Name: "parkedInRow", Type: resource.TInteger, ReadOnly: true, Description: "deliveries parked since failingSince"},
		},
		Events:  []string{webhook.EventDisabled},
		Actions: []resource.Action{{Name: "enable", Title: "turn the webhook back on and clear its failure streak", Event: webhook.EventEnabled, Run: enableWebhook}},
		Relations: []resource.Relation{
			{Rel: "deliveries", Title: "delivery attempts", Target: "automation/" + webhook.DeliveriesCollection, Key: "webhook"},
			{Rel: "retries", Title: "parked deliveries", Target: "automation/" + webhook.RetriesCollection, Key: "webhook"},
		},
		Hooks: resource.Hooks{BeforeWrite: func(ctx context.Context, w *resource.Write) error { return webhookWrite(ctx, d, w) }},
	}
}

// webhookWrite checks what field declarations cannot: event names against
// the registry, the secret's length and the extra headers.
func webhookWrite(ctx context.Context, d Deps, w *resource.Write) error {
	var errs []api.ErrorEntry
	errs = append(errs, checkEvents(w.New["events"], w.Service.Registry.EventNames())...)
	errs = append(errs, checkSecret(w)...)
	errs = append(errs, checkHeaders(w.New["headers"])...)
	if len(errs) > 0 {
		return resource.Invalid(errs...)
	}
	if err := events.Subscribe(ctx, w.Service.Store, store.Strings(w.New["events"])...); err != nil {
		return err
	}
	u, _ := w.New["url"].(string)
	d.warnRefused(ctx, "url", u)
	w.New["signed"] = w.New["secret"] != nil
	if err := sealSecret(ctx, d, w); err != nil {
		return err
	}
	if w.New["active"] == true {
		delete(w.New, "deactivatedAt") // reactivated by the client
		delete(w.New, "deactivatedReason")
		if w.Old != nil && w.Old["active"] != true {
			for _, k := range reenabledClears() {
				delete(w.New, k)
			}
		}
	}
	return nil
}

// reenabledClears are the fields a webhook turned on again loses: why
// and when it was disabled, and its failure streak, which starts afresh.
func reenabledClears() []string {
	return append(append([]string{"deactivatedAt", "deactivatedReason"}, webhook.DisabledFields...), webhook.StreakFields...)
}

// enableWebhook turns the webhook on again (the one way back after the
// circuit breaker disabled it, besides active: true) and clears its
// failure streak. Deliveries parked meanwhile stay parked: each is
// retried by id. Only turning it on is announced (webhooks.enabled); a
// webhook already on has its streak cleared, if any, silently.
func enableWebhook(ctx context.Context, call *resource.ActionCall) (*resource.ActionResult, error) {
	wasOn := call.Record["active"] == true
	if wasOn && !hasAny(call.Record, reenabledClears()) {
		return &resource.ActionResult{Payload: resource.Present(call.Resource, call.Record, nil), NoEvent: true}, nil
	}
	doc, err := call.Service.Apply(ctx, call.Resource, query.ID(call.ID), resource.Change{
		Set: store.Doc{"active": true}, Unset: reenabledClears(),
	})
	if err != nil {
		return nil, err
	}
	return &resource.ActionResult{Payload: doc, NoEvent: wasOn}, nil
}

func hasAny(d store.Doc, keys []string) bool {
	for _, k := range keys {
		if _, ok := d[k]; ok {
			return true
		}
	}
	return false
}

// sealSecret encrypts a new secret with the vault (per-customer key, bound
// to the webhook's id), so the store never holds it in clear. Without a
// master key it is stored as given; deliveries read either form.
func sealSecret(ctx context.Context, d Deps, w *resource.Write) error {
	s, ok := w.New["secret"].(string)
	if !ok || d.Vault == nil {
		return nil
	}
	cust, err := tenant.Customer(ctx)
	if err != nil {
		return err
	}
	sealed, err := d.Vault.Seal(cust, w.New["_id"].(string), map[string]any{"secret": s})
	if err != nil {
		return err
	}
	// From now on the store holds a value under this key: no process may
	// start with another one (a lost master.key is refused, not replaced).
	if err := d.Vault.NoteSealed(ctx, w.Service.Store); err != nil {
		return resource.Unavailable("secret storage is unavailable; try again").WithCause(err)
	}
	w.New["secret"] = sealed
	return nil
}

func checkEvents(v any, known []string) []api.ErrorEntry {
	list, _ := v.([]any)
	if len(list) == 0 {
		return []api.ErrorEntry{resource.FieldError(resource.CodeRequired, "events", "events needs at least one event name or wildcard such as consumers.* or *")}
	}
	if len(list) > MaxEventPatterns {
		return []api.ErrorEntry{resource.FieldError(resource.CodeInvalid, "events", "events holds at most %d entries", MaxEventPatterns)}
	}
	var errs []api.ErrorEntry
	for i, e := range list {
		s, _ := e.(string)
		if why := events.CheckPattern(s, known); why != "" {
			errs = append(errs, resource.FieldError(resource.CodeInvalid, fmt.Sprintf("events[%d]", i), "%q %s", s, why))
		}
	}
	return errs
}

// checkSecret enforces the minimum length of a new secret. The message
// never repeats the value.
func checkSecret(w *resource.Write) []api.ErrorEntry {
	s, ok := w.New["secret"].(string)
	if !ok || (w.Old != nil && w.Old["secret"] == s) {
		return nil
	}
	if utf8.RuneCountInString(s) < webhook.MinSecretLen {
		return []api.ErrorEntry{resource.FieldError(resource.CodeInvalid, "secret", "secret must be at least %d characters long", webhook.MinSecretLen)}
	}
	return nil
}

func checkHeaders(v any) []api.ErrorEntry {
	h, _ := v.(map[string]any)
	if len(h) > webhook.MaxHeaders {
		return []api.ErrorEntry{resource.FieldError(resource.CodeInvalid, "headers", "headers holds at most %d entries", webhook.MaxHeaders)}
	}
	names := make([]string, 0, len(h))
	for k := range h {
		names = append(names, k)
	}
	sort.Strings(names)
	var errs []api.ErrorEntry
	for _, k := range names {
		s, ok := h[k].(string)
		if !ok {
			errs = append(errs, resource.FieldError(resource.CodeType, "headers."+k, "header %q must have a string value", k))
			continue
		}
		if why := webhook.CheckHeader(k, s); why != "" {
			errs = append(errs, resource.FieldError(resource.CodeInvalid, "headers."+k, "header %q %s", k, why))
		}
	}
	return errs
}
