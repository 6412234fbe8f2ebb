package aggregation_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	aggacts "platform/activities/aggregation"
	pipelineacts "platform/activities/pipelines"
	"platform/kernel/query"
	"platform/kernel/resource"
	"platform/kernel/store"
	"platform/kernel/temporalx"
	"platform/modules/aggregation/readmodel"
	"platform/modules/automation/runs"
	"platform/modules/marketing/maillog"
	"platform/test/testenv"
	"platform/workflows/contract"
)

// workload drives a seeded random mix of writes of every source of the
// read models, through the API and the services the platform itself
// uses; it remembers the last write time of records it deleted.
type workload struct {
	t         *testing.T
	p         *testenv.Platform
	ctx       context.Context
	tok       string
	rng       *rand.Rand
	consumers []string
	letters   []string
	pipes     []string
	tasks     []string
	notes     []string
	logs      []string
	deleted   map[string]time.Time // consumer -> latest updatedAt of its deleted tasks and notes
	feed      *readmodel.Feed
	runActs   *pipelineacts.Activities
	launcher  *runs.Launcher
}

func newWorkload(t *testing.T, p *testenv.Platform, seed uint64) *workload {
	feed := &readmodel.Feed{Store: p.Store, Waker: &aggacts.Waker{Starter: &temporalx.Starter{Client: p.Temporal, TaskQueue: p.TaskQueue}}}
	w := &workload{t: t, p: p, ctx: p.Ctx(), tok: p.Token("*"), rng: rand.New(rand.NewPCG(seed, seed+1)), deleted: map[string]time.Time{}, feed: feed,
		runActs:  &pipelineacts.Activities{Store: p.Store, Log: testenv.Logger(t), Aggregation: feed},
		launcher: &runs.Launcher{Store: p.Store, Aggregation: feed}}
	for i := range 5 {
		r := p.Do("POST", "/crm/consumers", w.tok, map[string]any{"email": fmt.Sprintf("c%d-%d@example.com", seed, i)})
		require.Equal(t, 201, r.Status, string(r.Body))
		w.consumers = append(w.consumers, r.Payload()["_id"].(string))
	}
	for range 3 {
		w.letters = append(w.letters, store.NewID())
	}
	for range 2 {
		w.pipes = append(w.pipes, store.NewID())
	}
	r := p.Do("POST", "/automation/webhooks", w.tok, map[string]any{"name": "health", "url": receiver(t), "events": []string{"notes.*"}})
	require.Equal(t, 201, r.Status, string(r.Body))
	return w
}

func (w *workload) pick(list []string) string { return list[w.rng.IntN(len(list))] }

// run makes n random writes.
func (w *workload) run(n int) {
	steps := []func(){w.newTask, w.moveTask, w.deleteTask, w.newNote, w.deleteNote, w.newMail, w.openOrClick, w.bounce, w.unsubscribe, w.endRun, w.refuseRun}
	for range n {
		steps[w.rng.IntN(len(steps))]()
	}
}

func (w *workload) newTask() {
	body := map[string]any{"title": "t", "consumer": w.pick(w.consumers)}
	if w.rng.IntN(3) == 0 {
		body["_status"] = "done"
	}
	r := w.p.Do("POST", "/crm/tasks", w.tok, body)
	require.Equal(w.t, 201, r.Status, string(r.Body))
	w.tasks = append(w.tasks, r.Payload()["_id"].(string))
}

func (w *workload) moveTask() {
	if len(w.tasks) == 0 {
		return
	}
	id := w.pick(w.tasks)
	r := w.p.Do("PATCH", "/crm/tasks/"+id, w.tok, map[string]any{"_status": w.pick([]string{"in-progress", "done"})})
	if r.Status == 409 { // done already: reopen
		r = w.p.Do("POST", "/crm/tasks/"+id+"/actions/reopen", w.tok, nil)
	}
	require.Contains(w.t, []int{200, 201}, r.Status, string(r.Body))
}

func (w *workload) deleteTask() { w.tasks = w.remove("/crm/tasks/", "consumer", w.tasks) }
func (w *workload) deleteNote() { w.notes = w.remove("/crm/notes/", "targetId", w.notes) }

// remove deletes a random record of list and notes its last write.
func (w *workload) remove(path, consumerField string, list []string) []string {
	if len(list) == 0 {
		return list
	}
	i := w.rng.IntN(len(list))
	r := w.p.Do("DELETE", path+list[i], w.tok, nil)
	require.Equal(w.t, 200, r.Status, string(r.Body))
	c, _ := r.Payload()[consumerField].(string)
	if at, err := time.Parse(time.RFC3339Nano, fmt.Sprint(r.Payload()["updatedAt"])); err == nil && at.After(w.deleted[c]) {
		w.deleted[c] = at
	}
	return append(list[:i], list[i+1:]...)
}

func (w *workload) newNote() {
	r := w.p.Do("POST", "/crm/notes", w.tok, map[string]any{"body": "n", "targetType": "consumers", "targetId": w.pick(w.consumers)})
	require.Equal(w.t, 201, r.Status, string(r.Body))
	w.notes = append(w.notes, r.Payload()["_id"].(string))
}

func (w *workload) mailLogs() maillog.Logs { return maillog.Logs{Service: w.p.Service} }

func (w *workload) newMail() {
	status, failure := maillog.Sent, ""
	if w.rng.IntN(5) == 0 {
		status, failure = maillog.Failed, "refused"
	}
	doc, err := w.mailLogs().Create(w.ctx, maillog.Write{ID: store.NewID(), To: "x@example.com", Consumer: w.pick(w.consumers),
		Newsletter: w.pick(w.letters), Source: "newsletter", Status: status, Error: failure})
	require.NoError(w.t, err)
	w.logs = append(w.logs, doc["_id"].(string))
}

func (w *workload) openOrClick() {
	if len(w.logs) == 0 {
		return
	}
	doc, err := w.mailLogs().Load(w.ctx, w.pick(w.logs))
	require.NoError(w.t, err)
	if w.rng.IntN(2) == 0 {
		require.NoError(w.t, w.mailLogs().Open(w.ctx, doc, false))
	} else {
		require.NoError(w.t, w.mailLogs().Click(w.ctx, doc, false))
	}
}

func (w *workload) bounce() {
	if len(w.logs) == 0 {
		return
	}
	_, _, err := w.mailLogs().Report(w.ctx, w.pick(w.logs), w.pick([]string{maillog.Bounced, maillog.Complained}), "test")
	require.NoError(w.t, err)
}

// unsubscribe does what the tracker's one-click unsubscribe does.
func (w *workload) unsubscribe() {
	consumers := w.p.Service.Registry.Get("crm", "consumers")
	where := query.AllOf(query.ID(w.pick(w.consumers)), query.Field{Path: "unsubscribedAt", Conds: []query.Cond{query.Exists{Want: false}}})
	_, err := w.p.Service.Apply(w.ctx, consumers, where, resource.Change{Event: "unsubscribed",
		Set: store.Doc{"unsubscribedAt": time.Now().UTC().Truncate(time.Millisecond), "unsubscribedNewsletter": w.pick(w.letters)}})
	if resource.KindOf(err) != resource.KindNotFound {
		require.NoError(w.t, err)
	}
}

// endRun records a running run as the launcher does and ends it through
// the FinishRun activity, with a random duration.
func (w *workload) endRun() {
	id := store.NewID()
	started := time.Now().UTC().Add(-time.Duration(w.rng.IntN(5000)) * time.Millisecond).Truncate(time.Millisecond)
	require.NoError(w.t, w.p.Store.Collection(runs.Runs).Insert(w.ctx, store.Doc{"_id": id, "pipeline": w.pick(w.pipes), "status": runs.StatusRunning,
		"startedAt": started, "createdAt": started, "updatedAt": started, "steps": []any{}, "stepCount": int64(0)}))
	status := w.pick([]string{runs.StatusSuccess, runs.StatusSuccess, runs.StatusFailed})
	require.NoError(w.t, w.runActs.FinishRun(w.ctx, contract.FinishRunInput{RunID: id, Status: status, StartedAt: started}))
}

func (w *workload) refuseRun() {
	pid := w.pick(w.pipes)
	_, err := w.launcher.Refuse(w.ctx, runs.Launch{Pipeline: store.Doc{"_id": pid, "name": "p", "version": int64(1)}, TriggeredBy: runs.ByManual}, "cycle", "test")
	require.NoError(w.t, err)
}
