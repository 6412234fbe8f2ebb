// Package query is the platform's one filter language: a subset of the
// MongoDB query language (DESIGN §3). Parse turns a JSON filter into an Expr;
// Match evaluates an Expr against a document in memory; the store
// implementations compile the same Expr to their own query form. Lists,
// trigger filters, newsletter recipient filters and db pipeline steps all use it.
package query

// Expr is a parsed filter over a whole document.
type Expr interface{ expr() }

// And matches when every part matches; an empty And matches everything.
type And struct{ Exprs []Expr }

// Or matches when at least one part matches.
type Or struct{ Exprs []Expr }

// Nor matches when no part matches.
type Nor struct{ Exprs []Expr }

// Field applies conditions to the value at a dotted path. All conditions
// must hold (as in {"age": {"$gt": 1, "$lt": 5}}).
type Field struct {
	Path  string
	Conds []Cond
}

func (And) expr()   {}
func (Or) expr()    {}
func (Nor) expr()   {}
func (Field) expr() {}

// Cond is a condition on one field's value.
type Cond interface{ cond() }

// Op names a comparison.
type Op string

const (
	OpEq  Op = "$eq"
	OpNe  Op = "$ne"
	OpGt  Op = "$gt"
	OpGte Op = "$gte"
	OpLt  Op = "$lt"
	OpLte Op = "$lte"
)

// Compare is $eq, $ne, $gt, $gte, $lt or $lte against Value.
type Compare struct {
	Op    Op
	Value any
}

// In is $in (or $nin when Not is set).
type In struct {
	Values []any
	Not    bool
}

// Exists is $exists.
type Exists struct{ Want bool }

// Regex is $regex with its $options (only i, m, s and x are accepted).
type Regex struct {
	Pattern string
	Options string
}

// Size is $size: the value is an array of exactly N elements.
type Size struct{ N int }

// All is $all: the value is an array holding every one of Values.
type All struct{ Values []any }

// ElemMatch is $elemMatch. Exactly one of Expr (elements are documents) and
// Conds (elements are scalars, e.g. {"$gt": 3}) is set.
type ElemMatch struct {
	Expr  Expr
	Conds []Cond
}

// Not is $not: the inner conditions do not all hold.
type Not struct{ Conds []Cond }

func (Compare) cond()   {}
func (In) cond()        {}
func (Exists) cond()    {}
func (Regex) cond()     {}
func (Size) cond()      {}
func (All) cond()       {}
func (ElemMatch) cond() {}
func (Not) cond()       {}

// Eq is the filter {path: value}.
func Eq(path string, value any) Expr {
	return Field{Path: path, Conds: []Cond{Compare{Op: OpEq, Value: value}}}
}

// ID is the filter {_id: id}.
func ID(id string) Expr { return Eq("_id", id) }

// AllOf joins filters with $and, dropping nil parts.
func AllOf(parts ...Expr) Expr {
	var out []Expr
	for _, p := range parts {
		if p != nil {
			out = append(out, p)
		}
	}
	switch len(out) {
	case 0:
		return nil
	case 1:
		return out[0]
	}
	return And{Exprs: out}
}
