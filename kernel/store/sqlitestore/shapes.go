package sqlitestore

import (
	"math"
	"strings"

	"platform/kernel/store"
)

// shapes records the paths at which some document of a collection has held
// an array or a document: MongoDB's multikey flag, kept per path. Only a
// path with no array at or above it may be compiled to plain key
// comparisons; the flags are never cleared (as MongoDB's are not), so they
// may only err towards the exact, slower evaluation.
type shapes map[string]uint8

const (
	shapeArray uint8 = 1 << iota
	shapeObject
	// shapeNaN: NaN has no place among SQL numbers (MongoDB puts it below
	// every number), so a path holding one is evaluated in Go.
	shapeNaN
)

// flat reports that no document holds an array at path or above it, nor
// a NaN at it: its key then compares exactly as MongoDB compares.
func (s shapes) flat(path string) bool {
	if s[path]&shapeNaN != 0 {
		return false
	}
	for i := 0; i <= len(path); i++ {
		if i == len(path) || path[i] == '.' {
			if s[path[:i]]&shapeArray != 0 {
				return false
			}
		}
	}
	return true
}

// scalar reports that path holds neither arrays nor documents, so its key
// sorts exactly as MongoDB sorts.
func (s shapes) scalar(path string) bool {
	return s.flat(path) && s[path]&shapeObject == 0
}

// missing lists the flags of found that s lacks.
func (s shapes) missing(found shapes) shapes {
	var out shapes
	for p, f := range found {
		if s[p]&f != f {
			if out == nil {
				out = shapes{}
			}
			out[p] = s[p] | f
		}
	}
	return out
}

// with returns a copy of s with more flags.
func (s shapes) with(more shapes) shapes {
	out := make(shapes, len(s)+len(more))
	for p, f := range s {
		out[p] = f
	}
	for p, f := range more {
		out[p] |= f
	}
	return out
}

// shapesOf lists the array and document paths of d. Elements of an array
// lie at the array's own path, as MongoDB's dotted paths see them.
func shapesOf(d store.Doc, into shapes) {
	for k, v := range d {
		valueShapes(v, k, into)
	}
}

func valueShapes(v any, path string, into shapes) {
	switch x := v.(type) {
	case map[string]any:
		into[path] |= shapeObject
		for k, e := range x {
			valueShapes(e, path+"."+k, into)
		}
	case []any:
		into[path] |= shapeArray
		for _, e := range x {
			valueShapes(e, path, into)
		}
	case float64:
		if math.IsNaN(x) {
			into[path] |= shapeNaN
		}
	}
}

// topOf is the first component of a dotted path.
func topOf(path string) string {
	top, _, _ := strings.Cut(path, ".")
	return top
}
