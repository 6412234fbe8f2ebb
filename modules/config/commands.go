package config

import (
	"context"
	"errors"
	"time"

	"platform/kernel/resource"
	"platform/modules/config/credentials"
	"platform/workflows/contract"
)

// RightTest is the right of the test command; refresh and revoke change
// the stored credential and need config.credentials.edit.
const RightTest = "config.credentials.test"

// CommandWait bounds how long a command's answer waits for its workflow.
// The provider call is bounded well below it; past it the workflow goes
// on and its outcome shows on the credential.
const CommandWait = 45 * time.Second

// Commands runs a credential command as a workflow and waits for its
// result (the app's Temporal starter).
type Commands interface {
	Run(ctx context.Context, in contract.CredentialCommandInput) (contract.CredentialCommandResult, error)
}

var (
	// ErrCommandRunning: another command on the credential has not ended.
	ErrCommandRunning = errors.New("config: a command is already running on this credential")
	// ErrCommandPending: the command did not end within CommandWait.
	ErrCommandPending = errors.New("config: the command is still running")
)

// commandActions are test, refresh and revoke.
func (h *handlers) commandActions() []resource.Action {
	return []resource.Action{
		{Name: contract.CredentialTest, Right: RightTest, Run: h.command(contract.CredentialTest),
			Title: "check the credential against its provider (sets lastTestedAt, lastTestStatus)"},
		{Name: contract.CredentialRefresh, Run: h.command(contract.CredentialRefresh),
			Title: "obtain new tokens from the provider and seal them into the credential (oauth2)"},
		{Name: contract.CredentialRevoke, Run: h.command(contract.CredentialRevoke),
			Title: "revoke the credential at its provider (oauth2, RFC 7009) and stop using it"},
	}
}

// command runs one command in its workflow and answers the credential as
// the workflow left it.
func (h *handlers) command(name string) func(context.Context, *resource.ActionCall) (*resource.ActionResult, error) {
	return func(ctx context.Context, call *resource.ActionCall) (*resource.ActionResult, error) {
		if h.d.Commands == nil {
			return nil, resource.Unavailable("credential commands run as workflows, which this process cannot start")
		}
		if h.d.Vault == nil {
			return nil, noVault()
		}
		if call.Record["_status"] == credentials.StatusRevoked {
			return nil, conflict("the credential is revoked: it can no longer be tested, refreshed or revoked; store new values in a new credential")
		}
		res, err := h.d.Commands.Run(ctx, contract.CredentialCommandInput{CredentialID: call.ID, Command: name, Actor: resource.Actor(ctx)})
		if err != nil {
			return nil, commandError(err)
		}
		if err := outcomeError(name, res); err != nil {
			return nil, err
		}
		rec, err := call.Service.Get(ctx, call.Resource, call.ID)
		if err != nil {
			return nil, err
		}
		// The workflow's write emitted credentials.<tested|refreshed|revoked>.
		return &resource.ActionResult{Payload: rec, NoEvent: true}, nil
	}
}

// outcomeError is the answer to an outcome that is not recorded on the
// credential; ok and fail (of test and refresh) are, and answer the record.
func outcomeError(name string, res contract.CredentialCommandResult) error {
	switch res.Outcome {
	case contract.CredentialOK:
		return nil
	case contract.CredentialFail:
		if name == contract.CredentialRevoke {
			return resource.BadUpstream(resource.FieldError(resource.CodeBadUpstream, "", "the credential was not revoked: %s", res.Reason))
		}
		return nil
	case contract.CredentialInvalid:
		return resource.Invalid(resource.FieldError(resource.CodeInvalid, res.Field, "%s %s", res.Field, res.Reason))
	case contract.CredentialGone:
		return resource.NotFound("credential")
	case contract.CredentialUnreadable:
		return resource.Internal(credentials.Field, "%s", res.Reason)
	case contract.CredentialConflict:
		if res.Field != "" {
			return resource.Invalid(resource.FieldError(resource.CodeInvalid, res.Field, "%s", res.Reason))
		}
		return conflict(res.Reason)
	}
	return resource.Internal("", "the command ended with an unknown outcome %q", res.Outcome)
}

func commandError(err error) error {
	switch {
	case errors.Is(err, ErrCommandRunning):
		return conflict("another command is running on this credential; try again when it has ended")
	case errors.Is(err, ErrCommandPending):
		return resource.Unavailable("the command is still running; its outcome will show on the credential (lastTestedAt, lastTestStatus, _status)").WithCause(err)
	}
	return resource.Unavailable("the command could not be run; try again").WithCause(err)
}

func conflict(msg string) error { return resource.Conflict("_status", "%s", msg) }
