// Package computing holds the activities of the computing action
// workflow: ask the provider for a move, read the machine, settle the
// entity.
package computing

import (
	"context"
	"errors"

	"go.temporal.io/sdk/temporal"

	"platform/kernel/outbound"
	"platform/kernel/resource"
	"platform/modules/config/computing"
	"platform/workflows/contract"
)

// Activities serve the computing workflow through the config module's
// computing service.
type Activities struct {
	Entities *computing.Entities
}

// ComputingRequest asks the provider for the move.
func (a *Activities) ComputingRequest(ctx context.Context, in contract.ComputingActionInput) (contract.ComputingMachine, error) {
	m, err := a.Entities.Request(ctx, in)
	return m, final(err)
}

// ComputingRead reads the machine at the provider.
func (a *Activities) ComputingRead(ctx context.Context, in contract.ComputingActionInput) (contract.ComputingMachine, error) {
	m, err := a.Entities.Read(ctx, in)
	return m, final(err)
}

// ComputingSettle writes the outcome into the entity.
func (a *Activities) ComputingSettle(ctx context.Context, in contract.ComputingSettleInput) error {
	return a.Entities.Settle(ctx, in)
}

// final marks the errors that fail the same way when repeated (a refused
// move, an unknown machine, a rejected request, an entity gone) so the
// workflow settles at once; the rest (network, 5xx, 429, the store) are
// retried by the activity's policy.
func final(err error) error {
	var perm *outbound.PermanentError
	switch {
	case err == nil:
		return nil
	case errors.Is(err, computing.ErrRefused), errors.Is(err, computing.ErrUnknownMachine), errors.Is(err, computing.ErrNoProvider), errors.As(err, &perm),
		resource.KindOf(err) == resource.KindNotFound:
		return temporal.NewNonRetryableApplicationError(err.Error(), contract.ErrTypeComputingFailed, nil)
	}
	var retry *outbound.RetryableError
	if errors.As(err, &retry) && retry.RetryAfter > 0 {
		return temporal.NewApplicationErrorWithOptions(err.Error(), "ComputingBusy", temporal.ApplicationErrorOptions{NextRetryDelay: retry.RetryAfter})
	}
	return err
}
