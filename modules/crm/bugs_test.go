package crm_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"platform/api"
	"platform/kernel/obs"
	"platform/kernel/query"
	"platform/kernel/store"
	"platform/modules/crm"
	"platform/modules/crm/bugs"
	"platform/test/apitest"
	"platform/test/testenv"
)

// TestBugTasksHidden: runtime errors are tasks of type Bug, which callers
// without crm.tasks.bugs (normal sales users) never see or touch.
func TestBugTasksHidden(t *testing.T) {
	f := newFixture(t)
	c := f.consumer()
	normal := f.task("consumer", c, "title", "call back")
	bug := f.task("consumer", c, "title", "crash", "type", "Bug", "_status", "done")
	bugRights := append([]string{"crm.tasks.bugs"}, salesRights...)
	ordered := func(want ...string) func(f *fixture, v ids, r *testenv.Resp) {
		return func(f *fixture, v ids, r *testenv.Resp) { assert.ElementsMatch(f.T, want, apitest.ListIDs(r)) }
	}
	hidden := func(name, method, path string, body any) scenario {
		return scenario{Name: name, Scopes: salesRights, Method: method, Path: path, Body: body, Status: 404, Codes: []string{"resource.not_found"}}
	}
	apitest.Run(t, f, []scenario{
		{Name: "the task list leaves Bug tasks out", Scopes: salesRights, Method: "GET", Path: "/crm/tasks?count=true", Status: 200,
			Then: func(f *fixture, v ids, r *testenv.Resp) {
				ordered(normal)(f, v, r)
				assert.Equal(f.T, float64(1), r.Meta()["total"], "the total counts only what the caller sees")
			}},
		{Name: "a filter on the Bug type finds nothing", Scopes: salesRights, Method: "GET", Path: "/crm/tasks?type=Bug", Status: 200, Then: ordered()},
		{Name: "a consumer's tasks leave Bug tasks out", Scopes: salesRights, Method: "GET", Path: "/crm/consumers/" + c + "/tasks", Status: 200, Then: ordered(normal)},
		hidden("GET a Bug task", "GET", "/crm/tasks/"+bug, nil),
		hidden("PATCH a Bug task", "PATCH", "/crm/tasks/"+bug, map[string]any{"title": "fixed"}),
		hidden("PUT a Bug task", "PUT", "/crm/tasks", map[string]any{"_id": bug, "title": "fixed"}),
		hidden("DELETE a Bug task", "DELETE", "/crm/tasks/"+bug, nil),
		hidden("reopen a Bug task", "POST", "/crm/tasks/"+bug+"/actions/reopen", nil),
		hidden("assign a Bug task", "POST", "/crm/tasks/"+bug+"/actions/assign", map[string]any{"userId": "{user}"}),
		{Name: "a sales user cannot file a Bug task", Scopes: salesRights, Method: "POST", Path: "/crm/tasks", Body: map[string]any{"title": "x", "type": "Bug"},
			Status: 422, Codes: []string{"validation.invalid"}, Field: "type"},
		{Name: "a sales user cannot turn a task into a Bug", Scopes: salesRights, Method: "PATCH", Path: "/crm/tasks/" + normal, Body: map[string]any{"type": "Bug"},
			Status: 422, Codes: []string{"validation.invalid"}, Field: "type"},
		{Name: "crm.tasks.bugs sees them in lists", Scopes: bugRights, Method: "GET", Path: "/crm/tasks", Status: 200, Then: ordered(normal, bug)},
		{Name: "crm.tasks.bugs sees them by id", Scopes: bugRights, Method: "GET", Path: "/crm/tasks/" + bug, Status: 200,
			Then: func(f *fixture, v ids, r *testenv.Resp) { assert.Equal(f.T, "Bug", r.Payload()["type"]) }},
		{Name: "crm.tasks.bugs may reopen them", Scopes: bugRights, Method: "POST", Path: "/crm/tasks/" + bug + "/actions/reopen",
			Status: 200, Events: []string{"tasks.reopened"}},
	})
}

// TestUnexpectedErrors: a panic or an unexpected error in a handler answers
// a 500 envelope naming only the debug id, and files a Bug task under it.
// The failing routes belong to a module mounted by this test only, through
// the same Server.Mount the platform uses for its own modules.
func TestUnexpectedErrors(t *testing.T) {
	t.Parallel()
	p := testenv.NewPlatform(t, testenv.Options{})
	require.NoError(t, p.API.Mount(context.Background(), &api.Module{
		Name: "faulty", HostLabel: "faulty", Version: "0.0.1",
		Routes: func(r *api.ModuleRouter) {
			r.Handle("GET", "/panic", "crm.consumers.view", func(*api.Request) (*api.Response, error) {
				panic("nil map in handler at secret/path.go:42")
			})
			r.Handle("POST", "/fail", "crm.consumers.view", func(*api.Request) (*api.Response, error) {
				return nil, errors.New("driver: connection string mongodb://user:secret@db")
			})
		},
	}))
	f := setUp(t, p)
	for _, tc := range []struct{ name, method, path, route, secret string }{
		{"a panic", "GET", "/faulty/panic", "GET /faulty/panic", "secret/path.go"},
		{"an unexpected error", "POST", "/faulty/fail", "POST /faulty/fail", "mongodb://"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := f.For(t)
			r := f.P.Do(tc.method, tc.path, f.P.Token("crm.consumers.view"), nil)
			require.Equal(t, http.StatusInternalServerError, r.Status, "%s", r.Body)
			apitest.CheckEnvelope(t, r)
			assert.Equal(t, []string{"internal"}, r.ErrorCodes())
			assert.NotContains(t, string(r.Body), tc.secret, "the cause stays in the log")
			debugID := r.Header.Get("X-Debug-Id")
			require.NotEmpty(t, debugID)

			bugs := f.P.Do("GET", "/crm/tasks?debugId="+debugID, f.Admin, nil)
			require.Equal(t, 200, bugs.Status, "%s", bugs.Body)
			require.Len(t, bugs.List(), 1, "one Bug task per failure")
			task := bugs.List()[0]
			assert.Equal(t, "Bug", task["type"])
			assert.Equal(t, "open", task["_status"])
			assert.Equal(t, debugID, task["debugId"])
			assert.Equal(t, "Runtime error in "+tc.route, task["title"])
			assert.Contains(t, task["description"], debugID)
			assert.NotContains(t, task["description"], tc.secret, "the cause stays in the log")

			sales := f.P.Do("GET", "/crm/tasks?debugId="+debugID, f.P.Token(salesRights...), nil)
			require.Equal(t, 200, sales.Status)
			assert.Empty(t, sales.List(), "sales users do not see Bug tasks")
		})
	}
	t.Run("a refused call files no Bug task", func(t *testing.T) {
		f := f.For(t)
		r := f.P.Do("GET", "/faulty/panic", f.P.Token("crm.tasks.view"), nil)
		require.Equal(t, http.StatusForbidden, r.Status)
		bugs := f.P.Do("GET", "/crm/tasks?type=Bug&count=true", f.Admin, nil)
		assert.Equal(t, float64(2), bugs.Meta()["total"], "only the two failures above")
	})
}

// TestRecurringHandlerFaultIsOneBugTask: the same fault of one route three
// times is one Bug task counting three occurrences, pointing at the
// latest debug id and naming the first in its description, not three tasks.
func TestRecurringHandlerFaultIsOneBugTask(t *testing.T) {
	t.Parallel()
	p := testenv.NewPlatform(t, testenv.Options{})
	require.NoError(t, p.API.Mount(context.Background(), &api.Module{
		Name: "flaky", HostLabel: "flaky", Version: "0.0.1",
		Routes: func(r *api.ModuleRouter) {
			r.Handle("POST", "/fail", "crm.consumers.view", func(*api.Request) (*api.Response, error) {
				return nil, fmt.Errorf("write %s: %w", store.NewID(), errors.New("driver: connection reset"))
			})
		},
	}))
	f := setUp(t, p)
	var debugIDs []string
	for range 3 {
		r := f.P.Do("POST", "/flaky/fail", f.P.Token("crm.consumers.view"), nil)
		require.Equal(t, http.StatusInternalServerError, r.Status, "%s", r.Body)
		debugIDs = append(debugIDs, r.Header.Get("X-Debug-Id"))
	}
	bugs := f.P.Do("GET", "/crm/tasks?type=Bug", f.Admin, nil)
	require.Equal(t, 200, bugs.Status, "%s", bugs.Body)
	require.Len(t, bugs.List(), 1, "one task for the recurring fault: %s", bugs.Body)
	task := bugs.List()[0]
	assert.EqualValues(t, 3, task["occurrences"])
	assert.Equal(t, "Runtime error in POST /flaky/fail", task["title"])
	assert.Equal(t, debugIDs[2], task["debugId"], "the latest occurrence")
	assert.Contains(t, task["description"], debugIDs[0], "the first occurrence")
	assert.NotEmpty(t, task["lastSeenAt"])
}

// TestClientHangUpIsNoServerError: a client that disconnects while its
// request waits on the store is logged at info level as a 499 (nginx's
// status for it), counted under 499, answered without a 500, and files no
// Bug task: nothing failed on the server's side.
func TestClientHangUpIsNoServerError(t *testing.T) {
	t.Parallel()
	logs := &testenv.SyncBuffer{}
	p := testenv.NewPlatform(t, testenv.Options{Logger: obs.NewLogger(logs, "info")})
	inHandler := make(chan struct{})
	require.NoError(t, p.API.Mount(context.Background(), &api.Module{
		Name: "slow", HostLabel: "slow", Version: "0.0.1",
		Routes: func(r *api.ModuleRouter) {
			// A store call in flight when the client leaves: it fails
			// with the request's cancellation, as any handler's would.
			r.Handle("GET", "/consumers", "crm.consumers.view", func(req *api.Request) (*api.Response, error) {
				close(inHandler)
				<-req.Ctx.Done()
				_, err := p.Store.Collection("consumers").Find(req.Ctx, store.FindOptions{})
				return nil, err
			})
		},
	}))
	testenv.HangUp(t, p.URL+"/slow/consumers", p.Token("crm.*"), inHandler)

	line := testenv.AwaitLogLine(t, logs, `"msg":"request"`, `"route":"/slow/consumers"`)
	assert.Equal(t, "INFO", line["level"], "%v", line)
	assert.Equal(t, float64(api.StatusClientClosed), line["status"], "%v", line)
	for _, l := range strings.Split(logs.String(), "\n") {
		if strings.Contains(l, fmt.Sprint(line["debugId"])) {
			assert.NotContains(t, l, `"level":"ERROR"`, "a hang-up is no server error")
		}
	}
	metrics := p.Do("GET", "/metrics", "", nil)
	assert.Contains(t, string(metrics.Body), `platform_http_requests_total{method="GET",route="/slow/consumers",status="499"} 1`)
	bugs := p.Do("GET", "/crm/tasks?type=Bug&count=true", p.Token(allRights...), nil)
	require.Equal(t, http.StatusOK, bugs.Status, "%s", bugs.Body)
	assert.Equal(t, float64(0), bugs.Meta()["total"], "no Bug task for a client that left")
}

// TestBugRecorderSkipsCancellations: a cancelled or timed-out context as
// the cause files nothing; a real fault files its task even when the
// request's context is already cancelled (the task is written on a
// context of its own).
func TestBugRecorderSkipsCancellations(t *testing.T) {
	t.Parallel()
	p := testenv.NewPlatform(t, testenv.Options{})
	rec := &bugs.Recorder{Service: p.Service, Log: testenv.Logger(t)}
	cancelled, cancel := context.WithCancel(p.Ctx())
	cancel()
	rec.ReportBug(cancelled, "dbg-canceled", "GET /x", fmt.Errorf("find: %w", context.Canceled))
	rec.ReportBug(cancelled, "dbg-deadline", "GET /x", fmt.Errorf("find: %w", context.DeadlineExceeded))
	rec.ReportBug(cancelled, "dbg-fault", "GET /x", errors.New("nil map"))
	docs, err := p.Store.Collection("tasks").Find(p.Ctx(), store.FindOptions{Filter: query.Eq("type", crm.TypeBug)})
	require.NoError(t, err)
	require.Len(t, docs, 1, "%v", docs)
	assert.Equal(t, "dbg-fault", docs[0]["debugId"])
}
