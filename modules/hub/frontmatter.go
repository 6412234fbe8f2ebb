package hub

import (
	"fmt"
	"time"

	"platform/kernel/resource"
	"platform/modules/hub/wiki"
)

// applyFrontMatter fills the page fields the body's YAML front matter sets
// and the request does not name, so they are validated like the rest;
// fields the request names win.
func applyFrontMatter(body map[string]any) (map[string]any, error) {
	raw, ok := body["body"].(string)
	if !ok {
		return body, nil
	}
	meta, _, err := wiki.SplitFrontMatter(raw)
	if err != nil {
		return nil, resource.InvalidField("body", "%s", err.Error())
	}
	for _, k := range wiki.FrontMatterFields {
		v, given := meta[k]
		if _, explicit := body[k]; given && !explicit {
			body[k] = jsonValue(v)
		}
	}
	return body, nil
}

// jsonValue turns a YAML value into a JSON one: YAML's dates become their
// ISO form, and scalars keep their type so the field's validation names a
// wrong one.
func jsonValue(v any) any {
	switch x := v.(type) {
	case time.Time:
		return x.UTC().Format(time.RFC3339)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = jsonValue(e)
		}
		return out
	case map[string]any, nil, string, bool, int, int64, float64:
		return x
	}
	return fmt.Sprint(v)
}
