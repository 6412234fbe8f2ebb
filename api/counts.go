package api

import (
	"net/url"

	"platform/kernel/resource"
)

// countDescription documents count=true in every list's OpenAPI entry.
const countDescription = "add meta.total and meta.totalRelation. Without a filter the total is exact " +
	"(eq) and costs the same at any size (a counter the store keeps); with a filter at most " +
	"PLATFORM_COUNT_CAP matches (default 10000) are counted: beyond it total is the cap and " +
	"totalRelation is gte (\"more than\"). See docs/counts.md."

// totalRelationSchema is a named schema, as Status is: oapi-codegen
// leaves an inline enum of the envelope undefined.
func totalRelationSchema() obj {
	return obj{"type": "string", "enum": []any{resource.TotalExact, resource.TotalAtLeast},
		"description": "with meta.total: eq, the total is exact; gte, more records match and the total is the cap of a filtered count (docs/counts.md)"}
}

// totalRelation is meta.totalRelation: set with a total only, exact
// unless the handler says otherwise.
func totalRelation(resp *Response) string {
	switch {
	case resp.Total == nil:
		return ""
	case resp.TotalRelation == "":
		return resource.TotalExact
	}
	return resp.TotalRelation
}

// CountParam reads a list's count parameter: true or false (absent is
// false), anything else a 400 naming count. Lists a module answers itself
// read it here too, so that every list takes the same values.
func CountParam(q url.Values) (bool, error) {
	switch q.Get("count") {
	case "", "false":
		return false, nil
	case "true":
		return true, nil
	}
	return false, BadRequest(resource.CodeBadQuery, "count", "count must be true or false")
}
