package pipelines

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"

	"platform/kernel/auth"
	"platform/kernel/store"
	"platform/modules/audit/trail"
	"platform/modules/automation/pipeline"
	"platform/modules/automation/runs"
	"platform/modules/config/credentials"
	"platform/modules/identity"
	"platform/workflows/contract"
)

// AuditSecretRead is the audit action of a pipeline run reading a credential.
const AuditSecretRead = "automation.pipelines.secret_read"

// readSecrets decrypts the credentials the step references, and no other,
// after making sure the audit trail holds the record of this run reading
// each of them: no clear value is read without a trace (a failed audit
// write fails the attempt, which is retried), and a worker without an
// audit trail reads none.
func (a *Activities) readSecrets(ctx context.Context, in contract.StepInput, names []string) (map[string]any, error) {
	if a.Audit == nil {
		return nil, stepFailure("secrets", "secrets are not available in this worker: it has no audit trail to record the read", true, nil)
	}
	for _, name := range names {
		if err := a.Audit.Write(ctx, secretReadRecord(ctx, in, name)); err != nil {
			return nil, err
		}
	}
	return a.Secrets.Secrets(ctx, a.Store, names)
}

// secretReadRecord is the one record of a run reading a credential: its
// id comes from the run and the credential, so later steps and retries
// of the run find it written and add none. Its details name the step and
// attempt of the first read.
func secretReadRecord(ctx context.Context, in contract.StepInput, name string) trail.Record {
	return trail.Record{
		ID:    secretReadID(in.RunID, name),
		Actor: in.Pipeline, ActorType: "pipeline", Action: AuditSecretRead, Target: name, Outcome: trail.Success,
		Details: map[string]any{"pipeline": in.Pipeline, "run": in.RunID, "credential": name, "step": in.Step.ID, "attempt": int64(attemptOf(ctx))},
	}
}

// secretReadID is a record id (24 hexadecimal characters) that only this
// run and credential name give.
func secretReadID(run, credential string) string {
	sum := sha256.Sum256([]byte("automation.pipelines.secret_read\x00" + run + "\x00" + credential))
	return hex.EncodeToString(sum[:12])
}

// checkCredentialGrants re-checks, as a run starts, the credentials its
// version reads: each must be the credential the author was entitled to
// when the version was frozen (same id under that name, still active),
// and an author who is a user must still hold the right to use
// credentials. Manual runs were checked against their caller too
// (automation's run action); event, cron and webhook runs have no caller,
// so the author's standing grant is what they run on.
func (a *Activities) checkCredentialGrants(ctx context.Context, pipelineID string, version int, def *contract.Definition) error {
	names := pipeline.CredentialRefs(def)
	if len(names) == 0 {
		return nil
	}
	doc, err := a.Store.Collection(runs.Versions).Get(ctx, runs.VersionID(pipelineID, version), "credentials", "createdBy")
	if err != nil {
		return err
	}
	granted := grantedCredentials(doc)
	for _, name := range names {
		id, ok := granted[name]
		if !ok {
			return refused("version %d reads credential %q but records no grant for it (it was saved before credentials needed a right): save the pipeline again", version, name)
		}
		why, err := a.credentialStands(ctx, id, name)
		if err != nil {
			return err
		}
		if why != "" {
			return refused("%s", why)
		}
	}
	return a.authorStillMayUse(ctx, doc)
}

func grantedCredentials(version store.Doc) map[string]string {
	out := map[string]string{}
	grants, _ := version["credentials"].([]any)
	for _, g := range grants {
		if d, ok := g.(map[string]any); ok {
			name, _ := d["name"].(string)
			id, _ := d["id"].(string)
			out[name] = id
		}
	}
	return out
}

// credentialStands is "" when the credential granted is still there,
// under its name and active.
func (a *Activities) credentialStands(ctx context.Context, id, name string) (string, error) {
	doc, err := a.Store.Collection(credentials.Collection).Get(ctx, id, "name", "_status")
	if errors.Is(err, store.ErrNotFound) {
		return fmt.Sprintf("credential %q was deleted since the version was saved", name), nil
	}
	if err != nil {
		return "", err
	}
	if doc["name"] != name {
		return fmt.Sprintf("credential %q was renamed since the version was saved", name), nil
	}
	if doc["_status"] != credentials.StatusActive {
		return fmt.Sprintf("credential %q is %v", name, doc["_status"]), nil
	}
	return "", nil
}

// authorStillMayUse refuses a run when the version's author is a user of
// the customer who no longer holds the right (an app author's grant was
// checked against its token when it saved).
func (a *Activities) authorStillMayUse(ctx context.Context, version store.Doc) error {
	author, _ := version["createdBy"].(string)
	if !store.ValidID(author) {
		return nil // an app (client id) or the platform
	}
	ids := &identity.Service{Store: a.Store}
	u, err := ids.UserByID(ctx, author)
	if errors.Is(err, store.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	rights, err := ids.EffectiveRights(ctx, u)
	if err != nil {
		return err
	}
	holds := &auth.Principal{Scopes: rights}
	if !credentials.MayUse(holds.Allows) {
		return refused("the version's author no longer holds %s (or %s)", credentials.RightUse, credentials.RightDecrypt)
	}
	return nil
}

// refused fails the run start for good with a reason the run record
// shows (a step failure's details are what the workflow records).
func refused(format string, args ...any) error {
	msg := "the run may not read its credentials: " + fmt.Sprintf(format, args...)
	return contract.StepFailure(contract.StepError{Kind: "credential_refused", Message: msg}, true, nil, nil, nil)
}
