package automation

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"net/http"
	"strconv"
	"time"

	"platform/api"
	"platform/kernel/query"
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
func Functions(d Deps) *api.Resource {
	return &api.Resource{
		Module: "automation", Plural: runs.Functions, Title: "custom function",
		Fields: []api.Field{
			{Name: "name", Type: api.TString, Required: true, MaxLen: 200, Unique: true, Filter: true, Sort: true},
			{Name: "description", Type: api.TString, MaxLen: 2000},
			{Name: "code", Type: api.TString, Required: true, MaxLen: MaxFunctionCode,
				Description: "body of a function of one argument input that returns the output, e.g. return { sum: input.a + input.b }. The sandbox offers the ECMAScript built-ins and console.log only"},
			{Name: "timeoutMs", Type: api.TInteger, Default: int64(DefaultFunctionTimeoutMs), Description: "wall-clock limit of one call, 1 to 30000 ms"},
			{Name: "deployedVersion", Type: api.TInteger, ReadOnly: true, Filter: true, Description: "the version invoke and pipelines run; 0: never deployed"},
			{Name: "deployedAt", Type: api.TDate, ReadOnly: true, Filter: true, Sort: true},
			{Name: "undeployedChanges", Type: api.TBool, ReadOnly: true, Filter: true, Description: "code or timeoutMs changed since the last deploy"},
		},
		Actions: []api.Action{
			{Name: "deploy", Title: "compile the code and make it the deployed version", Right: "automation.functions.deploy", Event: "deployed",
				Run: func(ctx context.Context, call *api.ActionCall) (*api.ActionResult, error) {
					return deployFunction(ctx, d, call)
				}},
			{Name: "invoke", Title: "call the deployed version with an input", Right: "automation.functions.invoke",
				Body: []api.Field{{Name: "input", Type: api.TAny, Description: "the function's argument (any JSON value)"}},
				Run: func(ctx context.Context, call *api.ActionCall) (*api.ActionResult, error) {
					return invokeFunction(ctx, d, call)
				}},
		},
		Hooks: api.Hooks{BeforeWrite: functionWrite},
	}
}

func functionWrite(_ context.Context, w *api.Write) error {
	ms := int(store.Int(w.New["timeoutMs"]))
	if ms < 1 || ms > MaxFunctionTimeoutMs {
		return api.Invalid(api.FieldError(api.CodeInvalid, "timeoutMs", "timeoutMs must be between 1 and %d", MaxFunctionTimeoutMs))
	}
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
func deployFunction(ctx context.Context, d Deps, call *api.ActionCall) (*api.ActionResult, error) {
	if d.Code == nil {
		return nil, unavailable("the sandbox")
	}
	code, _ := call.Record["code"].(string)
	se, err := d.Code.Compile(ctx, sandbox.KindJSFunction, code)
	if err != nil {
		return nil, sandboxUnavailable(err, "the sandbox could not check the code")
	}
	if se != nil {
		e := api.FieldError(api.CodeSyntax, "code", "code does not compile: %s (line %d, column %d)", se.Message, se.Line, se.Column)
		e.Line, e.Column = se.Line, se.Column
		return nil, api.Invalid(e)
	}
	version := int(store.Int(call.Record["deployedVersion"])) + 1
	now := time.Now().UTC().Truncate(time.Millisecond)
	if _, err := call.Services.Store.Collection(runs.FunctionVersions).Upsert(ctx, runs.FunctionVersionID(call.ID, version), store.Update{Set: store.Doc{
		"function": call.ID, "version": int64(version), "code": code, "timeoutMs": call.Record["timeoutMs"], "deployedAt": now,
	}}); err != nil {
		return nil, err
	}
	rec, err := call.Services.Store.Collection(runs.Functions).Update(ctx, query.AllOf(query.ID(call.ID), query.Eq("deployedVersion", int64(version-1))), store.Update{Set: store.Doc{
		"deployedVersion": int64(version), "deployedAt": now, "undeployedChanges": false, "updatedAt": now,
	}})
	if errors.Is(err, store.ErrNotFound) {
		return nil, api.NewError(http.StatusConflict, api.CodeConflict, "deployedVersion", "another deploy of this function ran at the same time; try again").WithCause(err)
	}
	if err != nil {
		return nil, err
	}
	return &api.ActionResult{Payload: rec}, nil
}

// invokeFunction runs the deployed version. A failure of the user's code
// is part of the answer (error, with logs), not an HTTP error: the call
// itself worked.
func invokeFunction(ctx context.Context, d Deps, call *api.ActionCall) (*api.ActionResult, error) {
	if d.Code == nil {
		return nil, unavailable("the sandbox")
	}
	v := int(store.Int(call.Record["deployedVersion"]))
	if v == 0 {
		return nil, api.NewError(http.StatusConflict, api.CodeConflict, "deployedVersion", "the function has not been deployed; deploy it first")
	}
	fn, err := runs.LoadFunctionVersion(ctx, call.Services.Store, call.ID, v)
	if err != nil {
		return nil, err
	}
	input, err := json.Marshal(call.Body["input"])
	if err != nil {
		return nil, api.Invalid(api.FieldError(api.CodeInvalid, "input", "input is not JSON"))
	}
	res, err := d.Code.Run(ctx, sandbox.Request{Kind: sandbox.KindJSFunction, Code: fn.Code, Input: input, TimeoutMs: fn.TimeoutMs})
	if err != nil {
		return nil, sandboxUnavailable(err, "the sandbox is unavailable")
	}
	out := map[string]any{"output": nil, "logs": res.Logs, "durationMs": res.DurationMs, "version": fn.Version}
	if res.Logs == nil {
		out["logs"] = []string{}
	}
	if v, cerr := res.Value(); cerr != nil {
		out["error"] = cerr
	} else {
		out["output"] = v
	}
	return &api.ActionResult{Payload: out}, nil
}

// sandboxUnavailable is the 503 of a sandbox call that did not run. When
// every child was busy (sandbox.ErrBusy), Retry-After asks the client to
// wait as long as the call waited in the queue.
func sandboxUnavailable(err error, what string) *api.Error {
	var busy *sandbox.BusyError
	if !errors.As(err, &busy) {
		return api.NewError(http.StatusServiceUnavailable, api.CodeUnavailable, "", "%s; try again", what).WithCause(err)
	}
	wait := max(int(math.Ceil(busy.Waited.Seconds())), 1)
	e := api.NewError(http.StatusServiceUnavailable, api.CodeUnavailable, "", "the sandbox is busy with other calls; try again in %d s", wait).WithCause(err)
	e.Header = http.Header{"Retry-After": {strconv.Itoa(wait)}}
	return e
}
