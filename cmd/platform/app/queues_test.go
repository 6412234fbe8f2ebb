package app_test

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/api/enums/v1"
	"go.temporal.io/api/taskqueue/v1"
	"go.temporal.io/api/workflowservice/v1"

	"platform/cmd/platform/app"
	"platform/kernel/settings"
	"platform/kernel/store"
	"platform/modules/automation/webhook"
	"platform/test/testenv"
	"platform/workflows/contract"
)

// TestEachKindRunsOnItsQueue: every start site starts its workflow on its
// kind's queue with the customer as fairness key, the workflow's
// activities are scheduled there too, and the worker polls each queue.
func TestEachKindRunsOnItsQueue(t *testing.T) {
	t.Parallel()
	p := testenv.NewPlatform(t, testenv.Options{Worker: true, Configure: allowLoopback})
	tok := p.Token("automation.*", "crm.*")
	rcv := newCounter(t)
	pipelines, webhooks := contract.Queue(p.TaskQueue, contract.KindPipelines), contract.Queue(p.TaskQueue, contract.KindWebhooks)
	hook := create(t, p, tok, "/automation/webhooks", map[string]any{"name": "h", "url": rcv.url("/hook"), "events": []string{"consumers.created"}})
	failing := create(t, p, tok, "/automation/webhooks", map[string]any{"name": "dead", "url": deadURL(t), "events": []string{"consumers.created"}})
	onEvent := create(t, p, tok, "/automation/pipelines", pipeline("on event", rcv.url("/step"), map[string]any{"event": "consumers.created"}))
	create(t, p, tok, "/crm/consumers", map[string]any{"email": "ada@example.com"})

	run := awaitRuns(t, p, tok, onEvent, 1)[0]
	eventID := awaitDelivered(t, p, hook)
	firing := fireHookTrigger(t, p, tok, rcv)
	retry := retryParked(t, p, tok, eventID, hook)
	for id, queue := range map[string]string{run: pipelines, firing: pipelines, retry: webhooks} {
		requireRanOn(t, p, id, queue)
	}
	// The failed first attempt went to the webhook's retrier, which waits
	// for its next attempt (a minute): it is described, not awaited.
	requireRunsOn(t, p, contract.RetrierWorkflowID(failing), webhooks)
	cron := create(t, p, tok, "/automation/pipelines", pipeline("at nine", rcv.url("/cron"), map[string]any{"cron": "0 9 * * *"}))
	// The raw answer: the SDK's Describe leaves the priority out.
	d, err := p.Temporal.WorkflowService().DescribeSchedule(p.Ctx(), &workflowservice.DescribeScheduleRequest{Namespace: "default", ScheduleId: "pipeline-" + cron})
	require.NoError(t, err)
	action := d.GetSchedule().GetAction().GetStartWorkflow()
	require.Equal(t, pipelines, action.GetTaskQueue().GetName())
	require.Equal(t, p.Customer.ID, action.GetPriority().GetFairnessKey())
	for _, q := range app.TaskQueues(p.TaskQueue) {
		requirePolled(t, p, q)
	}
}

// TestBurstOfOneCustomerDoesNotHoldUpAnother is issue 14 with two
// customers: A's two pipelines and A's webhook call a dead port on every
// consumers.created, and A creates a few hundred consumers, so A's failing
// work backs up the pipelines and webhooks queues (few slots, to see it in
// seconds). B's pipeline run and B's webhook delivery still complete
// within the documented bound (docs/queues.md) while A's backlog waits.
func TestBurstOfOneCustomerDoesNotHoldUpAnother(t *testing.T) {
	t.Parallel()
	few := settings.QueueSlots{Activities: 2, Workflows: 2, Pollers: 2}
	// A's failing steps log an error each: keep them out of the output.
	quiet := slog.New(slog.DiscardHandler)
	p := testenv.NewPlatform(t, testenv.Options{Worker: true, Logger: quiet, Configure: func(c *settings.Config) {
		allowLoopback(c)
		c.Slots = map[contract.Kind]settings.QueueSlots{contract.KindPipelines: few, contract.KindWebhooks: few}
	}})
	rcv := newCounter(t)
	tokA := p.Token("automation.*", "crm.*")
	dead := deadURL(t)
	for _, name := range []string{"sync one", "sync two"} {
		create(t, p, tokA, "/automation/pipelines", pipeline(name, dead, map[string]any{"event": "consumers.created"}))
	}
	create(t, p, tokA, "/automation/webhooks", map[string]any{"name": "a", "url": dead, "events": []string{"consumers.created"}})
	b, bUser := p.OtherCustomer("second")
	tokB := p.TokenFor(b.ID, bUser.ID, "automation.*", "crm.*")
	bPipe := create(t, p, tokB, "/automation/pipelines", pipeline("b", rcv.url("/b-run"), nil))
	create(t, p, tokB, "/automation/webhooks", map[string]any{"name": "b", "url": rcv.url("/b-hook"), "events": []string{"consumers.created"}})

	createConsumers(t, p, tokA, 200)
	queues := []string{contract.Queue(p.TaskQueue, contract.KindPipelines), contract.Queue(p.TaskQueue, contract.KindWebhooks)}
	// A's work waits on both queues B's work needs: how it divides
	// depends on how fast the machine dispatches A's events.
	awaitBacklog(t, p, queues, 50)

	began := time.Now()
	r := p.Do("POST", "/automation/pipelines/"+bPipe+"/actions/run", tokB, map[string]any{})
	require.Equal(t, 200, r.Status, "%s", r.Body)
	bRun := r.Payload()["run"].(map[string]any)["_id"].(string)
	create(t, p, tokB, "/crm/consumers", map[string]any{"email": "bob@example.com"})
	runTook := awaitRunStatus(t, p, tokB, bRun, "success", began)
	hookTook := rcv.await(t, "/b-hook", began)
	left := backlog(t, p, queues...)
	t.Logf("B's run took %s, B's delivery %s; A's tasks still queued then: %d", runTook, hookTook, left)
	require.Less(t, runTook, fairBound)
	require.Less(t, hookTook, fairBound)
	require.Positive(t, left, "B went ahead of A's queued work, which still waits")
}

// fairBound is what a burst of another customer may add to B's one-step
// run or one delivery here (docs/queues.md, "The bound"): about three
// tasks, each waiting for one of A's tasks to free a slot (milliseconds:
// A's calls are refused at once) or at most 5 s on the worker's sticky
// queue. Measured: 0.5 to 1.5 s; without fairness keys, 30 s to over a
// minute.
const fairBound = 15 * time.Second

func allowLoopback(c *settings.Config) { c.OutboundAllow = []string{"127.0.0.1"} }

// pipeline is a one-step pipeline POSTing to url, started by trigger (nil:
// manual runs only).
func pipeline(name, url string, trigger map[string]any) map[string]any {
	p := map[string]any{"name": name, "steps": []any{map[string]any{"id": "call", "type": "http", "method": "POST", "url": url, "body": map[string]any{"n": 1}}}}
	if trigger != nil {
		p["trigger"] = trigger
	}
	return p
}

// create POSTs a record and returns its id.
func create(t *testing.T, p *testenv.Platform, tok, path string, body map[string]any) string {
	t.Helper()
	r := p.Do("POST", path, tok, body)
	require.Equal(t, 201, r.Status, "%s", r.Body)
	return r.Payload()["_id"].(string)
}

// createConsumers creates n consumers, a few requests at a time.
func createConsumers(t *testing.T, p *testenv.Platform, tok string, n int) {
	var wg sync.WaitGroup
	errs := make(chan error, n)
	next := make(chan int, n)
	for i := range n {
		next <- i
	}
	close(next)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				r, err := p.TryDo("POST", "/crm/consumers", tok, map[string]any{"email": "c" + store.NewID() + "@example.com"})
				if err == nil && r.Status != 201 {
					err = fmt.Errorf("consumer %d: status %d: %s", i, r.Status, r.Body)
				}
				if err != nil {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

// awaitRuns waits until the pipeline has at least n run records and
// returns their ids.
func awaitRuns(t *testing.T, p *testenv.Platform, tok, pipeline string, n int) []string {
	t.Helper()
	var ids []string
	require.Eventually(t, func() bool {
		ids = ids[:0]
		for _, r := range p.Do("GET", "/automation/pipelineruns?limit=500&pipeline="+pipeline, tok, nil).List() {
			ids = append(ids, r["_id"].(string))
		}
		return len(ids) >= n
	}, time.Minute, 50*time.Millisecond)
	return ids
}

// awaitRunStatus waits for the run to end with status and returns the
// time since began.
func awaitRunStatus(t *testing.T, p *testenv.Platform, tok, run, status string, began time.Time) time.Duration {
	t.Helper()
	var rec map[string]any
	require.Eventually(t, func() bool {
		rec = p.Do("GET", "/automation/pipelineruns/"+run, tok, nil).Payload()
		return rec["status"] != "running"
	}, time.Minute, 20*time.Millisecond)
	require.Equal(t, status, rec["status"], "%v", rec)
	return time.Since(began)
}

// backlog is the number of tasks (workflow and activity) waiting in the
// queues, as the server estimates it.
func backlog(t *testing.T, p *testenv.Platform, queues ...string) int64 {
	t.Helper()
	var n int64
	for _, q := range queues {
		for _, typ := range []enums.TaskQueueType{enums.TASK_QUEUE_TYPE_WORKFLOW, enums.TASK_QUEUE_TYPE_ACTIVITY} {
			d, err := p.Temporal.WorkflowService().DescribeTaskQueue(p.Ctx(), &workflowservice.DescribeTaskQueueRequest{
				Namespace: "default", TaskQueue: &taskqueue.TaskQueue{Name: q, Kind: enums.TASK_QUEUE_KIND_NORMAL},
				TaskQueueType: typ, ReportStats: true,
			})
			require.NoError(t, err)
			n += d.GetStats().GetApproximateBacklogCount()
		}
	}
	return n
}

// awaitBacklog waits until at least n tasks wait in the queues together.
func awaitBacklog(t *testing.T, p *testenv.Platform, queues []string, n int64) {
	t.Helper()
	require.Eventually(t, func() bool { return backlog(t, p, queues...) >= n }, time.Minute, 50*time.Millisecond,
		"%v never had %d tasks waiting", queues, n)
}

// awaitDelivered waits for the webhook's first delivery record and
// returns the event id.
func awaitDelivered(t *testing.T, p *testenv.Platform, hook string) string {
	t.Helper()
	var eventID string
	require.Eventually(t, func() bool {
		docs, err := p.Store.Collection(webhook.DeliveriesCollection).Find(p.Ctx(), store.FindOptions{Limit: 1})
		if err != nil || len(docs) == 0 {
			return false
		}
		eventID, _, _ = strings.Cut(docs[0]["delivery"].(string), "-")
		return true
	}, time.Minute, 50*time.Millisecond)
	return eventID
}

// fireHookTrigger calls a webhook trigger's URL and returns the firing's
// workflow id.
func fireHookTrigger(t *testing.T, p *testenv.Platform, tok string, rcv *counter) string {
	t.Helper()
	r := p.Do("POST", "/automation/triggers", tok, map[string]any{"name": "inbound", "type": "webhook"})
	require.Equal(t, 201, r.Status, "%s", r.Body)
	trigger, url := r.Payload()["_id"].(string), r.Payload()["webhookUrl"].(string)
	create(t, p, tok, "/automation/pipelines", pipeline("on call", rcv.url("/fired"), map[string]any{"id": trigger}))
	r = p.Do("POST", strings.TrimPrefix(url, p.URL), "", map[string]any{"x": 1})
	require.Equal(t, http.StatusAccepted, r.Status, "%s", r.Body)
	return r.Payload()["firing"].(string)
}

// retryParked parks the event's delivery to the webhook as the delivery
// workflow does after its last attempt, retries it through the API and
// returns the round's workflow id.
func retryParked(t *testing.T, p *testenv.Platform, tok, eventID, hook string) string {
	t.Helper()
	id := webhook.RetryRecordID(webhook.DeliveryID(eventID, hook))
	require.NoError(t, p.Store.Collection(webhook.RetriesCollection).Insert(p.Ctx(), store.Doc{
		"_id": id, "event": eventID, "eventName": "consumers.created", "webhook": hook, "status": webhook.StatusParked, "round": int64(0)}))
	r := p.Do("POST", "/automation/webhookretries/"+id+"/actions/retry", tok, nil)
	require.Equal(t, 200, r.Status, "%s", r.Body)
	return contract.DeliveryWorkflowID(eventID, hook, 1)
}

// requireRanOn checks that the workflow ran on queue with the customer as
// its fairness key, and that its activities were scheduled on queue.
func requireRanOn(t *testing.T, p *testenv.Platform, id, queue string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(p.Ctx(), time.Minute)
	defer cancel()
	require.NoError(t, p.Temporal.GetWorkflow(ctx, id, "").Get(ctx, nil), id)
	d, err := p.Temporal.DescribeWorkflowExecution(ctx, id, "")
	require.NoError(t, err)
	require.Equal(t, queue, d.WorkflowExecutionInfo.TaskQueue, id)
	it := p.Temporal.GetWorkflowHistory(ctx, id, "", false, enums.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for it.HasNext() {
		e, err := it.Next()
		require.NoError(t, err)
		if a := e.GetWorkflowExecutionStartedEventAttributes(); a != nil {
			require.Equal(t, p.Customer.ID, a.GetPriority().GetFairnessKey(), id)
		}
		if a := e.GetActivityTaskScheduledEventAttributes(); a != nil {
			require.Equal(t, queue, a.GetTaskQueue().GetName(), "%s: activity %s", id, a.GetActivityType().GetName())
		}
	}
}

// requireRunsOn checks that the running workflow id is on queue with the
// customer as its fairness key.
func requireRunsOn(t *testing.T, p *testenv.Platform, id, queue string) {
	t.Helper()
	var d *workflowservice.DescribeWorkflowExecutionResponse
	require.Eventually(t, func() bool {
		var err error
		d, err = p.Temporal.DescribeWorkflowExecution(p.Ctx(), id, "")
		return err == nil
	}, 30*time.Second, 50*time.Millisecond, "%s started", id)
	require.Equal(t, queue, d.WorkflowExecutionInfo.TaskQueue, id)
	require.Equal(t, p.Customer.ID, d.WorkflowExecutionInfo.GetPriority().GetFairnessKey(), id)
}

// requirePolled checks that a worker polls the queue's workflow and
// activity tasks.
func requirePolled(t *testing.T, p *testenv.Platform, queue string) {
	t.Helper()
	for _, typ := range []enums.TaskQueueType{enums.TASK_QUEUE_TYPE_WORKFLOW, enums.TASK_QUEUE_TYPE_ACTIVITY} {
		require.Eventually(t, func() bool {
			d, err := p.Temporal.DescribeTaskQueue(p.Ctx(), queue, typ)
			return err == nil && len(d.GetPollers()) > 0
		}, 10*time.Second, 100*time.Millisecond, "%s %s has no poller", queue, typ)
	}
}

// deadURL is an address nothing listens on: connections are refused.
func deadURL(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())
	return "http://" + addr + "/dead"
}

// counter is a receiver answering 204 that notes when each path was
// first called.
type counter struct {
	srv   *httptest.Server
	mu    sync.Mutex
	first map[string]time.Time
}

func newCounter(t *testing.T) *counter {
	c := &counter{first: map[string]time.Time{}}
	c.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c.mu.Lock()
		if _, ok := c.first[r.URL.Path]; !ok {
			c.first[r.URL.Path] = time.Now()
		}
		c.mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(c.srv.Close)
	return c
}

func (c *counter) url(path string) string { return c.srv.URL + path }

// await waits for the first call of path and returns its time since began.
func (c *counter) await(t *testing.T, path string, began time.Time) time.Duration {
	t.Helper()
	var at time.Time
	require.Eventually(t, func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		at = c.first[path]
		return !at.IsZero()
	}, time.Minute, 20*time.Millisecond, "%s was never called", path)
	return at.Sub(began)
}
