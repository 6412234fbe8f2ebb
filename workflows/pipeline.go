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

	"platform/kernel/query"
	"platform/kernel/template"
	"platform/kernel/tenant"
	"platform/workflows/contract"
)

// PipelineRun interprets one run of a pipeline version: it executes the
// steps from the first, following next, condition branches and onError,
// and keeps the run record up to date. Everything that could vary (user
// code, outbound calls, the store, secrets) runs in activities; conditions,
// waits and sub-pipeline calls are evaluated here, on values that are in
// the run's history.
func PipelineRun(ctx workflow.Context, in contract.RunInput) (contract.RunResult, error) {
	customer, err := tenant.WorkflowCustomer(ctx)
	if err != nil {
		return contract.RunResult{}, temporal.NewNonRetryableApplicationError("the run has no customer", "NoCustomer", err)
	}
	r := &interpreter{in: in, customer: customer, outputs: map[string]any{}}
	if err := workflow.ExecuteLocalActivity(runStoreOptions(ctx), contract.ActivityStartRun, in).Get(ctx, &r.start); err != nil {
		if ctx.Err() != nil { // cancelled before it started
			return r.cancelled(ctx)
		}
		return r.fail(ctx, "", errorOf(ctx, "workflow PipelineRun, run start", err))
	}
	return r.run(ctx)
}

type interpreter struct {
	in       contract.RunInput
	customer string
	start    contract.StartRunOutput
	records  []contract.StepRecord
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

func (r *interpreter) run(ctx workflow.Context) (contract.RunResult, error) {
	steps := r.start.Definition.Steps
	for i, executed := 0, 0; i < len(steps); executed++ {
		if executed == r.start.Steps() {
			return r.fail(ctx, "", &contract.StepError{Kind: "step_limit", Message: fmt.Sprintf("the run executed %d steps; a run may execute at most that many (a loop through next or onErrorStep?)", executed)})
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
			case contract.OnErrorContinue:
				next = s.Next // as if the step had succeeded
			case contract.OnErrorGoto:
				next = s.OnErrorStep
			default:
				return r.fail(ctx, s.ID, rec.Error)
			}
		} else {
			r.outputs[s.ID], r.last = rec.Output, rec.Output
		}
		if i = r.following(i, next); i < 0 {
			return r.fail(ctx, s.ID, &contract.StepError{Kind: "definition", Message: fmt.Sprintf("step %q goes to %q, which this version does not have", s.ID, next)})
		}
	}
	return r.succeed(ctx)
}

// following is the index of the step after i given a jump target.
func (r *interpreter) following(i int, next string) int {
	switch next {
	case "":
		return i + 1
	case contract.End:
		return len(r.start.Definition.Steps)
	}
	return r.start.Definition.Index(next)
}

// exec runs one step and returns its record and the jump it asks for.
func (r *interpreter) exec(ctx workflow.Context, s contract.Step, executed int) (contract.StepRecord, string, error) {
	began := workflow.Now(ctx)
	rec := contract.StepRecord{ID: s.ID, Type: s.Type, StartedAt: began, Status: contract.StatusSuccess}
	var (
		out  contract.StepOutput
		next = s.Next
		err  error
	)
	switch s.Type {
	case contract.TypeTrigger:
		out = r.triggerStep()
	case contract.TypeCondition:
		out, next, err = r.condition(ctx, s)
	case contract.TypeWait:
		out, err = r.wait(ctx, s)
	case contract.TypeSubPipeline:
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
		rec.Status, rec.Output = contract.StatusFailed, nil
		rec.Error, rec.Logs, input = failureOf(ctx, "workflow PipelineRun, "+s.Type+" step", err)
		if input != nil {
			rec.Input = input
		}
		rec.Attempts = rec.Error.Attempts
	}
	return rec, next, err
}

// scope is what templates and expressions of step s see. Secrets are
// never in it: activities that need them load them.
func (r *interpreter) scope(s contract.Step) map[string]any {
	ev := r.in.Event
	sc := map[string]any{
		contract.RootEvent: map[string]any{"id": ev.ID, "name": ev.Name, "timestamp": ev.Timestamp, "data": ev.Data},
		contract.RootInput: ev.Data, contract.RootCustomer: r.start.Customer,
	}
	if strings.HasPrefix(ev.Name, "consumers.") {
		sc[contract.RootConsumer] = ev.Data
	}
	steps := map[string]any{}
	// An expression or a condition's filter may read any earlier output
	// (their paths are not {{...}} templates, so Refs does not see them).
	if s.Type == contract.TypeTransform || s.Type == contract.TypeCondition {
		// Ranging over a map to fill another: the order cannot show.
		//workflowcheck:ignore
		for id, out := range r.outputs {
			steps[id] = map[string]any{"output": out}
		}
	} else {
		refs, _ := template.Refs(s.Templated())
		for _, ref := range refs {
			if ref.Root() == contract.RootSteps && len(ref.Parts) > 1 {
				if out, ok := r.outputs[ref.Parts[1]]; ok {
					steps[ref.Parts[1]] = map[string]any{"output": out}
				}
			}
		}
	}
	sc[contract.RootSteps] = steps
	return sc
}

// triggerStep is the start point: what it matched already started the
// run, so it does nothing but hand on the run's input (the event's data).
func (r *interpreter) triggerStep() contract.StepOutput {
	return contract.StepOutput{Output: r.in.Event.Data}
}

func (r *interpreter) condition(ctx workflow.Context, s contract.Step) (contract.StepOutput, string, error) {
	input := map[string]any{"if": s.If}
	expr, err := query.Parse(s.If, nil)
	if err != nil && failsUnparsable(ctx) {
		return contract.StepOutput{Input: input}, s.Next, stepError("condition", fmt.Sprintf("the condition does not parse: %v", err))
	}
	matched := err == nil && query.Match(expr, r.scope(s))
	next := s.Else
	if matched {
		next = s.Then
	}
	if next == "" {
		next = s.Next
	}
	return contract.StepOutput{Input: input, Output: map[string]any{"matched": matched, "next": next}}, next, nil
}

// failsUnparsable reports whether a condition or a duration that does not
// parse fails its step. Validation on save refuses both, but a version
// frozen before a rule changed may hold one; runs recorded before this
// rule took it as false (or no wait) and must replay that way. Asked only
// on the error path, so histories of valid definitions are unchanged.
func failsUnparsable(ctx workflow.Context) bool {
	return workflow.GetVersion(ctx, "fail-unparsable-steps", workflow.DefaultVersion, 1) != workflow.DefaultVersion
}

func (r *interpreter) wait(ctx workflow.Context, s contract.Step) (contract.StepOutput, error) {
	now := workflow.Now(ctx)
	var d time.Duration
	input := map[string]any{}
	if s.Duration != "" {
		input["duration"] = s.Duration
		var err error
		if d, err = time.ParseDuration(s.Duration); err != nil && failsUnparsable(ctx) {
			return contract.StepOutput{Input: input}, stepError("wait", fmt.Sprintf("duration %q is not a duration such as 90s, 15m or 2h", s.Duration))
		}
	} else {
		until := template.RenderText(s.Until, r.scope(s))
		input["until"] = until
		t, err := time.Parse(time.RFC3339, until)
		if err != nil {
			return contract.StepOutput{Input: input}, stepError("wait", fmt.Sprintf("until %q is not an RFC 3339 date", until))
		}
		d = t.Sub(now)
	}
	if d > 0 {
		if err := workflow.Sleep(ctx, d); err != nil {
			return contract.StepOutput{Input: input}, err
		}
	}
	waited := workflow.Now(ctx).Sub(now)
	return contract.StepOutput{Input: input, Output: map[string]any{"waitedMs": waited.Milliseconds()}, DurationMs: float64(waited.Milliseconds())}, nil
}

// subPipeline runs the callee as a child workflow with its own run record.
func (r *interpreter) subPipeline(ctx workflow.Context, s contract.Step, executed int) (contract.StepOutput, error) {
	data := r.in.Event.Data
	if s.Input != nil {
		rendered := template.Render(s.Input, r.scope(s))
		if m, ok := rendered.(map[string]any); ok {
			data = m
		} else {
			data = map[string]any{"value": rendered}
		}
	}
	childID := contract.DerivedID("subpipeline", r.in.RunID, s.ID, strconv.Itoa(executed))
	input := map[string]any{"pipeline": s.Pipeline, "run": childID, "input": data}
	if r.in.Depth+1 > contract.MaxDepth {
		return contract.StepOutput{Input: input}, stepError("depth", fmt.Sprintf("sub-pipelines nest at most %d deep", contract.MaxDepth))
	}
	child := contract.RunInput{
		RunID: childID, Pipeline: s.Pipeline, TriggeredBy: r.in.TriggeredBy, Trigger: r.in.Trigger,
		Event: contract.Event{Name: "subPipeline", Timestamp: workflow.Now(ctx), Data: data}, Depth: r.in.Depth + 1, ParentRun: r.in.RunID,
	}
	cctx := workflow.WithChildOptions(ctx, workflow.ChildWorkflowOptions{
		WorkflowID: childID, TypedSearchAttributes: contract.RunAttributes(r.customer, s.Pipeline),
		ParentClosePolicy: enums.PARENT_CLOSE_POLICY_REQUEST_CANCEL, WaitForCancellation: true,
	})
	var res contract.RunResult
	if err := workflow.ExecuteChildWorkflow(cctx, contract.WorkflowPipelineRun, child).Get(ctx, &res); err != nil {
		return contract.StepOutput{Input: input}, err
	}
	return contract.StepOutput{Input: input, Output: res.Output}, nil
}

// activity runs the step types that have side effects or run user code.
func (r *interpreter) activity(ctx workflow.Context, s contract.Step) (contract.StepOutput, error) {
	in := contract.StepInput{RunID: r.in.RunID, Pipeline: r.in.Pipeline, Step: s, Scope: r.scope(s)}
	if s.Type == contract.TypeDB {
		in.Cause = r.causeOfWrites()
	}
	retry := retryPolicy(s)
	var f workflow.Future
	switch s.Type {
	case contract.TypeHTTP:
		f = workflow.ExecuteActivity(workflow.WithActivityOptions(ctx, httpStepOptions(ctx, s, retry)), contract.ActivityRunHTTP, in)
	case contract.TypeNotification:
		f = workflow.ExecuteActivity(workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
			StartToCloseTimeout: time.Minute, RetryPolicy: retry,
		}), contract.ActivityRunNotification, in)
	default:
		// Short, in-worker steps run as local activities: no round trip
		// through the server per step.
		lctx := workflow.WithLocalActivityOptions(ctx, workflow.LocalActivityOptions{
			StartToCloseTimeout: localStepTimeout, RetryPolicy: retry,
		})
		switch s.Type {
		case contract.TypeTransform:
			f = workflow.ExecuteLocalActivity(lctx, contract.ActivityRunTransform, in)
		case contract.TypeDB:
			f = workflow.ExecuteLocalActivity(lctx, contract.ActivityRunDB, in)
		case contract.TypeFunction:
			f = workflow.ExecuteLocalActivity(lctx, contract.ActivityRunFunction, in)
		default:
			return contract.StepOutput{}, stepError("type", fmt.Sprintf("unknown step type %q", s.Type))
		}
	}
	var out contract.StepOutput
	err := f.Get(ctx, &out)
	return out, err
}

// httpHeartbeatTimeout: the http step heartbeats while its request runs
// (pipelines.HTTPHeartbeatEvery), and a cancellation reaches an activity
// only in the answer to a heartbeat, at most every 0.8 of this time-out.
// Short, so cancelling a run aborts its request within a few seconds.
const httpHeartbeatTimeout = 5 * time.Second

// httpStepOptions: the request may run for the step's whole time-out, so
// the activity heartbeats and the run waits for it to stop on a cancel;
// runs recorded before that did not wait (versioned, as waiting changes
// what a cancelled run's history holds).
func httpStepOptions(ctx workflow.Context, s contract.Step, retry *temporal.RetryPolicy) workflow.ActivityOptions {
	o := workflow.ActivityOptions{
		StartToCloseTimeout: time.Duration(s.HTTPTimeoutMs())*time.Millisecond + 10*time.Second, RetryPolicy: retry,
		HeartbeatTimeout: httpHeartbeatTimeout,
	}
	if workflow.GetVersion(ctx, "http-step-cancellation", workflow.DefaultVersion, 1) != workflow.DefaultVersion {
		o.WaitForCancellation = true
	}
	return o
}

// causeOfWrites is the causation chain of the events this run's writes
// emit: the chain of the event that started it, then this run.
func (r *interpreter) causeOfWrites() []contract.Cause {
	chain := append([]contract.Cause{}, r.in.Event.Cause...)
	return append(chain, contract.Cause{Run: r.in.RunID, Pipeline: r.in.Pipeline})
}

// localStepTimeout bounds a local step: the sandbox's own limit (at most
// 30 s) plus room for the kill and a restart.
const localStepTimeout = 45 * time.Second

func retryPolicy(s contract.Step) *temporal.RetryPolicy {
	p := s.EffectiveRetry()
	return &temporal.RetryPolicy{
		MaximumAttempts:    int32(p.MaxAttempts),
		InitialInterval:    time.Duration(p.InitialIntervalMs) * time.Millisecond,
		BackoffCoefficient: p.BackoffCoefficient,
		MaximumInterval:    time.Duration(p.MaxIntervalMs) * time.Millisecond,
	}
}

// stepError is a step failure the workflow itself raises: it never
// crosses the seam, so it carries the StepError alone.
func stepError(kind, msg string) error {
	return temporal.NewNonRetryableApplicationError(msg, contract.ErrTypeStep, nil, contract.StepError{Kind: kind, Message: msg})
}

// failureOf turns a step's error into its record: the StepError, logs and
// rendered input an activity attached, or a description of a time-out, a
// failed child run or a platform fault.
func failureOf(ctx workflow.Context, where string, err error) (*contract.StepError, []string, any) {
	var app *temporal.ApplicationError
	if errors.As(err, &app) && app.Type() == contract.ErrTypeStep && app.HasDetails() {
		d, logs, input := contract.StepFailureDetails(app)
		return &d, logs, input
	}
	return errorOf(ctx, where, err), nil, nil
}

// errorOf describes a failure for the run record; where names the place
// in the workflow, for the Bug task a platform fault files.
func errorOf(ctx workflow.Context, where string, err error) *contract.StepError {
	var (
		app     *temporal.ApplicationError
		timeout *temporal.TimeoutError
	)
	switch {
	case errors.As(err, &app) && app.Type() == contract.ErrTypeRunFailed:
		return &contract.StepError{Kind: "subpipeline", Message: app.Message()}
	case errors.As(err, &app) && app.Type() == contract.ErrTypeStep && app.HasDetails():
		d, _, _ := contract.StepFailureDetails(app)
		return &d
	case errors.As(err, &timeout):
		return &contract.StepError{Kind: "timeout", Message: "the step timed out"}
	case errors.As(err, &app) && describedForTenants(app):
		return &contract.StepError{Kind: "error", Message: app.Message()}
	case temporal.IsCanceledError(err):
		return &contract.StepError{Kind: "cancelled", Message: "the run was cancelled"}
	}
	// A plain Go error from an activity (a store or sandbox fault) may name
	// internal addresses: the run record gets a neutral text, the worker's
	// log the error (the SDK does not log failed local activities), and
	// the customer a Bug task.
	workflow.GetLogger(ctx).Error("pipeline step failed on a platform fault", "where", where, "error", err)
	reportFault(ctx, where, err)
	return &contract.StepError{Kind: "internal", Message: internalError}
}

// reportFault files a fault of the platform as a Bug task of the
// workflow's customer: one task per place and kind of error, counting
// occurrences. Versioned: histories recorded before it (of PipelineRun,
// WebhookDelivery and DispatchEvent alike) hold no such activity.
func reportFault(ctx workflow.Context, where string, err error) {
	if workflow.GetVersion(ctx, "report-faults", workflow.DefaultVersion, 1) == workflow.DefaultVersion {
		return
	}
	kind := "error"
	var app *temporal.ApplicationError
	if errors.As(err, &app) {
		kind = app.Type()
	}
	in := contract.ReportBugInput{Where: where, Kind: kind, DebugID: workflow.GetInfo(ctx).WorkflowExecution.ID}
	lctx := workflow.WithLocalActivityOptions(ctx, workflow.LocalActivityOptions{
		StartToCloseTimeout: 10 * time.Second, RetryPolicy: &temporal.RetryPolicy{MaximumAttempts: 3}})
	if rerr := workflow.ExecuteLocalActivity(lctx, contract.ActivityReportBug, in).Get(ctx, nil); rerr != nil {
		workflow.GetLogger(ctx).Warn("could not file the fault as a Bug task", "where", where, "error", rerr)
	}
}

// internalError is what a run record says of a platform fault.
const internalError = "the platform failed while running this step; the operators' log has the details under the run id"

// describedForTenants reports whether an application error was raised by
// the platform with a message meant for the run record. Any other error is
// a Go error an activity returned as is (the SDK names it by its Go type).
func describedForTenants(app *temporal.ApplicationError) bool {
	return app.Type() == contract.ErrTypePipelineNotFound || app.Type() == contract.ErrTypePipelineInvalid
}

// recordSteps appends the executed steps not yet in the run record; store
// outages are retried until the store is back (the record must show every
// step), so an error here means the run was cancelled.
func (r *interpreter) recordSteps(ctx workflow.Context) error {
	for ; r.recorded < len(r.records); r.recorded++ {
		in := contract.RecordStepInput{RunID: r.in.RunID, Index: r.recorded, Step: r.records[r.recorded]}
		if err := workflow.ExecuteLocalActivity(runStoreOptions(ctx), contract.ActivityRecordStep, in).Get(ctx, nil); err != nil {
			return err
		}
	}
	return nil
}

func (r *interpreter) finish(ctx workflow.Context, in contract.FinishRunInput) error {
	in.RunID = r.in.RunID
	return workflow.ExecuteLocalActivity(runStoreOptions(ctx), contract.ActivityFinishRun, in).Get(ctx, nil)
}

func (r *interpreter) succeed(ctx workflow.Context) (contract.RunResult, error) {
	if err := r.finish(ctx, contract.FinishRunInput{Status: contract.StatusSuccess, Output: r.last, StartedAt: r.start.StartedAt}); err != nil {
		return contract.RunResult{}, err
	}
	return contract.RunResult{Status: contract.StatusSuccess, Output: r.last}, nil
}

func (r *interpreter) fail(ctx workflow.Context, step string, e *contract.StepError) (contract.RunResult, error) {
	if err := r.finish(ctx, contract.FinishRunInput{Status: contract.StatusFailed, Error: e, FailedStep: step, StartedAt: r.start.StartedAt}); err != nil {
		return contract.RunResult{}, err
	}
	msg := e.Message
	if step != "" {
		msg = fmt.Sprintf("step %q failed: %s", step, e.Message)
	}
	return contract.RunResult{}, temporal.NewNonRetryableApplicationError(msg, contract.ErrTypeRunFailed, nil, *e)
}

// cancelled records the cancellation (in a context the cancellation does
// not reach) and ends the workflow as cancelled.
func (r *interpreter) cancelled(ctx workflow.Context) (contract.RunResult, error) {
	dctx, _ := workflow.NewDisconnectedContext(ctx)
	_ = r.recordSteps(dctx)
	_ = r.finish(dctx, contract.FinishRunInput{
		Status: contract.StatusFailed, Cancelled: true, StartedAt: r.start.StartedAt,
		Error: &contract.StepError{Kind: "cancelled", Message: "the run was cancelled"},
	})
	return contract.RunResult{}, temporal.NewCanceledError()
}
