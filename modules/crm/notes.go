package crm

import (
	"context"

	"platform/kernel/resource"

	"platform/kernel/auth"
	"platform/kernel/store"
)

// Notes declares /notes: annotations on any record of the customer.
func Notes() *resource.Resource {
	return &resource.Resource{
		Plural: "notes", Title: "note",
		Fields: []resource.Field{
			{Name: "body", Type: resource.TString, Format: resource.FMarkdown, Required: true, MaxLen: 50000, Description: "Markdown"},
			{Name: "targetType", Type: resource.TString, Required: true, MaxLen: 100, Filter: true, Description: "collection of the annotated record, e.g. consumers"},
			{Name: "targetId", Type: resource.TObjectID, Required: true, Filter: true},
			{Name: "pinned", Type: resource.TBool, Default: false, Filter: true, Sort: true, Description: "pinned notes are listed first"},
		},
		SortFirst:   []store.SortField{{Field: "pinned", Desc: true}},
		DefaultSort: []store.SortField{{Field: "createdAt", Desc: true}},
		Hooks:       resource.Hooks{BeforeWrite: noteWrite},
	}
}

// noteWrite checks the note points at an existing record of the caller's
// customer that the caller may see.
func noteWrite(ctx context.Context, w *resource.Write) error {
	tt, _ := w.New["targetType"].(string)
	tid, _ := w.New["targetId"].(string)
	if w.Old != nil && w.Old["targetType"] == tt && w.Old["targetId"] == tid {
		return nil
	}
	target := w.Service.Registry.ByPlural(tt)
	if target == nil {
		return resource.Invalid(resource.FieldError(resource.CodeInvalid, "targetType", "unknown collection %q", tt))
	}
	if right := target.Right("view"); !auth.From(ctx).Allows(right) {
		return resource.Forbidden(right)
	}
	if _, err := w.Service.Load(ctx, target, tid); err != nil {
		if resource.KindOf(err) == resource.KindNotFound {
			return resource.Invalid(resource.FieldError(resource.CodeInvalid, "targetId", "no %s %s exists", target.Title, tid))
		}
		return err
	}
	return nil
}
