package bench

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	sdkworker "go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"platform/kernel/events"
	"platform/kernel/query"
	"platform/kernel/store"
	"platform/kernel/temporalx"
	"platform/modules/automation/runs"
	"platform/test/testenv"
	"platform/workflows/contract"
)

// TestMain serves the sandbox children of the platforms the benchmarks
// start: user code (the pipeline's transform) runs in children of this
// test binary (see testenv.SandboxMain).
func TestMain(m *testing.M) { testenv.SandboxMain(m) }

// BenchmarkPipelineRuns measures pipeline runs against the floor they stand
// on, on the embedded SQLite store and the Temporal server testenv
// provides. Each round (one line; -count repeats it) measures, one after
// the other so that the comparison sees the same machine load, b.N of each
// with writers (20) concurrent starters, every one waiting for its
// workflow's completion:
//   - a workflow that does nothing (empty-workflows/s);
//   - a workflow running one no-op local activity: the raw trivial-workflow
//     rate the pipeline rate is compared with (raw-workflows/s, raw-p50-ms,
//     raw-p99-ms);
//   - a 3-step pipeline (JSONata transform in the sandbox, condition, db
//     create of a CRM task), started through the launcher as the run action
//     does (run record written, then the workflow started) and timed from
//     the start to the workflow's completion (the run record says success
//     just before): runs/s, p50-ms, p99-ms; ns/op is the pipeline phase;
//     exec-p50-ms is the median of the runs' totalDuration (from the
//     interpreter's start to its last record write): the rest of a run's
//     latency is the launch and Temporal's (start, task dispatch, completion).
//
// Every task the pipeline creates records tasks.created, which starts a
// dispatch workflow on the platform's queue during the pipeline phase
// (part of its cost); drain-ms is how long the last of them took to finish
// after the last run, and each round starts once they have.
//
// pipeline/raw is runs/s over raw-workflows/s; the goal is at least 0.5.
//
// Run: make bench-pipelines (or go test -run '^$' -bench PipelineRuns -benchtime 300x ./bench/).
func BenchmarkPipelineRuns(b *testing.B) {
	p := testenv.NewPlatform(b, testenv.Options{Store: "sqlite", Worker: true})
	tok := p.Token("automation.*", "crm.*")
	r := p.Do("POST", "/automation/pipelines", tok, map[string]any{
		"name": "bench three steps",
		"steps": []any{
			map[string]any{"id": "shape", "type": "transform", "language": "jsonata",
				"expression": `{"title": "Bench " & input.email, "lead": input.kind = "lead"}`},
			map[string]any{"id": "check", "type": "condition", "if": map[string]any{"steps.shape.output.lead": true}, "then": "task", "else": "end"},
			map[string]any{"id": "task", "type": "db", "collection": "tasks", "op": "create",
				"data": map[string]any{"title": "{{steps.shape.output.title}}", "priority": "low"}},
		},
	})
	if r.Status != 201 {
		b.Fatalf("create pipeline: %d %s", r.Status, r.Body)
	}
	pipe, err := p.Store.Collection(runs.Pipelines).Get(p.Ctx(), r.Payload()["_id"].(string))
	if err != nil {
		b.Fatal(err)
	}
	raw := startRawWorker(b, p)
	b.Run("3steps", func(b *testing.B) {
		b.StopTimer()
		settle(b, p) // the previous round's event dispatches must not load this one's raw phase
		empty := runRawWorkflows(b, p, raw, "BenchPipeEmpty")
		local := runRawWorkflows(b, p, raw, "BenchPipeLocal")
		b.StartTimer()
		pipeline := runPipelines(b, p, pipe)
		b.StopTimer()
		drain := settle(b, p)

		rate := report(b, pipeline.lat, pipeline.elapsed, "runs/s").rate
		rawRate := local.rate()
		b.ReportMetric(rawRate, "raw-workflows/s")
		b.ReportMetric(ms(local.quantile(50)), "raw-p50-ms")
		b.ReportMetric(ms(local.quantile(99)), "raw-p99-ms")
		b.ReportMetric(empty.rate(), "empty-workflows/s")
		b.ReportMetric(rate/rawRate, "pipeline/raw")
		b.ReportMetric(ms(drain), "drain-ms")
		execP50 := quantile(pipeline.exec, 50)
		b.ReportMetric(ms(execP50), "exec-p50-ms")
		if b.N > 1 {
			b.Logf("pipelines: %.1f runs/s (p50 %.0f ms, of which %.0f ms executing in the worker; p99 %.0f ms); trivial workflows: %.1f/s with one local activity (p50 %.0f ms, p99 %.0f ms), %.1f/s empty; pipeline/raw %.2f (goal >= 0.50); tasks.created dispatches done %.0f ms after the last run",
				rate, ms(pipeline.quantile(50)), ms(execP50), ms(pipeline.quantile(99)), rawRate, ms(local.quantile(50)), ms(local.quantile(99)), empty.rate(), rate/rawRate, ms(drain))
		}
	})
}

// settle waits until every stored event is dispatched (each task a
// pipeline creates records tasks.created, whose dispatch is one more
// workflow on the platform's queue) and returns how long that took.
func settle(b *testing.B, p *testenv.Platform) time.Duration {
	begin := time.Now()
	pending := query.Field{Path: "dispatched", Conds: []query.Cond{query.Compare{Op: query.OpNe, Value: true}}}
	for {
		n, err := p.Store.Collection(events.Collection).Count(p.Ctx(), pending)
		if err != nil {
			b.Fatal(err)
		}
		if n == 0 {
			return time.Since(begin)
		}
		if time.Since(begin) > 3*time.Minute {
			b.Fatalf("%d events still not dispatched after 3 minutes", n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// timings are the latencies of one phase and its wall-clock time; for
// pipelines also the runs' totalDuration (the interpreter's start to its
// last record write, in the worker) as exec.
type timings struct {
	lat     []time.Duration
	elapsed time.Duration
	exec    []time.Duration
}

func (t timings) rate() float64 { return float64(len(t.lat)) / t.elapsed.Seconds() }

// quantile returns the q-th percentile of the latencies.
func (t timings) quantile(q int) time.Duration { return quantile(t.lat, q) }

// quantile returns the q-th percentile of d (it sorts d in place).
func quantile(d []time.Duration, q int) time.Duration {
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
	return d[len(d)*q/100]
}

// startRawWorker runs the trivial workflows on their own task queue of the
// same server, with the same (default) worker options as the platform's.
func startRawWorker(b *testing.B, p *testenv.Platform) string {
	queue := p.TaskQueue + "-raw"
	w := sdkworker.New(p.Temporal, queue, sdkworker.Options{})
	w.RegisterWorkflowWithOptions(func(workflow.Context) error { return nil }, workflow.RegisterOptions{Name: "BenchPipeEmpty"})
	w.RegisterWorkflowWithOptions(func(ctx workflow.Context) error {
		ctx = workflow.WithLocalActivityOptions(ctx, workflow.LocalActivityOptions{StartToCloseTimeout: 10 * time.Second})
		return workflow.ExecuteLocalActivity(ctx, "BenchPipeNoop").Get(ctx, nil)
	}, workflow.RegisterOptions{Name: "BenchPipeLocal"})
	w.RegisterActivityWithOptions(func(context.Context) error { return nil }, activity.RegisterOptions{Name: "BenchPipeNoop"})
	if err := w.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(w.Stop)
	return queue
}

func runRawWorkflows(b *testing.B, p *testenv.Platform, queue, name string) timings {
	var mu sync.Mutex
	var lat []time.Duration
	var failed atomic.Int64
	begin := time.Now()
	parallel(b.N, func(int) {
		t0 := time.Now()
		run, err := p.Temporal.ExecuteWorkflow(context.Background(), client.StartWorkflowOptions{ID: store.NewID(), TaskQueue: queue}, name)
		if err == nil {
			err = run.Get(context.Background(), nil)
		}
		if err != nil {
			failed.Add(1)
			return
		}
		mu.Lock()
		lat = append(lat, time.Since(t0))
		mu.Unlock()
	})
	elapsed := time.Since(begin)
	if failed.Load() > 0 {
		b.Fatalf("%d %s workflows failed", failed.Load(), name)
	}
	return timings{lat: lat, elapsed: elapsed}
}

// runPipelines launches b.N runs as the run action does and waits for
// each workflow; at the end every run record must say success.
func runPipelines(b *testing.B, p *testenv.Platform, pipe store.Doc) timings {
	ctx := p.Ctx()
	launcher := &runs.Launcher{Store: p.Store, Starter: &temporalx.Starter{Client: p.Temporal, TaskQueue: p.TaskQueue}}
	tag := round.Add(1)
	var mu sync.Mutex
	var lat []time.Duration
	var ids []any
	var failed atomic.Int64
	var firstErr atomic.Value
	fail := func(err error) {
		failed.Add(1)
		firstErr.CompareAndSwap(nil, err)
	}
	begin := time.Now()
	parallel(b.N, func(i int) {
		t0 := time.Now()
		id, err := launcher.Launch(ctx, runs.Launch{
			Pipeline: pipe, TriggeredBy: runs.ByManual,
			Event: contract.Event{Name: "manual", Timestamp: t0.UTC().Truncate(time.Millisecond),
				Data: map[string]any{"email": fmt.Sprintf("run%d-%d@example.com", tag, i), "kind": "lead"}},
		})
		if err != nil {
			fail(err)
			return
		}
		if err := p.Temporal.GetWorkflow(ctx, id, "").Get(ctx, nil); err != nil {
			fail(fmt.Errorf("run %s: %w", id, err))
			return
		}
		mu.Lock()
		lat = append(lat, time.Since(t0))
		ids = append(ids, id)
		mu.Unlock()
	})
	elapsed := time.Since(begin)
	if failed.Load() > 0 {
		b.Fatalf("%d runs failed, first: %v", failed.Load(), firstErr.Load())
	}
	notOK := query.Field{Path: "status", Conds: []query.Cond{query.Compare{Op: query.OpNe, Value: runs.StatusSuccess}}}
	if n, err := p.Store.Collection(runs.Runs).Count(ctx, notOK); err != nil || n > 0 {
		b.Fatalf("%d run records do not say success (%v)", n, err)
	}
	recs, err := p.Store.Collection(runs.Runs).Find(ctx, store.FindOptions{Filter: query.Field{Path: "_id", Conds: []query.Cond{query.In{Values: ids}}}, Fields: []string{"totalDuration"}})
	if err != nil || len(recs) != len(ids) {
		b.Fatalf("read %d run records: %d (%v)", len(ids), len(recs), err)
	}
	exec := make([]time.Duration, len(recs))
	for i, r := range recs {
		var d float64
		switch v := r["totalDuration"].(type) {
		case float64:
			d = v
		case int64:
			d = float64(v)
		}
		exec[i] = time.Duration(d * float64(time.Millisecond))
	}
	return timings{lat: lat, elapsed: elapsed, exec: exec}
}
