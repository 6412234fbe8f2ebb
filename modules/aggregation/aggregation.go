// Package aggregation is the aggregation service ({aggregation_url},
// gateway path /aggregation): cross-module read models kept up to date
// from events by each customer's Aggregator workflow (package readmodel),
// served read-only with the list conventions at /aggregation/<name>, and
// listed with their freshness at /aggregation (docs/aggregation.md).
// Rights: aggregation.<name>.view per read model.
package aggregation

import (
	"context"
	"net/http"

	"platform/api"
	"platform/kernel/auth"
	"platform/kernel/resource"
	"platform/kernel/store"
	"platform/modules/aggregation/readmodel"
)

// Version is the module's meta.version.host.
const Version = "1.0.0"

// Status reads the customer's engine state (readmodel.Engine.Status).
type Status interface {
	Status(ctx context.Context) (store.Doc, error)
}

// Deps are what the module uses; a nil Status leaves the freshness out.
type Deps struct {
	Status Status
}

// Module declares the read models and the list of them.
func Module(d Deps) *api.Module {
	rs := Resources()
	return &api.Module{Name: "aggregation", HostLabel: "aggregation", Version: Version, Resources: rs,
		Routes: func(r *api.ModuleRouter) {
			rights := make([]string, len(rs))
			for i, res := range rs {
				rights[i] = res.Right("view")
			}
			r.HandleAnyOf(http.MethodGet, "", rights, listModels(d, rs))
		},
		Paths: map[string]any{"/": map[string]any{"get": api.Operation("aggregation.list", "aggregation", "List the read models",
			"The read models the caller may view (right aggregation.<name>.view each), with their fields, and the customer's "+
				"freshness: when events were last applied (appliedAt), the longest lag of that batch from write to read model (lastLagMs), "+
				"and the rebuild under way if any. docs/aggregation.md.", nil, modelsSchema())}},
	}
}

// listModels answers the read models the caller may view.
func listModels(d Deps, rs []*resource.Resource) api.HandlerFunc {
	return func(r *api.Request) (*api.Response, error) {
		state := store.Doc{}
		if d.Status != nil {
			s, err := d.Status.Status(r.Ctx)
			if err != nil {
				return nil, err
			}
			state = s
		}
		var out []any
		for _, res := range rs {
			if !auth.From(r.Ctx).Allows(res.Right("view")) {
				continue
			}
			out = append(out, modelEntry(res, state))
		}
		return &api.Response{Status: http.StatusOK, Payload: out}, nil
	}
}

func modelEntry(res *resource.Resource, state store.Doc) store.Doc {
	var filters, sorts []any
	for _, f := range res.Fields {
		if f.Filter {
			filters = append(filters, f.Name)
		}
		if f.Sort {
			sorts = append(sorts, f.Name)
		}
	}
	e := store.Doc{"name": res.Plural, "title": res.Title, "path": "/aggregation/" + res.Plural, "right": res.Right("view"),
		"filterable": nonNil(filters), "sortable": nonNil(sorts)}
	for _, k := range []string{"appliedAt", "lastLagMs", "rebuiltAt"} {
		if v, ok := state[k]; ok {
			e[k] = v
		}
	}
	if rb, ok := state["rebuild"].(store.Doc); ok {
		e["rebuild"] = store.Doc{"records": rb["records"]}
	}
	return e
}

func nonNil(v []any) []any {
	if v == nil {
		return []any{}
	}
	return v
}

func modelsSchema() map[string]any {
	str := map[string]any{"type": "string"}
	strs := map[string]any{"type": "array", "items": str}
	return map[string]any{"type": "array", "items": map[string]any{"type": "object", "additionalProperties": false,
		"required": []any{"name", "title", "path", "right", "filterable", "sortable"},
		"properties": map[string]any{
			"name": str, "title": str, "path": str, "right": str, "filterable": strs, "sortable": strs,
			"appliedAt": map[string]any{"type": "string", "format": "date-time"}, "rebuiltAt": map[string]any{"type": "string", "format": "date-time"},
			"lastLagMs": map[string]any{"type": "integer", "minimum": 0, "description": "the longest lag of the last batch from write to read model, in milliseconds"},
			"rebuild":   map[string]any{"type": "object", "additionalProperties": false, "properties": map[string]any{"records": map[string]any{"type": "integer", "minimum": 0}}},
		}}}
}

// Resources declares the read models: read-only, rows written by the
// Aggregator only.
func Resources() []*resource.Resource {
	rs := []*resource.Resource{consumerActivity(), newsletterFunnels(), pipelineStats(), webhookHealth()}
	for _, r := range rs {
		r.Hooks.Present = hideInternal
	}
	return rs
}

// hideInternal leaves out the engine's bookkeeping of a row: the batch
// that last moved it and the duration histogram behind the percentiles.
func hideInternal(row store.Doc) {
	delete(row, "lastBatch")
	delete(row, "hist")
}

func count(name, desc string) resource.Field {
	return resource.Field{Name: name, Type: resource.TInteger, Filter: true, Sort: true, Description: desc}
}

func consumerActivity() *resource.Resource {
	return &resource.Resource{
		Plural: readmodel.ConsumerActivity, Title: "consumer activity", ReadOnly: true,
		// One row per consumer (its _id is the consumer's id) with tasks, notes and mail counted from their events.
		Fields: []resource.Field{
			{Name: "consumer", Type: resource.TObjectID, Filter: true, Description: "the consumer's id (also the row's _id)"},
			count("tasksOpen", "tasks of the consumer not done (open or in-progress)"),
			count("tasksDone", "tasks of the consumer done"),
			count("notes", "notes on the consumer"),
			count("mailsSent", "mail logs of the consumer that were sent"),
			count("mailsOpened", "mail logs of the consumer opened by a person"),
			count("mailsClicked", "mail logs of the consumer clicked by a person"),
			{Name: "lastActivityAt", Type: resource.TDate, Filter: true, Sort: true, Description: "latest write of any of its tasks or notes, or send, first open or first click of its mail"},
		},
	}
}

func newsletterFunnels() *resource.Resource {
	return &resource.Resource{
		Plural: readmodel.NewsletterFunnels, Title: "newsletter funnel", ReadOnly: true,
		// One row per newsletter (its _id is the newsletter's id): its mail logs by how far they got, and the consumers who unsubscribed through its link.
		Fields: []resource.Field{
			{Name: "newsletter", Type: resource.TObjectID, Filter: true, Description: "the newsletter's id (also the row's _id)"},
			count("sent", "mails sent"), count("opened", "mails opened by a person"), count("clicked", "mails clicked by a person"),
			count("bounced", "mails bounced"), count("complained", "mails reported as spam"),
			count("unsubscribed", "consumers unsubscribed through this newsletter's link"),
		},
	}
}

func durationFields() []resource.Field {
	return []resource.Field{
		{Name: "p50Ms", Type: resource.TNumber, Filter: true, Sort: true, Description: "median duration in milliseconds (within 1 %: a bounded histogram)"},
		{Name: "p95Ms", Type: resource.TNumber, Filter: true, Sort: true, Description: "95th percentile duration in milliseconds (within 1 %)"},
		{Name: "failureRate", Type: resource.TNumber, Filter: true, Sort: true, Description: "failures divided by the total, 0 to 1"},
	}
}

func pipelineStats() *resource.Resource {
	return &resource.Resource{
		Plural: readmodel.PipelineStats, Title: "pipeline run statistics", ReadOnly: true,
		// One row per pipeline and UTC day its runs started: ended runs, failures and durations.
		Fields: append([]resource.Field{
			{Name: "pipeline", Type: resource.TObjectID, Filter: true},
			{Name: "day", Type: resource.TString, Filter: true, Sort: true, MaxLen: 10, Description: "UTC day, YYYY-MM-DD"},
			count("runs", "runs ended"), count("failures", "runs ended failed"),
		}, durationFields()...),
	}
}

func webhookHealth() *resource.Resource {
	return &resource.Resource{
		Plural: readmodel.WebhookHealth, Title: "webhook delivery health", ReadOnly: true,
		// One row per webhook and UTC day: delivery attempts, delivered and failed, attempt durations.
		Fields: append([]resource.Field{
			{Name: "webhook", Type: resource.TObjectID, Filter: true},
			{Name: "day", Type: resource.TString, Filter: true, Sort: true, MaxLen: 10, Description: "UTC day, YYYY-MM-DD"},
			count("attempts", "delivery attempts"), count("delivered", "attempts answered 2xx"), count("failed", "attempts that failed"),
		}, durationFields()...),
	}
}
