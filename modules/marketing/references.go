package marketing

import (
	"context"
	"errors"
	"fmt"

	"platform/kernel/resource"
	"platform/kernel/store"
	"platform/modules/identity"
)

// References declares /references: records with the specification's
// common fields (published, name, lang, shares, and the bookkeeping
// fields), linked to a consumer. Rights: marketing.references.{view|new|
// edit|delete}: the create verb is "new" here, and copy needs it too.
func References() *resource.Resource {
	return &resource.Resource{
		Plural: "references", Title: "reference",
		Rights: resource.Rights{Create: "marketing.references.new"},
		Fields: []resource.Field{
			{Name: "name", Type: resource.TString, Required: true, MaxLen: 200, Filter: true, Sort: true},
			{Name: "published", Type: resource.TBool, Default: false, Filter: true, Sort: true},
			{Name: "lang", Type: resource.TString, Format: resource.FLocale, Filter: true, Sort: true, Description: "language, e.g. en or de-CH"},
			{Name: "shares", Type: resource.TArray, Items: &resource.Field{Type: resource.TObject, Fields: []resource.Field{
				{Name: "user", Type: resource.TObjectID, Required: true, Description: "a user of the customer"},
				{Name: "access", Type: resource.TString, Required: true, Enum: []string{"view", "edit"}},
			}}, Description: "users the record is shared with, and how"},
			{Name: "consumer", Type: resource.TObjectID, Filter: true, Description: "the consumer the reference is about (crm.consumers)"},
		},
		Actions: []resource.Action{{Name: "copy", Title: "copy this reference into a new, unpublished one", Short: true,
			Right: "marketing.references.new", Run: copyReference}},
		Relations: []resource.Relation{
			{Rel: "consumer", Title: "the consumer", Target: "crm/consumers", Field: "consumer"},
			{Rel: "publications", Title: "publications", Target: "marketing/publications", Key: "reference", Unavailable: inactive("publications are not part of the marketing module yet")},
			{Rel: "projects", Title: "projects", Target: "pm/projects", Key: "reference", Unavailable: inactive("projects need the pm module, which is not active for this customer")},
			{Rel: "documents", Title: "documents", Target: "crm/documents", Key: "reference", Unavailable: inactive("documents are not part of the CRM module yet")},
			{Rel: "images", Title: "images", Target: "cms/images", Key: "reference", Unavailable: inactive("images need the cms module, which is not active for this customer")},
		},
		Hooks: resource.Hooks{BeforeWrite: checkReference},
	}
}

func inactive(msg string) func(context.Context) error {
	return func(context.Context) error { return resource.Inactive("%s", msg) }
}

// checkReference refuses a shared user that is not the customer's (the
// record service checks the consumer link).
func checkReference(ctx context.Context, w *resource.Write) error {
	shares, _ := w.New["shares"].([]any)
	for i, s := range shares {
		user, _ := s.(store.Doc)["user"].(string)
		if err := exists(ctx, w.Service, identity.Users, user, fmt.Sprintf("shares.%d.user", i)); err != nil {
			return err
		}
	}
	return nil
}

// exists refuses an id that names no record of the customer in collection.
func exists(ctx context.Context, s *resource.Service, collection, id, field string) error {
	_, err := s.Store.Collection(collection).Get(ctx, id, "_id")
	if errors.Is(err, store.ErrNotFound) {
		return resource.InvalidField(field, "no record of this customer has the id %s", id)
	}
	return err
}

// copyFields are what a copy takes over; it starts unpublished.
var copyFields = []string{"name", "lang", "shares", "consumer"}

// copyReference creates a new, unpublished reference with the fields of
// this one; the answer is the copy, announced as references.created.
func copyReference(ctx context.Context, call *resource.ActionCall) (*resource.ActionResult, error) {
	body := map[string]any{"published": false}
	for _, k := range copyFields {
		if v, ok := call.Record[k]; ok {
			body[k] = v
		}
	}
	out, err := call.Service.Create(ctx, call.Resource, body)
	if err != nil {
		return nil, err
	}
	return &resource.ActionResult{Payload: out, NoEvent: true}, nil
}
