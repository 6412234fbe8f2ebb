package automation_test

import (
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"platform/kernel/jsonlimit"
	"platform/kernel/store"
	"platform/test/testenv"
)

// deepObject nests objects levels deep around 1.
func deepObject(levels int) string {
	return strings.Repeat(`{"v":`, levels) + "1" + strings.Repeat("}", levels)
}

// fieldOf is the field of the first error entry of an answer.
func fieldOf(r *testenv.Resp) any {
	errs, _ := r.Meta()["errors"].([]any)
	if len(errs) == 0 {
		return nil
	}
	return errs[0].(map[string]any)["field"]
}

// TestTriggerFiltersAndRunInputsRefuseUnstorableJSON: a trigger filter, a
// pipeline's trigger filter and a run's input holding 1e999 are a 422
// naming the field, deep JSON a 400, and nothing is stored: the lists that
// would have held them still answer.
func TestTriggerFiltersAndRunInputsRefuseUnstorableJSON(t *testing.T) {
	t.Parallel()
	p := testenv.NewPlatform(t, testenv.Options{})
	p.CheckOpenAPI("automation")
	tok := p.Token("automation.*")
	refused := func(r *testenv.Resp, status int, code string, field any) {
		t.Helper()
		require.Equal(t, status, r.Status, "%s", r.Body)
		assert.Equal(t, []string{code}, r.ErrorCodes())
		assert.Equal(t, field, fieldOf(r), "%s", r.Body)
	}

	refused(p.Do("POST", "/automation/triggers", tok, `{"name":"inf","type":"event","event":"tasks.assigned","filter":{"n":1e999}}`),
		422, "validation.type", "filter.n")
	refused(p.Do("POST", "/automation/pipelines", tok,
		`{"name":"inf","trigger":{"event":"tasks.assigned","filter":{"n":{"$gt":-1e999}}},"steps":[{"id":"t","type":"transform","expression":"1"}]}`),
		422, "validation.type", "trigger.filter.n.$gt")

	r := p.Do("POST", "/automation/pipelines", tok, newPipeline("echo", transformStep("t", "input")))
	require.Equal(t, 201, r.Status, "%s", r.Body)
	run := "/automation/pipelines/" + r.Payload()["_id"].(string) + "/actions/run"
	refused(p.Do("POST", run, tok, `{"input":{"n":1e999}}`), 422, "validation.type", "input.n")
	refused(p.Do("POST", run, tok, `{"input":`+deepObject(jsonlimit.MaxDepth)+`}`), 400, "request.too_deep", nil)

	for _, list := range []string{"/automation/triggers", "/automation/pipelines", "/automation/pipelineruns"} {
		r := p.Do("GET", list, tok, nil)
		require.Equal(t, 200, r.Status, "%s: %s", list, r.Body)
	}
	assert.Empty(t, p.Do("GET", "/automation/pipelineruns", tok, nil).List(), "no run was recorded")
	assert.Empty(t, p.Do("GET", "/automation/triggers", tok, nil).List(), "no trigger was stored")
}

// TestUserCodeAndHTTPAnswersCannotPoisonRuns: a function, a transform or an
// http answer producing JSON the platform could not keep (nested deeper
// than jsonlimit.MaxDepth, a number beyond a float64) fails its step with a
// clean error saying why, and the runs stay readable.
func TestUserCodeAndHTTPAnswersCannotPoisonRuns(t *testing.T) {
	t.Parallel()
	p := platformWithWorker(t, testenv.Options{})
	p.CheckOpenAPI("automation")
	tok := p.Token("automation.*")
	answers := map[string]string{"/inf": `{"ok":true,"n":1e999}`, "/deep": `{"v":` + deepObject(200) + `}`}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(answers[r.URL.Path]))
	}))
	t.Cleanup(srv.Close)

	deepJS := `let o = 1; for (let i = 0; i < 1000; i++) o = {v: o}; return o`
	r := p.Do("POST", "/automation/functions", tok, map[string]any{"name": "deep", "code": deepJS})
	require.Equal(t, 201, r.Status, "%s", r.Body)
	fn := r.Payload()["_id"].(string)
	require.Equal(t, 200, p.Do("POST", "/automation/functions/"+fn+"/actions/deploy", tok, nil).Status)
	inv := p.Do("POST", "/automation/functions/"+fn+"/actions/invoke", tok, map[string]any{"input": nil})
	require.Equal(t, 200, inv.Status, "%s", inv.Body)
	require.Nil(t, inv.Payload()["output"])
	e, _ := inv.Payload()["error"].(map[string]any)
	require.Equal(t, "output_too_large", e["kind"], "%s", inv.Body)
	require.Contains(t, e["message"], "deeper than 64 levels")

	once := map[string]any{"maxAttempts": 1}
	cases := []struct {
		name     string
		step     map[string]any
		kind     string
		fragment string
	}{
		{"function", map[string]any{"id": "s", "type": "function", "function": fn}, "output_too_large", "deeper than 64 levels"},
		{"transform", map[string]any{"id": "s", "type": "transform", "language": "javascript", "expression": "(() => { " + deepJS + " })()"},
			"output_too_large", "deeper than 64 levels"},
		{"http answer of 1e999", map[string]any{"id": "s", "type": "http", "url": srv.URL + "/inf", "retry": once}, "http", "n: the number is beyond the range of a 64-bit float"},
		{"deep http answer", map[string]any{"id": "s", "type": "http", "url": srv.URL + "/deep", "retry": once}, "http", "deeper than 64 levels"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := p.For(t).Do("POST", "/automation/pipelines", tok, newPipeline(c.name, c.step))
			require.Equal(t, 201, r.Status, "%s", r.Body)
			run := waitRun(t, p.For(t), tok, runOf(t, p.For(t).Do("POST", "/automation/pipelines/"+r.Payload()["_id"].(string)+"/actions/run", tok, nil)))
			require.Equal(t, "failed", run["status"], "%v", run)
			e := run["error"].(map[string]any)
			assert.Equal(t, c.kind, e["kind"], "%v", e)
			assert.Contains(t, e["message"], c.fragment)
		})
	}
	list := p.Do("GET", "/automation/pipelineruns", tok, nil)
	require.Equal(t, 200, list.Status, "%s", list.Body)
	assert.Len(t, list.List(), len(cases))
}

// TestStoredNonFiniteNumbersKeepAutomationListsAnswering: a trigger filter
// and a run's input (its event's data) holding ±Inf written before the entry checks existed
// (the SQLite store keeps such values) render as null; the lists that
// hold them still answer, so one bad record cannot take a tenant's
// triggers or run history down with it.
func TestStoredNonFiniteNumbersKeepAutomationListsAnswering(t *testing.T) {
	t.Parallel()
	p := testenv.NewPlatform(t, testenv.Options{Store: "sqlite"})
	p.CheckOpenAPI("automation")
	tok := p.Token("automation.*")
	now := time.Now().UTC().Truncate(time.Millisecond)
	poison := func(collection string, doc store.Doc) string {
		doc["_id"], doc["createdAt"], doc["updatedAt"] = store.NewID(), now, now
		require.NoError(t, p.Store.Collection(collection).Insert(p.Ctx(), doc))
		return doc["_id"].(string)
	}
	trigger := poison("triggers", store.Doc{"name": "old", "type": "event", "event": "tasks.assigned",
		"filter": map[string]any{"n": map[string]any{"$gt": math.Inf(-1)}}})
	run := poison("pipelineruns", store.Doc{"pipeline": store.NewID(), "status": "success", "startedAt": now,
		"event": map[string]any{"name": "manual", "data": map[string]any{"n": math.Inf(1), "nan": math.NaN()}}})

	for path, field := range map[string]string{"/automation/triggers": "filter", "/automation/pipelineruns": "event"} {
		r := p.Do("GET", path, tok, nil)
		require.Equal(t, 200, r.Status, "%s: %s", path, r.Body)
		require.Len(t, r.List(), 1, path)
		assert.NotContains(t, string(r.Body), "Inf", path)
		assert.NotNil(t, r.List()[0][field], "%s keeps the record's other values", path)
	}
	r := p.Do("GET", "/automation/triggers/"+trigger, tok, nil)
	require.Equal(t, 200, r.Status, "%s", r.Body)
	assert.Equal(t, map[string]any{"n": map[string]any{"$gt": nil}}, r.Payload()["filter"])
	r = p.Do("GET", "/automation/pipelineruns/"+run, tok, nil)
	require.Equal(t, 200, r.Status, "%s", r.Body)
	assert.Equal(t, map[string]any{"name": "manual", "data": map[string]any{"n": nil, "nan": nil}}, r.Payload()["event"])
}
