package pipeline

// Template roots. `steps.<id>.output` is a previous step's output; `input`
// is the run's input (the event's data); `consumer` is the event's record
// when the event is a consumers event.
const (
	RootConsumer = "consumer"
	RootCustomer = "customer"
	RootSecrets  = "secrets"
	RootEvent    = "event"
	RootInput    = "input"
	RootSteps    = "steps"
)

// Roots lists the roots a template may start with.
var Roots = []string{RootConsumer, RootCustomer, RootSecrets, RootEvent, RootInput, RootSteps}
