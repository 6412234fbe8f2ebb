package hub

import (
	"context"
	"maps"

	"platform/kernel/query"
	"platform/kernel/resource"
	"platform/kernel/store"
	"platform/modules/hub/wiki"
)

// maxSiblings bounds the pages one move renumbers.
const maxSiblings = 5000

func moveBody() []resource.Field {
	return []resource.Field{
		{Name: "parentSlug", Type: resource.TString, MaxLen: 100, Description: "the new parent's slug in the same knowledge base; absent or empty: the top level"},
		{Name: "position", Type: resource.TInteger, Description: "0-based place among the new siblings; absent or past the end: last"},
	}
}

// movePage puts the page under parentSlug at position and renumbers the
// siblings there 10, 20, 30, ... in their order.
func (d Deps) movePage(ctx context.Context, call *resource.ActionCall) (*resource.ActionResult, error) {
	next := maps.Clone(call.Record)
	parent, _ := call.Body["parentSlug"].(string)
	next["parentSlug"] = parent
	if parent == "" {
		delete(next, "parentSlug")
	}
	if err := checkMove(ctx, call, next); err != nil {
		return nil, err
	}
	siblings, err := orderedSiblings(ctx, call, parent)
	if err != nil {
		return nil, err
	}
	pos, given := call.Body["position"].(int64)
	if !given {
		pos = int64(len(siblings))
	}
	if err := renumber(ctx, call, insertAt(siblings, call.ID, pos)); err != nil {
		return nil, err
	}
	page, err := call.Service.Apply(ctx, call.Resource, query.ID(call.ID), parentChange(parent))
	if err != nil {
		return nil, err
	}
	return &resource.ActionResult{Payload: page}, d.render(ctx, call.ID)
}

func checkMove(ctx context.Context, call *resource.ActionCall, next store.Doc) error {
	if err := checkPageForm(next); err != nil {
		return err
	}
	if pos, ok := call.Body["position"].(int64); ok && pos < 0 {
		return resource.InvalidField("position", "position is 0 or more")
	}
	w := &resource.Write{Old: call.Record, New: next, Service: call.Service}
	return checkParent(ctx, wiki.Hierarchy{Store: call.Service.Store}, w)
}

// orderedSiblings are the ids of the pages under parent, the moved one
// left out, in their current order.
func orderedSiblings(ctx context.Context, call *resource.ActionCall, parent string) ([]string, error) {
	kb, _ := call.Record["kbslug"].(string)
	docs, err := call.Service.Store.Collection(wiki.Pages).Find(ctx, store.FindOptions{Filter: wiki.Siblings(kb, parent),
		Sort: []store.SortField{{Field: "order"}, {Field: "_id"}}, Limit: maxSiblings + 1, Fields: []string{"_id"}})
	if err != nil {
		return nil, err
	}
	if len(docs) > maxSiblings {
		return nil, resource.InvalidField("parentSlug", "the parent has more than %d pages: moves there are refused", maxSiblings)
	}
	var ids []string
	for _, doc := range docs {
		if id := idOf(doc); id != call.ID {
			ids = append(ids, id)
		}
	}
	return ids, nil
}

func insertAt(ids []string, id string, pos int64) []string {
	if pos > int64(len(ids)) || pos < 0 {
		pos = int64(len(ids))
	}
	out := append([]string{}, ids[:pos]...)
	return append(append(out, id), ids[pos:]...)
}

// renumber gives ids the orders 10, 20, ...; the moved page's own write
// follows (parentChange), so it is the one announced.
func renumber(ctx context.Context, call *resource.ActionCall, ids []string) error {
	for i, id := range ids {
		order := int64(i+1) * wiki.OrderStep
		where := query.AllOf(query.ID(id), query.Field{Path: "order", Conds: []query.Cond{query.Compare{Op: query.OpNe, Value: order}}})
		if _, err := call.Service.ApplyAll(ctx, call.Resource, where, resource.Change{Set: store.Doc{"order": order}}); err != nil {
			return err
		}
	}
	return nil
}

func parentChange(parent string) resource.Change {
	if parent == "" {
		return resource.Change{Unset: []string{"parentSlug"}}
	}
	return resource.Change{Set: store.Doc{"parentSlug": parent}}
}
