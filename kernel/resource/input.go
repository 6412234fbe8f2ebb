package resource

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"

	"platform/kernel/jsonlimit"
)

// normalize makes a body from any caller look like one decoded from a
// request (jsonlimit.Decode): numbers as json.Number, so that validation
// sees integers and decimals exactly as a client sent them. Workflows and
// activities hand over values their JSON decoding made float64, and Go
// callers ints; both are bounded here as the HTTP decoder bounds request
// bodies: finite numbers, nesting of at most jsonlimit.MaxDepth levels.
func normalize(body map[string]any) (map[string]any, error) {
	v, err := normalValue(body, "", 1)
	if err != nil {
		return nil, err
	}
	out, _ := v.(map[string]any)
	return out, nil
}

func normalValue(v any, path string, depth int) (any, error) {
	switch x := v.(type) {
	case map[string]any:
		return normalObject(x, path, depth)
	case []any:
		return normalArray(x, path, depth)
	case float64:
		return finiteNumber(x, path)
	case float32:
		return finiteNumber(float64(x), path)
	case int:
		return json.Number(strconv.Itoa(x)), nil
	case int64:
		return json.Number(strconv.FormatInt(x, 10)), nil
	case int32:
		return json.Number(strconv.FormatInt(int64(x), 10)), nil
	case nil, string, bool, json.Number:
		return v, nil
	}
	return nil, Invalid(FieldError(CodeType, path, "field %q holds a %T, which is not a JSON value", path, v))
}

func normalObject(o map[string]any, path string, depth int) (any, error) {
	if depth > jsonlimit.MaxDepth {
		return nil, tooDeep(path)
	}
	out := make(map[string]any, len(o))
	for k, e := range o {
		n, err := normalValue(e, join(path, k), depth+1)
		if err != nil {
			return nil, err
		}
		out[k] = n
	}
	return out, nil
}

func normalArray(a []any, path string, depth int) (any, error) {
	if depth > jsonlimit.MaxDepth {
		return nil, tooDeep(path)
	}
	out := make([]any, len(a))
	for i, e := range a {
		n, err := normalValue(e, fmt.Sprintf("%s[%d]", path, i), depth+1)
		if err != nil {
			return nil, err
		}
		out[i] = n
	}
	return out, nil
}

func finiteNumber(x float64, path string) (any, error) {
	if math.IsInf(x, 0) || math.IsNaN(x) {
		return nil, Invalid(FieldError(CodeType, path, "field %q must be a finite number", path))
	}
	return json.Number(strconv.FormatFloat(x, 'g', -1, 64)), nil
}

func tooDeep(path string) error {
	return Malformed(CodeTooDeep, path, "objects and arrays nest deeper than %d levels", jsonlimit.MaxDepth)
}

func join(path, k string) string {
	if path == "" {
		return k
	}
	return path + "." + k
}
