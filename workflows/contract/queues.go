package contract

// Kind is a kind of work. Each kind has its own task queue, and a worker
// process polls each queue with a Temporal worker of its own, with its
// own bounded slots: a burst of one kind (thousands of failing pipeline
// runs) cannot take the slots of another (webhook deliveries), and within
// a queue the server shares the slots fairly between customers (the
// fairness key of every start is the customer; docs/queues.md).
type Kind string

// The kinds of work.
const (
	// KindSystem is the base queue: self-checks, housekeeping schedules,
	// and every workflow started before the queues were split (its worker
	// registers every workflow, so those still finish).
	KindSystem Kind = "system"
	// KindWebhooks: event dispatches and webhook deliveries.
	KindWebhooks Kind = "webhooks"
	// KindPipelines: pipeline runs, their steps and trigger firings.
	KindPipelines Kind = "pipelines"
	// KindMail: newsletter sends, long activities that wait on the SMTP
	// server and the send rate, kept apart from the other kinds' slots.
	KindMail Kind = "mail"
)

// Kinds lists every kind, the base queue's first.
var Kinds = []Kind{KindSystem, KindWebhooks, KindPipelines, KindMail}

// WorkflowKinds is the kind of every workflow type. A workflow's
// activities and children run on its queue (Temporal's default), so this
// is the one place that says where work runs. worker's tests check that
// every registered workflow is listed here.
var WorkflowKinds = map[string]Kind{
	WorkflowSelfCheck:            KindSystem,
	WorkflowOAuthSweep:           KindSystem,
	WorkflowRetention:            KindSystem,
	WorkflowCouponExpiry:         KindSystem,
	WorkflowRenderRecord:         KindSystem,
	WorkflowRenderAffected:       KindSystem,
	WorkflowDispatchEvent:        KindWebhooks, // its delivery children inherit its queue
	WorkflowWebhookDelivery:      KindWebhooks,
	WorkflowWebhookRetrier:       KindWebhooks,
	WorkflowNotificationDelivery: KindWebhooks,
	WorkflowPipelineRun:          KindPipelines,
	WorkflowFireTrigger:          KindPipelines,
	WorkflowNewsletterSend:       KindMail,
	WorkflowCredentialCommand:    KindSystem,
	WorkflowComputingAction:      KindSystem,
	WorkflowRotateMasterKey:      KindSystem,
	WorkflowAggregator:           KindSystem,
	WorkflowAggregationRebuild:   KindSystem,
}

// KindOf is the kind of a workflow type; an unknown one is system work.
func KindOf(workflow string) Kind {
	if k, ok := WorkflowKinds[workflow]; ok {
		return k
	}
	return KindSystem
}

// Queue names the task queue of kind k in the deployment whose base task
// queue (PLATFORM_TASK_QUEUE) is base: the base itself for system work,
// base-<kind> otherwise ("platform-pipelines").
func Queue(base string, k Kind) string {
	if k == KindSystem {
		return base
	}
	return base + "-" + string(k)
}

// QueueOf is the task queue a workflow type starts on.
func QueueOf(base, workflow string) string { return Queue(base, KindOf(workflow)) }
