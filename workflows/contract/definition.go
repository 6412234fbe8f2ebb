package contract

// A pipeline definition crosses the seam whole: StartRun hands the frozen
// version to the interpreter, which hands each step to its activity. The
// types are here, with the defaults both sides must read alike; decoding,
// validation and templates belong to their packages
// (modules/automation/pipeline, kernel/template).

// Step types.
const (
	TypeTrigger      = "trigger" // the optional first step: what starts the run
	TypeCondition    = "condition"
	TypeTransform    = "transform"
	TypeHTTP         = "http"
	TypeDB           = "db"
	TypeNotification = "notification"
	TypeWait         = "wait"
	TypeSubPipeline  = "subPipeline"
	TypeFunction     = "function"
)

// Types lists every step type, in the order the docs present them.
var Types = []string{TypeTrigger, TypeCondition, TypeTransform, TypeHTTP, TypeDB, TypeNotification, TypeWait, TypeSubPipeline, TypeFunction}

// End is the reserved step id that ends a run successfully when used in
// next, then, else or onErrorStep.
const End = "end"

// onError choices.
const (
	OnErrorFail     = "fail"     // the run fails (default)
	OnErrorContinue = "continue" // the step's error is recorded and the run goes on
	OnErrorGoto     = "goto"     // the run goes on at OnErrorStep
)

// Languages of a transform step.
const (
	LangJSONata    = "jsonata"
	LangJavaScript = "javascript"
)

// Database operations of a db step.
const (
	OpCreate = "create"
	OpRead   = "read"
	OpUpdate = "update"
	OpDelete = "delete"
)

// Notification channels.
const (
	ChannelMail = "mail"
	ChannelSMS  = "sms"
	ChannelPush = "push"
)

// Limits the interpreter enforces while a run executes (validation's own
// are in package pipeline).
const (
	MaxExecutedSteps = 1000   // steps one run may execute (loops through goto)
	MaxDepth         = 5      // nesting of sub-pipelines
	DefaultHTTPMs    = 30_000 // http step time-out
)

// Template roots: the keys of a step's scope (StepInput.Scope).
// `steps.<id>.output` is a previous step's output; `input` is the run's
// input (the event's data); `consumer` is the event's record when the
// event is a consumers event; `secrets` only activities add.
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

// Definition is a pipeline as stored: the fields of a pipelines record that
// say what runs.
type Definition struct {
	Name    string   `json:"name"`
	Trigger *Trigger `json:"trigger,omitempty"`
	Steps   []Step   `json:"steps"`
}

// Trigger says what starts the pipeline: an inline event name (or
// wildcard) with an optional filter on the event's data, an inline cron
// schedule, or a reusable trigger record by id. A pipeline without a
// trigger runs only manually.
type Trigger struct {
	Event    string         `json:"event,omitempty"`
	Filter   map[string]any `json:"filter,omitempty"`
	Cron     string         `json:"cron,omitempty"`
	Timezone string         `json:"timezone,omitempty"`
	ID       string         `json:"id,omitempty"`
}

// Step is one step. Common settings come first; the rest belong to one
// type each (see Types and docs/pipelines.md).
type Step struct {
	ID          string `json:"id"`
	Type        string `json:"type"`
	Name        string `json:"name,omitempty"`
	Next        string `json:"next,omitempty"` // step to go on with; default the following one
	Retry       *Retry `json:"retry,omitempty"`
	OnError     string `json:"onError,omitempty"`
	OnErrorStep string `json:"onErrorStep,omitempty"`
	TimeoutMs   int    `json:"timeoutMs,omitempty"`

	// trigger: the settings of a definition's Trigger, as the first step
	// (Filter is shared with db steps); TriggerID names a reusable trigger,
	// as Trigger.ID does (id is the step's own).
	Event     string `json:"event,omitempty"`
	Cron      string `json:"cron,omitempty"`
	Timezone  string `json:"timezone,omitempty"`
	TriggerID string `json:"trigger,omitempty"`

	// condition: If is a filter in the shared query language over the run's
	// scope ({event, input, steps}); Then and Else name the next step.
	If   map[string]any `json:"if,omitempty"`
	Then string         `json:"then,omitempty"`
	Else string         `json:"else,omitempty"`

	// transform
	Language   string `json:"language,omitempty"`
	Expression string `json:"expression,omitempty"`

	// http
	Method  string            `json:"method,omitempty"`
	URL     string            `json:"url,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
	Body    any               `json:"body,omitempty"`

	// db
	Collection string         `json:"collection,omitempty"`
	Op         string         `json:"op,omitempty"`
	Data       map[string]any `json:"data,omitempty"`
	RecordID   string         `json:"recordId,omitempty"`
	Filter     map[string]any `json:"filter,omitempty"`
	Limit      int            `json:"limit,omitempty"`

	// notification
	Channel  string `json:"channel,omitempty"`
	To       any    `json:"to,omitempty"` // one recipient or a list
	Subject  string `json:"subject,omitempty"`
	Template string `json:"template,omitempty"`

	// wait: a duration ("90s", "15m", "2h") or a date to wait until
	Duration string `json:"duration,omitempty"`
	Until    string `json:"until,omitempty"`

	// subPipeline and function: the callee by id, and its input
	Pipeline string `json:"pipeline,omitempty"`
	Function string `json:"function,omitempty"`
	Input    any    `json:"input,omitempty"`
}

// Retry is a step's retry policy; without one a step is tried once, except
// http and notification steps, which are tried 3 times (DefaultRetry).
type Retry struct {
	MaxAttempts        int     `json:"maxAttempts,omitempty"`
	InitialIntervalMs  int     `json:"initialIntervalMs,omitempty"`
	BackoffCoefficient float64 `json:"backoffCoefficient,omitempty"`
	MaxIntervalMs      int     `json:"maxIntervalMs,omitempty"`
}

// DefaultRetry is the policy of a step that sets none.
func (s *Step) DefaultRetry() Retry {
	r := Retry{MaxAttempts: 1, InitialIntervalMs: 1000, BackoffCoefficient: 2, MaxIntervalMs: 60_000}
	if s.Type == TypeHTTP || s.Type == TypeNotification {
		r.MaxAttempts = 3
	}
	return r
}

// EffectiveRetry is the step's policy with defaults filled in.
func (s *Step) EffectiveRetry() Retry {
	r := s.DefaultRetry()
	if s.Retry == nil {
		return r
	}
	if s.Retry.MaxAttempts > 0 {
		r.MaxAttempts = s.Retry.MaxAttempts
	}
	if s.Retry.InitialIntervalMs > 0 {
		r.InitialIntervalMs = s.Retry.InitialIntervalMs
	}
	if s.Retry.BackoffCoefficient >= 1 {
		r.BackoffCoefficient = s.Retry.BackoffCoefficient
	}
	if s.Retry.MaxIntervalMs > 0 {
		r.MaxIntervalMs = s.Retry.MaxIntervalMs
	}
	return r
}

// HTTPTimeoutMs is the http step's time-out.
func (s *Step) HTTPTimeoutMs() int {
	if s.TimeoutMs > 0 {
		return s.TimeoutMs
	}
	return DefaultHTTPMs
}

// StartTrigger is what starts the pipeline: the definition's Trigger, or
// the settings of a first step of type trigger; nil for a manual-only
// pipeline. Validation refuses a definition that has both.
func (d *Definition) StartTrigger() *Trigger {
	if d.Trigger != nil {
		return d.Trigger
	}
	if len(d.Steps) > 0 && d.Steps[0].Type == TypeTrigger {
		return d.Steps[0].AsTrigger()
	}
	return nil
}

// AsTrigger is a trigger step's settings as a Trigger.
func (s *Step) AsTrigger() *Trigger {
	return &Trigger{Event: s.Event, Filter: s.Filter, Cron: s.Cron, Timezone: s.Timezone, ID: s.TriggerID}
}

// Index returns the position of the step with id, or -1.
func (d *Definition) Index(id string) int {
	for i := range d.Steps {
		if d.Steps[i].ID == id {
			return i
		}
	}
	return -1
}

// Templated is every setting of the step that may hold templates.
func (s *Step) Templated() map[string]any {
	return map[string]any{
		"url": s.URL, "headers": s.Headers, "body": s.Body, "data": s.Data, "recordId": s.RecordID,
		"filter": s.Filter, "to": s.To, "subject": s.Subject, "template": s.Template,
		"until": s.Until, "input": s.Input,
	}
}
