package crm_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"math"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"

	"platform/api"
	"platform/kernel/jsonlimit"
	"platform/kernel/store"
	"platform/test/apitest"
	"platform/test/testenv"
)

// deepCustom is a consumer body whose customCRM nests objects to depth
// levels in all (the body itself is level 1; FerretDB cannot store nested
// arrays, so objects).
func deepCustom(depth int) string {
	return `{"email":"deep@example.com","customCRM":` + nestedObjects(depth-1) + `}`
}

func nestedObjects(levels int) string {
	return strings.Repeat(`{"v":`, levels) + "1" + strings.Repeat("}", levels)
}

// TestNonFiniteAndDeepJSONAreRefused: numbers a float64 cannot hold and
// JSON nested deeper than jsonlimit.MaxDepth are refused before any store
// call, naming the field or the position.
func TestNonFiniteAndDeepJSONAreRefused(t *testing.T) {
	f := newFixture(t)
	aConsumer := func(f *fixture) ids { return ids{"id": f.consumer("first_name", "Ada")} }
	aTask := func(f *fixture) ids { return ids{"id": f.task()} }
	nonFinite := func(name, method, path, body, field string, given func(*fixture) ids) scenario {
		return scenario{Name: name, Given: given, Method: method, Path: path, Body: body, Status: 422, Codes: []string{"validation.type"}, Field: field}
	}
	tooDeep := func(name string, depth int) scenario {
		return scenario{Name: name, Method: "POST", Path: "/crm/consumers", Body: deepCustom(depth), Status: 400, Codes: []string{"request.too_deep"}}
	}
	apitest.Run(t, f, []scenario{
		nonFinite("1e999 in customCRM", "POST", "/crm/consumers", `{"email":"inf@example.com","customCRM":{"n":1e999}}`, "customCRM.n", nil),
		nonFinite("an integer of 400 digits", "POST", "/crm/consumers", `{"email":"big@example.com","customCRM":{"n":1`+strings.Repeat("0", 400)+`}}`, "customCRM.n", nil),
		nonFinite("-1e999 in an array in customCRM", "POST", "/crm/consumers", `{"email":"inf@example.com","customCRM":{"a":[1,{"b":-1e999}]}}`, "customCRM.a[1].b", nil),
		nonFinite("-1e400 in a PATCH", "PATCH", "/crm/consumers/{id}", `{"customCRM":{"n":-1e400}}`, "customCRM.n", aConsumer),
		nonFinite("1e999 in a PUT", "PUT", "/crm/consumers/{id}", `{"email":"put@example.com","customCRM":{"n":1e999}}`, "customCRM.n", aConsumer),
		nonFinite("1e999 in an action body", "POST", "/crm/tasks/{id}/actions/assign", `{"user":"{user}","n":1e999}`, "n", aTask),

		tooDeep("JSON one level deeper than the limit", jsonlimit.MaxDepth+1),
		tooDeep("JSON 999 levels deep", 999),
		tooDeep("JSON 9,999 levels deep", 9999),
		tooDeep("JSON deeper than Go's own decoder goes", 20000),
		{Name: "deep JSON in a PATCH", Given: aConsumer, Method: "PATCH", Path: "/crm/consumers/{id}", Body: `{"customCRM":` + nestedObjects(999) + `}`,
			Status: 400, Codes: []string{"request.too_deep"}},
	})
}

// TestDeepestAcceptedJSONIsStored: a body at exactly the limit is stored
// and read back by both stores.
func TestDeepestAcceptedJSONIsStored(t *testing.T) {
	f := newFixture(t)
	r := f.P.Do("POST", "/crm/consumers", f.Admin, deepCustom(jsonlimit.MaxDepth))
	require.Equal(t, 201, r.Status, "%s", r.Body)
	got := f.P.Do("GET", "/crm/consumers/"+r.Payload()["_id"].(string), f.Admin, nil)
	require.Equal(t, 200, got.Status, "%s", got.Body)
	assert.Equal(t, r.Payload()["customCRM"], got.Payload()["customCRM"])
}

// TestStoredNonFiniteNumbersRenderAsNull: a number JSON cannot hold that
// is already in the store (written before the entry checks existed, or by a
// path that bypasses them) is rendered as null in JSON and YAML and as an
// empty cell in CSV; neither its record nor a list holding it fails.
func TestStoredNonFiniteNumbersRenderAsNull(t *testing.T) {
	for _, kind := range []string{"sqlite", "mongodb"} {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			f := setUp(t, testenv.NewPlatform(t, testenv.Options{Store: kind}))
			good := f.consumer("email", "good@example.com", "customCRM", map[string]any{"n": 1.5})
			poisoned := store.NewID()
			now := time.Now().UTC().Truncate(time.Millisecond)
			doc := store.Doc{"_id": poisoned, "email": "poisoned@example.com", "_status": "lead", "createdAt": now, "updatedAt": now,
				"customCRM": map[string]any{"inf": math.Inf(1), "list": []any{math.Inf(-1), 2.5}, "nan": math.NaN()}}
			if err := f.P.Store.Collection("consumers").Insert(f.P.Ctx(), doc); err != nil {
				t.Skipf("this store refuses non-finite numbers itself (FerretDB does): %v", err)
			}
			wantCustom := map[string]any{"inf": nil, "list": []any{nil, 2.5}, "nan": nil}

			r := f.P.Do("GET", "/crm/consumers/"+poisoned, f.Admin, nil)
			require.Equal(t, 200, r.Status, "%s", r.Body)
			assert.Equal(t, wantCustom, r.Payload()["customCRM"])

			r = f.P.Do("GET", "/crm/consumers?sort=email", f.Admin, nil)
			require.Equal(t, 200, r.Status, "%s", r.Body)
			list := r.List()
			require.Len(t, list, 2)
			assert.Equal(t, map[string]any{"n": 1.5}, list[0]["customCRM"], "the other record is intact")
			assert.Equal(t, wantCustom, list[1]["customCRM"])

			r = f.P.Do("GET", "/crm/consumers?sort=email&format=yaml", f.Admin, nil)
			require.Equal(t, 200, r.Status, "%s", r.Body)
			var env map[string]any
			require.NoError(t, yaml.Unmarshal(r.Body, &env))
			assert.Equal(t, wantCustom, env["payload"].([]any)[1].(map[string]any)["customCRM"])

			r = f.P.Do("GET", "/crm/consumers?sort=email&format=csv", f.Admin, nil)
			require.Equal(t, 200, r.Status, "%s", r.Body)
			rows, err := csv.NewReader(bytes.NewReader(r.Body)).ReadAll()
			require.NoError(t, err)
			require.Len(t, rows, 3)
			cell := func(row int, col string) string {
				for i, h := range rows[0] {
					if h == col {
						return rows[row][i]
					}
				}
				return "(no column " + col + ")"
			}
			assert.Equal(t, []string{good, "1.5"}, []string{cell(1, "_id"), cell(1, "customCRM.n")})
			assert.Equal(t, []string{poisoned, "", ";2.5", ""}, []string{cell(2, "_id"), cell(2, "customCRM.inf"), cell(2, "customCRM.list"), cell(2, "customCRM.nan")})
		})
	}
}

// orFilter is ?filter= with an $or of n conditions on email.
func orFilter(n int) string {
	conds := make([]string, n)
	for i := range conds {
		conds[i] = fmt.Sprintf(`{"email":"c%d@example.com"}`, i)
	}
	return "/crm/consumers?filter=" + url.QueryEscape(`{"$or":[`+strings.Join(conds, ",")+`]}`)
}

// TestHugeFiltersAnswerTheEnvelope: a filter past the node limit is a 400
// naming the limit; one so long that net/http refuses the request line
// itself (over 1 MiB) is a 431, and still the JSON envelope.
func TestHugeFiltersAnswerTheEnvelope(t *testing.T) {
	f := newFixture(t)
	r := f.P.Do("GET", orFilter(5_000), f.Admin, nil)
	require.Equal(t, 400, r.Status, "%.300s", r.Body)
	apitest.CheckEnvelope(t, r)
	assert.Equal(t, []string{"request.query"}, r.ErrorCodes())
	assert.Contains(t, string(r.Body), "more than 1000 values")

	huge := orFilter(50_000)
	require.Greater(t, len(huge), 1<<20, "beyond net/http's default MaxHeaderBytes")
	r = f.P.Do("GET", huge, f.Admin, nil)
	require.Equal(t, 431, r.Status, "%.300s", r.Body)
	require.Equal(t, "application/json; charset=utf-8", r.Header.Get("Content-Type"), "%.300s", r.Body)
	apitest.CheckEnvelope(t, r)
	assert.Equal(t, []string{"request.too_large"}, r.ErrorCodes())
}

// TestUnencodableAnswerIsThe500Envelope: a payload no format can encode
// (a bug) answers the 500 envelope and files a Bug task, never an empty body.
func TestUnencodableAnswerIsThe500Envelope(t *testing.T) {
	t.Parallel()
	p := testenv.NewPlatform(t, testenv.Options{})
	require.NoError(t, p.API.Mount(context.Background(), &api.Module{
		Name: "unencodable", HostLabel: "unencodable", Version: "0.0.1",
		Routes: func(r *api.ModuleRouter) {
			r.Handle("GET", "/answer", "crm.consumers.view", func(*api.Request) (*api.Response, error) {
				return &api.Response{Payload: map[string]any{"callback": func() {}}}, nil
			})
		},
	}))
	f := setUp(t, p)
	for _, format := range []string{"json", "yaml", "csv"} {
		r := f.P.Do("GET", "/unencodable/answer?format="+format, f.Admin, nil, "Accept", "application/json")
		require.Equal(t, 500, r.Status, "%s", r.Body)
		require.NotEmpty(t, r.Body, format)
		if format == "json" {
			apitest.CheckEnvelope(t, r)
			assert.Equal(t, []string{"internal"}, r.ErrorCodes())
		}
		bugs := f.P.Do("GET", "/crm/tasks?debugId="+r.Header.Get("X-Debug-Id"), f.Admin, nil)
		require.Len(t, bugs.List(), 1, "a Bug task for the %s answer", format)
	}
}
