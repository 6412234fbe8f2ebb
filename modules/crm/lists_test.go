package crm_test

import (
	"net/url"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"platform/test/apitest"
	"platform/test/testenv"
)

// TestListQueries: pagination, totals, projection, sorting, shorthand and
// JSON filters, and every refused query, on one fixed set of consumers.
func TestListQueries(t *testing.T) {
	f := newFixture(t)
	a := f.consumer("email", "list-a@example.com", "first_name", "Ada", "country", "DE", "tags", []any{"vip"}, "customCRM", map[string]any{"company": "Acme"})
	b := f.consumer("email", "list-b@example.com", "first_name", "Bob", "country", "FR", "tags", []any{"vip", "b2b"})
	c := f.consumer("email", "list-c@example.com", "first_name", "Cy", "country", "DE")
	ordered := func(want ...string) func(f *fixture, v ids, r *testenv.Resp) {
		return func(f *fixture, v ids, r *testenv.Resp) { assert.Equal(f.T, want, apitest.ListIDs(r)) }
	}
	total := func(n int) func(f *fixture, v ids, r *testenv.Resp) {
		return func(f *fixture, v ids, r *testenv.Resp) { assert.Equal(f.T, float64(n), r.Meta()["total"]) }
	}
	list := func(name, query string, then func(f *fixture, v ids, r *testenv.Resp)) scenario {
		return scenario{Name: name, Method: "GET", Path: "/crm/consumers?" + query, Status: 200, Then: then}
	}
	bad := func(name, query, field string) scenario {
		return scenario{Name: name, Method: "GET", Path: "/crm/consumers?" + query, Status: 400, Codes: []string{"request.query"}, Field: field}
	}
	filter := func(json string) string { return "filter=" + url.QueryEscape(json) }
	page := func(n string) string { return f.moduleBase() + "/consumers?limit=2&page=" + n + "&sort=email" }

	apitest.Run(t, f, []scenario{
		list("the first page links the next one", "limit=2&sort=email", func(f *fixture, v ids, r *testenv.Resp) {
			assert.Equal(f.T, []string{a, b}, apitest.ListIDs(r))
			assert.Equal(f.T, float64(1), r.Meta()["page"])
			assert.Equal(f.T, float64(2), r.Meta()["limit"])
			assert.Equal(f.T, page("1"), apitest.LinkHref(r, "self"))
			assert.Equal(f.T, page("2"), apitest.LinkHref(r, "next"))
			assert.Empty(f.T, apitest.LinkHref(r, "prev"))
		}),
		list("the last page links the previous one", "limit=2&page=2&sort=email", func(f *fixture, v ids, r *testenv.Resp) {
			assert.Equal(f.T, []string{c}, apitest.ListIDs(r))
			assert.Equal(f.T, page("2"), apitest.LinkHref(r, "self"))
			assert.Equal(f.T, page("1"), apitest.LinkHref(r, "prev"))
			assert.Empty(f.T, apitest.LinkHref(r, "next"))
		}),
		list("a page past the end is empty", "limit=2&page=9&sort=email", func(f *fixture, v ids, r *testenv.Resp) {
			assert.Empty(f.T, r.List())
			assert.Empty(f.T, apitest.LinkHref(r, "next"))
		}),
		list("count=true adds the total of every page", "count=true&limit=1", func(f *fixture, v ids, r *testenv.Resp) {
			assert.Len(f.T, r.List(), 1)
			assert.Equal(f.T, float64(3), r.Meta()["total"])
		}),
		list("the largest limit", "limit=500&count=false", func(f *fixture, v ids, r *testenv.Resp) {
			assert.Len(f.T, r.List(), 3)
			assert.NotContains(f.T, r.Meta(), "total")
		}),
		list("sort descending", "sort=-email", ordered(c, b, a)),
		list("sort by two fields", "sort=country,-email", ordered(c, a, b)),
		list("fields projects the records", "fields=email&sort=email", func(f *fixture, v ids, r *testenv.Resp) {
			require.Len(f.T, r.List(), 3)
			for _, d := range r.List() {
				assert.Equal(f.T, []string{"_id", "email"}, apitest.SortedKeys(d))
			}
		}),
		list("fields may name the virtual display name", "fields=displayName&sort=email", func(f *fixture, v ids, r *testenv.Resp) {
			assert.Equal(f.T, map[string]any{"_id": a, "displayName": "Ada Acme"}, r.List()[0])
		}),
		list("shorthand equality", "email=list-b@example.com", ordered(b)),
		list("shorthand on two fields", "country=DE&first_name=Cy", ordered(c)),
		list("shorthand on an array matches an element", "tags=b2b", ordered(b)),
		list("shorthand on a tenant-specific field", "customCRM.company=Acme", ordered(a)),
		list("shorthand on the status", "_status=lead&count=true", total(3)),
		list("a filter with $or", filter(`{"$or":[{"first_name":"Ada"},{"first_name":"Cy"}]}`)+"&sort=email", ordered(a, c)),
		list("a filter with $regex", filter(`{"email":{"$regex":"^list-[ab]"}}`)+"&sort=email", ordered(a, b)),
		list("a filter with $in", filter(`{"country":{"$in":["FR"]}}`), ordered(b)),
		list("a filter with $size", filter(`{"tags":{"$size":2}}`), ordered(b)),
		list("a filter on a date", filter(`{"createdAt":{"$gte":"2020-01-01T00:00:00Z"}}`)+"&count=true", total(3)),
		list("a filter and a shorthand together", filter(`{"country":"DE"}`)+"&first_name=Ada", ordered(a)),

		bad("an unknown filter operator", filter(`{"email":{"$like":"list"}}`), "email"),
		bad("a filter on a field that is not filterable", filter(`{"profilepicture":"x"}`), "profilepicture"),
		bad("a shorthand on a field that is not filterable", "profilepicture=x", "profilepicture"),
		bad("a shorthand on an unknown field", "nickname=x", "nickname"),
		bad("a filter that is not JSON", "filter=%7Bemail", ""),
		bad("a filter that is not an object", filter(`["email"]`), ""),
		bad("sort on a field that is not sortable", "sort=phone", "sort"),
		bad("sort on an unknown field", "sort=nickname", "sort"),
		bad("sort naming a field twice", "sort=email,-email", "sort"),
		bad("a limit of 0", "limit=0", "limit"),
		bad("a limit over 500", "limit=501", "limit"),
		bad("a limit that is not a number", "limit=ten", "limit"),
		bad("a page of 0", "page=0", "page"),
		bad("a negative page", "page=-1", "page"),
		bad("count that is not a boolean", "count=yes", "count"),
		bad("fields naming an unknown field", "fields=email,nickname", "fields"),
		bad("an unknown output format", "format=xml", "format"),
	})
}

// TestNotesListPinnedFirst: pinned notes lead every list of notes, whatever
// the requested order.
func TestNotesListPinnedFirst(t *testing.T) {
	f := newFixture(t)
	c := f.consumer()
	var notes []string
	for _, pinned := range []bool{false, true, false} {
		notes = append(notes, f.note("consumers", c, "pinned", pinned))
		time.Sleep(3 * time.Millisecond) // distinct createdAt
	}
	old, pinned, recent := notes[0], notes[1], notes[2]
	order := func(want ...string) func(f *fixture, v ids, r *testenv.Resp) {
		return func(f *fixture, v ids, r *testenv.Resp) { assert.Equal(f.T, want, apitest.ListIDs(r)) }
	}
	apitest.Run(t, f, []scenario{
		{Name: "the default order is pinned first, then newest", Method: "GET", Path: "/crm/notes", Status: 200, Then: order(pinned, recent, old)},
		{Name: "the consumer's notes in the same order", Method: "GET", Path: "/crm/consumers/" + c + "/notes", Status: 200, Then: order(pinned, recent, old)},
		{Name: "a requested order comes after pinned", Method: "GET", Path: "/crm/notes?sort=createdAt", Status: 200, Then: order(pinned, old, recent)},
		{Name: "sorting by pinned keeps pinned first", Method: "GET", Path: "/crm/notes?sort=pinned,createdAt", Status: 200, Then: order(pinned, old, recent)},
		{Name: "sorting by pinned descending", Method: "GET", Path: "/crm/notes?sort=-pinned,-createdAt", Status: 200, Then: order(pinned, recent, old)},
		{Name: "a filter keeps the order", Method: "GET", Path: "/crm/notes?targetType=consumers&limit=2", Status: 200, Then: order(pinned, recent)},
	})
}

// TestModuleHostForm: Host: crm-api.<domain> reaches the same routes as the
// gateway form /crm/..., and the answers link alike.
func TestModuleHostForm(t *testing.T) {
	f := newFixture(t)
	host := []string{"Host", "crm-api.{domain}"}
	aConsumer := func(f *fixture) ids {
		c := f.consumer()
		return ids{"c": c, "task": f.task("consumer", c, "_status", "done")}
	}
	apitest.Run(t, f, []scenario{
		{Name: "POST /consumers", Header: host, Method: "POST", Path: "/consumers", Body: map[string]any{"email": "host@example.com"},
			Status: 201, Events: []string{"consumers.created"}, Then: func(f *fixture, v ids, r *testenv.Resp) {
				id := r.Payload()["_id"].(string)
				f.checkConsumerMeta(f.T, r, id)
				assert.Equal(f.T, "host@example.com", f.Stored("consumers", id)["email"])
			}},
		{Name: "GET /consumers/:id", Header: host, Given: aConsumer, Method: "GET", Path: "/consumers/{c}", Status: 200,
			Then: func(f *fixture, v ids, r *testenv.Resp) { f.checkConsumerMeta(f.T, r, v["c"]) }},
		{Name: "GET /consumers", Header: host, Given: aConsumer, Method: "GET", Path: "/consumers?limit=1", Status: 200,
			Then: func(f *fixture, v ids, r *testenv.Resp) {
				assert.Equal(f.T, f.moduleBase()+"/consumers?limit=1&page=1", apitest.LinkHref(r, "self"))
			}},
		{Name: "PATCH /consumers/:id", Header: host, Given: aConsumer, Method: "PATCH", Path: "/consumers/{c}", Body: map[string]any{"last_name": "Host"},
			Status: 200, Events: []string{"consumers.updated"},
			Then: func(f *fixture, v ids, r *testenv.Resp) {
				assert.Equal(f.T, "Host", f.Stored("consumers", v["c"])["last_name"])
			}},
		{Name: "GET /consumers/:id/tasks", Header: host, Given: aConsumer, Method: "GET", Path: "/consumers/{c}/tasks", Status: 200,
			Then: func(f *fixture, v ids, r *testenv.Resp) { assert.Equal(f.T, []string{v["task"]}, apitest.ListIDs(r)) }},
		{Name: "POST /tasks/:id/actions/reopen", Header: host, Given: aConsumer, Method: "POST", Path: "/tasks/{task}/actions/reopen",
			Status: 200, Events: []string{"tasks.reopened"}},
		{Name: "DELETE /tasks/:id", Header: host, Given: aConsumer, Method: "DELETE", Path: "/tasks/{task}", Status: 200, Events: []string{"tasks.deleted"},
			Then: func(f *fixture, v ids, r *testenv.Resp) { assert.Nil(f.T, f.Stored("tasks", v["task"])) }},
		{Name: "errors on the module host", Header: host, Method: "GET", Path: "/consumers/nope", Status: 400, Codes: []string{"request.id"}},
		{Name: "no token on the module host", Header: host, Token: none, Method: "GET", Path: "/consumers", Status: 401, Codes: []string{"auth.token"}},
		{Name: "another module's host does not serve the CRM", Header: []string{"Host", "marketing-api.{domain}"}, Method: "GET", Path: "/consumers",
			Status: 404, Codes: []string{"resource.not_found"}},
	})
}
