package cms

import (
	"context"

	"platform/kernel/llm"
	"platform/kernel/resource"
	"platform/kernel/store"
	"platform/kernel/temporalx"
	"platform/kernel/tenant"
	"platform/kernel/translate"
	"platform/modules/cms/pages"
	"platform/workflows/contract"
)

// Deps are what the CMS uses beyond the record service; zero ones leave
// out what needs them. Without Workflows, page and snippet writes answer
// 503 (a page is rendered by a workflow); without Translator, translate
// answers 503; without LLM, generate-blocks answers 503.
type Deps struct {
	Service    *resource.Service
	Workflows  Signaller
	Translator translate.Provider
	LLM        llm.Provider
}

// Signaller signals a workflow, starting it first if it is not running
// (temporalx.Starter).
type Signaller interface {
	SignalOrStart(ctx context.Context, st temporalx.Start, signal string) error
	Once(ctx context.Context, st temporalx.Start) (bool, error)
}

// render tells the page's render workflow that the page changed, starting
// it when none runs.
func (d Deps) render(ctx context.Context, id string) error {
	if d.Workflows == nil {
		return resource.Unavailable("web pages are rendered by a workflow, which this process cannot start")
	}
	customer, err := tenant.Customer(ctx)
	if err != nil {
		return err
	}
	if err := d.Workflows.SignalOrStart(ctx, temporalx.RenderRecord(customer, pages.Kind, id), contract.SignalRenderChanged); err != nil {
		return resource.Unavailable("the page is saved but its render could not be scheduled; save it again").WithCause(err)
	}
	return nil
}

// renderUsers re-renders the pages that use the snippet, when any does.
func (d Deps) renderUsers(ctx context.Context, snippet string) error {
	users, err := pages.UsingSnippet(ctx, d.Service.Store, snippet)
	if err != nil || len(users) == 0 {
		return err
	}
	if d.Workflows == nil {
		return resource.Unavailable("web pages are rendered by a workflow, which this process cannot start")
	}
	customer, err := tenant.Customer(ctx)
	if err != nil {
		return err
	}
	in := contract.AffectedInput{Kind: pages.Kind, Targets: []string{snippet}}
	if _, err := d.Workflows.Once(ctx, temporalx.RenderAffected(customer, in)); err != nil {
		return resource.Unavailable("the snippet is saved but the pages that use it could not be re-rendered; save it again").WithCause(err)
	}
	return nil
}

func idOf(doc store.Doc) string { id, _ := doc["_id"].(string); return id }

func str(v any) string { s, _ := v.(string); return s }
