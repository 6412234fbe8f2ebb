package query

import (
	"math"
	"strconv"
)

// Shorthand is the equality filter of a `?field=value` query parameter, the
// text coerced by the field's declared type. On an array field it matches
// documents whose array holds the value, as MongoDB equality does.
func Shorthand(field, value string, s Schema) (Expr, error) {
	if !validPath(field) {
		return nil, errorf(field, "", "is not a valid field path (dotted names, none empty or starting with \"$\")")
	}
	ft, ok := lookupField(s, field)
	if !ok {
		return nil, errorf(field, "", "cannot be filtered on")
	}
	v, err := shorthandValue(field, ft.Type, value)
	if err != nil {
		return nil, err
	}
	return Eq(field, v), nil
}

func shorthandValue(field string, t Type, text string) (any, error) {
	switch t {
	case TypeAny, TypeString:
		return text, nil
	case TypeNumber:
		return shorthandNumber(field, text)
	case TypeBool:
		return shorthandBool(field, text)
	case TypeObject:
		return nil, errorf(field, "$eq", "cannot compare an object with a query parameter; use filter with a dotted path")
	}
	return coerceScalar(field, string(OpEq), t, text)
}

func shorthandNumber(field, text string) (any, error) {
	if i, err := strconv.ParseInt(text, 10, 64); err == nil {
		return i, nil
	}
	if f, err := strconv.ParseFloat(text, 64); err == nil && !math.IsInf(f, 0) && !math.IsNaN(f) {
		return f, nil
	}
	return nil, errorf(field, "$eq", "needs a number, not %q", text)
}

func shorthandBool(field, text string) (any, error) {
	switch text {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return nil, errorf(field, "$eq", "needs true or false, not %q", text)
}

// Fields lists the dotted paths e filters on, each once, in order of
// appearance; paths inside $elemMatch come with the array's path in front.
func Fields(e Expr) []string {
	var out []string
	seen := map[string]bool{}
	add := func(p string) {
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	walkFields(e, "", add)
	return out
}

func walkFields(e Expr, prefix string, add func(string)) {
	switch x := e.(type) {
	case And:
		walkAll(x.Exprs, prefix, add)
	case Or:
		walkAll(x.Exprs, prefix, add)
	case Nor:
		walkAll(x.Exprs, prefix, add)
	case Field:
		path := joinPath(prefix, x.Path)
		add(path)
		walkConds(x.Conds, path, add)
	}
}

func walkAll(es []Expr, prefix string, add func(string)) {
	for _, e := range es {
		walkFields(e, prefix, add)
	}
}

func walkConds(conds []Cond, path string, add func(string)) {
	for _, c := range conds {
		switch x := c.(type) {
		case ElemMatch:
			walkFields(x.Expr, path, add)
			walkConds(x.Conds, path, add)
		case Not:
			walkConds(x.Conds, path, add)
		}
	}
}
