package crm_test

import (
	"net/url"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"platform/kernel/settings"
	"platform/test/apitest"
	"platform/test/testenv"
)

// smallCap makes the filtered count stop at 5 (PLATFORM_COUNT_CAP), so
// that a few records cross it.
const smallCap = 5

// TestListTotals: count=true answers an exact total from the store's
// counter without a filter, and a total capped at PLATFORM_COUNT_CAP with
// one (docs/counts.md); another customer's records never count.
func TestListTotals(t *testing.T) {
	o := crmAPI
	o.Platform.Configure = func(c *settings.Config) { c.CountCap = smallCap }
	f := &fixture{apitest.New(t, o)}
	var german []string
	for range 6 {
		german = append(german, f.consumer("country", "DE"))
	}
	f.consumer("country", "FR")
	ada := f.consumer("country", "FR", "first_name", "Ada")
	f.otherConsumer()
	f.otherConsumer()
	task := f.task("consumer", ada)
	f.task()

	total := func(n int, relation string) func(f *fixture, v ids, r *testenv.Resp) {
		return func(f *fixture, v ids, r *testenv.Resp) {
			assert.Equal(f.T, float64(n), r.Meta()["total"], "meta.total")
			assert.Equal(f.T, relation, r.Meta()["totalRelation"], "meta.totalRelation")
		}
	}
	list := func(name, query string, then func(f *fixture, v ids, r *testenv.Resp)) scenario {
		return scenario{Name: name, Method: "GET", Path: "/crm/consumers?" + query, Status: 200, Then: then}
	}
	filter := func(json string) string { return "filter=" + url.QueryEscape(json) }
	apitest.Run(t, f, []scenario{
		list("without a filter the total is exact, past the cap", "count=true&limit=2", func(f *fixture, v ids, r *testenv.Resp) {
			assert.Len(f.T, r.List(), 2)
			total(8, "eq")(f, v, r)
		}),
		list("an empty filter is no filter", "count=true&"+filter(`{}`), total(8, "eq")),
		list("a filter under the cap is exact", "count=true&country=FR", total(2, "eq")),
		list("a filter matching nothing", "count=true&country=IT", total(0, "eq")),
		list("a filter over the cap answers the cap, gte", "count=true&country=DE", total(smallCap, "gte")),
		list("a filter matching everything is capped too", "count=true&_status=lead", total(smallCap, "gte")),
		list("a filter the store evaluates in Go is capped", "count=true&"+filter(`{"$or":[{"country":"DE"},{"first_name":"Ada"}]}`), total(smallCap, "gte")),
		list("without count=true no total", "limit=1", func(f *fixture, v ids, r *testenv.Resp) {
			assert.NotContains(f.T, r.Meta(), "total")
			assert.NotContains(f.T, r.Meta(), "totalRelation")
		}),
		{Name: "the other customer counts only its own", Token: func(f *fixture) string { return f.Other },
			Method: "GET", Path: "/crm/consumers?count=true", Status: 200, Then: total(2, "eq")},
		{Name: "a sub-resource list counts within its parent", Method: "GET", Path: "/crm/consumers/" + ada + "/tasks?count=true",
			Status: 200, Then: func(f *fixture, v ids, r *testenv.Resp) {
				require.Len(f.T, r.List(), 1)
				assert.Equal(f.T, task, r.List()[0]["_id"])
				total(1, "eq")(f, v, r)
			}},
		{Name: "the total follows creates and deletes", Given: func(f *fixture) ids {
			f.consumer()
			f.consumer()
			gone := f.P.Do("DELETE", "/crm/consumers/"+german[0], f.Admin, nil)
			require.Equal(f.T, 200, gone.Status, "delete: %s", gone.Body)
			return ids{}
		}, Method: "GET", Path: "/crm/consumers?count=true", Status: 200, Then: total(9, "eq")},
	})
}
