package cms

import (
	"platform/kernel/resource"
	"platform/kernel/store"
)

const rightPublish = "cms.webpages.publish"

func pageActions(d Deps) []resource.Action {
	return []resource.Action{
		{Name: "publish", Title: "publish the page: it is served at /site/<locale>/<slug> (publishing a published page changes nothing)",
			Right: rightPublish, Event: "published", Run: d.publishing().SetPublished(true)},
		{Name: "unpublish", Title: "take the page off the published site", Right: rightPublish, Event: "unpublished", Run: d.publishing().SetPublished(false)},
		{Name: "duplicate", Title: "create a new, unpublished copy of the page under a free slug (<slug>-copy, <slug>-copy-2, ...)",
			Right: "cms.webpages.create", Event: "duplicated", Run: duplicatePage},
		{Name: "translate", Title: "create a new, unpublished page with the same slug in targetLocale, every text translated by the translation provider",
			Right: "cms.webpages.create", Event: "translated", Body: translateBody(), Run: d.translatePage},
		{Name: "generate-blocks", Title: "append blocks proposed by a language model from an AI library's prompt and a topic; " +
			"an answer that is not valid blocks is a 502 and nothing is stored", Event: "blocksgenerated", Body: generateBody(), Run: d.generateBlocks},
	}
}

// publishing refuses a page whose last render failed: its visitors
// would see an older output than its authors. It tells the page's
// render, which writes its output only if the page did not change since
// it read it: a render running during the publish would otherwise be
// dropped with none to follow (a hash check, when nothing changed).
func (d Deps) publishing() resource.Publishing {
	return resource.Publishing{Refuse: refuseFailedRender, After: d.render}
}

func refuseFailedRender(page store.Doc) error {
	if msg := str(page["renderError"]); msg != "" {
		return resource.Conflict("renderError", "the page does not render (%s): fix it before publishing", msg)
	}
	return nil
}
