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
// is integral and fits, else float64. A number beyond a float64 would be
// ±Inf: decode untrusted JSON with jsonlimit.Decode, which refuses those.
func JSONNumber(n json.Number) any {
	if i, err := n.Int64(); err == nil {
		return i
	}
	f, _ := n.Float64()
	return f
}

// Int reads a stored integer whatever Go type the store or a decoder gave
// it (int64, int32, int or float64); anything else is 0.
func Int(v any) int64 {
	switch n := v.(type) {
	case int64:
		return n
	case int32:
		return int64(n)
	case int:
		return int64(n)
	case float64:
		return int64(n)
	}
	return 0
}
