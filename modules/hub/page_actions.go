package hub

import (
	"platform/kernel/resource"
)

const rightPublish = "hub.wikipages.publish"

func pageActions(d Deps) []resource.Action {
	return []resource.Action{
		{Name: "publish", Title: "publish the page (publishing a published page changes nothing)", Right: rightPublish, Event: "published", Run: d.publishing().SetPublished(true)},
		{Name: "unpublish", Title: "take the page off the published site", Right: rightPublish, Event: "unpublished", Run: d.publishing().SetPublished(false)},
		{Name: "move", Title: "move the page under a parent at a position; its new siblings are renumbered in steps of 10",
			Event: "moved", Body: moveBody(), Run: d.movePage},
		{Name: "translate", Title: "create a new, unpublished page in targetLocale, translated by the translation provider",
			Right: "hub.wikipages.create", Event: "translated", Body: translateBody(), Run: d.translatePage},
	}
}

// publishing tells the page's render, so the search index follows.
func (d Deps) publishing() resource.Publishing { return resource.Publishing{After: d.render} }
