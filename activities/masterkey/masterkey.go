// Package masterkey holds the activities of the master key rotation
// (workflows.RotateMasterKey): re-sealing batches of stored values under
// the worker's current key, and recording the new key in the store.
package masterkey

import (
	"context"
	"errors"

	"go.temporal.io/sdk/temporal"

	"platform/kernel/store"
	"platform/modules/config/credentials"
	"platform/workflows/contract"
)

// DefaultBatch is how many sealed values one ResealBatch call reads.
const DefaultBatch = 200

// MaxBatch bounds a batch asked for in the input.
const MaxBatch = 1000

// Activities re-seal with the worker's vault.
type Activities struct {
	Store store.Store
	Vault *credentials.Vault
	Batch int // default DefaultBatch
}

// ResealBatch re-seals one batch from the cursor. A worker that does not
// seal with the rotation's key yet fails it, to be retried once it was
// restarted with the key; a value no key opens stops the rotation.
func (a *Activities) ResealBatch(ctx context.Context, in contract.ResealBatchInput) (contract.ResealBatchResult, error) {
	batch := in.Batch
	if batch <= 0 {
		batch = a.Batch
	}
	if batch <= 0 || batch > MaxBatch {
		batch = DefaultBatch
	}
	r, err := a.Vault.ResealBatch(ctx, a.Store, in.KeyID, credentials.ResealCursor(in.Cursor), batch)
	if errors.Is(err, credentials.ErrAuth) || errors.Is(err, credentials.ErrMalformed) {
		return contract.ResealBatchResult{}, temporal.NewNonRetryableApplicationError(err.Error(), contract.ErrSealedValueUnreadable, nil)
	}
	if err != nil {
		return contract.ResealBatchResult{}, err
	}
	return contract.ResealBatchResult{Next: contract.ResealCursor(r.Next), Done: r.Done, Scanned: r.Scanned, Resealed: r.Resealed}, nil
}

// FinishMasterKeyRotation records the worker's key as the store's.
func (a *Activities) FinishMasterKeyRotation(ctx context.Context, in contract.FinishMasterKeyRotationInput) error {
	if a.Vault.KeyID() != in.KeyID {
		return credentials.ErrNotCurrentKey
	}
	return a.Vault.MarkRotated(ctx, a.Store)
}
