package ads

import (
	"context"
	"time"

	"platform/api"
	"platform/kernel/resource"
	"platform/kernel/store"
	"platform/kernel/tenant"
	"platform/modules/ads/adsync"
	"platform/workflows/contract"
)

func customerOf(ctx context.Context) (string, error) { return tenant.Customer(ctx) }

// maxMicros bounds money fields: a billion units of any currency.
const maxMicros = 1e15

var statuses = []string{"ENABLED", "PAUSED", "REMOVED"}

// syncFields are the platform bookkeeping of a campaign or ad group.
func syncFields() []resource.Field {
	ro := func(name string, t resource.Type, desc string) resource.Field {
		return resource.Field{Name: name, Type: t, ReadOnly: true, Filter: true, Description: desc}
	}
	return []resource.Field{
		{Name: "connection", Type: resource.TObjectID, Required: true, Filter: true, Description: "the adconnection of the account; cannot change"},
		ro("platformId", resource.TString, "the platform's id; set once pushed or synced"),
		ro("resourceName", resource.TString, "the platform's resource name (customers/{id}/campaigns/{id})"),
		{Name: "syncState", Type: resource.TString, Enum: adsync.SyncStates, ReadOnly: true, Filter: true, Sort: true,
			Description: "pending after a change through the API until the push lands; synced; conflict when the platform changed the entity after the change we knew of (see conflict; the resolve action settles it); error when the push failed for good (see syncError)"},
		ro("syncError", resource.TString, "why the last push failed"),
		ro("platformUpdatedAt", resource.TDate, "the platform's change time of the entity as we last saw it"),
		ro("lastPushedAt", resource.TDate, "when a change was last pushed"),
		{Name: "conflict", Type: resource.TObject, ReadOnly: true, Description: "set while syncState is conflict: the platform's values beside ours", Fields: []resource.Field{
			{Name: "detectedAt", Type: resource.TDate}, {Name: "platformChangedAt", Type: resource.TDate}, {Name: "knownChangedAt", Type: resource.TDate},
			{Name: "platform", Type: resource.TObject, FreeForm: true, Description: "the entity's fields as the platform has them"},
		}},
	}
}

// Campaigns declares /campaigns.
func Campaigns(h *handlers) *resource.Resource {
	return &resource.Resource{
		Plural: adsync.Campaigns, Title: "campaign",
		Fields: append([]resource.Field{
			{Name: "name", Type: resource.TString, Required: true, MaxLen: 255, Filter: true, Sort: true},
			{Name: "status", Type: resource.TString, Enum: statuses, Default: "PAUSED", Filter: true, Sort: true},
			{Name: "channelType", Type: resource.TString, Enum: []string{"SEARCH", "DISPLAY", "SHOPPING", "VIDEO", "PERFORMANCE_MAX"}, Default: "SEARCH", Filter: true},
			{Name: "budgetMicros", Type: resource.TInteger, Required: true, Range: resource.Between(0, maxMicros), Filter: true, Sort: true,
				Description: "daily budget in micros of the account's currency (1000000 = 1.00)"},
			{Name: "startDate", Type: resource.TString, MaxLen: 10, Filter: true, Sort: true, Description: "YYYY-MM-DD"},
			{Name: "endDate", Type: resource.TString, MaxLen: 10, Filter: true, Sort: true, Description: "YYYY-MM-DD, not before startDate"},
		}, syncFields()...),
		Actions:   []resource.Action{h.resolveAction(adsync.Campaigns)},
		Events:    []string{adsync.EventConflicted, adsync.EventPushed},
		Relations: []resource.Relation{{Rel: "connection", Title: "the account", Target: "ads/" + adsync.Connections, Field: "connection"}},
		Hooks:     resource.Hooks{BeforeWrite: h.beforeEntityWrite(checkCampaign), AfterWrite: h.afterEntityWrite(adsync.Campaigns)},
	}
}

// AdGroups declares /adgroups.
func AdGroups(h *handlers) *resource.Resource {
	return &resource.Resource{
		Plural: adsync.AdGroups, Title: "ad group",
		Fields: append([]resource.Field{
			{Name: "campaign", Type: resource.TObjectID, Required: true, Filter: true, Description: "the campaign; cannot change"},
			{Name: "name", Type: resource.TString, Required: true, MaxLen: 255, Filter: true, Sort: true},
			{Name: "status", Type: resource.TString, Enum: statuses, Default: "ENABLED", Filter: true, Sort: true},
			{Name: "cpcBidMicros", Type: resource.TInteger, Range: resource.Between(0, maxMicros), Filter: true, Sort: true, Description: "maximum cost per click in micros"},
		}, syncFields()...),
		Actions: []resource.Action{h.resolveAction(adsync.AdGroups)},
		Events:  []string{adsync.EventConflicted, adsync.EventPushed},
		Relations: []resource.Relation{{Rel: "campaign", Title: "the campaign", Target: "ads/" + adsync.Campaigns, Field: "campaign"},
			{Rel: "connection", Title: "the account", Target: "ads/" + adsync.Connections, Field: "connection"}},
		Hooks: resource.Hooks{BeforeWrite: h.beforeEntityWrite(nil), AfterWrite: h.afterEntityWrite(adsync.AdGroups)},
	}
}

func checkCampaign(w *resource.Write) []resource.ErrorEntry {
	var errs []resource.ErrorEntry
	for _, f := range []string{"startDate", "endDate"} {
		if v, ok := w.New[f].(string); ok {
			if _, err := time.Parse(time.DateOnly, v); err != nil {
				errs = append(errs, resource.FieldError(resource.CodeFormat, f, "%s must be a date YYYY-MM-DD", f))
			}
		}
	}
	s, _ := w.New["startDate"].(string)
	if e, ok := w.New["endDate"].(string); ok && s != "" && e < s {
		errs = append(errs, resource.FieldError(resource.CodeInvalid, "endDate", "endDate %s is before startDate %s", e, s))
	}
	return errs
}

// beforeEntityWrite keeps the parent fields, refuses changes during a
// conflict, and marks the record pending: its push follows.
func (h *handlers) beforeEntityWrite(check func(*resource.Write) []resource.ErrorEntry) func(context.Context, *resource.Write) error {
	return func(ctx context.Context, w *resource.Write) error {
		var errs []resource.ErrorEntry
		if check != nil {
			errs = check(w)
		}
		for _, f := range []string{"connection", "campaign"} {
			if w.Old != nil && w.Old[f] != nil && w.Old[f] != w.New[f] {
				errs = append(errs, resource.FieldError(resource.CodeInvalid, f, "%s cannot change (it was %v)", f, w.Old[f]))
			}
		}
		if len(errs) > 0 {
			return resource.Invalid(errs...)
		}
		if w.Old != nil && w.Old["syncState"] == adsync.SyncConflict {
			return resource.Conflict("syncState", "the platform changed this record too: settle the conflict with the resolve action first")
		}
		if err := h.checkParents(ctx, w); err != nil {
			return err
		}
		w.New["syncState"] = adsync.SyncPending
		return nil
	}
}

// checkParents: the connection exists and is connected; an ad group's
// campaign is of the same connection.
func (h *handlers) checkParents(ctx context.Context, w *resource.Write) error {
	conn, err := w.Service.Load(ctx, w.Service.Registry.Get(adsync.Module, adsync.Connections), w.New["connection"].(string))
	if resource.KindOf(err) == resource.KindNotFound || (err == nil && conn["state"] != adsync.StateConnected) {
		return resource.InvalidField("connection", "connection must name a connected adconnection of yours")
	}
	if err != nil {
		return err
	}
	camp, ok := w.New["campaign"].(string)
	if !ok {
		return nil
	}
	c, err := w.Service.Load(ctx, w.Service.Registry.Get(adsync.Module, adsync.Campaigns), camp)
	if resource.KindOf(err) == resource.KindNotFound || (err == nil && c["connection"] != w.New["connection"]) {
		return resource.InvalidField("campaign", "campaign must name a campaign of the same connection")
	}
	return err
}

// afterEntityWrite starts the push of the saved version.
func (h *handlers) afterEntityWrite(plural string) func(context.Context, *resource.Service, store.Doc, store.Doc) error {
	return func(ctx context.Context, s *resource.Service, saved, _ store.Doc) error {
		if s.Workflows == nil || saved["syncState"] != adsync.SyncPending {
			return nil
		}
		return startPush(ctx, s, plural, saved)
	}
}

func startPush(ctx context.Context, s *resource.Service, plural string, rec store.Doc) error {
	cust, err := customerOf(ctx)
	if err != nil {
		return err
	}
	in := contract.AdsPushInput{Plural: plural, RecordID: rec["_id"].(string), Version: adsync.Version(rec)}
	_, err = s.Workflows.StartOnce(ctx, contract.AdsPushWorkflowID(cust, plural, in.RecordID, in.Version), map[string]string{contract.AttrCustomer: cust},
		contract.WorkflowAdsPush, in)
	if err != nil {
		return resource.Unavailable("the change is saved but its push could not be started; save it again").WithCause(err)
	}
	return nil
}

func (h *handlers) resolveAction(plural string) resource.Action {
	return resource.Action{Name: "resolve", Title: "settle a conflict: keep the platform's values, or ours (pushed again)", Event: "resolved",
		Body: []resource.Field{{Name: "keep", Type: resource.TString, Required: true, Enum: []string{adsync.KeepPlatform, adsync.KeepOurs}}},
		Run: func(ctx context.Context, c *resource.ActionCall) (*resource.ActionResult, error) {
			if h.d.Ads == nil {
				return nil, resource.Unavailable("the ads service is not running")
			}
			doc, err := h.d.Ads.Resolve(ctx, c.Resource, c.Record, c.Body["keep"].(string))
			if err != nil {
				return nil, err
			}
			if doc == nil {
				return nil, resource.Conflict("_id", "the record changed meanwhile; read it and resolve again")
			}
			if doc["syncState"] == adsync.SyncPending && c.Service.Workflows != nil {
				if err := startPush(ctx, c.Service, plural, doc); err != nil {
					return nil, err
				}
			}
			return &resource.ActionResult{Payload: doc}, nil
		}}
}

// Keywords declares /keywords: synced from the platform (read-only), with
// their performance over the last synced days.
func Keywords() *resource.Resource {
	num := func(name, desc string) resource.Field {
		return resource.Field{Name: name, Type: resource.TNumber, Description: desc}
	}
	return &resource.Resource{
		Plural: adsync.Keywords, Title: "keyword", ReadOnly: true,
		Fields: []resource.Field{
			{Name: "connection", Type: resource.TObjectID, Filter: true},
			{Name: "campaign", Type: resource.TObjectID, Filter: true},
			{Name: "adgroup", Type: resource.TObjectID, Filter: true},
			{Name: "text", Type: resource.TString, Filter: true, Sort: true},
			{Name: "matchType", Type: resource.TString, Enum: []string{"EXACT", "PHRASE", "BROAD"}, Filter: true},
			{Name: "status", Type: resource.TString, Enum: statuses, Filter: true},
			{Name: "cpcBidMicros", Type: resource.TInteger},
			{Name: "platformId", Type: resource.TString, Filter: true},
			{Name: "resourceName", Type: resource.TString},
			{Name: "platformUpdatedAt", Type: resource.TDate, Filter: true, Sort: true},
			{Name: "performance", Type: resource.TObject, Description: "totals over the days of the last sync (from..to)", Fields: []resource.Field{
				{Name: "impressions", Type: resource.TInteger}, {Name: "clicks", Type: resource.TInteger}, num("conversions", "may be fractional (attribution)"),
				{Name: "costMicros", Type: resource.TInteger}, num("ctr", "clicks / impressions"), {Name: "averageCpcMicros", Type: resource.TInteger},
				{Name: "from", Type: resource.TString}, {Name: "to", Type: resource.TString},
			}},
		},
	}
}

// Metrics declares /metrics: one record per day and entity, written by
// the sync only (read-only to clients).
func Metrics() *resource.Resource {
	return &resource.Resource{
		Plural: adsync.Metrics, Title: "metric row", ReadOnly: true,
		Fields: []resource.Field{
			{Name: "connection", Type: resource.TObjectID, Filter: true},
			{Name: "level", Type: resource.TString, Enum: []string{"campaign", "adgroup", "keyword"}, Filter: true, Description: "the kind of entity of the row"},
			{Name: "date", Type: resource.TString, Filter: true, Sort: true, Description: "the day, YYYY-MM-DD (the account's time zone)"},
			{Name: "platformId", Type: resource.TString, Filter: true, Description: "the platform's id of the entity"},
			{Name: "campaignId", Type: resource.TString, Filter: true, Description: "the platform's id of the campaign"},
			{Name: "adGroupId", Type: resource.TString, Filter: true, Description: "the platform's id of the ad group (adgroup and keyword rows)"},
			{Name: "impressions", Type: resource.TInteger, Sort: true},
			{Name: "clicks", Type: resource.TInteger, Sort: true},
			{Name: "conversions", Type: resource.TNumber, Sort: true, Description: "may be fractional (attribution)"},
			{Name: "costMicros", Type: resource.TInteger, Sort: true, Description: "cost in micros of the account's currency"},
		},
	}
}

func callbackPaths() map[string]any {
	str := map[string]any{"type": "string"}
	params := []any{
		map[string]any{"name": "state", "in": "query", "required": true, "schema": str, "description": "the state the authorization gave"},
		map[string]any{"name": "code", "in": "query", "schema": str, "description": "the authorization code"},
		map[string]any{"name": "error", "in": "query", "schema": str, "description": "the platform's error (access_denied)"},
	}
	desc := "The OAuth redirect of the ad platform (public: the single-use state names the customer and the connection). " +
		"Trades the code for a refresh token kept in the vault, connects the account, puts its sync schedule and starts a first sync; answers the connection."
	op := api.Operation("ads.oauthCallback", "adconnections", "Finish connecting an ad account", desc, params, map[string]any{"type": "object"})
	op["security"] = []any{} // public: the state authenticates the call
	return map[string]any{CallbackPath: map[string]any{"get": op}}
}
