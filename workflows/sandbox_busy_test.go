package workflows_test

import (
	"context"
	"errors"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"platform/modules/automation/runs"
	"platform/sandbox"
	"platform/test/testenv"
)

// A transform step that finds every sandbox child of its customer busy
// fails as sandbox_busy, not as a failure of its code, and is retried:
// two attempts with retry.maxAttempts 2.
func TestPipelineStepOnABusySandbox(t *testing.T) {
	t.Parallel()
	f := newStoreFixture(t)
	pool, err := sandbox.NewPool(sandbox.PoolOptions{
		Command: []string{os.Args[0], "-test.run=^$"}, Env: []string{testenv.SandboxChildEnv + "=1"},
		Size: 1, QueueTimeout: 200 * time.Millisecond,
	})
	require.NoError(t, err)
	t.Cleanup(func() { _ = pool.Close() })
	f.acts.Sandbox = pool
	occupy(t, f.ctx, pool)

	id := f.pipeline(`{"name": "busy", "steps": [
		{"id": "shape", "type": "transform", "expression": "input.n + 1", "retry": {"maxAttempts": 2, "initialIntervalMs": 10}}]}`)
	env := f.newEnv()
	runID := f.start(env, id, map[string]any{"n": 1})
	e := failed(t, env)
	require.Equal(t, "sandbox_busy", e.Kind)
	require.Equal(t, 2, e.Attempts, "retried")
	rec := f.record(runID)
	requireFinished(t, rec, runs.StatusFailed)
	require.Equal(t, "sandbox_busy", step(t, rec, "shape")["error"].(map[string]any)["kind"])
}

// occupy keeps the pool's only child busy with an endless loop until the
// test ends, and returns once a call of ctx's customer is refused as busy.
func occupy(t *testing.T, ctx context.Context, pool *sandbox.Pool) {
	t.Helper()
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() {
		// A probe below may hold the child longer than the queue
		// time-out on a loaded machine: then the loop asks again.
		for {
			_, err := pool.Run(ctx, sandbox.Request{Kind: sandbox.KindJSFunction, Code: "while (true) {}", TimeoutMs: 30_000})
			if !errors.Is(err, sandbox.ErrBusy) {
				return
			}
		}
	})
	t.Cleanup(func() { cancel(); wg.Wait() })
	require.Eventually(t, func() bool {
		_, err := pool.Run(ctx, sandbox.Request{Kind: sandbox.KindJSExpression, Code: "1"})
		return errors.Is(err, sandbox.ErrBusy)
	}, 30*time.Second, time.Millisecond, "the endless loop never got the child")
}
