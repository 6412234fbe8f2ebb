package hub

import (
	"context"
	"time"

	"platform/kernel/query"
	"platform/kernel/resource"
	"platform/kernel/store"
)

const rightPublish = "hub.wikipages.publish"

func pageActions(d Deps) []resource.Action {
	return []resource.Action{
		{Name: "publish", Title: "publish the page (publishing a published page changes nothing)", Right: rightPublish, Event: "published", Run: d.setPublished(true)},
		{Name: "unpublish", Title: "take the page off the published site", Right: rightPublish, Event: "unpublished", Run: d.setPublished(false)},
		{Name: "move", Title: "move the page under a parent at a position; its new siblings are renumbered in steps of 10",
			Event: "moved", Body: moveBody(), Run: d.movePage},
		{Name: "translate", Title: "create a new, unpublished page in targetLocale, translated by the translation provider",
			Right: "hub.wikipages.create", Event: "translated", Body: translateBody(), Run: d.translatePage},
	}
}

// setPublished moves published; a repeat changes nothing and emits
// nothing. The page's render is told, so the search index follows.
func (d Deps) setPublished(on bool) func(context.Context, *resource.ActionCall) (*resource.ActionResult, error) {
	return func(ctx context.Context, call *resource.ActionCall) (*resource.ActionResult, error) {
		if call.Record["published"] == on {
			return &resource.ActionResult{Payload: call.Record, NoEvent: true}, nil
		}
		c := resource.Change{Set: store.Doc{"published": on}}
		if on {
			c.Set["publishedAt"] = time.Now().UTC().Truncate(time.Millisecond)
		}
		page, err := call.Service.Apply(ctx, call.Resource, query.ID(call.ID), c)
		if err != nil {
			return nil, err
		}
		return &resource.ActionResult{Payload: page}, d.render(ctx, call.ID)
	}
}
