package console

import (
	"encoding/json"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"platform/kernel/resource"
)

func TestTotalText(t *testing.T) {
	require.Equal(t, "1 record", totalText(1, ""))
	require.Equal(t, "12,345 records", totalText(12345, "eq"))
	require.Equal(t, "more than 10,000 records", totalText(10000, "gte"))
}

// TestListQuery: equality goes as the shorthand, ranges and the advanced
// filter as one $and, and every list asks for its total.
func TestListQuery(t *testing.T) {
	res := &resource.Resource{Module: "crm", Plural: "consumers", Fields: []resource.Field{
		{Name: "email", Type: resource.TString, Filter: true, Sort: true},
		{Name: "score", Type: resource.TNumber, Filter: true},
		{Name: "createdAt", Type: resource.TDate, Filter: true, Sort: true},
	}}
	q := url.Values{"f.email": {"a@example.com"}, "from.score": {"2"}, "to.createdAt": {"2026-01-31"},
		"filter": {`{"email":{"$regex":"@example"}}`}, "sort": {"-email"}, "cols": {"email", "nope"}, "page": {"3"}, "limit": {"10"}}
	c := &Console{}
	v := c.listControls(res, q)
	got, msg := listQuery(res, v, q)
	require.Empty(t, msg)
	require.Equal(t, "true", got.Get("count"))
	require.Equal(t, "a@example.com", got.Get("email"))
	require.Equal(t, "-email", got.Get("sort"))
	require.Equal(t, "3", got.Get("page"))
	require.Equal(t, "10", got.Get("limit"))
	require.Equal(t, "email", got.Get("fields"), "undeclared columns are dropped")
	require.JSONEq(t, `{"$and":[{"email":{"$regex":"@example"}},{"score":{"$gte":2}},{"createdAt":{"$lte":{"$date":"2026-01-31T23:59:59.999Z"}}}]}`, got.Get("filter"))

	_, msg = listQuery(res, c.listControls(res, url.Values{"filter": {"{not json"}}), url.Values{})
	require.Contains(t, msg, "not a JSON object")
	for _, bad := range []string{`[1]`, `{"a":` + strings.Repeat("[", 70) + strings.Repeat("]", 70) + `}`, `{"n":1e999}`} {
		_, msg = listQuery(res, c.listControls(res, url.Values{"filter": {bad}}), url.Values{})
		require.Contains(t, msg, "not a JSON object", bad)
	}

	got, msg = listQuery(res, c.listControls(res, url.Values{"from.score": {"NaN"}}), url.Values{})
	require.Empty(t, msg)
	require.JSONEq(t, `{"score":{"$gte":"NaN"}}`, got.Get("filter"), "a bound that is no finite number goes as typed, for the API to refuse")
}

// TestDecode: inputs become typed JSON; what does not parse is refused
// next to its field; an emptied input removes the value on an edit.
func TestDecode(t *testing.T) {
	fields := []*resource.Field{
		{Name: "name", Type: resource.TString, MaxLen: 100},
		{Name: "n", Type: resource.TInteger},
		{Name: "tags", Type: resource.TArray, Items: &resource.Field{Type: resource.TString, MaxLen: 10}},
		{Name: "meta", Type: resource.TObject, FreeForm: true},
		{Name: "on", Type: resource.TBool},
		{Name: "secret", Type: resource.TString, WriteOnly: true, MaxLen: 100},
	}
	body, errs := decode(fields, url.Values{"v.name": {" Ada "}, "v.n": {"4"}, "v.tags": {"a\n\n b "}, "v.meta": {`{"k":1}`}, "v.on": {"false"}}, false, nil)
	require.Empty(t, errs)
	require.Equal(t, map[string]any{"name": "Ada", "n": 4.0, "tags": []any{"a", "b"}, "meta": map[string]any{"k": json.Number("1")}, "on": false}, body)

	body, errs = decode(fields, url.Values{"v.meta": {`{"id":12345678901234567890}`}}, false, nil)
	require.Empty(t, errs)
	require.Equal(t, map[string]any{"meta": map[string]any{"id": json.Number("12345678901234567890")}}, body, "a JSON input's big integer is kept exact")

	for _, bad := range []string{"NaN", "Inf", "-infinity", "1e999"} {
		_, errs = decode(fields, url.Values{"v.n": {bad}, "v.tags": {"a"}}, false, nil)
		require.Equal(t, []string{"is not a number"}, errs["n"], bad)
	}
	deep := strings.Repeat("[", 65) + strings.Repeat("]", 65)
	for _, bad := range []string{`{"k":1e999}`, `{"k":` + deep + `}`, `{} {}`} {
		_, errs = decode(fields, url.Values{"v.meta": {bad}}, false, nil)
		require.Contains(t, errs["meta"][0], "is not valid JSON", bad)
	}

	_, errs = decode(fields, url.Values{"v.n": {"four"}, "v.meta": {"{"}}, false, nil)
	require.Equal(t, []string{"is not a number"}, errs["n"])
	require.Contains(t, errs["meta"][0], "is not valid JSON")

	body, errs = decode(fields, url.Values{"v.name": {""}, "v.secret": {""}}, true, map[string]any{"name": "Old", "secret": nil})
	require.Empty(t, errs)
	require.Equal(t, map[string]any{"name": nil}, body, "an emptied input removes the value; an empty write-only one keeps it")
}

func TestSafeReturn(t *testing.T) {
	require.Equal(t, "/r/crm/consumers?page=2", safeReturn("/r/crm/consumers?page=2"))
	for _, bad := range []string{"//evil.example/x", "https://evil.example", "/\\evil", "r/crm"} {
		require.Empty(t, safeReturn(bad), bad)
	}
}
