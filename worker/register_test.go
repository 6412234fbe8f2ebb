package worker_test

import (
	"testing"

	"github.com/stretchr/testify/require"
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
	"platform/worker"
	"platform/workflows/contract"
)

// TestRegisterKeepsTheRecordedNames: the worker registers exactly these
// workflow and activity types, each by an explicit name. They are the
// names recorded histories and running workflows refer to, so they are
// written out here rather than read from the contract: renaming one there
// fails this test. Nothing is registered by its Go name (a struct's every
// exported method, as DeployedFunction once was).
func TestRegisterKeepsTheRecordedNames(t *testing.T) {
	t.Parallel()
	r := &recorder{}
	worker.Register(r, worker.Activities{System: &system.Activities{}, Delivery: &delivery.Activities{}, Pipelines: &pipelines.Activities{}, Maintenance: &maintenance.Activities{},
		Coupons: &coupons.Activities{}, Newsletters: &newsletters.Activities{}, Rendering: &rendering.Activities{},
		Notifications: &notifications.Activities{}, Credentials: &credentials.Activities{}, Computing: &computing.Activities{},
		MasterKey: &masterkey.Activities{}, Ads: &ads.Activities{},
		Aggregation: &aggregation.Activities{}})
	require.ElementsMatch(t, []string{"SelfCheck", "DispatchEvent", "WebhookDelivery", "WebhookRetrier", "PipelineRun", "FireTrigger", "OAuthSweep", "Retention",
		"CouponExpiry", "NewsletterSend", "RenderRecord", "RenderAffected", "NotificationDelivery", "CredentialCommand", "ComputingAction", "RotateMasterKey",
		"AdsSync", "AdsPush", "Aggregator", "AggregationRebuild"}, r.workflows)
	require.ElementsMatch(t, []string{
		"SelfCheck", "ReportBug",
		"EventTargets", "LaunchEventRuns", "MarkDispatched", "DeliverWebhook", "SettleDelivery", "RetryDueDeliveries",
		"StartRun", "RecordStep", "FinishRun", "RunHTTP", "RunDB", "RunNotification", "RunTransform", "RunFunction", "LaunchTriggerRuns",
		"SweepOAuth", "PruneRecords", "PruneSubscriptions",
		"CouponDeadline", "ExpireCoupon",
		"CheckNewsletter", "BeginNewsletter", "SendNewsletterPage", "FinishNewsletter",
		"Render", "SignalAffectedRenders",
		"SendNotification", "SettleNotification",
		"RunCredentialCommand",
		"ComputingRequest", "ComputingRead", "ComputingSettle",
		"ResealBatch", "FinishMasterKeyRotation",
		"AdsSyncBegin", "AdsSyncPage", "AdsSyncFinish", "AdsPushRecord", "AdsPushFailed",
		"ApplyAggregation", "StartAggregationRebuild", "RebuildAggregationPage", "FinishAggregationRebuild",
		"AggregationCustomers", "RequestAggregationRebuild", "AggregationRebuildsDone",
	}, r.activities)
}

// recorder notes the names Register gives. Its embedded registry is nil,
// so a registration under the Go name (RegisterWorkflow, RegisterActivity)
// panics instead of being counted.
type recorder struct {
	sdkworker.Registry
	workflows, activities []string
}

func (r *recorder) RegisterWorkflowWithOptions(_ any, o workflow.RegisterOptions) {
	r.workflows = append(r.workflows, o.Name)
}

func (r *recorder) RegisterActivityWithOptions(_ any, o activity.RegisterOptions) {
	r.activities = append(r.activities, o.Name)
}

// TestEveryWorkflowHasAKind: each registered workflow says which kind of
// work it is, so it starts on its kind's queue; a new workflow left out
// of contract.WorkflowKinds would quietly run on the base queue.
func TestEveryWorkflowHasAKind(t *testing.T) {
	t.Parallel()
	r := &recorder{}
	worker.RegisterWorkflows(r)
	for _, w := range r.workflows {
		_, ok := contract.WorkflowKinds[w]
		require.True(t, ok, "workflow %s has no kind in contract.WorkflowKinds", w)
	}
}
