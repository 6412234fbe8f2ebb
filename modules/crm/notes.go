package crm

import (
	"context"

	"platform/api"
	"platform/kernel/auth"
	"platform/kernel/store"
)

// Notes declares /notes: annotations on any record of the customer.
func Notes() *api.Resource {
	return &api.Resource{
		Module: "crm", Plural: "notes", Title: "note",
		Fields: []api.Field{
			{Name: "body", Type: api.TString, Format: api.FMarkdown, Required: true, MaxLen: 50000, Description: "Markdown"},
			{Name: "targetType", Type: api.TString, Required: true, MaxLen: 100, Filter: true, Description: "collection of the annotated record, e.g. consumers"},
			{Name: "targetId", Type: api.TObjectID, Required: true, Filter: true},
			{Name: "pinned", Type: api.TBool, Default: false, Filter: true, Sort: true, Description: "pinned notes are listed first"},
		},
		SortFirst:   []store.SortField{{Field: "pinned", Desc: true}},
		DefaultSort: []store.SortField{{Field: "createdAt", Desc: true}},
		Hooks:       api.Hooks{BeforeWrite: noteWrite},
	}
}

// noteWrite checks the note points at an existing record of the caller's
// customer that the caller may see.
func noteWrite(ctx context.Context, w *api.Write) error {
	tt, _ := w.New["targetType"].(string)
	tid, _ := w.New["targetId"].(string)
	if w.Old != nil && w.Old["targetType"] == tt && w.Old["targetId"] == tid {
		return nil
	}
	target := w.Services.Registry.ByPlural(tt)
	if target == nil {
		return api.Invalid(api.FieldError(api.CodeInvalid, "targetType", "unknown collection %q", tt))
	}
	if right := target.Right("view"); !auth.From(ctx).Allows(right) {
		return api.Forbidden(right)
	}
	if _, err := api.LoadRecord(ctx, w.Services.Store, target, tid); err != nil {
		if e := api.AsError(err); e.Status == 404 {
			return api.Invalid(api.FieldError(api.CodeInvalid, "targetId", "no %s %s exists", target.Title, tid))
		}
		return err
	}
	return nil
}
