// Package worker registers the platform's workflows and activities on a
// Temporal worker, each under its name in package contract: the one list
// of what a worker runs, used by the worker process, the replay tests and
// the workflow tests. A worker process runs a Group: one Temporal worker
// per kind of work, each on its kind's task queue with its own slots.
package worker

import (
	"go.temporal.io/sdk/activity"
	sdkworker "go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"platform/activities/ads"
	"platform/activities/aggregation"
	"platform/activities/computing"
	"platform/activities/coupons"
	"platform/activities/credentials"
	"platform/activities/delivery"
	"platform/activities/maintenance"
	"platform/activities/masterkey"
	"platform/activities/newsletters"
	"platform/activities/notifications"
	"platform/activities/pipelines"
	"platform/activities/rendering"
	"platform/activities/system"
	"platform/workflows"
	"platform/workflows/contract"
)

// Activities are the activities of each workflow family, with their
// dependencies (the composition root, app, builds them). A nil family is
// not registered: a test that runs one family's workflows builds only its
// activities.
type Activities struct {
	System      *system.Activities
	Delivery    *delivery.Activities
	Pipelines   *pipelines.Activities
	Maintenance *maintenance.Activities
	Coupons     *coupons.Activities
	Newsletters *newsletters.Activities
	Rendering   *rendering.Activities
	// Notifications send routed notifications.
	Notifications *notifications.Activities
	// Credentials run the credential commands (test, refresh, revoke).
	Credentials *credentials.Activities
	// Computing moves computing entities through their provider.
	Computing *computing.Activities
	// MasterKey re-seals stored secrets under a new master key.
	MasterKey *masterkey.Activities
	// Ads sync advertising accounts and push their changes.
	Ads *ads.Activities
	// Aggregation keeps the read models (docs/aggregation.md).
	Aggregation *aggregation.Activities
}

// Register registers every workflow and the activities of acts under
// their contract names.
func Register(r sdkworker.Registry, acts Activities) {
	RegisterWorkflows(r)
	if acts.System != nil {
		registerActivities(r, systemActivities(acts.System))
	}
	if acts.Delivery != nil {
		registerActivities(r, deliveryActivities(acts.Delivery))
	}
	if acts.Pipelines != nil {
		registerActivities(r, pipelineActivities(acts.Pipelines))
	}
	if acts.Maintenance != nil {
		registerActivities(r, maintenanceActivities(acts.Maintenance))
	}
	if acts.Coupons != nil {
		registerActivities(r, couponActivities(acts.Coupons))
	}
	if acts.Newsletters != nil {
		registerActivities(r, newsletterActivities(acts.Newsletters))
	}
	if acts.Rendering != nil {
		registerActivities(r, renderActivities(acts.Rendering))
	}
	if acts.Notifications != nil {
		registerActivities(r, []named{
			{contract.ActivitySendNotification, acts.Notifications.SendNotification},
			{contract.ActivitySettleNotification, acts.Notifications.SettleNotification},
		})
	}
	if acts.Credentials != nil {
		registerActivities(r, []named{{contract.ActivityRunCredentialCommand, acts.Credentials.RunCredentialCommand}})
	}
	if acts.Computing != nil {
		registerActivities(r, computingActivities(acts.Computing))
	}
	if acts.MasterKey != nil {
		registerActivities(r, masterKeyActivities(acts.MasterKey))
	}
	if acts.Ads != nil {
		registerActivities(r, adsActivities(acts.Ads))
	}
	if acts.Aggregation != nil {
		registerActivities(r, aggregationActivities(acts.Aggregation))
	}
}

// RegisterWorkflows registers every workflow under its contract name; the
// replayer, which runs no activities, needs only these.
func RegisterWorkflows(r sdkworker.WorkflowRegistry) {
	for _, w := range []named{
		{contract.WorkflowSelfCheck, workflows.SelfCheck},
		{contract.WorkflowDispatchEvent, workflows.DispatchEvent},
		{contract.WorkflowWebhookDelivery, workflows.WebhookDelivery},
		{contract.WorkflowWebhookRetrier, workflows.WebhookRetrier},
		{contract.WorkflowPipelineRun, workflows.PipelineRun},
		{contract.WorkflowFireTrigger, workflows.FireTrigger},
		{contract.WorkflowOAuthSweep, workflows.OAuthSweep},
		{contract.WorkflowRetention, workflows.Retention},
		{contract.WorkflowCouponExpiry, workflows.CouponExpiry},
		{contract.WorkflowNewsletterSend, workflows.NewsletterSend},
		{contract.WorkflowRenderRecord, workflows.RenderRecord},
		{contract.WorkflowRenderAffected, workflows.RenderAffected},
		{contract.WorkflowNotificationDelivery, workflows.NotificationDelivery},
		{contract.WorkflowCredentialCommand, workflows.CredentialCommand},
		{contract.WorkflowComputingAction, workflows.ComputingAction},
		{contract.WorkflowRotateMasterKey, workflows.RotateMasterKey},
		{contract.WorkflowAdsSync, workflows.AdsSync},
		{contract.WorkflowAdsPush, workflows.AdsPush},
		{contract.WorkflowAggregator, workflows.Aggregator},
		{contract.WorkflowAggregationRebuild, workflows.AggregationRebuild},
	} {
		r.RegisterWorkflowWithOptions(w.fn, workflow.RegisterOptions{Name: w.name})
	}
}

// named is a workflow or activity function and its contract name.
type named struct {
	name string
	fn   any
}

func registerActivities(r sdkworker.ActivityRegistry, list []named) {
	for _, a := range list {
		r.RegisterActivityWithOptions(a.fn, activity.RegisterOptions{Name: a.name})
	}
}

func systemActivities(a *system.Activities) []named {
	return []named{{contract.ActivitySelfCheck, a.SelfCheck}, {contract.ActivityReportBug, a.ReportBug}}
}

func deliveryActivities(a *delivery.Activities) []named {
	return []named{
		{contract.ActivityEventTargets, a.EventTargets},
		{contract.ActivityLaunchEventRuns, a.LaunchEventRuns},
		{contract.ActivityMarkDispatched, a.MarkDispatched},
		{contract.ActivityDeliverWebhook, a.DeliverWebhook},
		{contract.ActivitySettleDelivery, a.SettleDelivery},
		{contract.ActivityRetryDueDeliveries, a.RetryDueDeliveries},
	}
}

func pipelineActivities(a *pipelines.Activities) []named {
	return []named{
		{contract.ActivityStartRun, a.StartRun},
		{contract.ActivityRecordStep, a.RecordStep},
		{contract.ActivityFinishRun, a.FinishRun},
		{contract.ActivityRunHTTP, a.RunHTTP},
		{contract.ActivityRunDB, a.RunDB},
		{contract.ActivityRunNotification, a.RunNotification},
		{contract.ActivityRunTransform, a.RunTransform},
		{contract.ActivityRunFunction, a.RunFunction},
		{contract.ActivityLaunchTriggerRuns, a.LaunchTriggerRuns},
	}
}

func maintenanceActivities(a *maintenance.Activities) []named {
	return []named{
		{contract.ActivitySweepOAuth, a.SweepOAuth},
		{contract.ActivityPruneRecords, a.PruneRecords},
		{contract.ActivityPruneSubscriptions, a.PruneSubscriptions},
	}
}

func couponActivities(a *coupons.Activities) []named {
	return []named{
		{contract.ActivityCouponDeadline, a.CouponDeadline},
		{contract.ActivityExpireCoupon, a.ExpireCoupon},
	}
}

func renderActivities(a *rendering.Activities) []named {
	return []named{
		{contract.ActivityRender, a.Render},
		{contract.ActivitySignalAffected, a.SignalAffectedRenders},
	}
}

func newsletterActivities(a *newsletters.Activities) []named {
	return []named{
		{contract.ActivityCheckNewsletter, a.CheckNewsletter},
		{contract.ActivityBeginNewsletter, a.BeginNewsletter},
		{contract.ActivitySendNewsletterPage, a.SendNewsletterPage},
		{contract.ActivityFinishNewsletter, a.FinishNewsletter},
	}
}

func computingActivities(a *computing.Activities) []named {
	return []named{
		{contract.ActivityComputingRequest, a.ComputingRequest},
		{contract.ActivityComputingRead, a.ComputingRead},
		{contract.ActivityComputingSettle, a.ComputingSettle},
	}
}

func masterKeyActivities(a *masterkey.Activities) []named {
	return []named{
		{contract.ActivityResealBatch, a.ResealBatch},
		{contract.ActivityFinishMasterKeyRotation, a.FinishMasterKeyRotation},
	}
}

func adsActivities(a *ads.Activities) []named {
	return []named{
		{contract.ActivityAdsSyncBegin, a.AdsSyncBegin},
		{contract.ActivityAdsSyncPage, a.AdsSyncPage},
		{contract.ActivityAdsSyncFinish, a.AdsSyncFinish},
		{contract.ActivityAdsPushRecord, a.AdsPushRecord},
		{contract.ActivityAdsPushFailed, a.AdsPushFailed},
	}
}

func aggregationActivities(a *aggregation.Activities) []named {
	return []named{
		{contract.ActivityApplyAggregation, a.ApplyAggregation},
		{contract.ActivityStartAggregationRebuild, a.StartAggregationRebuild},
		{contract.ActivityRebuildAggregationPage, a.RebuildAggregationPage},
		{contract.ActivityFinishAggregationRebuild, a.FinishAggregationRebuild},
		{contract.ActivityAggregationCustomers, a.AggregationCustomers},
		{contract.ActivityRequestAggregationRebuild, a.RequestAggregationRebuild},
		{contract.ActivityAggregationRebuildsDone, a.AggregationRebuildsDone},
	}
}
