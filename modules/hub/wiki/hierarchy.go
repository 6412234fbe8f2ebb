package wiki

import (
	"context"
	"errors"

	"platform/kernel/query"
	"platform/kernel/store"
)

var (
	// ErrNoPage: no page of the knowledge base has the slug.
	ErrNoPage = errors.New("wiki: no such page")
	// ErrTooDeep: the chain of parents is longer than MaxDepth (or loops,
	// which stored data cannot but a concurrent write might).
	ErrTooDeep = errors.New("wiki: hierarchy too deep")
)

// Hierarchy answers questions about the page tree of a knowledge base.
type Hierarchy struct{ Store store.Store }

// Ancestors lists slug and the slugs above it, nearest first.
func (h Hierarchy) Ancestors(ctx context.Context, kb, slug string) ([]string, error) {
	var chain []string
	for slug != "" {
		if len(chain) >= MaxDepth {
			return chain, ErrTooDeep
		}
		page, err := h.page(ctx, kb, slug, "parentSlug")
		if err != nil {
			return chain, err
		}
		chain = append(chain, slug)
		slug, _ = page["parentSlug"].(string)
	}
	return chain, nil
}

func (h Hierarchy) page(ctx context.Context, kb, slug string, fields ...string) (store.Doc, error) {
	docs, err := h.Store.Collection(Pages).Find(ctx, store.FindOptions{
		Filter: query.AllOf(query.Eq("kbslug", kb), query.Eq("slug", slug)), Limit: 1, Fields: fields})
	if err != nil {
		return nil, err
	}
	if len(docs) == 0 {
		return nil, ErrNoPage
	}
	return docs[0], nil
}

// Siblings filters the pages directly below parent ("" for the top level).
func Siblings(kb, parent string) query.Expr {
	under := query.Eq("parentSlug", parent)
	if parent == "" {
		under = query.Field{Path: "parentSlug", Conds: []query.Cond{query.Exists{Want: false}}}
	}
	return query.AllOf(query.Eq("kbslug", kb), under)
}

// LastOrder is the highest order among parent's children (0 for none).
func (h Hierarchy) LastOrder(ctx context.Context, kb, parent string) (int64, error) {
	docs, err := h.Store.Collection(Pages).Find(ctx, store.FindOptions{Filter: Siblings(kb, parent),
		Sort: []store.SortField{{Field: "order", Desc: true}}, Limit: 1, Fields: []string{"order"}})
	if err != nil || len(docs) == 0 {
		return 0, err
	}
	o, _ := docs[0]["order"].(int64)
	return o, nil
}

// Children counts the pages directly below the page slug.
func (h Hierarchy) Children(ctx context.Context, kb, slug string) (int64, error) {
	return h.Store.Collection(Pages).Count(ctx, Siblings(kb, slug))
}

// BaseExists reports whether the customer has the knowledge base kb.
func BaseExists(ctx context.Context, s store.Store, kb string) (bool, error) {
	n, err := s.Collection(KnowledgeBases).Count(ctx, query.Eq("slug", kb))
	return n > 0, err
}
