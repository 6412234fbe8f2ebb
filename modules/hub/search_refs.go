package hub

import (
	"context"

	"platform/kernel/auth"
	"platform/kernel/query"
	"platform/kernel/store"
	"platform/modules/hub/search"
	"platform/modules/hub/wiki"
)

// crossReferenced turns hits into the answer: each with its knowledge
// base, parent page and the glossary terms that occur in it.
func (d Deps) crossReferenced(ctx context.Context, hits []search.Hit) ([]store.Doc, error) {
	bases, err := d.baseTitles(ctx, hits)
	if err != nil {
		return nil, err
	}
	parents, err := d.parentPages(ctx, hits)
	if err != nil {
		return nil, err
	}
	out := make([]store.Doc, len(hits))
	for i, h := range hits {
		out[i] = store.Doc{"type": h.Type, "_id": h.ID, "title": h.Title, "score": h.Score,
			"highlights": store.List(h.Snippets), "terms": store.List(h.Terms)}
		if h.KB != "" {
			out[i]["knowledgebase"] = withTitle(store.Doc{"slug": h.KB}, bases[h.KB])
		}
		if p, ok := parents[h.KB+"/"+h.Parent]; ok {
			out[i]["parent"] = store.Doc{"slug": h.Parent, "_id": p["_id"], "title": p["title"]}
		}
	}
	return out, nil
}

// baseTitles are the titles of the hits' knowledge bases, for callers who
// may view knowledge bases.
func (d Deps) baseTitles(ctx context.Context, hits []search.Hit) (map[string]string, error) {
	out := map[string]string{}
	slugs := distinct(hits, func(h search.Hit) string { return h.KB })
	if len(slugs) == 0 || !auth.From(ctx).Allows("hub.knowledgebases.view") {
		return out, nil
	}
	docs, err := d.Service.Store.Collection(wiki.KnowledgeBases).Find(ctx, store.FindOptions{
		Filter: query.Field{Path: "slug", Conds: []query.Cond{query.In{Values: slugs}}}, Fields: []string{"slug", "title"}})
	for _, doc := range docs {
		out[str(doc["slug"])] = str(doc["title"])
	}
	return out, err
}

// parentPages are the hits' parent pages the caller may see, by
// "<kb>/<slug>".
func (d Deps) parentPages(ctx context.Context, hits []search.Hit) (map[string]store.Doc, error) {
	var pairs []query.Expr
	for _, h := range hits {
		if h.Parent != "" {
			pairs = append(pairs, query.AllOf(query.Eq("kbslug", h.KB), query.Eq("slug", h.Parent)))
		}
	}
	out := map[string]store.Doc{}
	if len(pairs) == 0 {
		return out, nil
	}
	where := query.Expr(query.Or{Exprs: pairs})
	if !auth.From(ctx).Allows("hub.wikipages.edit") {
		where = query.AllOf(where, query.Eq("published", true))
	}
	docs, err := d.Service.Store.Collection(wiki.Pages).Find(ctx, store.FindOptions{Filter: where, Fields: []string{"kbslug", "slug", "title"}})
	for _, doc := range docs {
		out[wiki.Target(doc)] = doc
	}
	return out, err
}

func distinct(hits []search.Hit, key func(search.Hit) string) []any {
	var out []any
	seen := map[string]bool{}
	for _, h := range hits {
		if k := key(h); k != "" && !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	return out
}

func withTitle(doc store.Doc, title string) store.Doc {
	if title != "" {
		doc["title"] = title
	}
	return doc
}
