package contract

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"time"

	"go.temporal.io/sdk/temporal"
)

// Event is what a run starts from: a platform event, a cron tick, an
// incoming webhook call or a manual input. Its Data is the run's input.
type Event struct {
	ID        string         `json:"id,omitempty"`
	Name      string         `json:"name"`
	Timestamp time.Time      `json:"timestamp"`
	Data      map[string]any `json:"data"`
	// Cause is the chain of pipeline runs whose db steps wrote, one after
	// the other, what led to the event (oldest first); empty for events
	// no pipeline caused. LaunchEventRuns refuses a run that would loop.
	Cause []Cause `json:"cause,omitempty"`
}

// Cause is one pipeline run in an event's causation chain.
type Cause struct {
	Run      string `json:"run"`
	Pipeline string `json:"pipeline"`
}

// RunInput is the input of PipelineRun and of its StartRun activity: one
// run of a pipeline (its run id is the workflow id).
type RunInput struct {
	RunID       string
	Pipeline    string
	Version     int // 0: the pipeline's current version
	TriggeredBy string
	Trigger     string // reusable trigger id, when one fired
	Event       Event
	Depth       int    // 0 for top-level runs; subPipeline children count up
	ParentRun   string // the calling run of a subPipeline child
	RerunOf     string
}

// RunResult is a successful run's outcome: the last step's output.
type RunResult struct {
	Status string
	Output any
}

// Run statuses: the Status of RunResult, StepRecord and FinishRunInput,
// and of the run record.
const (
	StatusRunning = "running"
	StatusSuccess = "success"
	StatusFailed  = "failed"
)

// RunAttributes are a run's search attributes.
func RunAttributes(customer, pipeline string) temporal.SearchAttributes {
	return temporal.NewSearchAttributes(
		temporal.NewSearchAttributeKeyKeyword(AttrCustomer).ValueSet(customer),
		temporal.NewSearchAttributeKeyKeyword(AttrPipeline).ValueSet(pipeline),
	)
}

// DerivedID is a deterministic ObjectId-shaped id for what a given cause
// starts (the run of a pipeline an event starts, a sub-pipeline's run, a
// tick's runs), so that starting it again is a no-op.
func DerivedID(parts ...string) string {
	h := sha256.Sum256([]byte(strings.Join(parts, "\x00")))
	return hex.EncodeToString(h[:12])
}

// FireInput is the input of FireTrigger: one firing of a reusable trigger
// (a cron tick or an incoming webhook call), or of a pipeline's own cron
// schedule (Pipeline set).
type FireInput struct {
	Trigger     string
	Pipeline    string
	TriggeredBy string // how the run records say it started: cron or webhook
	Event       Event
}

// LaunchTriggerRunsInput is one firing, as FireTrigger hands it to its
// activity; FiringID makes the runs of one firing idempotent.
type LaunchTriggerRunsInput struct {
	Trigger     string
	Pipeline    string
	TriggeredBy string
	FiringID    string
	Event       Event
}

// StartRunOutput is what the interpreter needs to run: the frozen
// definition of the run's version and the template root `customer`.
type StartRunOutput struct {
	Definition Definition
	Version    int
	Customer   map[string]any
	StartedAt  time.Time // wall clock, for the run's total duration
	// StepLimit is how many steps the run may execute; zero (histories
	// recorded before the field) is MaxExecutedSteps.
	StepLimit int `json:",omitempty"`
}

// Steps is the run's limit of executed steps.
func (o StartRunOutput) Steps() int {
	if o.StepLimit > 0 {
		return o.StepLimit
	}
	return MaxExecutedSteps
}

// StepInput is one step to execute: its definition and the run's scope
// (the template roots event, input, consumer, customer and the outputs of
// the steps it refers to; never secrets: activities add them).
type StepInput struct {
	RunID    string
	Pipeline string // the run's pipeline: the author of what its db steps write
	// Cause is the chain the events of a db step's writes carry: the run's
	// event's chain and this run.
	Cause []Cause `json:",omitempty"`
	Step  Step
	Scope map[string]any
}

// StepOutput is a step's result; Input is what the step consumed after
// its templates were rendered, with secrets redacted.
type StepOutput struct {
	Input      any
	Output     any
	Logs       []string
	DurationMs float64
	Attempts   int // the attempt that succeeded (retry policy)
}

// StepRecord is one executed step as the run record shows it.
type StepRecord struct {
	ID         string
	Type       string
	Status     string // StatusSuccess or StatusFailed
	Input      any
	Output     any
	Error      *StepError
	Logs       []string
	Attempts   int
	StartedAt  time.Time
	DurationMs float64
}

// StepError is a step's failure as recorded.
type StepError struct {
	Kind     string `json:"kind"`
	Message  string `json:"message"`
	Line     int    `json:"line,omitempty"`
	Column   int    `json:"column,omitempty"`
	Attempts int    `json:"attempts,omitempty"` // the attempt that failed last
}

// RecordStepInput is one executed step, the Index-th of the run.
type RecordStepInput struct {
	RunID string
	Index int
	Step  StepRecord
}

// FinishRunInput is a run's outcome.
type FinishRunInput struct {
	RunID      string
	Status     string
	Error      *StepError
	FailedStep string
	Output     any
	StartedAt  time.Time // zero when the run never started
	Cancelled  bool
}
