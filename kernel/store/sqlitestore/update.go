package sqlitestore

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"platform/kernel/query"
	"platform/kernel/store"
)

// Update operators, applied in Go inside the write transaction that read
// the document, with MongoDB's rules: dotted paths create the documents
// they cross, numeric parts index arrays (padding with nulls), two
// operations on overlapping paths are refused, _id cannot change.

const maxArrayPad = 100000

type opAction int

const (
	keepValue opAction = iota
	setValue
	removeValue
)

type opFunc func(old any, exists bool) (any, opAction, error)

// applyUpdate applies a normalized update to doc in place.
func applyUpdate(doc store.Doc, u store.Update, inserting, scoped bool) error {
	if err := checkUpdatePaths(doc, u, scoped); err != nil {
		return err
	}
	type step struct {
		path   string
		create bool
		fn     opFunc
	}
	var steps []step
	for p, v := range u.Set {
		steps = append(steps, step{p, true, setOp(v)})
	}
	if inserting {
		for p, v := range u.SetOnInsert {
			steps = append(steps, step{p, true, setOp(v)})
		}
	}
	for _, p := range u.Unset {
		steps = append(steps, step{p, false, unsetOp})
	}
	for p, v := range u.Inc {
		steps = append(steps, step{p, true, incOp(p, v)})
	}
	for p, v := range u.Push {
		steps = append(steps, step{p, true, pushOp(p, v)})
	}
	for p, v := range u.Pull {
		steps = append(steps, step{p, false, pullOp(p, v)})
	}
	for _, s := range steps {
		if s.path == "_id" {
			continue // checkUpdatePaths allowed only setting the same _id
		}
		if _, err := modify(doc, strings.Split(s.path, "."), s.create, s.fn); err != nil {
			return fmt.Errorf("sqlitestore: update %s: %w", s.path, err)
		}
	}
	return nil
}

// normalizeUpdate converts the update's values to document types.
func normalizeUpdate(u store.Update) (store.Update, error) {
	var err error
	norm := func(m map[string]any) map[string]any {
		if m == nil || err != nil {
			return m
		}
		out := make(map[string]any, len(m))
		for k, v := range m {
			var n any
			if n, err = normalize(v); err != nil {
				return nil
			}
			out[k] = n
		}
		return out
	}
	out := store.Update{
		Set: norm(u.Set), Unset: u.Unset, Inc: norm(u.Inc),
		Push: norm(u.Push), Pull: norm(u.Pull), SetOnInsert: norm(u.SetOnInsert),
	}
	return out, err
}

func emptyUpdate(u store.Update) bool {
	return len(u.Set) == 0 && len(u.Unset) == 0 && len(u.Inc) == 0 &&
		len(u.Push) == 0 && len(u.Pull) == 0 && len(u.SetOnInsert) == 0
}

// checkUpdatePaths refuses what MongoDB refuses: empty path components,
// overlapping paths, a changed _id; and, in scoped collections, touching
// the customer, which would move the document to another tenant.
func checkUpdatePaths(doc store.Doc, u store.Update, scoped bool) error {
	var paths []string
	add := func(m map[string]any) {
		for p := range m {
			paths = append(paths, p)
		}
	}
	add(u.Set)
	add(u.SetOnInsert)
	add(u.Inc)
	add(u.Push)
	add(u.Pull)
	paths = append(paths, u.Unset...)
	for _, p := range paths {
		if p == "" || strings.HasPrefix(p, ".") || strings.HasSuffix(p, ".") || strings.Contains(p, "..") {
			return fmt.Errorf("sqlitestore: update: invalid path %q", p)
		}
		if topOf(p) == store.CustomerField && scoped {
			return errors.New("sqlitestore: update: the customer of a document cannot change")
		}
		if topOf(p) == "_id" && !sameID(doc, u, p) {
			return errors.New("sqlitestore: update: the path '_id' is immutable")
		}
	}
	return checkConflicts(paths)
}

func sameID(doc store.Doc, u store.Update, p string) bool {
	if p != "_id" {
		return false
	}
	if v, ok := u.Set["_id"]; ok && v != doc["_id"] {
		return false
	}
	if v, ok := u.SetOnInsert["_id"]; ok && v != doc["_id"] {
		return false
	}
	_, inc := u.Inc["_id"]
	_, push := u.Push["_id"]
	_, pull := u.Pull["_id"]
	for _, x := range u.Unset {
		if x == "_id" {
			return false
		}
	}
	return !inc && !push && !pull
}

func checkConflicts(paths []string) error {
	sort.Strings(paths)
	for i := 1; i < len(paths); i++ {
		a, b := paths[i-1], paths[i]
		if a == b || strings.HasPrefix(b, a+".") {
			return fmt.Errorf("sqlitestore: update: updating the path '%s' would create a conflict at '%s'", b, a)
		}
	}
	// Sorting puts "a.b" after "a" but "a-x" may fall between them.
	for i, a := range paths {
		for _, b := range paths[i+1:] {
			if strings.HasPrefix(b, a+".") {
				return fmt.Errorf("sqlitestore: update: updating the path '%s' would create a conflict at '%s'", b, a)
			}
		}
	}
	return nil
}

// modify applies fn at parts below container and returns the container,
// which is new when an array had to grow.
func modify(container any, parts []string, create bool, fn opFunc) (any, error) {
	switch c := container.(type) {
	case map[string]any:
		return c, modifyDoc(c, parts, create, fn)
	case []any:
		return modifyArray(c, parts, create, fn)
	}
	return container, nil
}

func modifyDoc(m map[string]any, parts []string, create bool, fn opFunc) error {
	key := parts[0]
	child, exists := m[key]
	if len(parts) == 1 {
		v, action, err := fn(child, exists)
		switch action {
		case setValue:
			m[key] = v
		case removeValue:
			delete(m, key)
		}
		return err
	}
	if !exists {
		if !create {
			return nil
		}
		child = map[string]any{}
		m[key] = child
	}
	switch child.(type) {
	case map[string]any, []any:
		nc, err := modify(child, parts[1:], create, fn)
		m[key] = nc
		return err
	}
	if create {
		return fmt.Errorf("cannot create field '%s' in element {%s: %v}", parts[1], key, child)
	}
	return nil
}

func modifyArray(arr []any, parts []string, create bool, fn opFunc) ([]any, error) {
	i, err := strconv.Atoi(parts[0])
	if err != nil || i < 0 || strings.HasPrefix(parts[0], "+") {
		if create {
			return arr, fmt.Errorf("cannot create field '%s' in an array", parts[0])
		}
		return arr, nil
	}
	if i >= len(arr) && !create {
		return arr, nil
	}
	if i >= len(arr)+maxArrayPad {
		return arr, fmt.Errorf("index %d is too far past the end of the array", i)
	}
	if len(parts) == 1 {
		old, exists := any(nil), i < len(arr)
		if exists {
			old = arr[i]
		}
		v, action, err := fn(old, exists)
		switch action {
		case setValue:
			arr = padTo(arr, i+1)
			arr[i] = v
		case removeValue:
			arr[i] = nil // $unset of an element leaves a null in its place
		}
		return arr, err
	}
	arr = padTo(arr, i+1)
	if arr[i] == nil {
		arr[i] = map[string]any{}
	}
	switch arr[i].(type) {
	case map[string]any, []any:
		nc, err := modify(arr[i], parts[1:], create, fn)
		arr[i] = nc
		return arr, err
	}
	if create {
		return arr, fmt.Errorf("cannot create field '%s' in element %v", parts[1], arr[i])
	}
	return arr, nil
}

func padTo(arr []any, n int) []any {
	for len(arr) < n {
		arr = append(arr, nil)
	}
	return arr
}

func setOp(v any) opFunc {
	return func(any, bool) (any, opAction, error) { return v, setValue, nil }
}

func unsetOp(_ any, exists bool) (any, opAction, error) {
	if !exists {
		return nil, keepValue, nil
	}
	return nil, removeValue, nil
}

func incOp(path string, delta any) opFunc {
	return func(old any, exists bool) (any, opAction, error) {
		if !isNumber(delta) {
			return nil, keepValue, fmt.Errorf("cannot increment with non-numeric argument: {%s: %v}", path, delta)
		}
		if !exists {
			return delta, setValue, nil
		}
		sum, err := addNumbers(old, delta)
		if err != nil {
			return nil, keepValue, err
		}
		return sum, setValue, nil
	}
}

func isNumber(v any) bool {
	switch v.(type) {
	case int64, float64:
		return true
	}
	return false
}

// addNumbers adds as MongoDB does: int64 stays int64 (overflow is an
// error), anything with a float64 becomes float64.
func addNumbers(a, b any) (any, error) {
	ai, aInt := a.(int64)
	bi, bInt := b.(int64)
	switch {
	case aInt && bInt:
		s := ai + bi
		if (s > ai) != (bi > 0) {
			return nil, errors.New("integer overflow")
		}
		return s, nil
	case !isNumber(a):
		return nil, fmt.Errorf("cannot apply $inc to a value of non-numeric type %T", a)
	}
	return toFloat(a) + toFloat(b), nil
}

func toFloat(v any) float64 {
	switch x := v.(type) {
	case int64:
		return float64(x)
	case float64:
		return x
	}
	return math.NaN()
}

func pushOp(path string, v any) opFunc {
	return func(old any, exists bool) (any, opAction, error) {
		if !exists {
			return []any{v}, setValue, nil
		}
		arr, ok := old.([]any)
		if !ok {
			return nil, keepValue, fmt.Errorf("the field '%s' must be an array but is of type %T", path, old)
		}
		return append(arr[:len(arr):len(arr)], v), setValue, nil
	}
}

func pullOp(path string, v any) opFunc {
	return func(old any, exists bool) (any, opAction, error) {
		if !exists {
			return nil, keepValue, nil
		}
		arr, ok := old.([]any)
		if !ok {
			return nil, keepValue, fmt.Errorf("cannot apply $pull to a non-array value at '%s'", path)
		}
		kept := make([]any, 0, len(arr))
		for _, el := range arr {
			if query.Order(el, v) != 0 {
				kept = append(kept, el)
			}
		}
		return kept, setValue, nil
	}
}
