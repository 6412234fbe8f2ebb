package app

import (
	"context"
	"fmt"
	"time"

	"platform/activities/rendering"
	"platform/kernel/temporalx"
	"platform/kernel/translate"
	"platform/modules/cms/pages"
	"platform/modules/hub"
	"platform/modules/hub/search"
	"platform/modules/hub/wiki"
)

var (
	_ hub.Searcher        = (*search.Index)(nil)
	_ wiki.Indexer        = (*search.Index)(nil)
	_ rendering.Renderer  = (*wiki.Renderer)(nil)
	_ translate.Provider  = (*translate.DeepL)(nil)
	_ hub.Signaller       = (*temporalx.Starter)(nil)
	_ rendering.Signaller = (*temporalx.Starter)(nil)
)

// translateTimeout bounds one call to the translation provider.
const translateTimeout = 30 * time.Second

// wireHub opens the search index and, when configured, the translation
// provider (through the outbound guard).
func (a *App) wireHub(ctx context.Context) error {
	a.Search = search.New(a.Store, search.Options{})
	if err := a.Search.EnsureIndexes(ctx); err != nil {
		return fmt.Errorf("hub search: %w", err)
	}
	if a.Config.TranslateURL == "" {
		return nil
	}
	p, err := translate.New(translate.Config{BaseURL: a.Config.TranslateURL, Key: a.Config.TranslateKey, Timeout: translateTimeout},
		a.Outbound.Client(translateTimeout))
	if err != nil {
		return fmt.Errorf("PLATFORM_TRANSLATE_URL: %w", err)
	}
	a.translator = p
	return nil
}

// hubDeps are the hub module's dependencies; none for the declarations
// alone (Modules).
func (a *App) hubDeps() hub.Deps {
	d := hub.Deps{Service: a.Service, Translator: a.translator}
	if a.Search != nil {
		d.Search = a.Search
	}
	if a.Temporal != nil && a.Config != nil {
		d.Workflows = a.starter(a.Config.TaskQueue)
	}
	return d
}

// renderActivities serve the render workflows: wiki pages and web pages.
func (a *App) renderActivities() *rendering.Activities {
	wikiPages := &wiki.Renderer{Service: a.Service, Index: a.Search, SiteURL: a.Config.HubSiteURL}
	renderers := map[string]rendering.Renderer{wiki.Kind: wikiPages, pages.Kind: a.pageRenderer(wikiPages)}
	return &rendering.Activities{Renderers: renderers, Workflows: a.starter(a.Config.TaskQueue)}
}
