package query

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"time"
)

// value parses an operand: a literal checked and coerced to the field's
// type. ordering operators ($gt...) take a single value only: MongoDB orders
// arrays and objects in ways no client means.
func (p *parser) value(field, op string, ft FieldType, raw any, depth int, ordering bool) (any, error) {
	v, err := p.literal(field, op, raw, depth)
	if err != nil {
		return nil, err
	}
	if ordering {
		switch v.(type) {
		case []any, map[string]any:
			return nil, errorf(field, op, "needs a single value (string, number, boolean, date or null), not %s", describe(v))
		}
	}
	return coerce(field, op, ft, v)
}

// literal turns a decoded JSON value into a document value (int64, float64,
// string, bool, nil, time.Time, []any, map[string]any).
func (p *parser) literal(field, op string, raw any, depth int) (any, error) {
	if err := p.visit(field, op, depth); err != nil {
		return nil, err
	}
	switch x := raw.(type) {
	case nil, string, bool:
		return x, nil
	case time.Time:
		return normalTime(x), nil
	case []any:
		return p.arrayLiteral(field, op, x, depth)
	case map[string]any:
		return p.objectLiteral(field, op, x, depth)
	}
	if n, ok := number(raw); ok {
		return finiteNumber(field, op, n, raw)
	}
	return nil, errorf(field, op, "cannot take %s", describe(raw))
}

// finiteNumber refuses ±Inf and NaN (1e999 in JSON, or a Go caller's
// float): no store can compare them as MongoDB does, and no answer can
// render them.
func finiteNumber(field, op string, n, raw any) (any, error) {
	if f, ok := n.(float64); ok && (math.IsInf(f, 0) || math.IsNaN(f)) {
		return nil, errorf(field, op, "needs a finite number, not %s (beyond the range of a 64-bit float)", describe(raw))
	}
	return n, nil
}

func (p *parser) arrayLiteral(field, op string, arr []any, depth int) (any, error) {
	out := make([]any, len(arr))
	for i, el := range arr {
		v, err := p.literal(field, op, el, depth+1)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

// objectLiteral accepts objects of at most one field: MongoDB compares
// embedded documents field by field in stored order, and documents written
// from Go maps have no defined order, so a wider object would match by chance.
func (p *parser) objectLiteral(field, op string, obj map[string]any, depth int) (any, error) {
	if isDateLiteral(obj) {
		return dateLiteral(field, op, obj["$date"])
	}
	if len(obj) > 1 {
		return nil, errorf(field, op, "cannot compare with an object of several fields (their stored order is not defined); filter on each with a dotted path instead")
	}
	out := make(map[string]any, len(obj))
	for k, el := range obj {
		if strings.HasPrefix(k, "$") {
			return nil, errorf(field, op, "cannot take the operator %q inside a value", k)
		}
		v, err := p.literal(field, op, el, depth+1)
		if err != nil {
			return nil, err
		}
		out[k] = v
	}
	return out, nil
}

// isDateLiteral recognises MongoDB Extended JSON's {"$date": "..."}, the only
// way to write a date where no schema says the field holds dates.
func isDateLiteral(obj map[string]any) bool {
	_, ok := obj["$date"]
	return ok && len(obj) == 1
}

func dateLiteral(field, op string, raw any) (any, error) {
	if s, ok := raw.(string); ok {
		if t, ok := parseDate(s); ok {
			return t, nil
		}
	}
	return nil, errorf(field, op, "needs \"$date\" to be an RFC 3339 date, as in {\"$date\": \"2024-05-01T12:00:00Z\"}")
}

// coerce checks a literal against the field's declared type, turning date
// strings into time.Time and normalising ids.
func coerce(field, op string, ft FieldType, v any) (any, error) {
	if arr, ok := v.([]any); ok && ft.Array {
		out := make([]any, len(arr))
		for i, el := range arr {
			c, err := coerceScalar(field, op, ft.Type, el)
			if err != nil {
				return nil, err
			}
			out[i] = c
		}
		return out, nil
	}
	return coerceScalar(field, op, ft.Type, v)
}

func coerceScalar(field, op string, t Type, v any) (any, error) {
	if v == nil || t == TypeAny {
		return v, nil
	}
	if c, ok := coerceTo(t, v); ok {
		return c, nil
	}
	return nil, errorf(field, op, "needs %s, not %s", typeWanted(t), describe(v))
}

func coerceTo(t Type, v any) (any, bool) {
	switch t {
	case TypeString:
		_, ok := v.(string)
		return v, ok
	case TypeNumber:
		switch v.(type) {
		case int64, float64:
			return v, true
		}
	case TypeBool:
		_, ok := v.(bool)
		return v, ok
	case TypeDate:
		return toDate(v)
	case TypeID:
		s, ok := v.(string)
		if ok && ValidID(s) {
			return strings.ToLower(s), true
		}
	case TypeObject:
		_, ok := v.(map[string]any)
		return v, ok
	}
	return nil, false
}

func toDate(v any) (any, bool) {
	switch x := v.(type) {
	case time.Time:
		return x, true
	case string:
		return parseDate(x)
	}
	return nil, false
}

func typeWanted(t Type) string {
	switch t {
	case TypeString:
		return "a string"
	case TypeNumber:
		return "a number"
	case TypeBool:
		return "true or false"
	case TypeDate:
		return "a date (RFC 3339, as in \"2024-05-01T12:00:00Z\", or \"2024-05-01\")"
	case TypeID:
		return "an id (24 hexadecimal characters)"
	case TypeObject:
		return "an object"
	}
	return "a value"
}

// parseDate reads RFC 3339 or a bare YYYY-MM-DD (midnight UTC).
func parseDate(s string) (time.Time, bool) {
	for _, layout := range []string{time.RFC3339Nano, time.DateOnly} {
		if t, err := time.Parse(layout, s); err == nil {
			return normalTime(t), true
		}
	}
	return time.Time{}, false
}

// normalTime is UTC at millisecond precision: what a BSON date holds, so a
// filter means the same in memory as in MongoDB.
func normalTime(t time.Time) time.Time {
	return t.UTC().Truncate(time.Millisecond)
}

// ValidID reports whether s is a 24-character hexadecimal ObjectId.
func ValidID(s string) bool {
	if len(s) != 24 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}

// number converts Go and JSON numbers to int64 or float64.
func number(v any) (any, bool) {
	switch x := v.(type) {
	case json.Number:
		return jsonNumber(x)
	case int:
		return int64(x), true
	case int8:
		return int64(x), true
	case int16:
		return int64(x), true
	case int32:
		return int64(x), true
	case int64:
		return x, true
	case uint8:
		return int64(x), true
	case uint16:
		return int64(x), true
	case uint32:
		return int64(x), true
	case uint:
		return unsigned(uint64(x)), true
	case uint64:
		return unsigned(x), true
	case float32:
		return float64(x), true
	case float64:
		return x, true
	}
	return nil, false
}

// jsonNumber is ±Inf for a number beyond a float64, which literal refuses
// by name.
func jsonNumber(n json.Number) (any, bool) {
	if i, err := n.Int64(); err == nil {
		return i, true
	}
	f, err := n.Float64()
	if err != nil && !math.IsInf(f, 0) {
		return nil, false
	}
	return f, true
}

func unsigned(u uint64) any {
	if u > math.MaxInt64 {
		return float64(u)
	}
	return int64(u)
}

// wholeNumber is v as an integer when it is one (1 or 1.0).
func wholeNumber(v any) (int64, bool) {
	switch x := v.(type) {
	case int64:
		return x, true
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1<<53 {
			return int64(x), true
		}
	}
	return 0, false
}

// describe names a value's kind for error messages.
func describe(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		return fmt.Sprintf("the string %q", truncate(x, 40))
	case bool:
		return fmt.Sprintf("the boolean %v", x)
	case int64, float64, json.Number, int:
		return fmt.Sprintf("the number %v", x)
	case time.Time:
		return "a date"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("a value of Go type %T", v)
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
