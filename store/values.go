package store

import "encoding/json"

// Strings reads a stored array of strings (documents hold []any); other
// element types are skipped.
func Strings(v any) []string {
	a, _ := v.([]any)
	out := make([]string, 0, len(a))
	for _, e := range a {
		if s, ok := e.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// List turns strings into a stored array.
func List(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// JSONNumber is a decoded JSON number as documents hold it: int64 when it
// is integral and fits, else float64.
func JSONNumber(n json.Number) any {
	if i, err := n.Int64(); err == nil {
		return i
	}
	f, _ := n.Float64()
	return f
}
