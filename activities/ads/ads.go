// Package ads holds the activities of the advertising workflows: a sync
// run's plan, pages and outcome, and the push of a change.
package ads

import (
	"context"
	"errors"

	"go.temporal.io/sdk/temporal"

	"platform/kernel/outbound"
	"platform/kernel/resource"
	"platform/modules/ads/adsapi"
	"platform/modules/ads/adsync"
	"platform/workflows/contract"
)

// Activities serve the ads workflows through the ads service.
type Activities struct {
	Ads *adsync.Service
}

// AdsSyncBegin plans a run.
func (a *Activities) AdsSyncBegin(ctx context.Context, in contract.AdsSyncBeginInput) (contract.AdsSyncPlan, error) {
	return a.Ads.Begin(ctx, in)
}

// AdsSyncPage copies one page.
func (a *Activities) AdsSyncPage(ctx context.Context, in contract.AdsSyncPageInput) (contract.AdsSyncPageResult, error) {
	res, err := a.Ads.Page(ctx, in)
	return res, classify(err)
}

// AdsSyncFinish records the run.
func (a *Activities) AdsSyncFinish(ctx context.Context, in contract.AdsSyncFinishInput) error {
	return a.Ads.Finish(ctx, in)
}

// AdsPushRecord pushes a change (or records its conflict).
func (a *Activities) AdsPushRecord(ctx context.Context, in contract.AdsPushInput) error {
	return classify(a.Ads.Push(ctx, in))
}

// AdsPushFailed records a push that failed for good.
func (a *Activities) AdsPushFailed(ctx context.Context, in contract.AdsPushFailedInput) error {
	return a.Ads.PushFailed(ctx, in)
}

// classify marks the errors repeating cannot cure: a refused refresh
// token (the connection must be authorized again) and a request the
// platform rejected. A 429 or 5xx is retried after the platform's
// Retry-After; the rest (network, store) by the retry policy.
func classify(err error) error {
	var perm *outbound.PermanentError
	var retry *outbound.RetryableError
	switch {
	case err == nil:
		return nil
	case errors.Is(err, adsapi.ErrRevoked):
		return temporal.NewNonRetryableApplicationError(err.Error(), contract.ErrTypeAdsRevoked, nil)
	case errors.As(err, &perm), errors.Is(err, adsapi.ErrNotFound), errors.Is(err, adsync.ErrNoProvider), errors.Is(err, adsync.ErrNoVault),
		resource.KindOf(err) == resource.KindNotFound:
		return temporal.NewNonRetryableApplicationError(err.Error(), contract.ErrTypeAdsRejected, nil)
	case errors.As(err, &retry) && retry.RetryAfter > 0:
		return temporal.NewApplicationErrorWithOptions(err.Error(), "AdsBusy", temporal.ApplicationErrorOptions{NextRetryDelay: retry.RetryAfter})
	}
	return err
}
