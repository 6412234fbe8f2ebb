package sqlitestore

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"platform/kernel/store"
)

// Documents are stored as JSON text that keeps what plain JSON would lose,
// so every value comes back with the Go type it went in with:
//   - a float64 always carries a '.' or an exponent (1.0 stays a float64,
//     1 stays an int64); ±Inf is ±9e999, which SQLite reads as ±Inf; NaN,
//     which JSON cannot hold, is {"$float":"NaN"};
//   - a time.Time is {"$date":"2006-01-02T15:04:05.000Z"}: UTC milliseconds
//     as MongoDB keeps them, fixed width so that text order is time order;
//   - a key starting with '$' gets one more '$', so no user key is ever
//     mistaken for one of those tags.
//
// Keys are written sorted, so equal documents have equal text.

const (
	dateTag  = "$date"
	floatTag = "$float"
	// dateLayout is fixed width for years 0 to 9999, the years accepted.
	dateLayout = "2006-01-02T15:04:05.000Z"
)

var errDateRange = errors.New("sqlitestore: dates must fall in years 0 to 9999")

// normalize converts a caller's value to the types store.Doc promises
// (int64, float64, UTC milliseconds, []any, map[string]any), so what an
// operation returns equals what a later Get returns.
func normalize(v any) (any, error) {
	switch x := v.(type) {
	case nil, bool, string, int64, float64:
		return v, nil
	case int:
		return int64(x), nil
	case int32:
		return int64(x), nil
	case float32:
		return float64(x), nil
	case time.Time:
		return normalizeTime(x)
	case map[string]any:
		return normalizeMap(x)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			n, err := normalize(e)
			if err != nil {
				return nil, err
			}
			out[i] = n
		}
		return out, nil
	}
	return normalizeReflect(v)
}

func normalizeTime(t time.Time) (any, error) {
	t = t.UTC().Truncate(time.Millisecond)
	if t.Year() < 0 || t.Year() > 9999 {
		return nil, errDateRange
	}
	return t, nil
}

func normalizeMap(m map[string]any) (store.Doc, error) {
	out := make(store.Doc, len(m))
	for k, e := range m {
		n, err := normalize(e)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", k, err)
		}
		out[k] = n
	}
	return out, nil
}

// normalizeReflect handles the other integer widths, typed slices such as
// []string and typed maps such as map[string]string.
func normalizeReflect(v any) (any, error) {
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return rv.Int(), nil
	case reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint, reflect.Uint64:
		if rv.Uint() > math.MaxInt64 {
			return nil, fmt.Errorf("sqlitestore: %d does not fit an int64", rv.Uint())
		}
		return int64(rv.Uint()), nil
	case reflect.Float32, reflect.Float64:
		return rv.Float(), nil
	case reflect.String:
		return rv.String(), nil
	case reflect.Bool:
		return rv.Bool(), nil
	case reflect.Slice, reflect.Array:
		if rv.Kind() == reflect.Slice && rv.IsNil() {
			return nil, nil
		}
		out := make([]any, rv.Len())
		for i := range out {
			n, err := normalize(rv.Index(i).Interface())
			if err != nil {
				return nil, err
			}
			out[i] = n
		}
		return out, nil
	case reflect.Map:
		if rv.Type().Key().Kind() != reflect.String {
			break
		}
		if rv.IsNil() {
			return nil, nil
		}
		out := make(store.Doc, rv.Len())
		for it := rv.MapRange(); it.Next(); {
			n, err := normalize(it.Value().Interface())
			if err != nil {
				return nil, err
			}
			out[it.Key().String()] = n
		}
		return out, nil
	case reflect.Pointer:
		if rv.IsNil() {
			return nil, nil
		}
		return normalize(rv.Elem().Interface())
	}
	return nil, fmt.Errorf("sqlitestore: cannot store a %T", v)
}

// encodeDoc writes a normalized document as tagged JSON.
func encodeDoc(d store.Doc) []byte {
	return appendDoc(make([]byte, 0, 256), d)
}

func appendValue(b []byte, v any) []byte {
	switch x := v.(type) {
	case nil:
		return append(b, "null"...)
	case bool:
		return strconv.AppendBool(b, x)
	case string:
		return appendString(b, x)
	case int64:
		return strconv.AppendInt(b, x, 10)
	case float64:
		return appendFloat(b, x)
	case time.Time:
		b = append(b, `{"$date":"`...)
		b = x.AppendFormat(b, dateLayout)
		return append(b, `"}`...)
	case map[string]any:
		return appendDoc(b, x)
	case []any:
		b = append(b, '[')
		for i, e := range x {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendValue(b, e)
		}
		return append(b, ']')
	}
	panic(fmt.Sprintf("sqlitestore: unnormalized %T", v))
}

func appendDoc(b []byte, d map[string]any) []byte {
	keys := make([]string, 0, len(d))
	for k := range d {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	b = append(b, '{')
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, escapeKey(k))
		b = append(b, ':')
		b = appendValue(b, d[k])
	}
	return append(b, '}')
}

func appendFloat(b []byte, f float64) []byte {
	switch {
	case math.IsNaN(f):
		return append(b, `{"$float":"NaN"}`...)
	case math.IsInf(f, 1):
		return append(b, "9e999"...)
	case math.IsInf(f, -1):
		return append(b, "-9e999"...)
	}
	start := len(b)
	b = strconv.AppendFloat(b, f, 'g', -1, 64)
	if !bytes.ContainsAny(b[start:], ".e") {
		b = append(b, ".0"...)
	}
	return b
}

const hexDigits = "0123456789abcdef"

func appendString(b []byte, s string) []byte {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		b = append(b, s[start:i]...)
		switch c {
		case '"', '\\':
			b = append(b, '\\', c)
		case '\n':
			b = append(b, '\\', 'n')
		case '\t':
			b = append(b, '\\', 't')
		case '\r':
			b = append(b, '\\', 'r')
		default:
			b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
		}
		start = i + 1
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

func escapeKey(k string) string {
	if strings.HasPrefix(k, "$") {
		return "$" + k
	}
	return k
}

// decodeDoc reads a document written by encodeDoc.
func decodeDoc(text []byte) (store.Doc, error) {
	v, err := decodeValue(text)
	if err != nil {
		return nil, err
	}
	d, ok := v.(store.Doc)
	if !ok {
		return nil, fmt.Errorf("sqlitestore: stored value is a %T, not a document", v)
	}
	return d, nil
}
