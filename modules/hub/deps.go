package hub

import (
	"context"

	"platform/kernel/query"
	"platform/kernel/resource"
	"platform/kernel/store"
	"platform/kernel/temporalx"
	"platform/kernel/tenant"
	"platform/kernel/translate"
	"platform/modules/hub/search"
	"platform/modules/hub/wiki"
	"platform/workflows/contract"
)

// Deps are what the hub uses beyond the record service; zero ones leave
// out what needs them. Without Workflows, page writes answer 503 (a page
// is rendered by a workflow); without Search, GET /search answers 503 and
// FAQs and glossary entries are not indexed; without Translator, the
// translate action answers 503.
type Deps struct {
	Service    *resource.Service
	Workflows  Signaller
	Search     Searcher
	Translator translate.Provider
}

// Signaller signals a workflow, starting it first if it is not running
// (temporalx.Starter).
type Signaller interface {
	SignalOrStart(ctx context.Context, st temporalx.Start, signal string) error
	Once(ctx context.Context, st temporalx.Start) (bool, error)
}

// Searcher is the search index (search.Index).
type Searcher interface {
	Put(ctx context.Context, d search.Doc) error
	Remove(ctx context.Context, typ, id string) error
	Search(ctx context.Context, q search.Query) ([]search.Hit, error)
}

// render tells the page's render workflow that the page changed, starting
// it when none runs.
func (d Deps) render(ctx context.Context, id string) error {
	if d.Workflows == nil {
		return resource.Unavailable("wiki pages are rendered by a workflow, which this process cannot start")
	}
	customer, err := tenant.Customer(ctx)
	if err != nil {
		return err
	}
	if err := d.Workflows.SignalOrStart(ctx, temporalx.RenderRecord(customer, wiki.Kind, id), contract.SignalRenderChanged); err != nil {
		return resource.Unavailable("the page is saved but its render could not be scheduled; save it again").WithCause(err)
	}
	return nil
}

// renderAffected starts a workflow that re-renders the pages that use the
// words or link to the targets.
func (d Deps) renderAffected(ctx context.Context, in contract.AffectedInput) error {
	if d.Workflows == nil || (len(in.Words) == 0 && len(in.Targets) == 0) {
		return nil
	}
	if linked, err := d.anyLinks(ctx, in); err != nil || !linked {
		return err
	}
	customer, err := tenant.Customer(ctx)
	if err != nil {
		return err
	}
	if len(in.Words) == 0 {
		// Only wiki pages were counted by anyLinks; a glossary change
		// concerns every kind of rendered record (CMS pages too).
		in.Kind = wiki.Kind
	}
	if _, err := d.Workflows.Once(ctx, temporalx.RenderAffected(customer, in)); err != nil {
		return resource.Unavailable("the change is saved but the pages that use it could not be re-rendered; save it again").WithCause(err)
	}
	return nil
}

// anyLinks reports whether a change of link targets alone concerns a page
// at all, so that a page nobody links to starts no workflow.
func (d Deps) anyLinks(ctx context.Context, in contract.AffectedInput) (bool, error) {
	if len(in.Words) > 0 || d.Service == nil {
		return true, nil
	}
	n, err := d.Service.Store.Collection(wiki.Pages).Count(ctx,
		query.Field{Path: "links", Conds: []query.Cond{query.In{Values: store.List(in.Targets)}}})
	return n > 0, err
}
