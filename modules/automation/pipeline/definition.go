// Package pipeline defines what a pipeline is: its trigger, its steps and
// their settings, the rules a definition must pass before it is saved, and
// the {{...}} templates its settings may use. It has no side effects: the
// interpreter workflow (package workflows) and the step activities
// (package activities) run what is defined here.
package pipeline

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Step types.
const (
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
var Types = []string{TypeCondition, TypeTransform, TypeHTTP, TypeDB, TypeNotification, TypeWait, TypeSubPipeline, TypeFunction}

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

// Limits.
const (
	MaxSteps         = 100             // steps in one definition
	MaxExecutedSteps = 1000            // steps one run may execute (loops through goto)
	MaxDepth         = 5               // nesting of sub-pipelines
	DefaultHTTPMs    = 30_000          // http step time-out
	MaxHTTPMs        = 5 * 60_000      // the highest time-out an http step may ask for
	MaxCodeMs        = 30_000          // the highest time-out a transform may ask for (the sandbox's limit)
	MaxWaitMs        = 365 * 86400_000 // a wait step waits at most a year
	MaxAttempts      = 10              // retry.maxAttempts
)

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

// Index returns the position of the step with id, or -1.
func (d *Definition) Index(id string) int {
	for i := range d.Steps {
		if d.Steps[i].ID == id {
			return i
		}
	}
	return -1
}

// FromDoc decodes a stored record (or request body) into a Definition.
// Unknown settings are an error naming the step, so a typo is not silently
// ignored.
func FromDoc(doc map[string]any) (*Definition, error) {
	raw, err := json.Marshal(map[string]any{"name": doc["name"], "trigger": doc["trigger"], "steps": doc["steps"]})
	if err != nil {
		return nil, err
	}
	var shape struct {
		Name    any               `json:"name"`
		Trigger json.RawMessage   `json:"trigger"`
		Steps   []json.RawMessage `json:"steps"`
	}
	if err := json.Unmarshal(raw, &shape); err != nil {
		return nil, &Problem{Field: "steps", Message: "steps must be an array of objects"}
	}
	d := &Definition{}
	d.Name, _ = shape.Name.(string)
	if len(shape.Trigger) > 0 && string(shape.Trigger) != "null" {
		d.Trigger = &Trigger{}
		if err := strictDecode(shape.Trigger, d.Trigger); err != nil {
			return nil, &Problem{Field: "trigger", Message: "trigger: " + err.Error()}
		}
	}
	for i, s := range shape.Steps {
		var st Step
		if err := strictDecode(s, &st); err != nil {
			return nil, &Problem{Field: fmt.Sprintf("steps[%d]", i), Step: stepID(s), Message: fmt.Sprintf("step %s: %v", describe(stepID(s), i), err)}
		}
		d.Steps = append(d.Steps, st)
	}
	return d, nil
}

// ToDoc is the inverse of FromDoc for the steps and trigger of a record.
func (d *Definition) ToDoc() (map[string]any, error) {
	raw, err := json.Marshal(d)
	if err != nil {
		return nil, err
	}
	var out map[string]any
	return out, json.Unmarshal(raw, &out)
}

func strictDecode(raw json.RawMessage, v any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}

func stepID(raw json.RawMessage) string {
	var s struct {
		ID any `json:"id"`
	}
	_ = json.Unmarshal(raw, &s)
	id, _ := s.ID.(string)
	return id
}

func describe(id string, i int) string {
	if id != "" {
		return fmt.Sprintf("%q", id)
	}
	return fmt.Sprintf("#%d", i+1)
}
