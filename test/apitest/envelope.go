package apitest

import (
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"platform/test/testenv"
)

var dotted = regexp.MustCompile(`^[0-9]+(\.[0-9]+)+$`)

// CheckEnvelope asserts what every JSON answer carries: { payload, meta }
// with every meta field of the specification, consistent with the status
// and the response headers.
func CheckEnvelope(t testing.TB, r *testenv.Resp) {
	t.Helper()
	if !strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") {
		return
	}
	require.NotNil(t, r.Env, "a JSON envelope: %s", r.Body)
	assert.Contains(t, r.Env, "payload")
	m := r.Meta()
	require.NotNil(t, m, "meta: %s", r.Body)
	for _, k := range []string{"links", "relations", "actions", "errors"} {
		assert.IsType(t, []any{}, m[k], "meta.%s is an array", k)
	}
	debugID, _ := m["debugId"].(string)
	assert.NotEmpty(t, debugID, "meta.debugId")
	assert.Equal(t, r.Header.Get("X-Debug-Id"), debugID, "meta.debugId is the X-Debug-Id header")
	version, _ := m["version"].(map[string]any)
	for _, k := range []string{"host", "core"} {
		s, _ := version[k].(string)
		assert.Regexp(t, dotted, s, "meta.version.%s", k)
	}
	checkRateLimit(t, r)
	rt, ok := m["responseTime"].(float64)
	assert.True(t, ok && rt >= 0, "meta.responseTime is a number")
	assert.Equal(t, float64(r.Status), m["code"], "meta.code is the HTTP status")
	if r.Status < 400 {
		assert.Equal(t, "success", m["status"])
		assert.Equal(t, false, m["error"])
		assert.Empty(t, m["errors"], "meta.errors is empty on success")
		return
	}
	checkError(t, r)
}

// checkRateLimit asserts meta.rateLimit, which repeats the X-RateLimit
// headers. An answer no limiter saw (one the listener writes for a request
// net/http refused) has neither: an empty object, never empty strings.
func checkRateLimit(t testing.TB, r *testenv.Resp) {
	t.Helper()
	rl, ok := r.Meta()["rateLimit"].(map[string]any)
	require.True(t, ok, "meta.rateLimit is an object")
	if r.Header.Get("X-RateLimit-Limit") == "" {
		assert.Empty(t, rl, "meta.rateLimit without X-RateLimit headers")
		return
	}
	for k, h := range map[string]string{"limit": "X-RateLimit-Limit", "remaining": "X-RateLimit-Remaining", "reset": "X-RateLimit-Reset"} {
		assert.Equal(t, r.Header.Get(h), rl[k], "meta.rateLimit.%s is the %s header", k, h)
	}
	resetDate, _ := rl["resetDate"].(string)
	_, err := time.Parse(time.RFC3339, resetDate)
	assert.NoError(t, err, "meta.rateLimit.resetDate")
}

// checkError asserts an error answer: no payload, and entries naming what failed.
func checkError(t testing.TB, r *testenv.Resp) {
	t.Helper()
	m := r.Meta()
	assert.Equal(t, "error", m["status"])
	assert.Equal(t, true, m["error"])
	assert.Nil(t, r.Env["payload"], "an error has no payload")
	errs, _ := m["errors"].([]any)
	require.NotEmpty(t, errs, "an error names what failed")
	for _, e := range errs {
		entry, _ := e.(map[string]any)
		assert.NotEmpty(t, entry["code"])
		assert.NotEmpty(t, entry["message"])
	}
}

// ErrorFields lists meta.errors[].field.
func ErrorFields(r *testenv.Resp) []string {
	out := []string{}
	for _, m := range entries(r, "errors") {
		if s, ok := m["field"].(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// ActionNames lists meta.actions[].action.
func ActionNames(r *testenv.Resp) []string {
	out := []string{}
	for _, m := range entries(r, "actions") {
		out = append(out, m["action"].(string))
	}
	return out
}

// LinkHref finds meta.links[rel].href ("" when there is none).
func LinkHref(r *testenv.Resp, rel string) string {
	for _, m := range entries(r, "links") {
		if m["rel"] == rel {
			return m["href"].(string)
		}
	}
	return ""
}

// entries are the objects of a meta array.
func entries(r *testenv.Resp, key string) []map[string]any {
	list, _ := r.Meta()[key].([]any)
	out := make([]map[string]any, 0, len(list))
	for _, e := range list {
		m, _ := e.(map[string]any)
		out = append(out, m)
	}
	return out
}

// ListIDs lists the _id of every record of a list answer, in order.
func ListIDs(r *testenv.Resp) []string {
	out := []string{}
	for _, d := range r.List() {
		out = append(out, d["_id"].(string))
	}
	return out
}

// SortedKeys lists a record's fields, sorted.
func SortedKeys(d map[string]any) []string {
	out := make([]string, 0, len(d))
	for k := range d {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
