package flags

import (
	"encoding/json"
	"fmt"
	"math"
)

// Limits on an evaluation context, so that one request cannot make an
// evaluation walk an unbounded document.
const (
	// MaxContextDepth is how deeply objects and arrays may nest in a
	// context (the context object itself is level 1).
	MaxContextDepth = 6
	// MaxContextValues is how many JSON values (objects, arrays, scalars)
	// a context may hold.
	MaxContextValues = 500
	// MaxContextString is the longest string value, in bytes.
	MaxContextString = 4096
)

// Context is an evaluation context (OpenFeature's): attributes of the
// subject of a decision, such as {"targetingKey": "user-42", "country":
// "DE", "plan": "pro"}. Numbers are int64 or float64.
type Context map[string]any

// TargetingKey is the context attribute OpenFeature names the targeting
// key: the default bucket key of rollouts.
const TargetingKey = "targetingKey"

// ContextError says which part of a context is refused and why.
type ContextError struct {
	Path string // "context.user.tags[3]"
	Msg  string
}

func (e *ContextError) Error() string { return e.Path + " " + e.Msg }

// NewContext checks a decoded JSON object against the limits and converts
// its numbers (json.Number included) to int64 or float64. A nil raw is
// the empty context.
func NewContext(raw map[string]any) (Context, error) {
	w := &walker{}
	out, err := w.object(raw, "context", 1)
	if err != nil {
		return nil, err
	}
	return Context(out), nil
}

// walker counts the values of one context against MaxContextValues.
type walker struct{ values int }

func (w *walker) visit(path string, depth int) error {
	w.values++
	if w.values > MaxContextValues {
		return &ContextError{path, fmt.Sprintf("makes the context too large: at most %d values", MaxContextValues)}
	}
	if depth > MaxContextDepth {
		return &ContextError{path, fmt.Sprintf("is nested too deeply: at most %d levels", MaxContextDepth)}
	}
	return nil
}

func (w *walker) object(m map[string]any, path string, depth int) (map[string]any, error) {
	if err := w.visit(path, depth); err != nil {
		return nil, err
	}
	out := make(map[string]any, len(m))
	for k, v := range m {
		c, err := w.value(v, path+"."+k, depth+1)
		if err != nil {
			return nil, err
		}
		out[k] = c
	}
	return out, nil
}

func (w *walker) value(v any, path string, depth int) (any, error) {
	switch x := v.(type) {
	case map[string]any:
		return w.object(x, path, depth)
	case []any:
		return w.array(x, path, depth)
	}
	if err := w.visit(path, depth); err != nil {
		return nil, err
	}
	return scalar(v, path)
}

func (w *walker) array(a []any, path string, depth int) (any, error) {
	if err := w.visit(path, depth); err != nil {
		return nil, err
	}
	out := make([]any, len(a))
	for i, e := range a {
		c, err := w.value(e, fmt.Sprintf("%s[%d]", path, i), depth+1)
		if err != nil {
			return nil, err
		}
		out[i] = c
	}
	return out, nil
}

// scalar converts numbers and refuses what JSON cannot hold.
func scalar(v any, path string) (any, error) {
	switch x := v.(type) {
	case nil, bool:
		return x, nil
	case string:
		if len(x) > MaxContextString {
			return nil, &ContextError{path, fmt.Sprintf("is too long: at most %d bytes", MaxContextString)}
		}
		return x, nil
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return i, nil
		}
		f, err := x.Float64()
		if err != nil || math.IsInf(f, 0) {
			return nil, &ContextError{path, "must be a finite number"}
		}
		return f, nil
	case int:
		return int64(x), nil
	case int64:
		return x, nil
	case float64:
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return nil, &ContextError{path, "must be a finite number"}
		}
		return x, nil
	}
	return nil, &ContextError{path, fmt.Sprintf("holds a value of type %T, which is not JSON", v)}
}

// lookup is the value at a dotted path of the context (no array
// traversal: a bucket key names one value).
func (c Context) lookup(path string) (any, bool) {
	var cur any = map[string]any(c)
	for _, part := range splitPath(path) {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = m[part]; !ok {
			return nil, false
		}
	}
	return cur, true
}

func splitPath(path string) []string {
	var out []string
	start := 0
	for i := 0; i < len(path); i++ {
		if path[i] == '.' {
			out = append(out, path[start:i])
			start = i + 1
		}
	}
	return append(out, path[start:])
}
