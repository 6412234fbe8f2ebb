package workflows_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"
	"google.golang.org/protobuf/encoding/protojson"

	"platform/activities/pipelines"
	"platform/activities/system"
	"platform/cmd/platform/app"
	"platform/kernel/outbound"
	"platform/kernel/resource"
	"platform/kernel/settings"
	"platform/kernel/store"
	"platform/kernel/tenant"
	"platform/modules/audit/trail"
	"platform/modules/automation/pipeline"
	"platform/modules/automation/runs"
	"platform/modules/config/credentials"
	"platform/sandbox"
	"platform/test/testenv"
	"platform/worker"
	"platform/workflows/contract"
)

// The sandbox pool is shared by the package's tests (its children are this
// test binary, see TestMain) and closed when they are done.
var (
	sandboxOnce sync.Once
	sandboxPool *sandbox.Pool
	sandboxErr  error
)

func sharedSandbox(t testing.TB) *sandbox.Pool {
	t.Helper()
	sandboxOnce.Do(func() {
		sandboxPool, sandboxErr = sandbox.NewPool(sandbox.PoolOptions{
			Command: []string{os.Args[0], "-test.run=^$"},
			Env:     []string{testenv.SandboxChildEnv + "=1"},
			Size:    2,
			// A -race child on a loaded 2-core machine is slow: the
			// default 1 s would make the tests flaky, not stricter.
			DefaultTimeout: 10 * time.Second,
		})
	})
	require.NoError(t, sandboxErr, "start the sandbox pool")
	return sandboxPool
}

func closeSandbox() {
	if sandboxPool != nil {
		_ = sandboxPool.Close()
	}
}

// pipeFixture is one customer on a real SQLite store with the platform's
// API (and so the CRM resources db steps write to) wired by app.New, and
// the real pipeline activities: sandbox children, the outbound guard
// (loopback allowed), the record layer. Tests add a notifier or a secret
// source to acts before they build an env.
type pipeFixture struct {
	t        *testing.T
	st       store.Store
	ctx      context.Context
	customer string
	app      *app.App
	records  *resource.Records
	acts     *pipelines.Activities
	system   *system.Activities // with the app: faults file Bug tasks
}

func newPipeFixture(t *testing.T) *pipeFixture {
	t.Helper()
	st := testenv.SQLiteStore(t)
	cfg, err := settings.Load("test", nil)
	require.NoError(t, err)
	cfg.MasterKey = credentials.EncodeMasterKey(credentials.NewMasterKey())
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	// No Temporal client: events are stored, nothing dispatches them.
	a, err := app.New(ctx, cfg, st, nil, testenv.Logger(t))
	require.NoError(t, err)
	t.Cleanup(func() { _ = a.Close() })
	cust, _, err := a.Identity.EnsureCustomer(ctx, "acme", "Acme Corp", []string{"*"})
	require.NoError(t, err)
	f := newFixtureOn(t, st, cust.ID)
	f.app, f.records = a, a.Service.Records("crm")
	f.acts.Records = f.records
	f.system = &system.Activities{Store: st, Bugs: a.Bugs}
	return f
}

// newStoreFixture is a fixture on a plain SQLite store: no API, so none
// of the indexes app.New declares and no db steps.
func newStoreFixture(t *testing.T) *pipeFixture {
	t.Helper()
	return newFixtureOn(t, testenv.SQLiteStore(t), store.NewID())
}

func newFixtureOn(t *testing.T, st store.Store, customer string) *pipeFixture {
	t.Helper()
	guard, err := outbound.New([]string{"127.0.0.1"})
	require.NoError(t, err)
	f := &pipeFixture{t: t, st: st, customer: customer, ctx: tenant.WithCustomer(context.Background(), customer)}
	f.acts = &pipelines.Activities{
		Store: st, Log: testenv.Logger(t), Outbound: guard,
		Sandbox: sharedSandbox(t), Audit: &trail.StoreWriter{Store: st, Log: testenv.Logger(t)},
	}
	return f
}

// newEnv is a time-skipping environment running PipelineRun and the real
// activities for the fixture's customer.
func (f *pipeFixture) newEnv() *testsuite.TestWorkflowEnvironment {
	var s testsuite.WorkflowTestSuite
	s.SetLogger(log.NewStructuredLogger(testenv.Logger(f.t)))
	env := s.NewTestWorkflowEnvironment()
	// The idle limit is wall-clock time the env waits for an activity:
	// generous for -race on a loaded machine.
	env.SetTestTimeout(time.Minute)
	env.SetContextPropagators([]workflow.ContextPropagator{tenant.Propagator{}})
	p, err := converter.GetDefaultDataConverter().ToPayload(f.customer)
	require.NoError(f.t, err)
	env.SetHeader(&commonpb.Header{Fields: map[string]*commonpb.Payload{tenant.HeaderKey: p}})
	worker.Register(env, worker.Activities{Pipelines: f.acts, System: f.system})
	return env
}

// pipeline validates a definition (JSON text: name, trigger, steps) as
// saving it through the API does, and stores it as version 1 of a new
// pipeline: the pipelines record and the frozen pipelineversions doc.
func (f *pipeFixture) pipeline(def string) string {
	f.t.Helper()
	id := store.NewID()
	f.storePipeline(id, def, true)
	return id
}

func (f *pipeFixture) storePipeline(id, def string, validate bool) {
	f.t.Helper()
	var doc map[string]any
	require.NoError(f.t, json.Unmarshal([]byte(def), &doc), "definition JSON")
	d, err := pipeline.FromDoc(doc)
	require.NoError(f.t, err)
	if validate {
		problems, err := pipeline.Validate(f.ctx, d, id, &checkEnv{f: f})
		require.NoError(f.t, err)
		for _, p := range problems {
			f.t.Errorf("definition refused: %s: %s", p.Field, p.Message)
		}
		require.Empty(f.t, problems)
	}
	norm, err := pipeline.ToDoc(d)
	require.NoError(f.t, err)
	now := time.Now().UTC().Truncate(time.Millisecond)
	require.NoError(f.t, f.st.Collection(runs.Pipelines).Insert(f.ctx, store.Doc{
		"_id": id, "name": d.Name, "active": true, "trigger": norm["trigger"], "steps": norm["steps"], "version": int64(1),
		"createdAt": now, "updatedAt": now,
	}))
	require.NoError(f.t, f.st.Collection(runs.Versions).Insert(f.ctx, store.Doc{
		"_id": runs.VersionID(id, 1), "pipeline": id, "version": int64(1), "createdAt": now,
		"definition":  store.Doc{"name": d.Name, "trigger": norm["trigger"], "steps": norm["steps"]},
		"credentials": f.grantCredentials(pipeline.CredentialRefs(d)),
	}))
}

// grantCredentials stores an active credential record per name (the
// values come from fixedSecrets) and returns the grants a version saved
// through the API would record for them.
func (f *pipeFixture) grantCredentials(names []string) []any {
	f.t.Helper()
	var grants []any
	for _, name := range names {
		id := store.NewID()
		require.NoError(f.t, f.st.Collection(credentials.Collection).Insert(f.ctx, store.Doc{"_id": id, "name": name, "_status": credentials.StatusActive}))
		grants = append(grants, store.Doc{"name": name, "id": id})
	}
	return grants
}

// function stores a deployed custom function (version 1).
func (f *pipeFixture) function(code string) string {
	f.t.Helper()
	id := store.NewID()
	require.NoError(f.t, f.st.Collection(runs.Functions).Insert(f.ctx, store.Doc{"_id": id, "name": "fn-" + id[18:], "deployedVersion": int64(1)}))
	require.NoError(f.t, f.st.Collection(runs.FunctionVersions).Insert(f.ctx, store.Doc{
		"_id": runs.FunctionVersionID(id, 1), "function": id, "version": int64(1), "code": code, "timeoutMs": int64(10_000),
	}))
	return id
}

// start runs a manual run of the pipeline's current version with data as
// its input, to completion (the env skips time), and returns the run id.
func (f *pipeFixture) start(env *testsuite.TestWorkflowEnvironment, pipelineID string, data map[string]any) string {
	f.t.Helper()
	runID := store.NewID()
	if data == nil {
		data = map[string]any{}
	}
	f.execute(env, contract.RunInput{
		RunID: runID, Pipeline: pipelineID, TriggeredBy: runs.ByManual,
		Event: contract.Event{Name: "manual", Timestamp: env.Now().UTC().Truncate(time.Millisecond), Data: data},
	})
	return runID
}

func (f *pipeFixture) execute(env *testsuite.TestWorkflowEnvironment, in contract.RunInput) {
	f.t.Helper()
	env.SetStartWorkflowOptions(client.StartWorkflowOptions{ID: in.RunID, TaskQueue: "pipelines"})
	env.ExecuteWorkflow(contract.WorkflowPipelineRun, in)
	require.True(f.t, env.IsWorkflowCompleted())
}

// succeeded asserts the run completed and returns its output.
func succeeded(t *testing.T, env *testsuite.TestWorkflowEnvironment) any {
	t.Helper()
	require.NoError(t, env.GetWorkflowError())
	var res contract.RunResult
	require.NoError(t, env.GetWorkflowResult(&res))
	require.Equal(t, runs.StatusSuccess, res.Status)
	return res.Output
}

// failed asserts the run failed as a failed run (not a platform fault)
// and returns the StepError the workflow failed with.
func failed(t *testing.T, env *testsuite.TestWorkflowEnvironment) contract.StepError {
	t.Helper()
	err := env.GetWorkflowError()
	require.Error(t, err)
	var app *temporal.ApplicationError
	require.True(t, errors.As(err, &app), "want an application error, got %v", err)
	require.Equal(t, contract.ErrTypeRunFailed, app.Type())
	require.True(t, app.NonRetryable())
	var d contract.StepError
	require.NoError(t, app.Details(&d))
	return d
}

// record reads a run record from the store.
func (f *pipeFixture) record(runID string) store.Doc {
	f.t.Helper()
	rec, err := f.st.Collection(runs.Runs).Get(f.ctx, runID)
	require.NoError(f.t, err, "run record %s", runID)
	return rec
}

// jsonOf is v through JSON, so assertions do not depend on the Go types a
// store returns for numbers.
func jsonOf(t *testing.T, v any) any {
	t.Helper()
	raw, err := json.Marshal(v)
	require.NoError(t, err)
	var out any
	require.NoError(t, json.Unmarshal(raw, &out))
	return out
}

func docOf(t *testing.T, v any) map[string]any {
	t.Helper()
	m, ok := jsonOf(t, v).(map[string]any)
	require.True(t, ok, "want an object, got %T %v", v, v)
	return m
}

// steps lists the run record's steps, as JSON.
func steps(t *testing.T, rec store.Doc) []map[string]any {
	t.Helper()
	list, ok := jsonOf(t, rec["steps"]).([]any)
	require.True(t, ok, "steps: %v", rec["steps"])
	out := make([]map[string]any, len(list))
	for i, s := range list {
		out[i] = s.(map[string]any)
	}
	return out
}

// stepIDs lists the ids of the executed steps in order.
func stepIDs(t *testing.T, rec store.Doc) []string {
	t.Helper()
	var ids []string
	for _, s := range steps(t, rec) {
		ids = append(ids, s["id"].(string))
	}
	return ids
}

// step returns the record of the first execution of step id.
func step(t *testing.T, rec store.Doc, id string) map[string]any {
	t.Helper()
	for _, s := range steps(t, rec) {
		if s["id"] == id {
			return s
		}
	}
	t.Fatalf("step %s not in the run record (executed: %v)", id, stepIDs(t, rec))
	return nil
}

// requireFinished checks what every finished run record holds.
func requireFinished(t *testing.T, rec store.Doc, status string) {
	t.Helper()
	require.Equal(t, status, rec["status"], "run status (error: %v)", rec["error"])
	require.NotNil(t, rec["endedAt"])
	require.Contains(t, rec, "totalDuration")
	for _, s := range steps(t, rec) {
		require.Contains(t, s, "duration", "step %s", s["id"])
		require.Contains(t, s, "startedAt", "step %s", s["id"])
	}
}

// checkEnv answers the validator as the automation module does, from the
// fixture's store, record layer and sandbox, for an author holding every
// right.
type checkEnv struct{ f *pipeFixture }

func (e *checkEnv) EventPattern(string) string { return "" }

func (e *checkEnv) Trigger(context.Context, string) (string, error) { return "", nil }

func (e *checkEnv) CronMinInterval() time.Duration { return 0 }

func (e *checkEnv) Function(ctx context.Context, id string) (string, error) {
	if _, err := runs.DeployedFunction(ctx, e.f.st, id); err != nil {
		return err.Error(), nil
	}
	return "", nil
}

func (e *checkEnv) SubPipelines(ctx context.Context, id string) ([]string, bool, error) {
	doc, err := e.f.st.Collection(runs.Pipelines).Get(ctx, id, "steps")
	if errors.Is(err, store.ErrNotFound) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	d, err := pipeline.FromDoc(doc)
	if err != nil {
		return nil, true, nil
	}
	return pipeline.SubPipelineRefs(d), true, nil
}

func (e *checkEnv) Collection(_ context.Context, coll, op string) (string, error) {
	if e.f.records == nil {
		return "db steps need the API: use newPipeFixture", nil
	}
	if _, err := e.f.records.Resource(coll, op != contract.OpRead); err != nil {
		return err.Error(), nil
	}
	return "", nil
}

func (e *checkEnv) Compile(ctx context.Context, lang, code string) (*pipeline.CodeError, error) {
	kind := sandbox.KindJSONata
	if lang == contract.LangJavaScript {
		kind = sandbox.KindJSExpression
	}
	se, err := sharedSandbox(e.f.t).Compile(ctx, kind, code)
	if err != nil || se == nil {
		return nil, err
	}
	return &pipeline.CodeError{Message: se.Message, Line: se.Line, Column: se.Column}, nil
}

// fixedSecrets stands for the credential vault (tested in package
// credentials): the customer's secrets by credential name.
type fixedSecrets map[string]any

func (s fixedSecrets) Secrets(_ context.Context, _ store.Store, names []string) (map[string]any, error) {
	out := map[string]any{}
	for _, n := range names {
		if v, ok := s[n]; ok {
			out[n] = v
		}
	}
	return out, nil
}

// receiver is a local HTTP endpoint that records what it is sent and
// answers with a status chosen per call.
type receiver struct {
	*httptest.Server
	mu     sync.Mutex
	calls  []received
	answer func(n int, r received) (int, any) // n counts from 1
}

type received struct {
	Method string
	Path   string
	Query  string
	Header http.Header
	Body   string
}

func newReceiver(t *testing.T, answer func(n int, r received) (int, any)) *receiver {
	rc := &receiver{answer: answer}
	rc.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		got := received{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, Header: r.Header.Clone(), Body: string(body)}
		rc.mu.Lock()
		rc.calls = append(rc.calls, got)
		n := len(rc.calls)
		rc.mu.Unlock()
		status, answer := rc.answer(n, got)
		if answer == nil {
			w.WriteHeader(status)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_ = json.NewEncoder(w).Encode(answer)
	}))
	t.Cleanup(rc.Close)
	return rc
}

func (rc *receiver) received() []received {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]received{}, rc.calls...)
}

// historyRecorder keeps everything a run's history would hold, as text:
// each payload the data converter encodes (workflow and activity inputs
// and results, child workflow inputs and results, local activity markers)
// and each failure, encoded as the failure converter puts it into history.
// The time-skipping environment keeps no history of its own to read.
type historyRecorder struct {
	converter.DataConverter
	mu   sync.Mutex
	seen []string
}

func newHistoryRecorder() *historyRecorder {
	return &historyRecorder{DataConverter: converter.GetDefaultDataConverter()}
}

func (h *historyRecorder) add(p ...*commonpb.Payload) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, e := range p {
		if e != nil {
			h.seen = append(h.seen, string(e.GetData()))
		}
	}
}

func (h *historyRecorder) ToPayload(v any) (*commonpb.Payload, error) {
	p, err := h.DataConverter.ToPayload(v)
	h.add(p)
	return p, err
}

func (h *historyRecorder) ToPayloads(v ...any) (*commonpb.Payloads, error) {
	p, err := h.DataConverter.ToPayloads(v...)
	h.add(p.GetPayloads()...)
	return p, err
}

func (h *historyRecorder) failure(err error) {
	if err == nil {
		return
	}
	f := temporal.GetDefaultFailureConverter().ErrorToFailure(err)
	raw, merr := protojson.Marshal(f)
	h.mu.Lock()
	defer h.mu.Unlock()
	h.seen = append(h.seen, err.Error())
	if merr == nil {
		h.seen = append(h.seen, string(raw))
	}
}

func (h *historyRecorder) text() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return strings.Join(h.seen, "\n")
}

// attach makes env encode through h and records every activity's and
// child run's failure.
func (h *historyRecorder) attach(env *testsuite.TestWorkflowEnvironment) {
	env.SetDataConverter(h)
	env.SetOnActivityCompletedListener(func(_ *activity.Info, _ converter.EncodedValue, err error) { h.failure(err) })
	env.SetOnLocalActivityCompletedListener(func(_ *activity.Info, _ converter.EncodedValue, err error) { h.failure(err) })
	env.SetOnChildWorkflowCompletedListener(func(_ *workflow.Info, _ converter.EncodedValue, err error) { h.failure(err) })
}
