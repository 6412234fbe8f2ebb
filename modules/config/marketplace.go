package config

import (
	"context"
	"errors"
	"fmt"
	"regexp"

	"platform/kernel/query"
	"platform/kernel/resource"
	"platform/kernel/store"
)

// Bounds of the marketplace records.
const (
	MaxAppRights  = 100
	MaxBundleApps = 50
)

var (
	// semver is a Semantic Versioning 2.0.0 version (no leading zeros).
	semver = regexp.MustCompile(`^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(-[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?(\+[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?$`)
	// rightName is an exact right (module.entity.verb): no wildcards, so
	// that what an installation grants is always a list of known names.
	rightName = regexp.MustCompile(`^[a-z][a-z0-9-]*(\.[a-z][a-z0-9-]*)+$`)
	// slugPattern is a URL segment: lowercase words joined by hyphens.
	slugPattern = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)
)

// MarketplaceApps declares /marketplaceapps: the apps of the customer's
// catalogue, addressed by slug as well as by id, with the rights each
// asks for when installed.
func MarketplaceApps() *resource.Resource {
	return &resource.Resource{
		Plural: "marketplaceapps", Title: "marketplace app", Key: "slug",
		Fields: []resource.Field{
			{Name: "slug", Type: resource.TString, Required: true, MaxLen: 64, Unique: true, Filter: true, Sort: true,
				Description: "URL segment: lowercase letters and digits, words joined by hyphens; unique per customer"},
			{Name: "name", Type: resource.TString, Required: true, MaxLen: 100, Filter: true, Sort: true},
			{Name: "description", Type: resource.TString, MaxLen: 5000},
			{Name: "publisher", Type: resource.TString, Required: true, MaxLen: 100, Filter: true, Sort: true},
			{Name: "version", Type: resource.TString, Required: true, MaxLen: 64, Filter: true, Description: "Semantic Versioning 2.0.0, such as 1.4.2 or 2.0.0-beta.1"},
			{Name: "rights", Type: resource.TArray, Items: &resource.Field{Type: resource.TString, MaxLen: 100}, MaxItems: MaxAppRights, Filter: true,
				Description: "the rights the app asks for (exact names such as crm.consumers.view; no wildcards); an installation grants some or all of them"},
			{Name: "icon", Type: resource.TObjectID, Filter: true, Description: "an asset holding a PNG, JPEG, GIF or WebP image"},
			{Name: "homepage", Type: resource.TString, Format: resource.FURL, MaxLen: 2000},
		},
		Hooks: resource.Hooks{BeforeWrite: appBeforeWrite, BeforeDelete: appNotInstalled},
	}
}

func appBeforeWrite(ctx context.Context, w *resource.Write) error {
	var errs []resource.ErrorEntry
	if !slugPattern.MatchString(str(w.New["slug"])) {
		errs = append(errs, resource.FieldError(resource.CodeFormat, "slug", "slug must be lowercase letters and digits, words joined by hyphens, such as crm-sync"))
	}
	if !semver.MatchString(str(w.New["version"])) {
		errs = append(errs, resource.FieldError(resource.CodeFormat, "version", "version must follow Semantic Versioning 2.0.0, such as 1.4.2 or 2.0.0-beta.1"))
	}
	errs = append(errs, checkRightNames("rights", w.New["rights"])...)
	more, err := checkImageAsset(ctx, w, "icon")
	if err != nil {
		return err
	}
	errs = append(errs, more...)
	if len(errs) > 0 {
		return resource.Invalid(errs...)
	}
	return nil
}

// checkRightNames refuses wildcards, malformed names and repeats.
func checkRightNames(field string, v any) []resource.ErrorEntry {
	list, _ := v.([]any)
	seen := map[string]bool{}
	var errs []resource.ErrorEntry
	for i, x := range list {
		s := str(x)
		path := fmt.Sprintf("%s.%d", field, i)
		switch {
		case !rightName.MatchString(s):
			errs = append(errs, resource.FieldError(resource.CodeFormat, path, "%s is not an exact right such as crm.consumers.view (wildcards are not granted to apps)", path))
		case seen[s]:
			errs = append(errs, resource.FieldError(resource.CodeInvalid, path, "%s repeats %s", path, s))
		}
		seen[s] = true
	}
	return errs
}

// appNotInstalled refuses to delete an app that is installed.
func appNotInstalled(ctx context.Context, s *resource.Service, old store.Doc) error {
	n, err := s.Store.Collection("appinstallations").Count(ctx, query.AllOf(query.Eq("app", old["_id"]), query.Eq("status", InstallInstalled)))
	if err != nil {
		return resource.Unavailable("the store is unavailable").WithCause(err)
	}
	if n > 0 {
		return resource.Conflict("_id", "the app is installed; uninstall it first")
	}
	return nil
}

// Bundles declares /bundles: named sets of apps of the catalogue,
// installed together by the install action.
func Bundles(inst *installer) *resource.Resource {
	return &resource.Resource{
		Plural: "bundles", Title: "bundle", Key: "slug",
		Fields: []resource.Field{
			{Name: "slug", Type: resource.TString, Required: true, MaxLen: 64, Unique: true, Filter: true, Sort: true,
				Description: "URL segment: lowercase letters and digits, words joined by hyphens; unique per customer"},
			{Name: "name", Type: resource.TString, Required: true, MaxLen: 100, Filter: true, Sort: true},
			{Name: "description", Type: resource.TString, MaxLen: 5000},
			{Name: "apps", Type: resource.TArray, Required: true, Items: &resource.Field{Type: resource.TObjectID}, MinItems: 1, MaxItems: MaxBundleApps, Filter: true,
				Description: "ids of marketplace apps, each once"},
		},
		Actions: []resource.Action{{Name: "install", Event: "installed", Right: "config.appinstallations.create",
			Title: "install every app of the bundle that is not installed, granting each the rights it asks for (all must be the caller's)",
			Run:   inst.installBundle}},
		Hooks: resource.Hooks{BeforeWrite: bundleBeforeWrite},
	}
}

func bundleBeforeWrite(ctx context.Context, w *resource.Write) error {
	var errs []resource.ErrorEntry
	if !slugPattern.MatchString(str(w.New["slug"])) {
		errs = append(errs, resource.FieldError(resource.CodeFormat, "slug", "slug must be lowercase letters and digits, words joined by hyphens, such as starter-pack"))
	}
	apps, _ := w.New["apps"].([]any)
	seen := map[string]bool{}
	for i, a := range apps {
		id, path := str(a), fmt.Sprintf("apps.%d", i)
		if seen[id] {
			errs = append(errs, resource.FieldError(resource.CodeInvalid, path, "%s repeats app %s", path, id))
			continue
		}
		seen[id] = true
		if _, err := w.Service.Store.Collection("marketplaceapps").Get(ctx, id); errors.Is(err, store.ErrNotFound) {
			errs = append(errs, resource.FieldError(resource.CodeNotFound, path, "%s: no marketplace app %s", path, id))
		} else if err != nil {
			return resource.Unavailable("the store is unavailable").WithCause(err)
		}
	}
	if len(errs) > 0 {
		return resource.Invalid(errs...)
	}
	return nil
}
