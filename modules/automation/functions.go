package automation

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"time"

	"platform/kernel/query"
	"platform/kernel/resource"
	"platform/kernel/store"
	"platform/modules/automation/runs"
	"platform/sandbox"
)

// Function limits.
const (
	DefaultFunctionTimeoutMs = 1000
	MaxFunctionTimeoutMs     = 30_000
	MaxFunctionCode          = 256 << 10
)

// Functions declares /functions: custom JavaScript functions. code is the
// body of `function (input) { ... }`. deploy compiles the code and freezes
// it as a new version; invoke and pipeline function steps always run the
// deployed version.
func Functions(d Deps) *resource.Resource {
	return &resource.Resource{
		Plural: runs.Functions, Title: "custom function",
		Fields: []resource.Field{
			{Name: "name", Type: resource.TString, Required: true, MaxLen: 200, Unique: true, Filter: true, Sort: true},
			{Name: "description", Type: resource.TString, MaxLen: 2000},
			{Name: "code", Type: resource.TString, Required: true, MaxLen: MaxFunctionCode,
				Description: "body of a function of one argument input that returns the output, e.g. return { sum: input.a + input.b }. The sandbox offers the ECMAScript built-ins and console.log only"},
			{Name: "timeoutMs", Type: resource.TInteger, Default: int64(DefaultFunctionTimeoutMs), Range: resource.Between(1, MaxFunctionTimeoutMs), Description: "wall-clock limit of one call in milliseconds"},
			{Name: "deployedVersion", Type: resource.TInteger, ReadOnly: true, Filter: true, Description: "the version invoke and pipelines run; 0: never deployed"},
			{Name: "deployedAt", Type: resource.TDate, ReadOnly: true, Filter: true, Sort: true},
			{Name: "undeployedChanges", Type: resource.TBool, ReadOnly: true, Filter: true, Description: "code or timeoutMs changed since the last deploy"},
		},
		Actions: []resource.Action{
			{Name: "deploy", Title: "compile the code and make it the deployed version", Right: "automation.functions.deploy", Event: "deployed",
				Run: func(ctx context.Context, call *resource.ActionCall) (*resource.ActionResult, error) {
					return deployFunction(ctx, d, call)
				}},
			{Name: "invoke", Title: "call the deployed version with an input", Right: "automation.functions.invoke",
				Body: []resource.Field{{Name: "input", Type: resource.TAny, Description: "the function's argument (any JSON value)"}},
				Run: func(ctx context.Context, call *resource.ActionCall) (*resource.ActionResult, error) {
					return invokeFunction(ctx, d, call)
				}},
		},
		Hooks: resource.Hooks{BeforeWrite: functionWrite},
	}
}

func functionWrite(_ context.Context, w *resource.Write) error {
	ms := int(store.Int(w.New["timeoutMs"]))
	if w.Old == nil {
		w.New["deployedVersion"] = int64(0)
		w.New["undeployedChanges"] = true
		return nil
	}
	if w.Old["code"] != w.New["code"] || int(store.Int(w.Old["timeoutMs"])) != ms {
		w.New["undeployedChanges"] = true
	}
	return nil
}

// deployFunction compiles the code in the sandbox (a syntax error is a 422
// with line and column), freezes it as the next version and points
// deployedVersion at it.
func deployFunction(ctx context.Context, d Deps, call *resource.ActionCall) (*resource.ActionResult, error) {
	if d.Code == nil {
		return nil, unavailable("the sandbox")
	}
	code, _ := call.Record["code"].(string)
	se, err := d.Code.Compile(ctx, sandbox.KindJSFunction, code)
	if err != nil {
		return nil, sandboxUnavailable(err, "the sandbox could not check the code")
	}
	if se != nil {
		e := resource.FieldError(resource.CodeSyntax, "code", "code does not compile: %s (line %d, column %d)", se.Message, se.Line, se.Column)
		e.Line, e.Column = se.Line, se.Column
		return nil, resource.Invalid(e)
	}
	version := int(store.Int(call.Record["deployedVersion"])) + 1
	now := time.Now().UTC().Truncate(time.Millisecond)
	if _, err := call.Service.Store.Collection(runs.FunctionVersions).Upsert(ctx, runs.FunctionVersionID(call.ID, version), store.Update{Set: store.Doc{
		"function": call.ID, "version": int64(version), "code": code, "timeoutMs": call.Record["timeoutMs"], "deployedAt": now,
	}}); err != nil {
		return nil, err
	}
	rec, err := call.Service.Apply(ctx, call.Resource, query.AllOf(query.ID(call.ID), query.Eq("deployedVersion", int64(version-1))), resource.Change{Set: store.Doc{
		"deployedVersion": int64(version), "deployedAt": now, "undeployedChanges": false,
	}})
	if resource.KindOf(err) == resource.KindNotFound {
		return nil, resource.Conflict("deployedVersion", "another deploy of this function ran at the same time; try again").WithCause(err)
	}
	if err != nil {
		return nil, err
	}
	return &resource.ActionResult{Payload: rec}, nil
}

// invokeFunction runs the deployed version. A failure of the user's code
// is part of the answer (error, with logs), not an HTTP error: the call
// itself worked.
func invokeFunction(ctx context.Context, d Deps, call *resource.ActionCall) (*resource.ActionResult, error) {
	if d.Code == nil {
		return nil, unavailable("the sandbox")
	}
	v := int(store.Int(call.Record["deployedVersion"]))
	if v == 0 {
		return nil, resource.Conflict("deployedVersion", "the function has not been deployed; deploy it first")
	}
	fn, err := runs.LoadFunctionVersion(ctx, call.Service.Store, call.ID, v)
	if err != nil {
		return nil, err
	}
	input, err := json.Marshal(call.Body["input"])
	if err != nil {
		return nil, resource.Invalid(resource.FieldError(resource.CodeInvalid, "input", "input is not JSON"))
	}
	res, err := d.Code.Run(ctx, sandbox.Request{Kind: sandbox.KindJSFunction, Code: fn.Code, Input: input, TimeoutMs: fn.TimeoutMs})
	if err != nil {
		return nil, sandboxUnavailable(err, "the sandbox is unavailable")
	}
	out := map[string]any{"output": nil, "logs": res.Logs, "durationMs": math.Round(res.DurationMs), "version": fn.Version}
	if res.Logs == nil {
		out["logs"] = []string{}
	}
	if v, cerr := res.Value(); cerr != nil {
		out["error"] = cerr
	} else {
		out["output"] = v
	}
	return &resource.ActionResult{Payload: out}, nil
}

// sandboxUnavailable is the 503 of a sandbox call that did not run. When
// every child was busy (sandbox.ErrBusy), Retry-After asks the client to
// wait as long as the call waited in the queue.
func sandboxUnavailable(err error, what string) *resource.Error {
	var busy *sandbox.BusyError
	if !errors.As(err, &busy) {
		return resource.Unavailable("%s; try again", what).WithCause(err)
	}
	wait := max(int(math.Ceil(busy.Waited.Seconds())), 1)
	e := resource.Unavailable("the sandbox is busy with other calls; try again in %d s", wait).WithCause(err)
	e.RetryAfter = time.Duration(wait) * time.Second
	return e
}
