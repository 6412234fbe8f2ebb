package workflows

import (
	"fmt"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"platform/workflows/contract"
)

const (
	// resealBatchesPerRun bounds one run's history; the rotation goes on
	// as new from its cursor.
	resealBatchesPerRun = 100
	// maxRotationPasses: values still appearing under the old key after
	// that many passes mean a process keeps sealing with it.
	maxRotationPasses = 10
)

// RotateMasterKey re-seals every sealed value under the new master key
// (in.KeyID), a bounded batch per activity call, from a cursor carried
// across continue-as-new: terminated or interrupted, it is started again
// and goes on (a value already under the new key is skipped). It ends
// after a whole pass re-sealed nothing, so values written meanwhile by a
// process still sealing with the old key are caught, and then records the
// new key as the store's. Its activities retry until the worker seals
// with the new key (a worker not restarted yet).
func RotateMasterKey(ctx workflow.Context, in contract.RotateMasterKeyInput) (contract.RotateMasterKeyResult, error) {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		// A batch takes seconds (200 values at about 30 ms a write on the
		// slowest store); a worker killed mid-batch is noticed this soon.
		StartToCloseTimeout: 30 * time.Second,
		RetryPolicy: &temporal.RetryPolicy{InitialInterval: time.Second, BackoffCoefficient: 2, MaximumInterval: time.Minute,
			NonRetryableErrorTypes: []string{contract.ErrSealedValueUnreadable}},
	})
	if in.Pass == 0 {
		in.Pass = 1
	}
	for range resealBatchesPerRun {
		var r contract.ResealBatchResult
		if err := workflow.ExecuteActivity(ctx, contract.ActivityResealBatch, contract.ResealBatchInput{KeyID: in.KeyID, Cursor: in.Cursor, Batch: in.Batch}).Get(ctx, &r); err != nil {
			return rotationResult(in), err
		}
		in.Cursor, in.Scanned, in.Resealed, in.PassResealed = r.Next, in.Scanned+r.Scanned, in.Resealed+r.Resealed, in.PassResealed+r.Resealed
		if !r.Done {
			continue
		}
		if in.PassResealed == 0 {
			err := workflow.ExecuteActivity(ctx, contract.ActivityFinishMasterKeyRotation, contract.FinishMasterKeyRotationInput{KeyID: in.KeyID}).Get(ctx, nil)
			return rotationResult(in), err
		}
		if in.Pass >= maxRotationPasses {
			return rotationResult(in), temporal.NewNonRetryableApplicationError(fmt.Sprintf(
				"pass %d still re-sealed %d values: a process keeps sealing with the old master key; restart every api and worker process with the new key and start the rotation again", in.Pass, in.PassResealed),
				"OldKeyStillInUse", nil)
		}
		in.Pass, in.PassResealed, in.Cursor = in.Pass+1, 0, contract.ResealCursor{}
	}
	return rotationResult(in), workflow.NewContinueAsNewError(ctx, contract.WorkflowRotateMasterKey, in)
}

func rotationResult(in contract.RotateMasterKeyInput) contract.RotateMasterKeyResult {
	return contract.RotateMasterKeyResult{KeyID: in.KeyID, Passes: in.Pass, Scanned: in.Scanned, Resealed: in.Resealed}
}
