package pipelines

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"time"

	"go.temporal.io/sdk/activity"

	"platform/kernel/outbound"
	"platform/kernel/store"
	"platform/kernel/template"
	"platform/modules/automation/pipeline"
	"platform/modules/automation/runs"
	"platform/modules/config/credentials"
	"platform/sandbox"
	"platform/workflows/contract"
)

// MaxStepOutputBytes caps one step's output (it travels in the run's
// history and record).
const MaxStepOutputBytes = 256 << 10

// stepFailure is a step error with nothing but its kind and message
// (contract.StepFailure).
func stepFailure(kind, msg string, permanent bool, cause error) error {
	return contract.StepFailure(contract.StepError{Kind: kind, Message: msg}, permanent, cause, nil, nil)
}

// stepScope is the scope of one step with the secrets it refers to, and a
// redactor hiding them in everything the step records or returns.
type stepScope struct {
	vars map[string]any
	// masked is vars with every secret value read as [redacted]: what
	// the step's record renders (nil: the step reads no secret).
	masked  map[string]any
	redact  *pipeline.Redactor
	attempt int
}

// render renders v for the call and, apart, for the record, where each
// value that came from {{secrets...}} is [redacted] (structural
// redaction: no substring search, so short secrets are hidden too and
// other text stays intact).
func (s stepScope) render(v any) (call, recorded any) {
	call = template.Render(v, s.vars)
	if s.masked == nil {
		return call, call
	}
	return call, template.Render(v, s.masked)
}

// renderText is render for one text.
func (s stepScope) renderText(t string) (call, recorded string) {
	call = template.RenderText(t, s.vars)
	if s.masked == nil {
		return call, call
	}
	return call, template.RenderText(t, s.masked)
}

func (a *Activities) scopeFor(ctx context.Context, in contract.StepInput) (stepScope, error) {
	names := pipeline.StepCredentials(&in.Step)
	if len(names) == 0 {
		return stepScope{vars: in.Scope, attempt: attemptOf(ctx)}, nil
	}
	if a.Secrets == nil {
		return stepScope{}, stepFailure("secrets", "secrets are not available in this worker (no master key)", true, nil)
	}
	secrets, err := a.readSecrets(ctx, in, names)
	if err != nil {
		return stepScope{}, err
	}
	vars := make(map[string]any, len(in.Scope)+1)
	for k, v := range in.Scope {
		vars[k] = v
	}
	masked := maps.Clone(vars)
	vars[contract.RootSecrets] = secrets
	masked[contract.RootSecrets] = pipeline.MaskSecrets(secrets)
	return stepScope{vars: vars, masked: masked, redact: pipeline.NewRedactor(credentials.Leaves(secrets)), attempt: attemptOf(ctx)}, nil
}

// finish measures the step, caps its output and hides secrets in it.
func (s stepScope) finish(start time.Time, input, output any, logs []string) (contract.StepOutput, error) {
	out := contract.StepOutput{Input: s.redact.Value(input), Output: s.redact.Value(output), DurationMs: ms(time.Since(start)), Attempts: s.attempt}
	for _, l := range logs {
		out.Logs = append(out.Logs, s.redact.String(l))
	}
	if raw, err := json.Marshal(out.Output); err != nil || len(raw) > MaxStepOutputBytes {
		return contract.StepOutput{}, stepFailure("output_too_large", fmt.Sprintf("the step's output is larger than %d bytes", MaxStepOutputBytes), true, nil)
	}
	return out, nil
}

// fail is the step's failure with its rendered input, secrets redacted.
// The record reads err as a tenant may (outbound.Cause): a failed call is
// described, not quoted with the resolvers and addresses it names.
func (s stepScope) fail(kind string, permanent bool, err error, input any) error {
	return contract.StepFailure(contract.StepError{Kind: kind, Message: s.redact.String(outbound.Cause(err)), Attempts: s.attempt}, permanent, nil, nil, s.redact.Value(input))
}

// failLogged is fail for an error whose full text only the worker log may
// keep (a failed call, a store fault): it is logged with the run and step
// that the record names.
func (a *Activities) failLogged(ctx context.Context, in contract.StepInput, sc stepScope, kind string, permanent bool, err error, input any) error {
	a.Log.WarnContext(ctx, "pipeline step failed", "run", in.RunID, "step", in.Step.ID, "kind", kind, "error", sc.redact.String(err.Error()))
	return sc.fail(kind, permanent, err, input)
}

// attemptOf is the current attempt of the (local) activity of ctx.
func attemptOf(ctx context.Context) int {
	if !activity.IsActivity(ctx) {
		return 0
	}
	return int(activity.GetInfo(ctx).Attempt)
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// RunTransform evaluates a JSONata or JavaScript expression over the
// run's scope in the sandbox.
func (a *Activities) RunTransform(ctx context.Context, in contract.StepInput) (contract.StepOutput, error) {
	start := time.Now()
	kind := sandbox.KindJSONata
	if in.Step.Language == contract.LangJavaScript {
		kind = sandbox.KindJSExpression
	}
	input := map[string]any{"language": string(kind), "expression": in.Step.Expression}
	sc := stepScope{attempt: attemptOf(ctx)}
	out, logs, err := a.runCode(ctx, sandbox.Request{Kind: kind, Code: in.Step.Expression, TimeoutMs: in.Step.TimeoutMs}, in.Scope, sc, input)
	if err != nil {
		return contract.StepOutput{}, err
	}
	return sc.finish(start, input, out, logs)
}

// permanentCodeError: retrying cannot change these outcomes of user code
// (a time-out or a runtime error may depend on data or load: the step's
// retry policy applies).
var permanentCodeError = map[string]bool{
	sandbox.ErrKindSyntax: true, sandbox.ErrKindInvalidRequest: true, sandbox.ErrKindInputTooLarge: true, sandbox.ErrKindOutputTooLarge: true,
}

// runCode runs user code with input in the sandbox and decodes its output;
// redact hides secrets in the error and logs of a failed call (the caller
// redacts those of a successful one in finish).
func (a *Activities) runCode(ctx context.Context, req sandbox.Request, input any, sc stepScope, recorded any) (any, []string, error) {
	redact := sc.redact
	if a.Sandbox == nil {
		return nil, nil, stepFailure("sandbox", "the sandbox is not available in this worker", true, nil)
	}
	raw, err := json.Marshal(input)
	if err != nil {
		return nil, nil, stepFailure("input", "the step's input is not JSON: "+err.Error(), true, nil)
	}
	req.Input = raw
	res, err := a.Sandbox.Run(ctx, req)
	if errors.Is(err, sandbox.ErrBusy) {
		// Other calls held every child: the code never ran, so this is
		// no failure of it, and a later attempt may find a free child.
		d := contract.StepError{Kind: "sandbox_busy", Message: "the sandbox was busy with other calls, so the code did not run", Attempts: sc.attempt}
		return nil, nil, contract.StepFailure(d, false, err, nil, redact.Value(recorded))
	}
	if err != nil {
		return nil, nil, err // the pool itself failed: retried
	}
	out, cerr := res.Value()
	if cerr != nil {
		cerr.Message = redact.String(cerr.Message)
		for i, l := range res.Logs {
			res.Logs[i] = redact.String(l)
		}
		d := contract.StepError{Kind: cerr.Kind, Message: cerr.Message, Line: cerr.Line, Column: cerr.Column, Attempts: sc.attempt}
		return nil, res.Logs, contract.StepFailure(d, permanentCodeError[cerr.Kind], nil, res.Logs, redact.Value(recorded))
	}
	return out, res.Logs, nil
}

// RunFunction calls the deployed version of a custom function with the
// step's input (the run's input when the step sets none).
func (a *Activities) RunFunction(ctx context.Context, in contract.StepInput) (contract.StepOutput, error) {
	start := time.Now()
	sc, err := a.scopeFor(ctx, in)
	if err != nil {
		return contract.StepOutput{}, err
	}
	fn, err := deployedFunction(ctx, a.Store, in.Step.Function)
	if err != nil {
		return contract.StepOutput{}, err
	}
	var arg, recordedArg any = in.Scope["input"], in.Scope["input"]
	if in.Step.Input != nil {
		arg, recordedArg = sc.render(in.Step.Input)
	}
	input := map[string]any{"function": in.Step.Function, "version": fn.Version, "input": recordedArg}
	out, logs, err := a.runCode(ctx, sandbox.Request{Kind: sandbox.KindJSFunction, Code: fn.Code, TimeoutMs: fn.TimeoutMs}, arg, sc, input)
	if err != nil {
		return contract.StepOutput{}, err
	}
	return sc.finish(start, input, out, logs)
}

// deployedFunction loads the frozen code of a function's deployed
// version; a function never deployed or gone fails the step for good.
func deployedFunction(ctx context.Context, st store.Store, id string) (runs.Function, error) {
	fn, err := runs.DeployedFunction(ctx, st, id)
	var missing *runs.NotDeployedError
	if errors.As(err, &missing) {
		return runs.Function{}, stepFailure("function", missing.Reason, true, nil)
	}
	return fn, err
}
