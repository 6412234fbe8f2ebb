package app_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"platform/test/testenv"
)

// TestEveryOperationHasAnIDAndATag walks the document of every module, as
// a client generator would: each operation has an operationId unique in
// the document and across all modules (generated SDKs name methods after
// it), and tags that the document lists with a description.
func TestEveryOperationHasAnIDAndATag(t *testing.T) {
	t.Parallel()
	p := testenv.NewPlatform(t, testenv.Options{})
	names := p.API.ModuleNames()
	require.NotEmpty(t, names)
	where := map[string]string{} // operationId -> module, method and path
	for _, module := range names {
		doc := roundTrip(t, p.API.OpenAPIDocument(module))
		described := map[string]bool{}
		for _, tag := range asSlice(doc["tags"]) {
			tag := tag.(map[string]any)
			assert.NotEmpty(t, tag["description"], "%s: tag %v has no description", module, tag["name"])
			described[tag["name"].(string)] = true
		}
		for path, item := range doc["paths"].(map[string]any) {
			for method, op := range item.(map[string]any) {
				op := op.(map[string]any)
				at := fmt.Sprintf("%s %s %s", module, method, path)
				id, _ := op["operationId"].(string)
				if !assert.NotEmpty(t, id, "%s: no operationId", at) {
					continue
				}
				if prev, dup := where[id]; dup {
					t.Errorf("operationId %s of %s is already used by %s", id, at, prev)
				}
				where[id] = at
				tags := asSlice(op["tags"])
				assert.NotEmpty(t, tags, "%s: no tag", at)
				for _, tag := range tags {
					assert.True(t, described[tag.(string)], "%s: tag %v is not in the document's tags", at, tag)
				}
			}
		}
	}
	// The names the issue asks for, as clients will call them.
	for _, id := range []string{"crm.consumers.list", "crm.consumers.get", "crm.consumers.create", "crm.consumers.replace",
		"crm.consumers.patch", "crm.consumers.delete", "crm.consumers.anonymize", "crm.consumers.tasks.list"} {
		assert.Contains(t, where, id)
	}
}

// roundTrip gives the document as a client receives it (JSON types only).
func roundTrip(t *testing.T, doc map[string]any) map[string]any {
	b, err := json.Marshal(doc)
	require.NoError(t, err)
	var out map[string]any
	require.NoError(t, json.Unmarshal(b, &out))
	return out
}

func asSlice(v any) []any {
	s, _ := v.([]any)
	return s
}

// TestEveryDurationSaysItsUnit: one unit for every duration the API shows
// (docs/decisions.md, "Durations"): a property named like a duration says
// "milliseconds" in its description, so `duration: 1` beside
// `totalDuration: 34` reads without guessing (issue 30, item 11).
func TestEveryDurationSaysItsUnit(t *testing.T) {
	t.Parallel()
	p := testenv.NewPlatform(t, testenv.Options{})
	seen := 0
	for _, module := range p.API.ModuleNames() {
		doc := roundTrip(t, p.API.OpenAPIDocument(module))
		walkProperties(doc, "", func(at, name string, schema map[string]any) {
			lower := strings.ToLower(name)
			if !strings.Contains(lower, "duration") && !strings.HasSuffix(name, "Ms") {
				return
			}
			seen++
			desc, _ := schema["description"].(string)
			assert.Contains(t, desc, "milliseconds", "%s: %s %s has no unit in its description", module, at, name)
		})
	}
	require.Greater(t, seen, 3, "the walk found the durations")
}

// walkProperties calls f for every property of every schema under v.
func walkProperties(v any, at string, f func(at, name string, schema map[string]any)) {
	switch v := v.(type) {
	case map[string]any:
		if props, ok := v["properties"].(map[string]any); ok {
			for name, s := range props {
				if s, ok := s.(map[string]any); ok {
					f(at, name, s)
				}
			}
		}
		for k, c := range v {
			walkProperties(c, at+"/"+k, f)
		}
	case []any:
		for _, c := range v {
			walkProperties(c, at, f)
		}
	}
}
