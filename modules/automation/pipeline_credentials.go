package automation

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"platform/api"
	"platform/kernel/auth"
	"platform/kernel/query"
	"platform/kernel/resource"
	"platform/kernel/store"
	"platform/modules/automation/pipeline"
	"platform/modules/automation/runs"
	"platform/modules/config/credentials"
	"platform/workflows/contract"
)

// A pipeline that reads a credential ({{secrets.<name>...}}) hands its
// clear values to whatever its steps call, so saving one needs a right on
// credentials, checked against the author when a version is frozen and
// again when a run starts (see docs/pipelines.md, "Credentials").

// credentialGrants checks that the caller may have the pipeline read
// every credential its steps reference. It returns what the version
// records (name and id of each credential, the identity a run start
// re-checks) and, when refused, one entry per step and credential.
func credentialGrants(ctx context.Context, st store.Store, caller *auth.Principal, def *contract.Definition) ([]any, []api.ErrorEntry, error) {
	var grants []any
	var refused []api.ErrorEntry
	granted := map[string]bool{}
	for i := range def.Steps {
		s := &def.Steps[i]
		for _, name := range pipeline.StepCredentials(s) {
			why, id, err := credentialUse(ctx, st, caller, name)
			if err != nil {
				return nil, nil, err
			}
			if why != "" {
				refused = append(refused, resource.FieldError(resource.CodeInvalid, fmt.Sprintf("steps[%d]", i), "step %q: %s", s.ID, why))
				continue
			}
			if !granted[name] {
				granted[name] = true
				grants = append(grants, store.Doc{"name": name, "id": id})
			}
		}
	}
	return grants, refused, nil
}

// credentialUse is "" and the credential's id when caller may have a
// pipeline read the credential name, else the reason.
func credentialUse(ctx context.Context, st store.Store, caller *auth.Principal, name string) (why, id string, err error) {
	if !credentials.MayUse(caller.Allows) {
		return fmt.Sprintf("reading credential %q ({{secrets.%s...}}) needs the right %s (or %s), which you do not hold",
			name, name, credentials.RightUse, credentials.RightDecrypt), "", nil
	}
	docs, err := st.Collection(credentials.Collection).Find(ctx, store.FindOptions{Filter: query.Eq("name", name), Limit: 1, Fields: []string{"_id"}})
	if err != nil {
		return "", "", err
	}
	if len(docs) == 0 {
		return fmt.Sprintf("{{secrets.%s...}} names no credential of this customer", name), "", nil
	}
	id, _ = docs[0]["_id"].(string)
	return "", id, nil
}

// mayStartManualRun refuses a manual run of a pipeline whose current
// version reads credentials the caller may not use: starting it would
// hand their values to the caller's run.
func mayStartManualRun(ctx context.Context, call *resource.ActionCall) error {
	caller := auth.From(ctx)
	if credentials.MayUse(caller.Allows) {
		return nil
	}
	id, _ := call.Record["_id"].(string)
	version, err := call.Service.Store.Collection(runs.Versions).Get(ctx, runs.VersionID(id, int(store.Int(call.Record["version"]))), "credentials", "definition")
	if err != nil {
		return err
	}
	names := recordedCredentialNames(version)
	if def, derr := pipeline.FromDoc(storeDoc(version["definition"])); derr == nil {
		names = append(names, pipeline.CredentialRefs(def)...)
	}
	if len(names) == 0 {
		return nil
	}
	e := resource.Forbidden(credentials.RightUse)
	e.Entries[0].Message = fmt.Sprintf("the pipeline reads credential %q: starting it needs the right %s (or %s), which the token does not grant",
		names[0], credentials.RightUse, credentials.RightDecrypt)
	return e
}

func recordedCredentialNames(version store.Doc) []string {
	var names []string
	grants, _ := version["credentials"].([]any)
	for _, g := range grants {
		if d, ok := g.(map[string]any); ok {
			if n, _ := d["name"].(string); n != "" {
				names = append(names, n)
			}
		}
	}
	return names
}

func storeDoc(v any) store.Doc {
	d, _ := v.(store.Doc)
	return d
}

// grantsRecorded reports whether the pipeline's current version records
// exactly grants. A save that changes nothing else freezes a new version
// when they differ: a version frozen before credentials needed a right,
// or one whose credential was replaced under its name, is then runnable
// again by an author who holds the right.
func grantsRecorded(ctx context.Context, st store.Store, id string, version int, grants []any) (bool, error) {
	doc, err := st.Collection(runs.Versions).Get(ctx, runs.VersionID(id, version), "credentials")
	if errors.Is(err, store.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	recorded, _ := doc["credentials"].([]any)
	a, _ := json.Marshal(recorded)
	b, _ := json.Marshal(grants)
	return len(recorded) == len(grants) && (len(grants) == 0 || string(a) == string(b)), nil
}
