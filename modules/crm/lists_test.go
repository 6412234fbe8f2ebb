package crm_test

import (
	"net/url"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

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
		return func(f *fixture, v ids, r *testenv.Resp) { assert.Equal(f.t, want, listIDs(r)) }
	}
	total := func(n int) func(f *fixture, v ids, r *testenv.Resp) {
		return func(f *fixture, v ids, r *testenv.Resp) { assert.Equal(f.t, float64(n), r.Meta()["total"]) }
	}
	list := func(name, query string, then func(f *fixture, v ids, r *testenv.Resp)) scenario {
		return scenario{name: name, method: "GET", path: "/crm/consumers?" + query, status: 200, then: then}
	}
	bad := func(name, query, field string) scenario {
		return scenario{name: name, method: "GET", path: "/crm/consumers?" + query, status: 400, codes: []string{"request.query"}, field: field}
	}
	filter := func(json string) string { return "filter=" + url.QueryEscape(json) }
	page := func(n string) string { return f.moduleBase() + "/consumers?limit=2&page=" + n + "&sort=email" }

	run(t, f, []scenario{
		list("the first page links the next one", "limit=2&sort=email", func(f *fixture, v ids, r *testenv.Resp) {
			assert.Equal(f.t, []string{a, b}, listIDs(r))
			assert.Equal(f.t, float64(1), r.Meta()["page"])
			assert.Equal(f.t, float64(2), r.Meta()["limit"])
			assert.Equal(f.t, page("1"), linkHref(r, "self"))
			assert.Equal(f.t, page("2"), linkHref(r, "next"))
			assert.Empty(f.t, linkHref(r, "prev"))
		}),
		list("the last page links the previous one", "limit=2&page=2&sort=email", func(f *fixture, v ids, r *testenv.Resp) {
			assert.Equal(f.t, []string{c}, listIDs(r))
			assert.Equal(f.t, page("2"), linkHref(r, "self"))
			assert.Equal(f.t, page("1"), linkHref(r, "prev"))
			assert.Empty(f.t, linkHref(r, "next"))
		}),
		list("a page past the end is empty", "limit=2&page=9&sort=email", func(f *fixture, v ids, r *testenv.Resp) {
			assert.Empty(f.t, r.List())
			assert.Empty(f.t, linkHref(r, "next"))
		}),
		list("count=true adds the total of every page", "count=true&limit=1", func(f *fixture, v ids, r *testenv.Resp) {
			assert.Len(f.t, r.List(), 1)
			assert.Equal(f.t, float64(3), r.Meta()["total"])
		}),
		list("the largest limit", "limit=500&count=false", func(f *fixture, v ids, r *testenv.Resp) {
			assert.Len(f.t, r.List(), 3)
			assert.NotContains(f.t, r.Meta(), "total")
		}),
		list("sort descending", "sort=-email", ordered(c, b, a)),
		list("sort by two fields", "sort=country,-email", ordered(c, a, b)),
		list("fields projects the records", "fields=email&sort=email", func(f *fixture, v ids, r *testenv.Resp) {
			require.Len(f.t, r.List(), 3)
			for _, d := range r.List() {
				assert.Equal(f.t, []string{"_id", "email"}, sortedKeys(d))
			}
		}),
		list("fields may name the virtual display name", "fields=displayName&sort=email", func(f *fixture, v ids, r *testenv.Resp) {
			assert.Equal(f.t, map[string]any{"_id": a, "displayName": "Ada Acme"}, r.List()[0])
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
		return func(f *fixture, v ids, r *testenv.Resp) { assert.Equal(f.t, want, listIDs(r)) }
	}
	run(t, f, []scenario{
		{name: "the default order is pinned first, then newest", method: "GET", path: "/crm/notes", status: 200, then: order(pinned, recent, old)},
		{name: "the consumer's notes in the same order", method: "GET", path: "/crm/consumers/" + c + "/notes", status: 200, then: order(pinned, recent, old)},
		{name: "a requested order comes after pinned", method: "GET", path: "/crm/notes?sort=createdAt", status: 200, then: order(pinned, old, recent)},
		{name: "sorting by pinned keeps pinned first", method: "GET", path: "/crm/notes?sort=pinned,createdAt", status: 200, then: order(pinned, old, recent)},
		{name: "sorting by pinned descending", method: "GET", path: "/crm/notes?sort=-pinned,-createdAt", status: 200, then: order(pinned, recent, old)},
		{name: "a filter keeps the order", method: "GET", path: "/crm/notes?targetType=consumers&limit=2", status: 200, then: order(pinned, recent)},
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
	run(t, f, []scenario{
		{name: "POST /consumers", header: host, method: "POST", path: "/consumers", body: map[string]any{"email": "host@example.com"},
			status: 201, events: []string{"consumers.created"}, then: func(f *fixture, v ids, r *testenv.Resp) {
				id := r.Payload()["_id"].(string)
				f.checkConsumerMeta(f.t, r, id)
				assert.Equal(f.t, "host@example.com", f.stored("consumers", id)["email"])
			}},
		{name: "GET /consumers/:id", header: host, given: aConsumer, method: "GET", path: "/consumers/{c}", status: 200,
			then: func(f *fixture, v ids, r *testenv.Resp) { f.checkConsumerMeta(f.t, r, v["c"]) }},
		{name: "GET /consumers", header: host, given: aConsumer, method: "GET", path: "/consumers?limit=1", status: 200,
			then: func(f *fixture, v ids, r *testenv.Resp) {
				assert.Equal(f.t, f.moduleBase()+"/consumers?limit=1&page=1", linkHref(r, "self"))
			}},
		{name: "PATCH /consumers/:id", header: host, given: aConsumer, method: "PATCH", path: "/consumers/{c}", body: map[string]any{"last_name": "Host"},
			status: 200, events: []string{"consumers.updated"},
			then: func(f *fixture, v ids, r *testenv.Resp) {
				assert.Equal(f.t, "Host", f.stored("consumers", v["c"])["last_name"])
			}},
		{name: "GET /consumers/:id/tasks", header: host, given: aConsumer, method: "GET", path: "/consumers/{c}/tasks", status: 200,
			then: func(f *fixture, v ids, r *testenv.Resp) { assert.Equal(f.t, []string{v["task"]}, listIDs(r)) }},
		{name: "POST /tasks/:id/actions/reopen", header: host, given: aConsumer, method: "POST", path: "/tasks/{task}/actions/reopen",
			status: 200, events: []string{"tasks.reopened"}},
		{name: "DELETE /tasks/:id", header: host, given: aConsumer, method: "DELETE", path: "/tasks/{task}", status: 200, events: []string{"tasks.deleted"},
			then: func(f *fixture, v ids, r *testenv.Resp) { assert.Nil(f.t, f.stored("tasks", v["task"])) }},
		{name: "errors on the module host", header: host, method: "GET", path: "/consumers/nope", status: 400, codes: []string{"request.id"}},
		{name: "no token on the module host", header: host, token: none, method: "GET", path: "/consumers", status: 401, codes: []string{"auth.token"}},
		{name: "another module's host does not serve the CRM", header: []string{"Host", "marketing-api.{domain}"}, method: "GET", path: "/consumers",
			status: 404, codes: []string{"resource.not_found"}},
	})
}
