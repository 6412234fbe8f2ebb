package contract

import "testing"

// TestQueueOf: system work stays on the base queue, the other kinds get
// queues named after it, and an unknown workflow is system work.
func TestQueueOf(t *testing.T) {
	t.Parallel()
	for workflow, want := range map[string]string{
		WorkflowSelfCheck: "platform", WorkflowRetention: "platform", WorkflowOAuthSweep: "platform",
		WorkflowWebhookDelivery: "platform-webhooks", WorkflowDispatchEvent: "platform-webhooks",
		WorkflowPipelineRun: "platform-pipelines", WorkflowFireTrigger: "platform-pipelines",
		WorkflowNewsletterSend: "platform-mail",
		"SomethingNew":         "platform",
	} {
		if got := QueueOf("platform", workflow); got != want {
			t.Errorf("QueueOf(platform, %s) = %s, want %s", workflow, got, want)
		}
	}
}
