package automation

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"slices"
	"strings"
	"time"

	"platform/kernel/resource"

	"platform/api"
	"platform/kernel/events"
	"platform/kernel/query"
	"platform/kernel/store"
	"platform/kernel/tenant"
	"platform/modules/automation/pipeline"
	"platform/modules/automation/runs"
	"platform/workflows/contract"
)

// Trigger types.
const (
	TriggerEvent   = "event"
	TriggerCron    = "cron"
	TriggerWebhook = "webhook"
	TriggerManual  = "manual"
)

// HookTokens is the global index from an incoming-webhook token's hash to
// its customer and trigger: the public URL carries no customer.
const HookTokens = "triggerhooks"

// settingsOfTrigger lists the settings each trigger type takes.
var settingsOfTrigger = map[string][]string{
	TriggerEvent: {"event", "filter"}, TriggerCron: {"cron", "timezone"}, TriggerWebhook: {}, TriggerManual: {},
}

// Triggers declares /triggers: reusable starts of pipelines. A pipeline
// uses one with trigger {id}; one trigger can start several pipelines.
func Triggers(d Deps) *resource.Resource {
	return &resource.Resource{
		Plural: runs.Triggers, Title: "trigger",
		Fields: []resource.Field{
			{Name: "name", Type: resource.TString, Required: true, MaxLen: 200, Filter: true, Sort: true},
			{Name: "description", Type: resource.TString, MaxLen: 2000},
			{Name: "type", Type: resource.TString, Required: true, Enum: []string{TriggerEvent, TriggerCron, TriggerWebhook, TriggerManual}, Filter: true, Sort: true,
				Description: "event: a platform event (event, filter); cron: a schedule (cron, timezone); webhook: an incoming HTTP call on a public URL; manual: POST /pipelines/:id/actions/run"},
			{Name: "active", Type: resource.TBool, Default: true, Filter: true, Description: "inactive triggers start nothing (a cron trigger's schedule is removed, a webhook URL answers 404)"},
			{Name: "event", Type: resource.TString, MaxLen: 200, Filter: true, Description: "event name or wildcard (event triggers)"},
			{Name: "filter", Type: resource.TObject, FreeForm: true, Description: "filter on the event's data in the list query language (event triggers)"},
			{Name: "cron", Type: resource.TString, MaxLen: 200, Description: "five-field cron expression or @hourly, @daily, @every 15m ... (cron triggers)"},
			{Name: "timezone", Type: resource.TString, MaxLen: 64, Description: "IANA time zone of the cron expression, default UTC"},
			{Name: "tokenHash", Type: resource.TString, ReadOnly: true, WriteOnly: true},
			{Name: "webhookUrl", Type: resource.TString, ReadOnly: true, Virtual: true,
				Description: "the public URL of a webhook trigger; shown only in the answers of create and rotateToken (it holds the secret token)"},
		},
		Actions: []resource.Action{{
			Name: "rotateToken", Title: "replace the webhook URL's token (the old URL stops working)", Event: "rotated",
			Run: func(ctx context.Context, call *resource.ActionCall) (*resource.ActionResult, error) {
				return rotateToken(ctx, d, call)
			},
		}},
		Relations: []resource.Relation{{Rel: "pipelines", Title: "pipelines using the trigger", Target: "automation/" + runs.Pipelines}},
		Hooks: resource.Hooks{
			BeforeWrite: func(ctx context.Context, w *resource.Write) error { return triggerWrite(ctx, d, w) },
			AfterDelete: func(ctx context.Context, s *resource.Service, old store.Doc) error {
				return triggerDeleted(ctx, d, s, old)
			},
		},
	}
}

func triggerWrite(ctx context.Context, d Deps, w *resource.Write) error {
	if errs := checkTrigger(w, d.CronMinInterval); len(errs) > 0 {
		return resource.Invalid(errs...)
	}
	id, _ := w.New["_id"].(string)
	typ := w.New["type"]
	if ev, _ := w.New["event"].(string); typ == TriggerEvent {
		if err := events.Subscribe(ctx, w.Service.Store, ev); err != nil {
			return err
		}
	}
	if typ == TriggerWebhook && (w.Old == nil || w.Old["tokenHash"] == nil) {
		url, hash, err := issueToken(ctx, d, w.Service, id)
		if err != nil {
			return err
		}
		w.New["tokenHash"] = hash
		if w.Once == nil {
			w.Once = store.Doc{}
		}
		w.Once["webhookUrl"] = url
	}
	if typ != TriggerWebhook && w.Old != nil && w.Old["tokenHash"] != nil {
		if err := dropToken(ctx, w.Service, w.Old); err != nil {
			return err
		}
		delete(w.New, "tokenHash")
	}
	if typ == TriggerCron || (w.Old != nil && w.Old["type"] == TriggerCron) {
		if d.Schedules == nil {
			return unavailable("cron schedules")
		}
		sc, needed := runs.TriggerSchedule(w.New)
		if err := d.Schedules.Sync(ctx, sc, needed); err != nil {
			return resource.Unavailable("the trigger's schedule could not be saved; try again").WithCause(err)
		}
	}
	return nil
}

// checkTrigger validates the settings of the trigger's type and refuses
// those of other types.
func checkTrigger(w *resource.Write, cronMin time.Duration) []api.ErrorEntry {
	typ, _ := w.New["type"].(string)
	var errs []api.ErrorEntry
	for _, k := range []string{"event", "filter", "cron", "timezone"} {
		if w.New[k] != nil && !slices.Contains(settingsOfTrigger[typ], k) {
			errs = append(errs, resource.FieldError(resource.CodeInvalid, k, "%s is not a setting of %s triggers", k, typ))
		}
	}
	switch typ {
	case TriggerEvent:
		ev, _ := w.New["event"].(string)
		if ev == "" {
			errs = append(errs, resource.FieldError(resource.CodeRequired, "event", "event triggers need event: an event name such as consumers.created, or a wildcard"))
		} else if why := events.CheckPattern(ev, w.Service.Registry.EventNames()); why != "" {
			errs = append(errs, resource.FieldError(resource.CodeInvalid, "event", "%q %s", ev, why))
		}
		if f, ok := w.New["filter"].(map[string]any); ok {
			if _, err := query.Parse(f, nil); err != nil {
				errs = append(errs, resource.FieldError(resource.CodeInvalid, "filter", "filter: %v", err))
			}
		}
	case TriggerCron:
		errs = append(errs, checkCron(w.New, cronMin)...)
	}
	return errs
}

func checkCron(t store.Doc, min time.Duration) []api.ErrorEntry {
	expr, _ := t["cron"].(string)
	tz, _ := t["timezone"].(string)
	if tz == "" {
		t["timezone"] = "UTC"
	}
	if setting, why := pipeline.CheckCron(expr, tz, min); why != "" {
		return []api.ErrorEntry{resource.FieldError(resource.CodeInvalid, setting, "%s", why)}
	}
	return nil
}

// issueToken makes a new unguessable token for a webhook trigger and
// indexes its hash; it returns the URL (shown once) and the hash (kept).
func issueToken(ctx context.Context, d Deps, s *resource.Service, trigger string) (url, hash string, err error) {
	raw := make([]byte, 32)
	if _, err := rand.Read(raw); err != nil {
		return "", "", err
	}
	token := base64.RawURLEncoding.EncodeToString(raw)
	hash = tokenHash(token)
	cust, err := tenant.Customer(ctx)
	if err != nil {
		return "", "", err
	}
	if err := s.Store.Global(HookTokens).Insert(ctx, store.Doc{"_id": contract.DerivedID(hash), "trigger": trigger, "customer": cust}); err != nil {
		return "", "", err
	}
	return HookURL(d.GatewayURL, trigger, token), hash, nil
}

// HookURL is a webhook trigger's public URL.
func HookURL(gateway, trigger, token string) string {
	return strings.TrimRight(gateway, "/") + "/automation/hooks/" + trigger + "/" + token
}

func tokenHash(token string) string {
	h := sha256.Sum256([]byte(token))
	return hex.EncodeToString(h[:])
}

func dropToken(ctx context.Context, s *resource.Service, old store.Doc) error {
	hash, _ := old["tokenHash"].(string)
	if hash == "" {
		return nil
	}
	_, err := s.Store.Global(HookTokens).Delete(ctx, query.ID(contract.DerivedID(hash)))
	return err
}

func triggerDeleted(ctx context.Context, d Deps, s *resource.Service, old store.Doc) error {
	if err := dropToken(ctx, s, old); err != nil {
		return err
	}
	if old["type"] == TriggerCron && d.Schedules != nil {
		sc, _ := runs.TriggerSchedule(old)
		return d.Schedules.Sync(ctx, sc, false)
	}
	return nil
}

// rotateToken replaces a webhook trigger's token.
func rotateToken(ctx context.Context, d Deps, call *resource.ActionCall) (*resource.ActionResult, error) {
	if call.Record["type"] != TriggerWebhook {
		return nil, resource.Conflict("type", "only webhook triggers have a token")
	}
	url, hash, err := issueToken(ctx, d, call.Service, call.ID)
	if err != nil {
		return nil, err
	}
	rec, err := call.Service.Apply(ctx, call.Resource, query.ID(call.ID), resource.Change{Set: store.Doc{"tokenHash": hash}})
	if err != nil {
		return nil, err
	}
	if err := dropToken(ctx, call.Service, call.Record); err != nil {
		return nil, err
	}
	out := store.Doc{}
	for k, v := range rec {
		out[k] = v
	}
	out["webhookUrl"] = url
	return &resource.ActionResult{Payload: out, EventData: rec}, nil
}

// CronMinInterval is the shortest interval a pipeline's cron trigger may
// fire at (PLATFORM_CRON_MIN_INTERVAL).
func (e *pipelineEnv) CronMinInterval() time.Duration { return e.deps.CronMinInterval }
