// Package contract is the seam between the platform's workflows and the
// code around them: the registered name of every workflow and activity,
// the one input and output of each, the search attributes and the
// workflow ids callers derive. It is data (and the few pure functions
// both sides must compute alike) and imports nothing of the platform, so
// the modules start workflows, the activities serve them and the worker
// registers them without depending on one another or on workflow code.
//
// The names and the shapes of the types are what recorded histories and
// running workflows hold: renaming a name or a field breaks them
// (workflows/replay_test.go replays recorded histories; worker's tests pin
// the names).
package contract

// Workflow type names.
const (
	WorkflowSelfCheck       = "SelfCheck"
	WorkflowDispatchEvent   = "DispatchEvent"
	WorkflowWebhookDelivery = "WebhookDelivery"
	WorkflowPipelineRun     = "PipelineRun"
	WorkflowFireTrigger     = "FireTrigger"
)

// Activity type names, by the workflows that execute them.
const (
	// SelfCheck
	ActivitySelfCheck = "SelfCheck"

	// Any workflow: a fault of the platform becomes a Bug task.
	ActivityReportBug = "ReportBug"

	// DispatchEvent and WebhookDelivery
	ActivityEventTargets    = "EventTargets"
	ActivityLaunchEventRuns = "LaunchEventRuns"
	ActivityMarkDispatched  = "MarkDispatched"
	ActivityDeliverWebhook  = "DeliverWebhook"
	ActivitySettleDelivery  = "SettleDelivery"

	// PipelineRun and FireTrigger
	ActivityStartRun          = "StartRun"
	ActivityRecordStep        = "RecordStep"
	ActivityFinishRun         = "FinishRun"
	ActivityRunHTTP           = "RunHTTP"
	ActivityRunDB             = "RunDB"
	ActivityRunNotification   = "RunNotification"
	ActivityRunTransform      = "RunTransform"
	ActivityRunFunction       = "RunFunction"
	ActivityLaunchTriggerRuns = "LaunchTriggerRuns"
)

// Search attributes registered on the Temporal server, so operators find
// the workflows of a customer, pipeline, webhook or event in the UI.
const (
	AttrCustomer = "PlatformCustomer"
	AttrPipeline = "PlatformPipeline"
	AttrWebhook  = "PlatformWebhook"
	AttrEvent    = "PlatformEvent"
)

// SearchAttributes lists every search attribute, for the server to register.
var SearchAttributes = []string{AttrCustomer, AttrPipeline, AttrWebhook, AttrEvent}
