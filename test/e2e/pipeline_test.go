package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestPipelineEventRunEndToEnd: on the real `platform dev` binary, creating
// a consumer starts (through the event dispatch) exactly the pipelines whose
// trigger filter selects it; the run executes a JSONata transform in a
// sandbox child, calls a local HTTP server through the outbound guard and
// creates a CRM task, and its run record shows every step; the console
// links the run into the embedded Temporal UI. The local server is on
// loopback, which platform dev lets outbound calls reach without
// PLATFORM_OUTBOUND_ALLOW (the api and worker roles do not).
func TestPipelineEventRunEndToEnd(t *testing.T) {
	t.Parallel()
	begin := time.Now()

	type hit struct {
		path, contentType string
		body              map[string]any
	}
	var (
		mu   sync.Mutex
		hits []hit
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		h := hit{path: r.URL.Path, contentType: r.Header.Get("Content-Type")}
		_ = json.Unmarshal(raw, &h.body)
		mu.Lock()
		hits = append(hits, h)
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"accepted": true}`))
	}))
	defer srv.Close()

	d := newDev(t)
	took := d.start()
	t.Logf("platform dev ready in %s", took)
	tok := d.token("automation.* crm.*")

	definition := func(name, country string) map[string]any {
		return map[string]any{
			"name":    name,
			"trigger": map[string]any{"event": "consumers.created", "filter": map[string]any{"country": country}},
			"steps": []any{
				map[string]any{"id": "shape", "type": "transform", "language": "jsonata",
					"expression": `{"email": event.data.email, "country": event.data.country}`},
				map[string]any{"id": "notify", "type": "http", "method": "POST", "url": srv.URL + "/signup",
					"body": map[string]any{"email": "{{event.data.email}}", "shaped": "{{steps.shape.output.email}}", "pipeline": name}},
				map[string]any{"id": "task", "type": "db", "collection": "tasks", "op": "create",
					"data": map[string]any{"title": "Welcome {{event.data.email}}", "consumer": "{{event.data._id}}", "priority": "high"}},
			},
		}
	}
	create := func(name, country string) string {
		status, env, err := d.do("POST", "/automation/pipelines", tok, definition(name, country))
		require.NoError(t, err)
		require.Equal(t, 201, status, "create pipeline %s: %v", name, env)
		id := payloadID(env)
		require.NotEmpty(t, id)
		return id
	}
	pipeDE := create("welcome DE", "DE")
	pipeFR := create("welcome FR", "FR")

	email := "anna@example.de"
	status, env, err := d.do("POST", "/crm/consumers", tok, map[string]any{"email": email, "first_name": "Anna", "country": "DE"})
	require.NoError(t, err)
	require.Equal(t, 201, status, "create consumer: %v", env)
	consumerID := payloadID(env)
	created := time.Now()

	listRuns := func(pipeline string) []map[string]any {
		t.Helper()
		status, env, err := d.do("GET", "/automation/pipelineruns?pipeline="+pipeline, tok, nil)
		require.NoError(t, err)
		require.Equal(t, 200, status, "list runs: %v", env)
		return records(env)
	}

	// Wait for the DE pipeline's run to end.
	var run map[string]any
	deadline := time.Now().Add(45 * time.Second)
	for {
		list := listRuns(pipeDE)
		require.LessOrEqual(t, len(list), 1, "one event starts one run of a pipeline: %v", list)
		if len(list) == 1 && list[0]["status"] != "running" {
			run = list[0]
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no finished run of the DE pipeline within 45 s: %v\n%s", list, d.stderr.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Logf("run finished %s after the consumer was created", time.Since(created).Round(time.Millisecond))

	// The full record, by id.
	status, env, err = d.do("GET", "/automation/pipelineruns/"+run["_id"].(string), tok, nil)
	require.NoError(t, err)
	require.Equal(t, 200, status)
	run = env["payload"].(map[string]any)
	require.Equal(t, "success", run["status"], "run record: %v", run)
	require.Equal(t, pipeDE, run["pipeline"])
	require.EqualValues(t, 1, run["pipelineVersion"])
	require.Equal(t, "event", run["triggeredBy"])
	require.Nil(t, run["error"])
	require.Nil(t, run["failedStep"])
	ev, _ := run["event"].(map[string]any)
	require.Equal(t, "consumers.created", ev["name"])
	require.Equal(t, email, ev["data"].(map[string]any)["email"])
	total, _ := run["totalDuration"].(float64)
	require.Greater(t, total, 0.0, "totalDuration")

	steps, _ := run["steps"].([]any)
	require.Len(t, steps, 3, "steps: %v", steps)
	byID := map[string]map[string]any{}
	for i, want := range []struct{ id, typ string }{{"shape", "transform"}, {"notify", "http"}, {"task", "db"}} {
		s := steps[i].(map[string]any)
		require.Equal(t, want.id, s["id"])
		require.Equal(t, want.typ, s["type"])
		require.Equal(t, "success", s["status"], "step %s: %v", want.id, s)
		require.NotNil(t, s["input"], "step %s input", want.id)
		require.NotNil(t, s["output"], "step %s output", want.id)
		dur, ok := s["duration"].(float64)
		require.True(t, ok, "step %s duration: %v", want.id, s["duration"])
		require.Greater(t, dur, 0.0, "step %s duration", want.id)
		byID[want.id] = s
	}
	require.Equal(t, map[string]any{"email": email, "country": "DE"}, byID["shape"]["output"])
	require.Equal(t, "jsonata", byID["shape"]["input"].(map[string]any)["language"])
	notifyIn := byID["notify"]["input"].(map[string]any)
	require.Equal(t, "POST", notifyIn["method"])
	require.Equal(t, srv.URL+"/signup", notifyIn["url"])
	require.Equal(t, map[string]any{"email": email, "shaped": email, "pipeline": "welcome DE"}, notifyIn["body"])
	notifyOut := byID["notify"]["output"].(map[string]any)
	require.EqualValues(t, 200, notifyOut["status"])
	require.Equal(t, map[string]any{"accepted": true}, notifyOut["body"])
	taskOut := byID["task"]["output"].(map[string]any)
	taskID, _ := taskOut["_id"].(string)
	require.NotEmpty(t, taskID)
	require.Equal(t, "Welcome "+email, taskOut["title"])
	require.Equal(t, taskOut, run["output"], "the run's output is the last step's")

	// The FR pipeline did not run: its launch would have happened in the
	// same dispatch that started the DE run, which has long finished.
	require.Empty(t, listRuns(pipeFR), "the FR pipeline's filter does not select a DE consumer")
	status, env, err = d.do("GET", "/automation/pipelineruns", tok, nil)
	require.NoError(t, err)
	require.Equal(t, 200, status)
	require.Len(t, records(env), 1, "exactly one run in all")

	// The local server got exactly one rendered POST.
	mu.Lock()
	got := append([]hit(nil), hits...)
	mu.Unlock()
	require.Len(t, got, 1, "POSTs received: %v", got)
	require.Equal(t, "/signup", got[0].path)
	require.Equal(t, "application/json", got[0].contentType)
	require.Equal(t, map[string]any{"email": email, "shaped": email, "pipeline": "welcome DE"}, got[0].body)

	// The task exists, linked to the consumer, written by the pipeline.
	q := url.Values{"title": {"Welcome " + email}}
	status, env, err = d.do("GET", "/crm/tasks?"+q.Encode(), tok, nil)
	require.NoError(t, err)
	require.Equal(t, 200, status, "list tasks: %v", env)
	tasks := records(env)
	require.Len(t, tasks, 1, "tasks: %v", tasks)
	require.Equal(t, taskID, tasks[0]["_id"])
	require.Equal(t, consumerID, tasks[0]["consumer"])
	require.Equal(t, "high", tasks[0]["priority"])
	require.Equal(t, pipeDE, tasks[0]["createdBy"], "the pipeline is the task's author")

	// The console's run page links the run's workflow in the Temporal UI
	// (it never did under dev: starting the embedded server filled
	// TemporalAddress, which turned the default link off).
	runID := run["_id"].(string)
	page := consolePage(t, d, "/console/r/automation/pipelineruns/"+runID)
	require.Contains(t, page, fmt.Sprintf("http://localhost:%d/namespaces/default/workflows/%s", d.ports["ui"], runID))

	t.Logf("whole test %s", time.Since(begin).Round(time.Millisecond))
}

// records is a list answer's payload.
func records(env map[string]any) []map[string]any {
	list, _ := env["payload"].([]any)
	out := make([]map[string]any, 0, len(list))
	for _, e := range list {
		m, _ := e.(map[string]any)
		out = append(out, m)
	}
	return out
}
