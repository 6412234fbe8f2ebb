// Package computing is the service of the config module's computing
// entities: the machines, containers and cron boxes of a customer, the
// moves of their provider state (start, stop, terminate), the provider
// they are made at, and the local simulator of that provider
// (docs/config-computing.md).
package computing

import "slices"

// Collections of the computing resources.
const (
	Collection              = "computingentities"
	ProgramsCollection      = "programs"
	InstallationsCollection = "computinginstallations"
)

// Entity types: virtual machines of two clouds (Amazon Web Services and
// Google Cloud Platform), a container, a cron box.
const (
	TypeAWS       = "vm-aws"
	TypeGCP       = "vm-gcp"
	TypeContainer = "container"
	TypeCron      = "cron"
)

// Types lists every entity type.
var Types = []string{TypeAWS, TypeGCP, TypeContainer, TypeCron}

// Provider states, the values of the state field.
const (
	Running    = "running"
	Stopped    = "stopped"
	Terminated = "terminated"
)

// States lists the provider states.
var States = []string{Running, Stopped, Terminated}

// Actions, each a move of the provider state run as a workflow.
const (
	Start     = "start"
	Stop      = "stop"
	Terminate = "terminate"
)

// Actions lists the actions.
var Actions = []string{Start, Stop, Terminate}

// Fields the platform keeps on an entity.
const (
	FieldType          = "type"
	FieldInstanceID    = "instanceId"
	FieldPendingAction = "pendingAction"
	FieldWorkflowID    = "workflowId"
	FieldLastAction    = "lastAction"
)

// State fields: a virtual machine's is named after its cloud (awsState,
// gcpState, as the specification's <cloud>State); containers and cron
// boxes have the generic state.
const (
	StateAWS     = "awsState"
	StateGCP     = "gcpState"
	StateGeneric = "state"
)

// StateFields lists every state field.
var StateFields = []string{StateAWS, StateGCP, StateGeneric}

// StateField is the state field of an entity of type t.
func StateField(t string) string {
	switch t {
	case TypeAWS:
		return StateAWS
	case TypeGCP:
		return StateGCP
	}
	return StateGeneric
}

// Target is the state an action moves an entity to.
func Target(action string) string {
	switch action {
	case Start:
		return Running
	case Stop:
		return Stopped
	}
	return Terminated
}

// from lists the states each action may start from: terminated is final.
var from = map[string][]string{
	Start:     {Stopped},
	Stop:      {Running},
	Terminate: {Running, Stopped},
}

// Allowed reports whether action may move an entity in state.
func Allowed(action, state string) bool { return slices.Contains(from[action], state) }

// Event verbs: an entity's move done (computingentities.started, ...) or
// failed (computingentities.actionfailed).
const (
	EventStarted    = "started"
	EventStopped    = "stopped"
	EventTerminated = "terminated"
	EventFailed     = "actionfailed"
)

// DoneEvent is the verb of the event of action done.
func DoneEvent(action string) string {
	switch action {
	case Start:
		return EventStarted
	case Stop:
		return EventStopped
	}
	return EventTerminated
}
