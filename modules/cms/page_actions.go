package cms

import (
	"context"
	"time"

	"platform/kernel/query"
	"platform/kernel/resource"
	"platform/kernel/store"
)

const rightPublish = "cms.webpages.publish"

func pageActions(d Deps) []resource.Action {
	return []resource.Action{
		{Name: "publish", Title: "publish the page: it is served at /site/<locale>/<slug> (publishing a published page changes nothing)",
			Right: rightPublish, Event: "published", Run: setPublished(true)},
		{Name: "unpublish", Title: "take the page off the published site", Right: rightPublish, Event: "unpublished", Run: setPublished(false)},
		{Name: "duplicate", Title: "create a new, unpublished copy of the page under a free slug (<slug>-copy, <slug>-copy-2, ...)",
			Right: "cms.webpages.create", Event: "duplicated", Run: duplicatePage},
		{Name: "translate", Title: "create a new, unpublished page with the same slug in targetLocale, every text translated by the translation provider",
			Right: "cms.webpages.create", Event: "translated", Body: translateBody(), Run: d.translatePage},
		{Name: "generate-blocks", Title: "append blocks proposed by a language model from an AI library's prompt and a topic; " +
			"an answer that is not valid blocks is a 502 and nothing is stored", Event: "blocksgenerated", Body: generateBody(), Run: d.generateBlocks},
	}
}

// setPublished moves published; a repeat changes nothing and emits
// nothing. A page whose last render failed is not published: its visitors
// would see an older output than its authors.
func setPublished(on bool) func(context.Context, *resource.ActionCall) (*resource.ActionResult, error) {
	return func(ctx context.Context, call *resource.ActionCall) (*resource.ActionResult, error) {
		if call.Record["published"] == on {
			return &resource.ActionResult{Payload: call.Record, NoEvent: true}, nil
		}
		if msg := str(call.Record["renderError"]); on && msg != "" {
			return nil, resource.Conflict("renderError", "the page does not render (%s): fix it before publishing", msg)
		}
		c := resource.Change{Set: store.Doc{"published": on}}
		if on {
			c.Set["publishedAt"] = time.Now().UTC().Truncate(time.Millisecond)
		}
		page, err := call.Service.Apply(ctx, call.Resource, query.ID(call.ID), c)
		if err != nil {
			return nil, err
		}
		return &resource.ActionResult{Payload: page}, nil
	}
}
