package app

import (
	"context"
	"fmt"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"

	"platform/activities/masterkey"
	"platform/workflows/contract"
)

// masterKeyActivities re-seal with the process's vault; nil without a
// master key (the rotation's activities then wait for a worker that has
// one).
func (a *App) masterKeyActivities() *masterkey.Activities {
	if a.Vault == nil {
		return nil
	}
	return &masterkey.Activities{Store: a.Store, Vault: a.Vault}
}

// StartMasterKeyRotation starts the rotation to the vault's current key,
// or finds the one already running: the workflow id is the key's, so a
// second start (an operator running the command again after an
// interruption) attaches to it, and one that ended is started afresh and
// goes on where the values stand. batch 0 takes the worker's default.
func (a *App) StartMasterKeyRotation(ctx context.Context, batch int) (client.WorkflowRun, error) {
	if a.Vault == nil {
		return nil, fmt.Errorf("no master key in this process: set PLATFORM_MASTER_KEY to the new key")
	}
	return StartMasterKeyRotation(ctx, a.Temporal, a.Config.TaskQueue, a.Vault.KeyID(), batch)
}

// StartMasterKeyRotation starts (or finds) the rotation to keyID on c.
func StartMasterKeyRotation(ctx context.Context, c client.Client, taskQueue, keyID string, batch int) (client.WorkflowRun, error) {
	return c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{
		ID: contract.MasterKeyRotationWorkflowID(keyID), TaskQueue: contract.QueueOf(taskQueue, contract.WorkflowRotateMasterKey),
		WorkflowIDConflictPolicy: enumspb.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING,
		WorkflowIDReusePolicy:    enumspb.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE,
	}, contract.WorkflowRotateMasterKey, contract.RotateMasterKeyInput{KeyID: keyID, Batch: batch})
}
