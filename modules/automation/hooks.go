package automation

import (
	"crypto/subtle"
	"errors"
	"net/http"
	"strconv"
	"time"

	"platform/kernel/resource"

	"platform/api"
	"platform/kernel/store"
	"platform/kernel/tenant"
	"platform/modules/automation/runs"
	"platform/workflows/contract"
)

// hookRoutes serves the public URLs of webhook triggers:
// POST /automation/hooks/:trigger/:token. No platform token is needed; the
// URL's token is the credential. Anything wrong with the URL is a 404 (a
// wrong token must not reveal that the trigger exists), each trigger has
// its own rate limit, and the JSON body becomes the event data of the runs
// of every active pipeline using the trigger. The answer is 202 once the
// firing is durable in Temporal.
func hookRoutes(d Deps) func(r *api.ModuleRouter) {
	return func(r *api.ModuleRouter) {
		r.HandlePublic(http.MethodPost, "/hooks/:id/:token", func(req *api.Request) (*api.Response, error) { return receiveHook(d, req) })
	}
}

func hookPaths() map[string]any {
	return map[string]any{"/hooks/{id}/{token}": map[string]any{"post": api.PublicOperation(
		"automation.triggers.call", "triggers", "Call a webhook trigger",
		"Starts a run of every active pipeline using the trigger, with the JSON body (an object) as the event data. "+
			"The URL (from the trigger's create or rotateToken answer) is the credential: no bearer token. "+
			"A wrong token, an unknown or an inactive trigger answer 404; past PLATFORM_HOOK_RATE_LIMIT calls a minute, 429.",
		[]string{"id", "token"}, http.StatusAccepted)}}
}

func hookNotFound() error {
	return api.NewError(http.StatusNotFound, resource.CodeNotFound, "", "no webhook trigger has this URL")
}

func receiveHook(d Deps, req *api.Request) (*api.Response, error) {
	id, token := req.Param("id"), req.Param("token")
	if !store.ValidID(id) || token == "" || len(token) > 100 {
		return nil, hookNotFound()
	}
	hash := tokenHash(token)
	ix, err := d.Store.Global(HookTokens).Get(req.Ctx, contract.DerivedID(hash))
	if errors.Is(err, store.ErrNotFound) || (err == nil && ix["trigger"] != id) {
		return nil, hookNotFound()
	}
	if err != nil {
		return nil, err
	}
	cust, _ := ix["customer"].(string)
	ctx := tenant.WithCustomer(req.Ctx, cust)
	t, err := d.Store.Collection(runs.Triggers).Get(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return nil, hookNotFound()
	}
	if err != nil {
		return nil, err
	}
	stored, _ := t["tokenHash"].(string)
	if t["type"] != TriggerWebhook || t["active"] == false || subtle.ConstantTimeCompare([]byte(stored), []byte(hash)) != 1 {
		return nil, hookNotFound()
	}
	if err := d.takeHook(req, id); err != nil {
		return nil, err
	}
	body, err := req.JSON()
	if err != nil {
		return nil, err
	}
	if d.Starter == nil {
		return nil, unavailable("starting runs")
	}
	firing := "webhook-" + store.NewID()
	in := contract.FireInput{Trigger: id, TriggeredBy: runs.ByWebhook, Event: contract.Event{
		Name: "webhook", Timestamp: time.Now().UTC().Truncate(time.Millisecond), Data: body,
	}}
	if _, err := d.Starter.StartOnce(ctx, firing, map[string]string{contract.AttrCustomer: cust}, contract.WorkflowFireTrigger, in); err != nil {
		return nil, resource.Unavailable("the call could not be accepted; try again").WithCause(err)
	}
	return &api.Response{Status: http.StatusAccepted, Payload: map[string]any{"accepted": true, "firing": firing, "trigger": id}}, nil
}

// takeHook counts one call of the trigger's URL.
func (d Deps) takeHook(req *api.Request, trigger string) error {
	if d.HookLimiter == nil {
		return nil
	}
	info, err := d.HookLimiter.Take(req.Ctx, "hook:"+trigger)
	if err != nil {
		return resource.Unavailable("rate limiter unavailable").WithCause(err)
	}
	req.ReportRateLimit(info)
	if !info.Allowed {
		wait := max(int(time.Until(info.Reset).Seconds()+0.999), 1)
		e := api.NewError(http.StatusTooManyRequests, api.CodeRateLimit, "", "this webhook URL takes at most %d calls per window; retry in %d s", info.Limit, wait)
		e.Header = http.Header{"Retry-After": {strconv.Itoa(wait)}}
		return e
	}
	return nil
}
