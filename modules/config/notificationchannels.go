package config

import (
	"context"
	"reflect"

	"platform/api"
	"platform/kernel/resource"
	"platform/modules/config/channels"
	"platform/modules/config/notification"
)

// NotificationChannels declares /notificationchannels: where notifications
// go, one of eleven kinds, with the kind's settings checked and its secret
// settings (webhook URLs holding tokens, bot tokens, passwords) sealed by
// the vault and never returned (docs/config-notifications.md).
func NotificationChannels(d Deps) *resource.Resource {
	h := &channelHandlers{d: d}
	return &resource.Resource{
		Plural: notification.Channels, Title: "notification channel",
		Fields: []resource.Field{
			{Name: "name", Type: resource.TString, Required: true, MaxLen: 200, Unique: true, Filter: true, Sort: true},
			{Name: "kind", Type: resource.TString, Required: true, Enum: channels.Names(), Filter: true, Sort: true,
				Description: "how notifications are sent; each kind takes its own settings and secrets (docs/config-notifications.md)"},
			{Name: "description", Type: resource.TString, MaxLen: 2000},
			{Name: "settings", Type: resource.TObject, FreeForm: true, Default: map[string]any{},
				Description: "the kind's settings that are not secret, checked on every write; defaults are filled in"},
			{Name: notification.SecretsField, Type: resource.TObject, FreeForm: true, WriteOnly: true,
				Description: "the kind's secret settings (webhookUrl, botToken, authToken, password, accessToken, signingSecret), " +
					"sealed with the customer's key and never returned. A PUT or PATCH without it keeps the stored ones; sending it replaces them whole"},
		},
		Hooks: resource.Hooks{BeforeWrite: h.beforeWrite, BeforeDelete: refuseIfRouted("channel")},
	}
}

type channelHandlers struct{ d Deps }

// beforeWrite checks the settings of the kind and seals sent secrets.
func (h *channelHandlers) beforeWrite(ctx context.Context, w *resource.Write) error {
	kindName, _ := w.New["kind"].(string)
	kind, ok := channels.Lookup(kindName)
	if !ok {
		return nil // the enum refused it already
	}
	settings, _ := w.New["settings"].(map[string]any)
	if settings == nil {
		settings = map[string]any{}
		w.New["settings"] = settings
	}
	raw, sent := w.New[notification.SecretsField]
	kept := sent && w.Old != nil && reflect.DeepEqual(raw, w.Old[notification.SecretsField])
	if kept && w.Old["kind"] != kindName {
		if sealed, _ := raw.(map[string]any); len(sealed) > 0 && hasSecrets(kind) {
			return resource.Invalid(resource.FieldError(resource.CodeRequired, notification.SecretsField,
				"the kind changed from %v to %s: send the secrets of a %s channel", w.Old["kind"], kindName, kindName))
		}
		kept, raw = false, nil // the old kind's sealed secrets are dropped
	}
	var secrets map[string]any
	if !kept {
		secrets, _ = raw.(map[string]any)
		if secrets == nil {
			secrets = map[string]any{}
		}
	}
	if errs := problems(channels.Check(kind, settings, secrets, !kept)); len(errs) > 0 {
		return resource.Invalid(errs...)
	}
	if kept {
		return nil
	}
	return h.seal(ctx, w, secrets)
}

// seal stores the secrets sealed under the record's id; none are stored
// when the kind needs none.
func (h *channelHandlers) seal(ctx context.Context, w *resource.Write, secrets map[string]any) error {
	if len(secrets) == 0 {
		delete(w.New, notification.SecretsField)
		return nil
	}
	sealed, err := sealFor(ctx, h.d.Vault, w, secrets)
	if err != nil {
		return err
	}
	w.New[notification.SecretsField] = sealed
	return nil
}

// problems turns the channel checks into field errors.
func problems(ps []channels.Problem) []api.ErrorEntry {
	codes := map[string]string{channels.CodeRequired: resource.CodeRequired, channels.CodeType: resource.CodeType, channels.CodeInvalid: resource.CodeInvalid}
	out := make([]api.ErrorEntry, 0, len(ps))
	for _, p := range ps {
		out = append(out, resource.FieldError(codes[p.Code], p.Field, "%s", p.Message))
	}
	return out
}

// hasSecrets says whether a kind declares secret settings.
func hasSecrets(k channels.Kind) bool {
	for _, s := range k.Settings() {
		if s.Secret {
			return true
		}
	}
	return false
}
