// Package credentials holds the activity of the credential commands
// (test, refresh, revoke; workflows.CredentialCommand): it opens a
// credential's sealed values, calls its type's provider and records the
// outcome on the credential through the record service. The clear values
// live only inside the activity: never in its input, result, errors or
// log lines.
package credentials

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"go.temporal.io/sdk/temporal"

	"platform/kernel/auth"
	"platform/kernel/query"
	"platform/kernel/resource"
	"platform/kernel/store"
	"platform/kernel/tenant"
	vault "platform/modules/config/credentials"
	"platform/modules/config/credentials/provider"
	"platform/workflows/contract"
)

// Activities run the credential commands.
type Activities struct {
	Service   *resource.Service
	Vault     *vault.Vault
	Providers provider.Set
	Log       *slog.Logger
}

// events: the verb each command's recorded outcome emits
// (credentials.tested, credentials.refreshed, credentials.revoked).
var events = map[string]string{
	contract.CredentialTest: "tested", contract.CredentialRefresh: "refreshed", contract.CredentialRevoke: "revoked",
}

// RunCredentialCommand runs in.Command on the credential.
func (a *Activities) RunCredentialCommand(ctx context.Context, in contract.CredentialCommandInput) (contract.CredentialCommandResult, error) {
	if _, ok := events[in.Command]; !ok {
		return contract.CredentialCommandResult{}, temporal.NewNonRetryableApplicationError("unknown credential command "+in.Command, "BadCommand", nil)
	}
	doc, err := a.Service.Store.Collection(vault.Collection).Get(ctx, in.CredentialID)
	if errors.Is(err, store.ErrNotFound) {
		return contract.CredentialCommandResult{Outcome: contract.CredentialGone, Reason: "the credential was deleted"}, nil
	}
	if err != nil {
		return contract.CredentialCommandResult{}, err
	}
	if res, stop := a.refusal(doc); stop {
		return res, nil
	}
	plain, unreadable, err := a.open(ctx, doc)
	if err != nil || unreadable != "" {
		return contract.CredentialCommandResult{Outcome: contract.CredentialUnreadable, Reason: unreadable}, err
	}
	typ, _ := doc["type"].(string)
	call := a.call(ctx, a.Providers[typ], in.Command, plain)
	return a.record(ctx, in, typ, call)
}

// refusal is the answer to a command the credential's state or type
// does not allow.
func (a *Activities) refusal(doc store.Doc) (contract.CredentialCommandResult, bool) {
	typ, _ := doc["type"].(string)
	switch {
	case doc["_status"] == vault.StatusRevoked:
		return contract.CredentialCommandResult{Outcome: contract.CredentialConflict,
			Reason: "the credential is revoked: it can no longer be tested, refreshed or revoked; store new values in a new credential"}, true
	case a.Providers[typ] == nil:
		return contract.CredentialCommandResult{Outcome: contract.CredentialConflict, Field: "type",
			Reason: fmt.Sprintf("no provider serves credentials of type %q; the commands support %v", typ, a.Providers.Types())}, true
	}
	return contract.CredentialCommandResult{}, false
}

// open decrypts the values, or says why they cannot be read.
func (a *Activities) open(ctx context.Context, doc store.Doc) (map[string]any, string, error) {
	if a.Vault == nil {
		return nil, "this worker has no master key (PLATFORM_MASTER_KEY), so it cannot open credentials", nil
	}
	cust, err := tenant.Customer(ctx)
	if err != nil {
		return nil, "", err
	}
	id, _ := doc["_id"].(string)
	sealed, _ := doc[vault.Field].(map[string]any)
	plain, err := a.Vault.Open(cust, id, sealed)
	if err != nil {
		a.Log.WarnContext(ctx, "credential command: the stored values do not open", "credential", id, "error", err)
		return nil, "the stored credentials cannot be decrypted: they were altered or sealed under another master key", nil
	}
	return plain, "", nil
}

// outcome is what a provider call gave.
type outcome struct {
	err    error
	values map[string]any // refresh: the new values
	remote bool           // revoke: the service revoked it
}

func (a *Activities) call(ctx context.Context, p provider.Provider, command string, v map[string]any) outcome {
	ctx, cancel := context.WithTimeout(ctx, 2*provider.Timeout)
	defer cancel()
	var o outcome
	switch command {
	case contract.CredentialTest:
		o.err = p.Test(ctx, v)
	case contract.CredentialRefresh:
		o.values, o.err = p.Refresh(ctx, v)
	case contract.CredentialRevoke:
		o.remote, o.err = p.Revoke(ctx, v)
	}
	return o
}

// record writes the outcome onto the credential and answers it.
func (a *Activities) record(ctx context.Context, in contract.CredentialCommandInput, typ string, o outcome) (contract.CredentialCommandResult, error) {
	var invalid *provider.InvalidError
	var failure *provider.Failure
	switch {
	case errors.As(o.err, &invalid):
		return contract.CredentialCommandResult{Outcome: contract.CredentialInvalid, Field: invalid.Field, Reason: invalid.Reason}, nil
	case errors.Is(o.err, provider.ErrUnsupported):
		return contract.CredentialCommandResult{Outcome: contract.CredentialConflict,
			Reason: fmt.Sprintf("credentials of type %s cannot be %s", typ, pastTense[in.Command])}, nil
	case errors.As(o.err, &failure):
		a.Log.InfoContext(ctx, "credential command failed", "credential", in.CredentialID, "command", in.Command, "reason", failure.Reason)
		return a.apply(ctx, in, failed(in.Command, failure), contract.CredentialCommandResult{Outcome: contract.CredentialFail, Reason: failure.Reason})
	case o.err != nil:
		return contract.CredentialCommandResult{}, o.err
	}
	change, err := a.succeeded(ctx, in, o)
	if err != nil {
		return contract.CredentialCommandResult{}, err
	}
	return a.apply(ctx, in, change, contract.CredentialCommandResult{Outcome: contract.CredentialOK, Remote: o.remote})
}

var pastTense = map[string]string{contract.CredentialTest: "tested", contract.CredentialRefresh: "refreshed", contract.CredentialRevoke: "revoked"}

// failed is what a refused command records: a test or refresh is a
// failed test (lastTestError says why); a refresh the provider answers
// invalid_grant expires the credential; a failed revoke changes nothing.
func failed(command string, f *provider.Failure) *resource.Change {
	if command == contract.CredentialRevoke {
		return nil
	}
	set := store.Doc{"lastTestedAt": now(), "lastTestStatus": "fail", "lastTestError": f.Reason}
	if command == contract.CredentialRefresh && f.Expired {
		set["_status"] = vault.StatusExpired
	}
	return &resource.Change{Set: set}
}

// succeeded is what a command that worked records; a refresh seals the
// new values back into the credential and makes it active again.
func (a *Activities) succeeded(ctx context.Context, in contract.CredentialCommandInput, o outcome) (*resource.Change, error) {
	tested := store.Doc{"lastTestedAt": now(), "lastTestStatus": "ok"}
	clearError := []string{"lastTestError"}
	switch in.Command {
	case contract.CredentialRevoke:
		return &resource.Change{Set: store.Doc{"_status": vault.StatusRevoked}}, nil
	case contract.CredentialRefresh:
		cust, err := tenant.Customer(ctx)
		if err != nil {
			return nil, err
		}
		sealed, err := a.Vault.Seal(cust, in.CredentialID, o.values)
		if err != nil {
			return nil, err
		}
		tested[vault.Field], tested["_status"] = sealed, vault.StatusActive
	}
	return &resource.Change{Set: tested, Unset: clearError}, nil
}

// apply makes change unless the credential was revoked or deleted
// meanwhile (a revoke is final), emitting the command's event.
func (a *Activities) apply(ctx context.Context, in contract.CredentialCommandInput, change *resource.Change, res contract.CredentialCommandResult) (contract.CredentialCommandResult, error) {
	if change == nil {
		return res, nil
	}
	r := a.Service.Registry.Get("config", vault.Collection)
	if r == nil {
		return res, errors.New("credentials: the config module is not mounted in this worker")
	}
	ctx = auth.WithPrincipal(ctx, &auth.Principal{User: in.Actor, Subject: in.Actor})
	where := query.AllOf(query.ID(in.CredentialID), query.Field{Path: "_status", Conds: []query.Cond{query.Compare{Op: query.OpNe, Value: vault.StatusRevoked}}})
	change.Event = events[in.Command]
	_, err := a.Service.Apply(ctx, r, where, *change)
	if resource.KindOf(err) == resource.KindNotFound {
		return contract.CredentialCommandResult{Outcome: contract.CredentialConflict, Reason: "the credential was revoked or deleted while the command ran"}, nil
	}
	return res, err
}

func now() time.Time { return time.Now().UTC().Truncate(time.Millisecond) }
