package config

import (
	"context"
	"errors"
	"fmt"
	"time"

	"platform/kernel/auth"
	"platform/kernel/query"
	"platform/kernel/resource"
	"platform/kernel/store"
)

// Installation statuses.
const (
	InstallInstalled   = "installed"
	InstallUninstalled = "uninstalled"
)

// installer installs marketplace apps for the caller's customer.
type installer struct{}

// AppInstallations declares /appinstallations: the marketplace apps a
// customer installed and the rights it granted each. The specification
// names two "installations" resources; the computing one is served at
// /computinginstallations, this one here (docs/config-catalog.md).
//
// The rights granted must be among those the app asks for and among the
// caller's own: nobody grants an app more than they hold. Status moves
// installed → uninstalled (action uninstall, which also takes the rights
// back) → installed (action reinstall).
func AppInstallations(inst *installer) *resource.Resource {
	return &resource.Resource{
		Plural: "appinstallations", Title: "app installation",
		Fields: []resource.Field{
			{Name: "app", Type: resource.TObjectID, Required: true, Unique: true, Filter: true,
				Description: "the marketplace app; one installation per app and customer; cannot change"},
			{Name: "grantedRights", Type: resource.TArray, Items: &resource.Field{Type: resource.TString, MaxLen: 100}, MaxItems: MaxAppRights, Filter: true,
				Description: "rights granted to the app: each one the app asks for and one the caller holds"},
			{Name: "status", Type: resource.TString, Enum: []string{InstallInstalled, InstallUninstalled}, Default: InstallInstalled, ReadOnly: true, Filter: true,
				Description: "installed at create; the uninstall and reinstall actions move it"},
			{Name: "version", Type: resource.TString, ReadOnly: true, Description: "the app's version when it was (re)installed"},
			{Name: "installedAt", Type: resource.TDate, ReadOnly: true, Filter: true, Sort: true},
			{Name: "installedBy", Type: resource.TString, ReadOnly: true, Filter: true, Description: "the user (or app) that (re)installed it"},
			{Name: "uninstalledAt", Type: resource.TDate, ReadOnly: true, Filter: true},
		},
		Actions: []resource.Action{
			{Name: "uninstall", Event: "uninstalled", Title: "uninstall the app: its granted rights are taken back", Run: inst.uninstall},
			{Name: "reinstall", Event: "reinstalled", Title: "install an uninstalled app again with the rights given",
				Body: []resource.Field{{Name: "grantedRights", Type: resource.TArray, Items: &resource.Field{Type: resource.TString, MaxLen: 100}, MaxItems: MaxAppRights}},
				Run:  inst.reinstall},
		},
		Hooks: resource.Hooks{BeforeWrite: inst.beforeWrite},
	}
}

func (inst *installer) beforeWrite(ctx context.Context, w *resource.Write) error {
	if w.Old != nil && w.New["app"] != w.Old["app"] {
		return resource.Invalid(resource.FieldError(resource.CodeReadOnly, "app", "an installation's app cannot change; install the other app instead"))
	}
	if w.Old != nil && w.Old["status"] == InstallUninstalled {
		return resource.Conflict("status", "the app is uninstalled; reinstall it to grant rights")
	}
	app, err := loadApp(ctx, w.Service.Store, str(w.New["app"]))
	if err != nil {
		return err
	}
	if errs := grantable(ctx, app, w.New["grantedRights"]); len(errs) > 0 {
		return resource.Invalid(errs...)
	}
	if w.Old == nil {
		for k, v := range installedFields(ctx, app) {
			w.New[k] = v
		}
	}
	return nil
}

// loadApp reads the marketplace app an installation names.
func loadApp(ctx context.Context, st store.Store, id string) (store.Doc, error) {
	app, err := st.Collection("marketplaceapps").Get(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return nil, resource.Invalid(resource.FieldError(resource.CodeNotFound, "app", "no marketplace app %s", id))
	}
	if err != nil {
		return nil, resource.Unavailable("the store is unavailable").WithCause(err)
	}
	return app, nil
}

// grantable checks rights to grant app: exact names, asked for by the
// app, held by the caller.
func grantable(ctx context.Context, app store.Doc, rights any) []resource.ErrorEntry {
	errs := checkRightNames("grantedRights", rights)
	if len(errs) > 0 {
		return errs
	}
	asked := map[string]bool{}
	for _, r := range anyList(app["rights"]) {
		asked[str(r)] = true
	}
	p := auth.From(ctx)
	for i, r := range anyList(rights) {
		path := fmt.Sprintf("grantedRights.%d", i)
		switch {
		case !asked[str(r)]:
			errs = append(errs, resource.FieldError(resource.CodeInvalid, path, "app %s does not ask for %s", app["slug"], r))
		case !p.Allows(str(r)):
			errs = append(errs, resource.FieldError(resource.CodeScope, path, "you cannot grant %s: your token does not hold it", r))
		}
	}
	return errs
}

// installedFields are what an install records besides the grant.
func installedFields(ctx context.Context, app store.Doc) store.Doc {
	return store.Doc{"status": InstallInstalled, "version": app["version"], "installedBy": resource.Actor(ctx),
		"installedAt": time.Now().UTC().Truncate(time.Millisecond)}
}

func (inst *installer) uninstall(ctx context.Context, call *resource.ActionCall) (*resource.ActionResult, error) {
	if call.Record["status"] == InstallUninstalled {
		return &resource.ActionResult{Payload: call.Record, NoEvent: true}, nil
	}
	doc, err := call.Service.ApplyIfUnchanged(ctx, call.Resource, call.Record, resource.Change{
		Set: store.Doc{"status": InstallUninstalled, "grantedRights": []any{}, "uninstalledAt": time.Now().UTC().Truncate(time.Millisecond)}})
	return changed(doc, err)
}

func (inst *installer) reinstall(ctx context.Context, call *resource.ActionCall) (*resource.ActionResult, error) {
	if call.Record["status"] != InstallUninstalled {
		return nil, resource.Conflict("status", "the app is installed; change its grantedRights with PATCH")
	}
	app, err := loadApp(ctx, call.Service.Store, str(call.Record["app"]))
	if err != nil {
		return nil, err
	}
	rights := call.Body["grantedRights"]
	if rights == nil {
		rights = []any{}
	}
	if errs := grantable(ctx, app, rights); len(errs) > 0 {
		return nil, resource.Invalid(errs...)
	}
	set := installedFields(ctx, app)
	set["grantedRights"] = rights
	doc, err := call.Service.ApplyIfUnchanged(ctx, call.Resource, call.Record, resource.Change{Set: set, Unset: []string{"uninstalledAt"}})
	return changed(doc, err)
}

// changed answers an action's change, or a conflict when another write
// changed the record since it was read.
func changed(doc store.Doc, err error) (*resource.ActionResult, error) {
	if err != nil {
		return nil, err
	}
	if doc == nil {
		return nil, resource.Conflict("status", "the installation changed meanwhile; read it and try again")
	}
	return &resource.ActionResult{Payload: doc}, nil
}

func anyList(v any) []any { l, _ := v.([]any); return l }

// installBundle installs each app of the bundle that is not installed
// (and reinstalls those uninstalled), granting each every right it asks
// for. Every grant is checked before anything is written: one right the
// caller lacks refuses the whole bundle, naming the app and the right.
func (inst *installer) installBundle(ctx context.Context, call *resource.ActionCall) (*resource.ActionResult, error) {
	plan, err := inst.bundlePlan(ctx, call)
	if err != nil {
		return nil, err
	}
	r := call.Service.Registry.Get("config", "appinstallations")
	out := store.Doc{"bundle": call.ID, "installed": []any{}, "unchanged": []any{}}
	for _, step := range plan {
		id, err := step.run(ctx, call.Service, r)
		if err != nil {
			return nil, err
		}
		key := "installed"
		if step.existing != nil && step.existing["status"] == InstallInstalled {
			key = "unchanged"
		}
		out[key] = append(out[key].([]any), id)
	}
	return &resource.ActionResult{Payload: out}, nil
}

// bundleStep is what installing a bundle does for one of its apps.
type bundleStep struct {
	app      store.Doc
	existing store.Doc // the app's installation, if any
}

// bundlePlan reads the bundle's apps and their installations, and checks
// every grant.
func (inst *installer) bundlePlan(ctx context.Context, call *resource.ActionCall) ([]bundleStep, error) {
	var plan []bundleStep
	var errs []resource.ErrorEntry
	for i, a := range anyList(call.Record["apps"]) {
		app, err := loadApp(ctx, call.Service.Store, str(a))
		if err != nil {
			return nil, err
		}
		existing, err := call.Service.Store.Collection("appinstallations").Find(ctx, store.FindOptions{Filter: query.Eq("app", str(a)), Limit: 1})
		if err != nil {
			return nil, resource.Unavailable("the store is unavailable").WithCause(err)
		}
		step := bundleStep{app: app}
		if len(existing) == 1 {
			step.existing = existing[0]
		}
		if step.existing == nil || step.existing["status"] != InstallInstalled {
			for _, e := range grantable(ctx, app, app["rights"]) {
				e.Field = fmt.Sprintf("apps.%d", i)
				e.Message = fmt.Sprintf("app %s: %s", app["slug"], e.Message)
				errs = append(errs, e)
			}
		}
		plan = append(plan, step)
	}
	if len(errs) > 0 {
		return nil, resource.Invalid(errs...)
	}
	return plan, nil
}

// run installs the step's app unless it is installed, and answers the
// installation's id.
func (s bundleStep) run(ctx context.Context, svc *resource.Service, r *resource.Resource) (string, error) {
	rights := anyList(s.app["rights"])
	if rights == nil {
		rights = []any{}
	}
	switch {
	case s.existing == nil:
		doc, err := svc.Create(ctx, r, map[string]any{"app": s.app["_id"], "grantedRights": rights})
		return str(doc["_id"]), err
	case s.existing["status"] == InstallUninstalled:
		_, err := svc.Act(ctx, r, str(s.existing["_id"]), "reinstall", map[string]any{"grantedRights": rights})
		return str(s.existing["_id"]), err
	}
	return str(s.existing["_id"]), nil
}
