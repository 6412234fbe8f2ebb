package config

import (
	"context"
	"errors"
	"strings"

	"platform/kernel/query"
	"platform/kernel/resource"
	"platform/kernel/store"
)

// DefaultMaxAssetBytes is the largest file an asset takes when Deps sets
// no limit of its own.
const DefaultMaxAssetBytes = 2 << 20

// Asset statuses: a record is made first, its file sent after.
const (
	AssetEmpty = "empty"
	AssetReady = "ready"
)

// Assets declares /assets: files of the customer's branding (logos,
// icons, fonts, documents). A record is created with JSON (its name), its
// file is sent to PUT /assets/{id}/content and read back from GET
// /assets/{id}/content (asset_content.go). The fields about the file are
// set by the platform at upload.
func Assets() *resource.Resource {
	return &resource.Resource{
		Plural: "assets", Title: "asset",
		Fields: []resource.Field{
			{Name: "name", Type: resource.TString, Required: true, MaxLen: 200, Filter: true, Sort: true,
				Description: "a name for people, also the file name of a download"},
			{Name: "description", Type: resource.TString, MaxLen: 2000},
			{Name: "status", Type: resource.TString, Enum: []string{AssetEmpty, AssetReady}, Default: AssetEmpty, ReadOnly: true, Filter: true,
				Description: "empty until a file is uploaded to /assets/{id}/content, then ready"},
			{Name: "contentType", Type: resource.TString, ReadOnly: true, Filter: true,
				Description: "the file's media type, declared at upload and confirmed by sniffing its bytes"},
			{Name: "size", Type: resource.TInteger, ReadOnly: true, Filter: true, Sort: true, Description: "bytes"},
			{Name: "sha256", Type: resource.TString, ReadOnly: true, Filter: true, Description: "hex SHA-256 of the file; the download's ETag"},
			{Name: "width", Type: resource.TInteger, ReadOnly: true, Filter: true, Description: "pixels, for PNG, JPEG, GIF and WebP images"},
			{Name: "height", Type: resource.TInteger, ReadOnly: true, Filter: true, Description: "pixels, for PNG, JPEG, GIF and WebP images"},
			{Name: "uploadedAt", Type: resource.TDate, ReadOnly: true, Filter: true, Sort: true},
			{Name: "generation", Type: resource.TString, ReadOnly: true, Description: "names the stored file of the last upload"},
		},
		Events: []string{"uploaded"},
		Hooks:  resource.Hooks{BeforeDelete: assetInUse, AfterDelete: dropAssetFile},
	}
}

// assetUsers are the fields that point at an asset: a record using it
// keeps it from being deleted.
var assetUsers = []struct{ plural, field string }{{"themes", "logo"}, {"marketplaceapps", "icon"}}

// assetInUse refuses to delete an asset a theme or app shows.
func assetInUse(ctx context.Context, s *resource.Service, old store.Doc) error {
	var users []string
	for _, u := range assetUsers {
		docs, err := s.Store.Collection(u.plural).Find(ctx, store.FindOptions{Filter: query.Eq(u.field, old["_id"]), Limit: 3, Fields: []string{"_id", "name"}})
		if err != nil {
			return resource.Unavailable("the store is unavailable").WithCause(err)
		}
		for _, d := range docs {
			users = append(users, strings.TrimSuffix(u.plural, "s")+" "+str(d["_id"]))
		}
	}
	if len(users) > 0 {
		return resource.Conflict("_id", "the asset is in use by %s; point them at another asset first", strings.Join(users, ", "))
	}
	return nil
}

func dropAssetFile(ctx context.Context, s *resource.Service, old store.Doc) error {
	return blobs{s.Store}.dropAll(ctx, str(old["_id"]))
}

// checkImageAsset is the rule of a field naming an image asset (a
// theme's logo, an app's icon): it exists for the customer, holds a file,
// and the file is a raster image.
// It is checked only when the write sets or changes the field, so a
// record whose image later changed can still be edited.
func checkImageAsset(ctx context.Context, w *resource.Write, field string) ([]resource.ErrorEntry, error) {
	id, _ := w.New[field].(string)
	if id == "" || (w.Old != nil && w.Old[field] == w.New[field]) {
		return nil, nil
	}
	doc, err := w.Service.Store.Collection("assets").Get(ctx, id)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return []resource.ErrorEntry{resource.FieldError(resource.CodeNotFound, field, "%s %s is not an asset of this customer", field, id)}, nil
	case err != nil:
		return nil, resource.Unavailable("the store is unavailable").WithCause(err)
	case doc["status"] != AssetReady:
		return []resource.ErrorEntry{resource.FieldError(resource.CodeInvalid, field, "asset %s has no file yet: upload it to /assets/%s/content", id, id)}, nil
	case !isImage(str(doc["contentType"])):
		return []resource.ErrorEntry{resource.FieldError(resource.CodeInvalid, field, "asset %s is %s; %s must be a PNG, JPEG, GIF or WebP image", id, doc["contentType"], field)}, nil
	}
	return nil, nil
}
