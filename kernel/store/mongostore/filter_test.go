package mongostore

import (
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"platform/kernel/query"
)

func TestCompileFilter(t *testing.T) {
	may1 := time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name   string
		filter string // parsed with a nil schema; empty: use expr
		expr   query.Expr
		want   string // bson.D's extended JSON
	}{
		{name: "nil", expr: nil, want: `{}`},
		{name: "equality", filter: `{"age": 5}`, want: `{"age": {"$eq": {"$numberLong":"5"}}}`},
		{name: "range", filter: `{"age": {"$gt": 1.5, "$lte": 5}}`,
			want: `{"age": {"$gt": {"$numberDouble":"1.5"}, "$lte": {"$numberLong":"5"}}}`},
		{name: "fields merge", filter: `{"a": "x", "b": null}`, want: `{"a": {"$eq": "x"}, "b": {"$eq": null}}`},
		{name: "same field twice stays $and", filter: `{"$and": [{"a": {"$gt": 1}}, {"a": {"$lt": 5}}]}`,
			want: `{"$and": [{"a": {"$gt": {"$numberLong":"1"}}}, {"a": {"$lt": {"$numberLong":"5"}}}]}`},
		{name: "or", filter: `{"$or": [{"a": 1}, {"b": {"$exists": false}}]}`,
			want: `{"$or": [{"a": {"$eq": {"$numberLong":"1"}}}, {"b": {"$exists": false}}]}`},
		{name: "nor", filter: `{"$nor": [{"a": {"$size": 2}}]}`, want: `{"$nor": [{"a": {"$size": {"$numberLong":"2"}}}]}`},
		{name: "in and nin", filter: `{"a": {"$in": [1, "x"], "$nin": []}}`,
			want: `{"a": {"$in": [{"$numberLong":"1"}, "x"], "$nin": []}}`},
		{name: "all", filter: `{"tags": {"$all": ["a", ["b"]]}}`, want: `{"tags": {"$all": ["a", ["b"]]}}`},
		{name: "regex", filter: `{"s": {"$regex": "^a", "$options": "i"}}`, want: `{"s": {"$regex": "^a", "$options": "i"}}`},
		{name: "regex without options", filter: `{"s": {"$regex": "^a"}}`, want: `{"s": {"$regex": "^a"}}`},
		{name: "not", filter: `{"s": {"$not": {"$regex": "^a"}}}`, want: `{"s": {"$not": {"$regex": "^a"}}}`},
		{name: "elemMatch on values", filter: `{"n": {"$elemMatch": {"$gte": 1, "$lt": 2}}}`,
			want: `{"n": {"$elemMatch": {"$gte": {"$numberLong":"1"}, "$lt": {"$numberLong":"2"}}}}`},
		{name: "elemMatch on documents", filter: `{"items": {"$elemMatch": {"sku": "a", "qty": {"$gt": 2}}}}`,
			want: `{"items": {"$elemMatch": {"qty": {"$gt": {"$numberLong":"2"}}, "sku": {"$eq": "a"}}}}`},
		{name: "date", filter: `{"d": {"$lt": {"$date": "2024-05-01T00:00:00Z"}}}`,
			want: `{"d": {"$lt": {"$date": {"$numberLong":"1714521600000"}}}}`},
		{name: "object operand", filter: `{"o": {"x": [1]}}`, want: `{"o": {"$eq": {"x": [{"$numberLong":"1"}]}}}`},
		{name: "empty and", expr: query.And{}, want: `{}`},
		{name: "empty or matches nothing", expr: query.Or{}, want: `{"$nor": [{}]}`},
		{name: "empty nor", expr: query.Nor{}, want: `{}`},
		{name: "nested empty and", expr: query.Or{Exprs: []query.Expr{query.And{}}}, want: `{"$or": [{}]}`},
		{name: "field without conditions", expr: query.Field{Path: "a"}, want: `{}`},
		{name: "empty not", expr: query.Field{Path: "a", Conds: []query.Cond{query.Not{}}}, want: `{"a": {"$in": []}}`},
		{name: "duplicate operators", expr: query.Field{Path: "a", Conds: []query.Cond{
			query.Compare{Op: query.OpNe, Value: 1}, query.Compare{Op: query.OpNe, Value: nil}}},
			want: `{"$and": [{"a": {"$ne": {"$numberLong":"1"}}}, {"a": {"$ne": null}}]}`},
		{name: "go values", expr: query.Field{Path: "a", Conds: []query.Cond{query.In{Values: []any{
			may1.In(time.FixedZone("x", 3600)), []any(nil), map[string]any{"b": 2, "a": 1}}}}},
			want: `{"a": {"$in": [{"$date": {"$numberLong":"1714521600000"}}, [], {"a": {"$numberLong":"1"}, "b": {"$numberLong":"2"}}]}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := tt.expr
			if tt.filter != "" {
				var err error
				if e, err = query.ParseJSON(tt.filter, nil); err != nil {
					t.Fatal(err)
				}
			}
			got, err := compileFilter(e)
			if err != nil {
				t.Fatal(err)
			}
			if g, w := canonicalJSON(t, got), canonicalJSON(t, tt.want); g != w {
				t.Errorf("compileFilter = %s\n           want %s", g, w)
			}
		})
	}
}

func TestCompileFilterRejectsUnknownNodes(t *testing.T) {
	bad := []query.Expr{
		unknownExpr{},
		query.Field{Path: "a", Conds: []query.Cond{unknownCond{}}},
		query.Field{Path: "a", Conds: []query.Cond{query.ElemMatch{}}},
	}
	for _, e := range bad {
		if _, err := compileFilter(e); err == nil {
			t.Errorf("compileFilter(%#v) succeeded; want an error", e)
		}
	}
}

type unknownExpr struct{ query.Field }

type unknownCond struct{ query.Exists }

// canonicalJSON renders a bson.D or extended JSON text the same way, so the
// tests compare documents, not spellings.
func canonicalJSON(t *testing.T, v any) string {
	t.Helper()
	var d bson.D
	switch x := v.(type) {
	case string:
		if err := bson.UnmarshalExtJSON([]byte(x), true, &d); err != nil {
			t.Fatalf("bad expectation %s: %v", x, err)
		}
	case bson.D:
		d = x
	}
	b, err := bson.MarshalExtJSON(d, true, false)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
