package hub

import (
	"errors"
	"net/http"
	"strconv"
	"unicode/utf8"

	"platform/api"
	"platform/kernel/auth"
	"platform/kernel/resource"
	"platform/modules/hub/search"
)

// SearchPath is the search route within the module (/hub/search).
const SearchPath = "/search"

// searchTypes pairs each kind of result with the right that shows it.
var searchTypes = []struct{ typ, right string }{
	{search.TypeWikiPage, "hub.wikipages.view"}, {search.TypeFAQ, "hub.faqs.view"}, {search.TypeGlossary, "hub.glossaries.view"},
}

func searchRoutes(d Deps) func(r *api.ModuleRouter) {
	rights := make([]string, len(searchTypes))
	for i, t := range searchTypes {
		rights[i] = t.right
	}
	return func(r *api.ModuleRouter) { r.HandleAnyOf(http.MethodGet, SearchPath, rights, d.search) }
}

// search answers ranked results of the kinds the caller may view;
// unpublished pages only to callers who may edit pages.
func (d Deps) search(r *api.Request) (*api.Response, error) {
	if d.Search == nil {
		return nil, resource.Unavailable("search is unavailable in this process")
	}
	q, err := searchQuery(r)
	if err != nil {
		return nil, err
	}
	hits, err := d.Search.Search(r.Ctx, q)
	if errors.Is(err, search.ErrEmptyQuery) {
		return nil, resource.Malformed(resource.CodeBadQuery, "q", "q has no word to search for")
	}
	if err != nil {
		return nil, err
	}
	results, err := d.crossReferenced(r.Ctx, hits)
	if err != nil {
		return nil, err
	}
	return &api.Response{Status: http.StatusOK, Payload: results}, nil
}

func searchQuery(r *api.Request) (search.Query, error) {
	p := auth.From(r.Ctx)
	q := search.Query{Q: r.Query.Get("q"), KB: r.Query.Get("kbslug"), Limit: 10, Unpublished: p.Allows("hub.wikipages.edit")}
	if q.Q == "" || utf8.RuneCountInString(q.Q) > search.MaxQueryChars {
		return q, resource.Malformed(resource.CodeBadQuery, "q", "q is required: 1 to %d characters", search.MaxQueryChars)
	}
	if q.KB != "" && !slugPattern.MatchString(q.KB) {
		return q, resource.Malformed(resource.CodeBadQuery, "kbslug", "kbslug is a knowledge base's slug")
	}
	if raw := r.Query.Get("limit"); raw != "" {
		n, err := strconv.Atoi(raw)
		if err != nil || n < 1 || n > search.MaxLimit {
			return q, resource.Malformed(resource.CodeBadQuery, "limit", "limit is a whole number from 1 to %d", search.MaxLimit)
		}
		q.Limit = n
	}
	for _, t := range searchTypes {
		if p.Allows(t.right) {
			q.Types = append(q.Types, t.typ)
		}
	}
	return q, nil
}

func searchPaths() map[string]any {
	params := []any{
		map[string]any{"name": "q", "in": "query", "required": true, "schema": map[string]any{"type": "string", "minLength": 1, "maxLength": search.MaxQueryChars},
			"description": "the words to find; the last one also matches as a prefix"},
		map[string]any{"name": "kbslug", "in": "query", "schema": map[string]any{"type": "string"}, "description": "only pages of this knowledge base"},
		map[string]any{"name": "limit", "in": "query", "schema": map[string]any{"type": "integer", "minimum": 1, "maximum": search.MaxLimit, "default": 10}},
	}
	desc := "Ranked results across wiki pages, FAQs and glossary entries of the caller's customer (BM25 with a title boost, " +
		"diacritics folded; docs/hub.md). Each kind of result needs its view right (hub.wikipages.view, hub.faqs.view, " +
		"hub.glossaries.view), one of them at least; unpublished pages need hub.wikipages.edit. Highlights are HTML: " +
		"the text escaped, matches in <mark>."
	return map[string]any{SearchPath: map[string]any{"get": api.Operation("hub.search", "search", "Search the hub", desc, params,
		map[string]any{"type": "array", "items": searchHitSchema()})}}
}

func searchHitSchema() map[string]any {
	str := map[string]any{"type": "string"}
	ref := map[string]any{"type": "object", "required": []any{"slug"}, "properties": map[string]any{"slug": str, "_id": str, "title": str}}
	return map[string]any{"type": "object", "required": []any{"type", "_id", "title", "score", "highlights", "terms"},
		"properties": map[string]any{
			"type": map[string]any{"type": "string", "enum": []any{search.TypeWikiPage, search.TypeFAQ, search.TypeGlossary}},
			"_id":  str, "title": str, "score": map[string]any{"type": "number"},
			"highlights":    map[string]any{"type": "array", "items": str, "description": "fragments of the text, HTML-escaped, matches in <mark>"},
			"terms":         map[string]any{"type": "array", "items": str, "description": "glossary terms that occur in the page"},
			"knowledgebase": ref, "parent": ref,
		}}
}
