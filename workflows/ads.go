package workflows

import (
	"errors"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"platform/workflows/contract"
)

// maxAdsPages bounds one run's history; a larger account continues as new
// at the page it reached.
const maxAdsPages = 400

// adsPageOptions: a page is retried with back-off (a 429's Retry-After is
// the next delay the activity asks for); a revoked token or a rejected
// request is final. A platform down for long fails the run, which the
// connection then shows; the next tick tries again.
var adsPageOptions = workflow.ActivityOptions{
	StartToCloseTimeout: 2 * time.Minute,
	RetryPolicy: &temporal.RetryPolicy{InitialInterval: time.Second, BackoffCoefficient: 2, MaximumInterval: time.Minute, MaximumAttempts: 10,
		NonRetryableErrorTypes: []string{contract.ErrTypeAdsRevoked, contract.ErrTypeAdsRejected}},
}

// adsStoreOptions: a bookkeeping write is retried until the store answers.
var adsStoreOptions = workflow.ActivityOptions{
	StartToCloseTimeout: 30 * time.Second,
	RetryPolicy:         &temporal.RetryPolicy{InitialInterval: time.Second, MaximumInterval: time.Minute},
}

// AdsSync copies one connection's entities and metrics stage by stage, a
// page per activity, and records the outcome on the connection.
func AdsSync(ctx workflow.Context, in contract.AdsSyncInput) error {
	sctx := workflow.WithActivityOptions(ctx, adsStoreOptions)
	if in.Plan == nil {
		var plan contract.AdsSyncPlan
		if err := workflow.ExecuteActivity(sctx, contract.ActivityAdsSyncBegin, contract.AdsSyncBeginInput{ConnectionID: in.ConnectionID}).Get(sctx, &plan); err != nil {
			return faultReported(ctx, "workflow AdsSync, begin", err)
		}
		if plan.Skip {
			return nil
		}
		in.Plan = &plan
	}
	err := adsStages(ctx, &in)
	var can *workflow.ContinueAsNewError
	if errors.As(err, &can) {
		return err
	}
	return finishAdsSync(ctx, in, err)
}

// adsStages runs the stages from where in stands; it continues as new
// once a run has read maxAdsPages pages.
func adsStages(ctx workflow.Context, in *contract.AdsSyncInput) error {
	pctx := workflow.WithActivityOptions(ctx, adsPageOptions)
	for pages := 0; in.Stage < len(contract.AdsStages); pages++ {
		if pages == maxAdsPages {
			return workflow.NewContinueAsNewError(ctx, contract.WorkflowAdsSync, *in)
		}
		var res contract.AdsSyncPageResult
		page := contract.AdsSyncPageInput{ConnectionID: in.ConnectionID, Plan: *in.Plan, Stage: contract.AdsStages[in.Stage], PageToken: in.PageToken}
		if err := workflow.ExecuteActivity(pctx, contract.ActivityAdsSyncPage, page).Get(pctx, &res); err != nil {
			return err
		}
		addProgress(&in.Progress, res)
		in.PageToken = res.Next
		if res.Next == "" {
			in.Stage++
		}
	}
	return nil
}

func addProgress(p *contract.AdsSyncProgress, res contract.AdsSyncPageResult) {
	p.Entities += res.Entities
	p.MetricRows += res.MetricRows
	p.Conflicts += res.Conflicts
	if res.MaxModified.After(p.MaxModified) {
		p.MaxModified = res.MaxModified
	}
}

// finishAdsSync records the run: the cursor moves only after a success; a
// revoked token moves the connection to its error state.
func finishAdsSync(ctx workflow.Context, in contract.AdsSyncInput, err error) error {
	out := contract.AdsSyncFinishInput{ConnectionID: in.ConnectionID, Plan: *in.Plan, Progress: in.Progress}
	if err != nil {
		out.Failure = computingFailure(err)
		var app *temporal.ApplicationError
		out.Revoked = errors.As(err, &app) && app.Type() == contract.ErrTypeAdsRevoked
	}
	sctx := workflow.WithActivityOptions(ctx, adsStoreOptions)
	if ferr := workflow.ExecuteActivity(sctx, contract.ActivityAdsSyncFinish, out).Get(sctx, nil); ferr != nil {
		return faultReported(ctx, "workflow AdsSync, finish", ferr)
	}
	return nil
}

// adsPushOptions: the platform may be down or busy for a while; a
// conflict is an outcome the activity records, not an error.
var adsPushOptions = workflow.ActivityOptions{
	StartToCloseTimeout: time.Minute,
	RetryPolicy: &temporal.RetryPolicy{InitialInterval: 2 * time.Second, BackoffCoefficient: 2, MaximumInterval: 5 * time.Minute, MaximumAttempts: 12,
		NonRetryableErrorTypes: []string{contract.ErrTypeAdsRevoked, contract.ErrTypeAdsRejected}},
}

// AdsPush sends one version of a campaign or ad group to the platform; a
// push that fails for good is recorded on the record.
func AdsPush(ctx workflow.Context, in contract.AdsPushInput) error {
	pctx := workflow.WithActivityOptions(ctx, adsPushOptions)
	err := workflow.ExecuteActivity(pctx, contract.ActivityAdsPushRecord, in).Get(pctx, nil)
	if err == nil {
		return nil
	}
	sctx := workflow.WithActivityOptions(ctx, adsStoreOptions)
	failed := contract.AdsPushFailedInput{Plural: in.Plural, RecordID: in.RecordID, Version: in.Version, Failure: computingFailure(err)}
	if ferr := workflow.ExecuteActivity(sctx, contract.ActivityAdsPushFailed, failed).Get(sctx, nil); ferr != nil {
		return faultReported(ctx, "workflow AdsPush, failed", ferr)
	}
	return nil
}
