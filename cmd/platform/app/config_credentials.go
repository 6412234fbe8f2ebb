package app

import (
	"context"
	"errors"
	"time"

	"go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	credacts "platform/activities/credentials"
	"platform/kernel/temporalx"
	"platform/kernel/tenant"
	"platform/modules/config"
	"platform/modules/config/credentials/provider"
	"platform/workflows/contract"
)

var _ config.Commands = (*credentialCommands)(nil)

// credentialCommands starts the credential command workflows and waits
// for their results.
type credentialCommands struct {
	client    client.Client
	taskQueue string
	wait      time.Duration
}

// credentialCommands is nil without a Temporal client (the commands then
// answer 503) and for the declarations alone (Modules).
func (a *App) credentialCommands() config.Commands {
	if a.Temporal == nil || a.Config == nil {
		return nil
	}
	return &credentialCommands{client: a.Temporal, taskQueue: a.Config.TaskQueue, wait: config.CommandWait}
}

// credentialActivities run the commands, with every provider call going
// through the outbound guard.
func (a *App) credentialActivities() *credacts.Activities {
	g := a.Outbound
	return &credacts.Activities{Service: a.Service, Vault: a.Vault, Log: a.Log,
		Providers: provider.New(provider.Deps{HTTP: g.Client(provider.Timeout), Dial: g.DialContext})}
}

// Run starts the command under the credential's one command id (a second
// command while one runs is refused, so two refreshes never race with
// one refresh token) and waits at most c.wait for its result.
func (c *credentialCommands) Run(ctx context.Context, in contract.CredentialCommandInput) (contract.CredentialCommandResult, error) {
	var out contract.CredentialCommandResult
	customer, err := tenant.Customer(ctx)
	if err != nil {
		return out, err
	}
	run, err := c.client.ExecuteWorkflow(ctx, client.StartWorkflowOptions{
		ID:                                       contract.CredentialCommandWorkflowID(customer, in.CredentialID),
		TaskQueue:                                contract.QueueOf(c.taskQueue, contract.WorkflowCredentialCommand),
		Priority:                                 temporalx.Fairness(ctx),
		WorkflowIDReusePolicy:                    enums.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE,
		WorkflowExecutionErrorWhenAlreadyStarted: true,
		TypedSearchAttributes:                    contract.CustomerAttributes(customer),
	}, contract.WorkflowCredentialCommand, in)
	if temporal.IsWorkflowExecutionAlreadyStartedError(err) {
		return out, config.ErrCommandRunning
	}
	if err != nil {
		return out, err
	}
	wctx, cancel := context.WithTimeout(ctx, c.wait)
	defer cancel()
	err = run.Get(wctx, &out)
	if errors.Is(wctx.Err(), context.DeadlineExceeded) && ctx.Err() == nil {
		return out, config.ErrCommandPending
	}
	return out, err
}
