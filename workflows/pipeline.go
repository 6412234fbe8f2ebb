package workflows

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"platform/activities"
	"platform/kernel/query"
	"platform/kernel/template"
	"platform/kernel/tenant"
	"platform/modules/automation/pipeline"
	"platform/modules/automation/runs"
)

// RunResult is a successful run's outcome: the last step's output.
type RunResult struct {
	Status string
	Output any
}

// ErrTypeRunFailed is the error type of a failed run, so that failed runs
// show as failed workflows in the Temporal UI.
const ErrTypeRunFailed = "PipelineRunFailed"

// PipelineRun interprets one run of a pipeline version: it executes the
// steps from the first, following next, condition branches and onError,
// and keeps the run record up to date. Everything that could vary (user
// code, outbound calls, the store, secrets) runs in activities; conditions,
// waits and sub-pipeline calls are evaluated here, on values that are in
// the run's history.
func PipelineRun(ctx workflow.Context, in runs.Input) (RunResult, error) {
	customer, err := tenant.WorkflowCustomer(ctx)
	if err != nil {
		return RunResult{}, temporal.NewNonRetryableApplicationError("the run has no customer", "NoCustomer", err)
	}
	r := &interpreter{in: in, customer: customer, outputs: map[string]any{}}
	var a *activities.Activities
	if err := workflow.ExecuteLocalActivity(runStoreOptions(ctx), a.StartRun, in).Get(ctx, &r.start); err != nil {
		if ctx.Err() != nil { // cancelled before it started
			return r.cancelled(ctx)
		}
		return r.fail(ctx, "", errorOf(ctx, err))
	}
	return r.run(ctx)
}

type interpreter struct {
	in       runs.Input
	customer string
	start    activities.StartRunOutput
	records  []activities.StepRecord
	recorded int            // records already in the run record
	outputs  map[string]any // step id -> output
	last     any            // the last successful step's output
}

// runStoreOptions: run-record writes are short, idempotent store calls,
// run as local activities (no round trip through the server).
func runStoreOptions(ctx workflow.Context) workflow.Context {
	return workflow.WithLocalActivityOptions(ctx, workflow.LocalActivityOptions{
		StartToCloseTimeout: 30 * time.Second,
		RetryPolicy:         &temporal.RetryPolicy{InitialInterval: time.Second, MaximumInterval: 30 * time.Second},
	})
}

func (r *interpreter) run(ctx workflow.Context) (RunResult, error) {
	steps := r.start.Definition.Steps
	for i, executed := 0, 0; i < len(steps); executed++ {
		if executed == pipeline.MaxExecutedSteps {
			return r.fail(ctx, "", &activities.StepError{Kind: "step_limit", Message: fmt.Sprintf("the run executed %d steps; a run may execute at most that many (a loop through next or onErrorStep?)", executed)})
		}
		s := steps[i]
		rec, next, err := r.exec(ctx, s, executed)
		r.records = append(r.records, rec)
		if err != nil && (temporal.IsCanceledError(err) || ctx.Err() != nil) {
			return r.cancelled(ctx)
		}
		if rerr := r.recordSteps(ctx); rerr != nil {
			return r.cancelled(ctx)
		}
		if err != nil {
			switch s.OnError {
			case pipeline.OnErrorContinue:
				next = s.Next // as if the step had succeeded
			case pipeline.OnErrorGoto:
				next = s.OnErrorStep
			default:
				return r.fail(ctx, s.ID, rec.Error)
			}
		} else {
			r.outputs[s.ID], r.last = rec.Output, rec.Output
		}
		if i = r.following(i, next); i < 0 {
			return r.fail(ctx, s.ID, &activities.StepError{Kind: "definition", Message: fmt.Sprintf("step %q goes to %q, which this version does not have", s.ID, next)})
		}
	}
	return r.succeed(ctx)
}

// following is the index of the step after i given a jump target.
func (r *interpreter) following(i int, next string) int {
	switch next {
	case "":
		return i + 1
	case pipeline.End:
		return len(r.start.Definition.Steps)
	}
	return r.start.Definition.Index(next)
}

// exec runs one step and returns its record and the jump it asks for.
func (r *interpreter) exec(ctx workflow.Context, s pipeline.Step, executed int) (activities.StepRecord, string, error) {
	began := workflow.Now(ctx)
	rec := activities.StepRecord{ID: s.ID, Type: s.Type, StartedAt: began, Status: runs.StatusSuccess}
	var (
		out  activities.StepOutput
		next = s.Next
		err  error
	)
	switch s.Type {
	case pipeline.TypeCondition:
		out, next = r.condition(s)
	case pipeline.TypeWait:
		out, err = r.wait(ctx, s)
	case pipeline.TypeSubPipeline:
		out, err = r.subPipeline(ctx, s, executed)
	default:
		out, err = r.activity(ctx, s)
	}
	rec.Input, rec.Output, rec.Logs, rec.DurationMs, rec.Attempts = out.Input, out.Output, out.Logs, out.DurationMs, out.Attempts
	if rec.DurationMs == 0 {
		rec.DurationMs = float64(workflow.Now(ctx).Sub(began).Milliseconds())
	}
	if err != nil {
		var input any
		rec.Status, rec.Output = runs.StatusFailed, nil
		rec.Error, rec.Logs, input = failureOf(ctx, err)
		if input != nil {
			rec.Input = input
		}
		rec.Attempts = rec.Error.Attempts
	}
	return rec, next, err
}

// scope is what templates and expressions of step s see. Secrets are
// never in it: activities that need them load them.
func (r *interpreter) scope(s pipeline.Step) map[string]any {
	ev := r.in.Event
	sc := map[string]any{
		pipeline.RootEvent: map[string]any{"id": ev.ID, "name": ev.Name, "timestamp": ev.Timestamp, "data": ev.Data},
		pipeline.RootInput: ev.Data, pipeline.RootCustomer: r.start.Customer,
	}
	if strings.HasPrefix(ev.Name, "consumers.") {
		sc[pipeline.RootConsumer] = ev.Data
	}
	steps := map[string]any{}
	// An expression or a condition's filter may read any earlier output
	// (their paths are not {{...}} templates, so Refs does not see them).
	if s.Type == pipeline.TypeTransform || s.Type == pipeline.TypeCondition {
		for id, out := range r.outputs {
			steps[id] = map[string]any{"output": out}
		}
	} else {
		refs, _ := template.Refs(pipeline.StepSettings(&s))
		for _, ref := range refs {
			if ref.Root() == pipeline.RootSteps && len(ref.Parts) > 1 {
				if out, ok := r.outputs[ref.Parts[1]]; ok {
					steps[ref.Parts[1]] = map[string]any{"output": out}
				}
			}
		}
	}
	sc[pipeline.RootSteps] = steps
	return sc
}

func (r *interpreter) condition(s pipeline.Step) (activities.StepOutput, string) {
	expr, err := query.Parse(s.If, nil)
	matched := err == nil && query.Match(expr, r.scope(s))
	next := s.Else
	if matched {
		next = s.Then
	}
	if next == "" {
		next = s.Next
	}
	return activities.StepOutput{Input: map[string]any{"if": s.If}, Output: map[string]any{"matched": matched, "next": next}}, next
}

func (r *interpreter) wait(ctx workflow.Context, s pipeline.Step) (activities.StepOutput, error) {
	now := workflow.Now(ctx)
	var d time.Duration
	input := map[string]any{}
	if s.Duration != "" {
		d, _ = time.ParseDuration(s.Duration)
		input["duration"] = s.Duration
	} else {
		until := template.RenderText(s.Until, r.scope(s))
		input["until"] = until
		t, err := time.Parse(time.RFC3339, until)
		if err != nil {
			return activities.StepOutput{Input: input}, stepError("wait", fmt.Sprintf("until %q is not an RFC 3339 date", until))
		}
		d = t.Sub(now)
	}
	if d > 0 {
		if err := workflow.Sleep(ctx, d); err != nil {
			return activities.StepOutput{Input: input}, err
		}
	}
	waited := workflow.Now(ctx).Sub(now)
	return activities.StepOutput{Input: input, Output: map[string]any{"waitedMs": waited.Milliseconds()}, DurationMs: float64(waited.Milliseconds())}, nil
}

// subPipeline runs the callee as a child workflow with its own run record.
func (r *interpreter) subPipeline(ctx workflow.Context, s pipeline.Step, executed int) (activities.StepOutput, error) {
	data := r.in.Event.Data
	if s.Input != nil {
		rendered := template.Render(s.Input, r.scope(s))
		if m, ok := rendered.(map[string]any); ok {
			data = m
		} else {
			data = map[string]any{"value": rendered}
		}
	}
	childID := runs.DerivedID("subpipeline", r.in.RunID, s.ID, strconv.Itoa(executed))
	input := map[string]any{"pipeline": s.Pipeline, "run": childID, "input": data}
	if r.in.Depth+1 > pipeline.MaxDepth {
		return activities.StepOutput{Input: input}, stepError("depth", fmt.Sprintf("sub-pipelines nest at most %d deep", pipeline.MaxDepth))
	}
	child := runs.Input{
		RunID: childID, Pipeline: s.Pipeline, TriggeredBy: r.in.TriggeredBy, Trigger: r.in.Trigger,
		Event: runs.Event{Name: "subPipeline", Timestamp: workflow.Now(ctx), Data: data}, Depth: r.in.Depth + 1, ParentRun: r.in.RunID,
	}
	cctx := workflow.WithChildOptions(ctx, workflow.ChildWorkflowOptions{
		WorkflowID: childID, TypedSearchAttributes: runs.TypedAttrs(r.customer, s.Pipeline),
		ParentClosePolicy: enums.PARENT_CLOSE_POLICY_REQUEST_CANCEL, WaitForCancellation: true,
	})
	var res RunResult
	if err := workflow.ExecuteChildWorkflow(cctx, PipelineRun, child).Get(ctx, &res); err != nil {
		return activities.StepOutput{Input: input}, err
	}
	return activities.StepOutput{Input: input, Output: res.Output}, nil
}

// activity runs the step types that have side effects or run user code.
func (r *interpreter) activity(ctx workflow.Context, s pipeline.Step) (activities.StepOutput, error) {
	var a *activities.Activities
	in := activities.StepInput{RunID: r.in.RunID, Pipeline: r.in.Pipeline, Step: s, Scope: r.scope(s)}
	retry := retryPolicy(s)
	var f workflow.Future
	switch s.Type {
	case pipeline.TypeHTTP:
		f = workflow.ExecuteActivity(workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
			StartToCloseTimeout: time.Duration(s.HTTPTimeoutMs())*time.Millisecond + 10*time.Second, RetryPolicy: retry,
		}), a.RunHTTP, in)
	case pipeline.TypeNotification:
		f = workflow.ExecuteActivity(workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
			StartToCloseTimeout: time.Minute, RetryPolicy: retry,
		}), a.RunNotification, in)
	default:
		// Short, in-worker steps run as local activities: no round trip
		// through the server per step.
		lctx := workflow.WithLocalActivityOptions(ctx, workflow.LocalActivityOptions{
			StartToCloseTimeout: localStepTimeout, RetryPolicy: retry,
		})
		switch s.Type {
		case pipeline.TypeTransform:
			f = workflow.ExecuteLocalActivity(lctx, a.RunTransform, in)
		case pipeline.TypeDB:
			f = workflow.ExecuteLocalActivity(lctx, a.RunDB, in)
		case pipeline.TypeFunction:
			f = workflow.ExecuteLocalActivity(lctx, a.RunFunction, in)
		default:
			return activities.StepOutput{}, stepError("type", fmt.Sprintf("unknown step type %q", s.Type))
		}
	}
	var out activities.StepOutput
	err := f.Get(ctx, &out)
	return out, err
}

// localStepTimeout bounds a local step: the sandbox's own limit (at most
// 30 s) plus room for the kill and a restart.
const localStepTimeout = 45 * time.Second

func retryPolicy(s pipeline.Step) *temporal.RetryPolicy {
	p := s.EffectiveRetry()
	return &temporal.RetryPolicy{
		MaximumAttempts:    int32(p.MaxAttempts),
		InitialInterval:    time.Duration(p.InitialIntervalMs) * time.Millisecond,
		BackoffCoefficient: p.BackoffCoefficient,
		MaximumInterval:    time.Duration(p.MaxIntervalMs) * time.Millisecond,
	}
}

func stepError(kind, msg string) error {
	return temporal.NewNonRetryableApplicationError(msg, activities.ErrTypeStep, nil, activities.StepError{Kind: kind, Message: msg})
}

// failureOf turns a step's error into its record: the StepError, logs and
// rendered input an activity attached, or a description of a time-out, a
// failed child run or a platform fault.
func failureOf(ctx workflow.Context, err error) (*activities.StepError, []string, any) {
	var app *temporal.ApplicationError
	if errors.As(err, &app) && app.Type() == activities.ErrTypeStep && app.HasDetails() {
		d, logs, input := activities.FailureDetails(app)
		return &d, logs, input
	}
	return errorOf(ctx, err), nil, nil
}

func errorOf(ctx workflow.Context, err error) *activities.StepError {
	var (
		app     *temporal.ApplicationError
		timeout *temporal.TimeoutError
	)
	switch {
	case errors.As(err, &app) && app.Type() == ErrTypeRunFailed:
		return &activities.StepError{Kind: "subpipeline", Message: app.Message()}
	case errors.As(err, &app) && app.Type() == activities.ErrTypeStep && app.HasDetails():
		d, _, _ := activities.FailureDetails(app)
		return &d
	case errors.As(err, &timeout):
		return &activities.StepError{Kind: "timeout", Message: "the step timed out"}
	case errors.As(err, &app) && describedForTenants(app):
		return &activities.StepError{Kind: "error", Message: app.Message()}
	case temporal.IsCanceledError(err):
		return &activities.StepError{Kind: "cancelled", Message: "the run was cancelled"}
	}
	// A plain Go error from an activity (a store or sandbox fault) may name
	// internal addresses: the run record gets a neutral text, the worker's
	// log the error (the SDK does not log failed local activities).
	workflow.GetLogger(ctx).Error("pipeline step failed on a platform fault", "error", err)
	return &activities.StepError{Kind: "internal", Message: internalError}
}

// internalError is what a run record says of a platform fault.
const internalError = "the platform failed while running this step; the operators' log has the details under the run id"

// describedForTenants reports whether an application error was raised by
// the platform with a message meant for the run record. Any other error is
// a Go error an activity returned as is (the SDK names it by its Go type).
func describedForTenants(app *temporal.ApplicationError) bool {
	return app.Type() == activities.ErrTypePipelineNotFound || app.Type() == activities.ErrTypePipelineInvalid
}

// recordSteps appends the executed steps not yet in the run record; store
// outages are retried until the store is back (the record must show every
// step), so an error here means the run was cancelled.
func (r *interpreter) recordSteps(ctx workflow.Context) error {
	var a *activities.Activities
	for ; r.recorded < len(r.records); r.recorded++ {
		in := activities.RecordStepInput{RunID: r.in.RunID, Index: r.recorded, Step: r.records[r.recorded]}
		if err := workflow.ExecuteLocalActivity(runStoreOptions(ctx), a.RecordStep, in).Get(ctx, nil); err != nil {
			return err
		}
	}
	return nil
}

func (r *interpreter) finish(ctx workflow.Context, in activities.FinishRunInput) error {
	var a *activities.Activities
	in.RunID = r.in.RunID
	return workflow.ExecuteLocalActivity(runStoreOptions(ctx), a.FinishRun, in).Get(ctx, nil)
}

func (r *interpreter) succeed(ctx workflow.Context) (RunResult, error) {
	if err := r.finish(ctx, activities.FinishRunInput{Status: runs.StatusSuccess, Output: r.last, StartedAt: r.start.StartedAt}); err != nil {
		return RunResult{}, err
	}
	return RunResult{Status: runs.StatusSuccess, Output: r.last}, nil
}

func (r *interpreter) fail(ctx workflow.Context, step string, e *activities.StepError) (RunResult, error) {
	if err := r.finish(ctx, activities.FinishRunInput{Status: runs.StatusFailed, Error: e, FailedStep: step, StartedAt: r.start.StartedAt}); err != nil {
		return RunResult{}, err
	}
	msg := e.Message
	if step != "" {
		msg = fmt.Sprintf("step %q failed: %s", step, e.Message)
	}
	return RunResult{}, temporal.NewNonRetryableApplicationError(msg, ErrTypeRunFailed, nil, *e)
}

// cancelled records the cancellation (in a context the cancellation does
// not reach) and ends the workflow as cancelled.
func (r *interpreter) cancelled(ctx workflow.Context) (RunResult, error) {
	dctx, _ := workflow.NewDisconnectedContext(ctx)
	_ = r.recordSteps(dctx)
	_ = r.finish(dctx, activities.FinishRunInput{
		Status: runs.StatusFailed, Cancelled: true, StartedAt: r.start.StartedAt,
		Error: &activities.StepError{Kind: "cancelled", Message: "the run was cancelled"},
	})
	return RunResult{}, temporal.NewCanceledError()
}
