package query

import (
	"encoding/json"
	"errors"
	"io"
	"slices"
	"strings"
)

// Limits on a filter, so that a client cannot make the API (or the store) do
// unbounded work with one request.
const (
	// MaxDepth is how deeply objects and arrays may nest in a filter.
	MaxDepth = 10
	// MaxNodes is how many JSON values (objects, arrays, scalars) a filter may hold.
	MaxNodes = 1000
	// MaxRegexLength is the longest $regex pattern accepted, in bytes.
	MaxRegexLength = 1024
)

// ParseJSON parses a filter given as JSON text (the `filter` query
// parameter). Integers stay int64; other numbers become float64. Blank text
// is no filter: nil, matching every document.
func ParseJSON(text string, s Schema) (Expr, error) {
	if strings.TrimSpace(text) == "" {
		return nil, nil
	}
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	var raw any
	if err := dec.Decode(&raw); err != nil {
		return nil, errorf("", "", "not valid JSON: %v", err)
	}
	if err := dec.Decode(&struct{}{}); !errors.Is(err, io.EOF) {
		return nil, errorf("", "", "not valid JSON: unexpected data after the filter object")
	}
	obj, ok := raw.(map[string]any)
	if !ok {
		return nil, errorf("", "", "must be a JSON object, as in {\"name\": \"Ada\"}")
	}
	return Parse(obj, s)
}

// Parse checks a decoded filter against the schema and builds its Expr.
// Values may be json.Number, Go integers or floats, strings, bools, nil,
// time.Time, []any and map[string]any ({"$date": "..."} is a date). An empty
// filter gives nil, which matches every document.
func Parse(raw map[string]any, s Schema) (Expr, error) {
	if len(raw) == 0 {
		return nil, nil
	}
	p := &parser{schema: s}
	return p.document(raw, "", 1)
}

// parser holds what the walk over one filter shares: the schema and the
// running count of nodes for MaxNodes.
type parser struct {
	schema Schema
	nodes  int
}

// visit counts one JSON value at the given depth against the limits.
func (p *parser) visit(field, op string, depth int) error {
	p.nodes++
	if p.nodes > MaxNodes {
		return errorf(field, op, "is too large (more than %d values in the filter)", MaxNodes)
	}
	if depth > MaxDepth {
		return errorf(field, op, "is nested too deeply (more than %d levels)", MaxDepth)
	}
	return nil
}

// document parses a filter object; prefix is the path of the enclosing
// $elemMatch array ("" at the top), used for schema look-ups and errors.
func (p *parser) document(obj map[string]any, prefix string, depth int) (Expr, error) {
	if err := p.visit(prefix, "", depth); err != nil {
		return nil, err
	}
	parts := make([]Expr, 0, len(obj))
	for _, key := range sortedKeys(obj) {
		part, err := p.clause(key, obj[key], prefix, depth+1)
		if err != nil {
			return nil, err
		}
		parts = append(parts, part)
	}
	if len(parts) == 1 {
		return parts[0], nil
	}
	return And{Exprs: parts}, nil
}

func (p *parser) clause(key string, val any, prefix string, depth int) (Expr, error) {
	if strings.HasPrefix(key, "$") {
		return p.logical(key, val, prefix, depth)
	}
	return p.field(key, val, prefix, depth)
}

func (p *parser) logical(op string, val any, prefix string, depth int) (Expr, error) {
	if !isLogicalOp(op) {
		return nil, misplacedTopLevel(prefix, op)
	}
	arr, ok := val.([]any)
	if !ok || len(arr) == 0 {
		return nil, errorf(prefix, op, "needs a non-empty array of filter objects")
	}
	if err := p.visit(prefix, op, depth); err != nil {
		return nil, err
	}
	parts := make([]Expr, 0, len(arr))
	for _, el := range arr {
		obj, ok := el.(map[string]any)
		if !ok {
			return nil, errorf(prefix, op, "needs filter objects in its array, not %s", describe(el))
		}
		part, err := p.document(obj, prefix, depth+1)
		if err != nil {
			return nil, err
		}
		parts = append(parts, part)
	}
	switch op {
	case "$and":
		return And{Exprs: parts}, nil
	case "$or":
		return Or{Exprs: parts}, nil
	}
	return Nor{Exprs: parts}, nil
}

func misplacedTopLevel(prefix, op string) *Error {
	if fieldOps[op] {
		return errorf(prefix, op, "must be applied to a field, as in {\"age\": {%q: 1}}", op)
	}
	return errorf(prefix, op, "is not supported")
}

func (p *parser) field(key string, val any, prefix string, depth int) (Expr, error) {
	full := joinPath(prefix, key)
	if !validPath(key) {
		return nil, errorf(full, "", "is not a valid field path (dotted names, none empty or starting with \"$\")")
	}
	ft, ok := lookupField(p.schema, full)
	if !ok {
		return nil, errorf(full, "", "cannot be filtered on")
	}
	ops, isOps, err := operatorObject(full, val)
	if err != nil {
		return nil, err
	}
	if !isOps {
		v, err := p.value(full, string(OpEq), ft, val, depth, false)
		if err != nil {
			return nil, err
		}
		return Field{Path: key, Conds: []Cond{Compare{Op: OpEq, Value: v}}}, nil
	}
	conds, err := p.conditions(full, ft, ops, depth)
	if err != nil {
		return nil, err
	}
	return Field{Path: key, Conds: conds}, nil
}

// operatorObject reports whether val is an object of operators such as
// {"$gt": 1}. Any other value (an object without "$" keys included) is
// compared for equality, as in MongoDB.
func operatorObject(field string, val any) (map[string]any, bool, error) {
	obj, ok := val.(map[string]any)
	if !ok || len(obj) == 0 || isDateLiteral(obj) {
		return nil, false, nil
	}
	var ops, names int
	for k := range obj {
		if strings.HasPrefix(k, "$") {
			ops++
		} else {
			names++
		}
	}
	if ops > 0 && names > 0 {
		return nil, false, errorf(field, "", "mixes operators and field names in one object")
	}
	return obj, ops > 0, nil
}

// conditions parses an object of field operators ({"$gt": 1, "$lt": 5}).
func (p *parser) conditions(field string, ft FieldType, ops map[string]any, depth int) ([]Cond, error) {
	if err := p.visit(field, "", depth); err != nil {
		return nil, err
	}
	if _, ok := ops["$options"]; ok {
		if _, ok := ops["$regex"]; !ok {
			return nil, errorf(field, "$options", "needs \"$regex\" beside it")
		}
	}
	conds := make([]Cond, 0, len(ops))
	for _, op := range sortedKeys(ops) {
		if op == "$options" {
			continue
		}
		c, err := p.condition(field, ft, op, ops[op], ops, depth+1)
		if err != nil {
			return nil, err
		}
		conds = append(conds, c)
	}
	return conds, nil
}

func (p *parser) condition(field string, ft FieldType, op string, raw any, siblings map[string]any, depth int) (Cond, error) {
	switch op {
	case "$eq", "$ne":
		v, err := p.value(field, op, ft, raw, depth, false)
		return Compare{Op: Op(op), Value: v}, err
	case "$gt", "$gte", "$lt", "$lte":
		v, err := p.value(field, op, ft, raw, depth, true)
		return Compare{Op: Op(op), Value: v}, err
	case "$in", "$nin":
		vs, err := p.list(field, op, ft, raw, depth)
		return In{Values: vs, Not: op == "$nin"}, err
	case "$all":
		return p.all(field, ft, raw, depth)
	case "$exists":
		return p.exists(field, raw, depth)
	case "$regex":
		return p.regex(field, ft, raw, siblings["$options"], depth)
	case "$size":
		return p.size(field, ft, raw, depth)
	case "$elemMatch":
		return p.elemMatch(field, ft, raw, depth)
	case "$not":
		return p.not(field, ft, raw, depth)
	}
	if isLogicalOp(op) {
		return nil, errorf(field, op, "must be at the top level of a filter (or of an $elemMatch), not inside a field")
	}
	return nil, errorf(field, op, "is not supported")
}

func (p *parser) all(field string, ft FieldType, raw any, depth int) (Cond, error) {
	if err := requireArrayField(field, "$all", ft, p.schema); err != nil {
		return nil, err
	}
	vs, err := p.list(field, "$all", ft, raw, depth)
	return All{Values: vs}, err
}

func (p *parser) exists(field string, raw any, depth int) (Cond, error) {
	if err := p.visit(field, "$exists", depth); err != nil {
		return nil, err
	}
	want, ok := raw.(bool)
	if !ok {
		return nil, errorf(field, "$exists", "needs true or false, not %s", describe(raw))
	}
	return Exists{Want: want}, nil
}

func (p *parser) size(field string, ft FieldType, raw any, depth int) (Cond, error) {
	if err := requireArrayField(field, "$size", ft, p.schema); err != nil {
		return nil, err
	}
	v, err := p.literal(field, "$size", raw, depth)
	if err != nil {
		return nil, err
	}
	n, ok := wholeNumber(v)
	if !ok || n < 0 || n > 1<<31-1 {
		return nil, errorf(field, "$size", "needs a non-negative integer, not %s", describe(raw))
	}
	return Size{N: int(n)}, nil
}

func (p *parser) regex(field string, ft FieldType, raw, rawOptions any, depth int) (Cond, error) {
	if err := p.visit(field, "$regex", depth); err != nil {
		return nil, err
	}
	if !regexApplies(ft.Type) {
		return nil, errorf(field, "$regex", "applies only to text fields, and this one holds %ss", ft.Type)
	}
	pattern, ok := raw.(string)
	if !ok {
		return nil, errorf(field, "$regex", "needs a string pattern, not %s", describe(raw))
	}
	options, err := regexOptions(field, rawOptions)
	if err != nil {
		return nil, err
	}
	r := Regex{Pattern: pattern, Options: options}
	if err := r.check(); err != nil {
		return nil, errorf(field, "$regex", "%v", err)
	}
	return r, nil
}

func regexApplies(t Type) bool {
	return t == TypeAny || t == TypeString || t == TypeID
}

func regexOptions(field string, raw any) (string, error) {
	if raw == nil {
		return "", nil
	}
	s, ok := raw.(string)
	if !ok {
		return "", errorf(field, "$options", "needs a string of flags (i, m, s, x), not %s", describe(raw))
	}
	for _, c := range s {
		if !strings.ContainsRune("imsx", c) {
			return "", errorf(field, "$options", "accepts only the flags i, m, s and x, not %q", c)
		}
	}
	return s, nil
}

func (p *parser) elemMatch(field string, ft FieldType, raw any, depth int) (Cond, error) {
	if err := requireArrayField(field, "$elemMatch", ft, p.schema); err != nil {
		return nil, err
	}
	obj, ok := raw.(map[string]any)
	if !ok || len(obj) == 0 {
		return nil, errorf(field, "$elemMatch", "needs a non-empty object of conditions")
	}
	if isValueElemMatch(obj) {
		conds, err := p.conditions(field, FieldType{Type: ft.Type}, obj, depth)
		return ElemMatch{Conds: conds}, err
	}
	if hasFieldOperator(obj) {
		return nil, errorf(field, "$elemMatch", "mixes operators on the elements with field names of the elements")
	}
	if ft.Type != TypeAny && ft.Type != TypeObject {
		return nil, errorf(field, "$elemMatch", "takes field names only on arrays of objects, and this one holds %ss", ft.Type)
	}
	e, err := p.document(obj, field, depth)
	return ElemMatch{Expr: e}, err
}

// isValueElemMatch tells {"$gt": 3} (conditions on scalar elements) from
// {"price": {"$gt": 3}} or {"$or": [...]} (a filter on document elements),
// the way MongoDB does: by whether the keys are field operators.
func isValueElemMatch(obj map[string]any) bool {
	for k := range obj {
		if !strings.HasPrefix(k, "$") || isLogicalOp(k) {
			return false
		}
	}
	return true
}

func hasFieldOperator(obj map[string]any) bool {
	for k := range obj {
		if strings.HasPrefix(k, "$") && !isLogicalOp(k) {
			return true
		}
	}
	return false
}

func (p *parser) not(field string, ft FieldType, raw any, depth int) (Cond, error) {
	obj, ok := raw.(map[string]any)
	if !ok || len(obj) == 0 {
		return nil, errorf(field, "$not", "needs a non-empty object of operators, as in {\"$not\": {\"$regex\": \"^a\"}}")
	}
	ops, isOps, err := operatorObject(field, obj)
	if err != nil {
		return nil, err
	}
	if !isOps {
		return nil, errorf(field, "$not", "needs operators, as in {\"$not\": {\"$gt\": 5}}, not field names or a value")
	}
	conds, err := p.conditions(field, ft, ops, depth)
	return Not{Conds: conds}, err
}

// requireArrayField rejects array operators on fields the schema declares as
// scalars: MongoDB would accept them but never match, which hides mistakes.
func requireArrayField(field, op string, ft FieldType, s Schema) error {
	if s == nil || ft.Array || ft.Type == TypeAny {
		return nil
	}
	return errorf(field, op, "applies only to array fields, and this one holds a single %s", ft.Type)
}

func (p *parser) list(field, op string, ft FieldType, raw any, depth int) ([]any, error) {
	arr, ok := raw.([]any)
	if !ok {
		return nil, errorf(field, op, "needs an array of values, not %s", describe(raw))
	}
	if err := p.visit(field, op, depth); err != nil {
		return nil, err
	}
	out := make([]any, 0, len(arr))
	for _, el := range arr {
		v, err := p.value(field, op, ft, el, depth+1, false)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

var fieldOps = map[string]bool{
	"$eq": true, "$ne": true, "$gt": true, "$gte": true, "$lt": true, "$lte": true,
	"$in": true, "$nin": true, "$exists": true, "$regex": true, "$options": true,
	"$not": true, "$elemMatch": true, "$all": true, "$size": true,
}

func isLogicalOp(op string) bool {
	return op == "$and" || op == "$or" || op == "$nor"
}

func validPath(path string) bool {
	for part := range strings.SplitSeq(path, ".") {
		if part == "" || strings.HasPrefix(part, "$") {
			return false
		}
	}
	return true
}

func joinPath(prefix, path string) string {
	if prefix == "" {
		return path
	}
	return prefix + "." + path
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
