package ads

import (
	"context"
	"net/http"
	"regexp"
	"strings"

	"platform/api"
	"platform/kernel/resource"
	"platform/kernel/store"
	"platform/modules/ads/adsync"
	"platform/workflows/contract"
)

// adsCustomerID is the platform's account id: ten digits, dashes allowed
// on the way in (123-456-7890).
var adsCustomerID = regexp.MustCompile(`^\d{10}$`)

// Connections declares /adconnections: the connected platform accounts.
func Connections(h *handlers) *resource.Resource {
	str := func(name, desc string) resource.Field {
		return resource.Field{Name: name, Type: resource.TString, ReadOnly: true, Description: desc}
	}
	return &resource.Resource{
		Plural: adsync.Connections, Title: "ad platform connection",
		Fields: []resource.Field{
			{Name: "name", Type: resource.TString, Required: true, MaxLen: 200, Unique: true, Filter: true, Sort: true, Description: "unique per customer"},
			{Name: "customerId", Type: resource.TString, Required: true, MaxLen: 12, Filter: true,
				Description: "the platform's account id: ten digits (dashes are removed: 123-456-7890 is stored 1234567890)"},
			{Name: "loginCustomerId", Type: resource.TString, MaxLen: 12, Description: "the manager account the account is reached through, ten digits; optional"},
			{Name: "state", Type: resource.TString, Enum: adsync.ConnectionStates, Default: adsync.StatePending, ReadOnly: true, Filter: true, Sort: true,
				Description: "pending until authorized; connected once a refresh token is stored; error when the platform refused the grant (authorize again); disconnected after the disconnect action"},
			str("stateReason", "why the connection is in error or disconnected"),
			{Name: "credential", Type: resource.TObjectID, ReadOnly: true, Description: "the config credential holding the refresh token (sealed; never returned)"},
			{Name: "connectedAt", Type: resource.TDate, ReadOnly: true},
			{Name: "lastSync", Type: resource.TObject, ReadOnly: true, Description: "the last sync run", Fields: []resource.Field{
				{Name: "status", Type: resource.TString, Enum: []string{"running", "ok", "failed"}},
				{Name: "syncId", Type: resource.TString}, {Name: "startedAt", Type: resource.TDate}, {Name: "finishedAt", Type: resource.TDate},
				{Name: "entities", Type: resource.TInteger}, {Name: "metricRows", Type: resource.TInteger}, {Name: "conflicts", Type: resource.TInteger},
				{Name: "error", Type: resource.TString},
			}},
			{Name: "cursor", Type: resource.TObject, ReadOnly: true, Description: "where the next sync starts", Fields: []resource.Field{
				{Name: "entitiesSince", Type: resource.TDate, Description: "entities changed at or after this time are read"},
				{Name: "metricsThrough", Type: resource.TString, Description: "the last day of metrics synced (YYYY-MM-DD)"},
			}},
		},
		Actions: []resource.Action{
			{Name: "authorize", Title: "start the OAuth authorization: answers authorizationUrl (send the user there) and expiresAt", Right: "ads.adconnections.connect", Run: h.authorize},
			{Name: "sync", Title: "sync now; answers 202 with the workflow id", Right: "ads.adconnections.sync", Accepted: true, Run: h.syncNow},
			{Name: "disconnect", Title: "stop syncing: the schedule ends and the stored refresh token is revoked", Right: "ads.adconnections.connect", Event: adsync.EventDisconnected, Run: h.disconnect},
		},
		Events: []string{adsync.EventConnected, adsync.EventSynced, adsync.EventFailed},
		Hooks:  resource.Hooks{BeforeWrite: checkConnection, BeforeDelete: h.beforeDeleteConnection},
	}
}

func checkConnection(_ context.Context, w *resource.Write) error {
	var errs []resource.ErrorEntry
	for _, f := range []string{"customerId", "loginCustomerId"} {
		v, ok := w.New[f].(string)
		if !ok {
			continue
		}
		v = strings.ReplaceAll(v, "-", "")
		if !adsCustomerID.MatchString(v) {
			errs = append(errs, resource.FieldError(resource.CodeFormat, f, "%s must be ten digits, such as 1234567890 or 123-456-7890", f))
		}
		w.New[f] = v
	}
	if w.Old != nil && w.Old["customerId"] != w.New["customerId"] && w.Old["state"] == adsync.StateConnected {
		errs = append(errs, resource.FieldError(resource.CodeInvalid, "customerId", "customerId cannot change while connected: disconnect first"))
	}
	if len(errs) > 0 {
		return resource.Invalid(errs...)
	}
	return nil
}

func (h *handlers) beforeDeleteConnection(ctx context.Context, _ *resource.Service, old store.Doc) error {
	if h.d.Ads == nil || old["state"] != adsync.StateConnected {
		return nil
	}
	_, err := h.d.Ads.Disconnect(ctx, old)
	return err
}

func (h *handlers) authorize(ctx context.Context, c *resource.ActionCall) (*resource.ActionResult, error) {
	if h.d.Ads == nil {
		return nil, resource.Unavailable("the ads service is not running")
	}
	a, err := h.d.Ads.Authorize(ctx, c.ID)
	if err != nil {
		return nil, err
	}
	return &resource.ActionResult{Payload: store.Doc{"authorizationUrl": a.URL, "expiresAt": a.ExpiresAt}, NoEvent: true}, nil
}

func (h *handlers) syncNow(ctx context.Context, c *resource.ActionCall) (*resource.ActionResult, error) {
	if c.Record["state"] != adsync.StateConnected {
		return nil, resource.Conflict("state", "the connection is %v: only a connected account syncs; authorize it first", c.Record["state"])
	}
	if c.Service.Workflows == nil {
		return nil, resource.Unavailable("workflows are not available in this process")
	}
	id, err := startSync(ctx, c.Service, c.ID)
	if err != nil {
		return nil, err
	}
	return &resource.ActionResult{Payload: store.Doc{"workflowId": id, "connection": c.ID}, NoEvent: true}, nil
}

func (h *handlers) disconnect(ctx context.Context, c *resource.ActionCall) (*resource.ActionResult, error) {
	if h.d.Ads == nil {
		return nil, resource.Unavailable("the ads service is not running")
	}
	doc, err := h.d.Ads.Disconnect(ctx, c.Record)
	if err != nil {
		return nil, err
	}
	return &resource.ActionResult{Payload: doc}, nil
}

// callback is the OAuth redirect: public, the state names the customer
// and the connection.
func (h *handlers) callback(req *api.Request) (*api.Response, error) {
	if h.d.Ads == nil {
		return nil, resource.Unavailable("the ads service is not running")
	}
	q := req.Query
	ctx, doc, err := h.d.Ads.Callback(req.Ctx, q.Get("state"), q.Get("code"), q.Get("error"))
	if err != nil {
		return nil, err
	}
	if _, err := startSync(ctx, h.d.Ads.Records, doc["_id"].(string)); err != nil {
		return nil, err
	}
	return &api.Response{Status: http.StatusOK, Payload: doc}, nil
}

// startSync starts a sync of the connection now (ticks of the schedule
// start theirs).
func startSync(ctx context.Context, svc *resource.Service, connID string) (string, error) {
	if svc.Workflows == nil {
		return "", nil
	}
	cust, _ := customerOf(ctx)
	id := contract.AdsSyncWorkflowID(cust, connID) + "-" + store.NewID()
	_, err := svc.Workflows.StartOnce(ctx, id, map[string]string{contract.AttrCustomer: cust}, contract.WorkflowAdsSync, contract.AdsSyncInput{ConnectionID: connID})
	if err != nil {
		return "", resource.Unavailable("the sync could not be started; try again").WithCause(err)
	}
	return id, nil
}
