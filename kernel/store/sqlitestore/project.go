package sqlitestore

import (
	"strings"

	"platform/kernel/store"
)

// project keeps _id and the listed dotted paths, as a MongoDB inclusion
// projection does: a path through an array of documents keeps that field
// of each document (documents lacking it stay as {}), and drops the
// array's other elements.
func project(d store.Doc, fields []string) store.Doc {
	if len(fields) == 0 {
		return d
	}
	out := store.Doc{}
	if id, ok := d["_id"]; ok {
		out["_id"] = id
	}
	for _, f := range outermost(fields) {
		includePath(d, out, strings.Split(f, "."))
	}
	return out
}

// outermost drops the paths inside another listed path ("a.b" when "a" is
// listed), which the shorter one already includes whole.
func outermost(fields []string) []string {
	out := make([]string, 0, len(fields))
	for _, f := range fields {
		inside := false
		for _, g := range fields {
			if strings.HasPrefix(f, g+".") {
				inside = true
				break
			}
		}
		if !inside {
			out = append(out, f)
		}
	}
	return out
}

func includePath(src, dst map[string]any, parts []string) {
	v, ok := src[parts[0]]
	if !ok {
		return
	}
	if len(parts) == 1 {
		dst[parts[0]] = v
		return
	}
	switch x := v.(type) {
	case map[string]any:
		sub, _ := dst[parts[0]].(map[string]any)
		if sub == nil {
			sub = map[string]any{}
			dst[parts[0]] = sub
		}
		includePath(x, sub, parts[1:])
	case []any:
		prev, _ := dst[parts[0]].([]any)
		dst[parts[0]] = projectArray(x, prev, parts[1:])
	}
}

// projectArray projects each document of an array (recursing into nested
// arrays); prev is the result of projecting another path of the same
// array, to merge with.
func projectArray(src, prev []any, parts []string) []any {
	out := make([]any, 0, len(src))
	for _, el := range src {
		j := len(out)
		switch x := el.(type) {
		case map[string]any:
			var sub map[string]any
			if j < len(prev) {
				sub, _ = prev[j].(map[string]any)
			}
			if sub == nil {
				sub = map[string]any{}
			}
			includePath(x, sub, parts)
			out = append(out, sub)
		case []any:
			var p []any
			if j < len(prev) {
				p, _ = prev[j].([]any)
			}
			out = append(out, projectArray(x, p, parts))
		}
	}
	return out
}
