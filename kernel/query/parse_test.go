package query

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"
)

var testSchema = MapSchema{
	"_id":          {Type: TypeID},
	"ownerId":      {Type: TypeID},
	"name":         {Type: TypeString},
	"email":        {Type: TypeString},
	"age":          {Type: TypeNumber},
	"active":       {Type: TypeBool},
	"createdAt":    {Type: TypeDate},
	"tags":         {Type: TypeString, Array: true},
	"scores":       {Type: TypeNumber, Array: true},
	"items":        {Type: TypeObject, Array: true},
	"items.sku":    {Type: TypeString},
	"items.qty":    {Type: TypeNumber},
	"address":      {Type: TypeObject},
	"address.city": {Type: TypeString},
	"meta":         {Type: TypeAny},
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, filter string
		schema       Schema
		field, op    string
		contains     string
	}{
		{"unknown operator", `{"email": {"$foo": 1}}`, testSchema, "email", "$foo", "is not supported"},
		{"field not in schema", `{"secret": 1}`, testSchema, "secret", "", "cannot be filtered on"},
		{"field operator at top level", `{"$gt": 1}`, testSchema, "", "$gt", "must be applied to a field"},
		{"unsupported top-level operator", `{"$where": "1"}`, testSchema, "", "$where", "is not supported"},
		{"$expr", `{"$expr": {"$eq": ["$a", 1]}}`, nil, "", "$expr", "is not supported"},
		{"logical inside field", `{"age": {"$or": [{"$gt": 1}]}}`, testSchema, "age", "$or", "top level"},
		{"$in not array", `{"age": {"$in": 5}}`, testSchema, "age", "$in", "needs an array"},
		{"$nin not array", `{"age": {"$nin": {"a": 1}}}`, testSchema, "age", "$nin", "needs an array"},
		{"$all not array", `{"tags": {"$all": "a"}}`, testSchema, "tags", "$all", "needs an array"},
		{"$size fraction", `{"tags": {"$size": 1.5}}`, testSchema, "tags", "$size", "non-negative integer"},
		{"$size negative", `{"tags": {"$size": -1}}`, testSchema, "tags", "$size", "non-negative integer"},
		{"$size string", `{"tags": {"$size": "2"}}`, testSchema, "tags", "$size", "non-negative integer"},
		{"$size on scalar field", `{"age": {"$size": 1}}`, testSchema, "age", "$size", "only to array fields"},
		{"$all on scalar field", `{"age": {"$all": [1]}}`, testSchema, "age", "$all", "only to array fields"},
		{"$elemMatch on scalar field", `{"name": {"$elemMatch": {"$eq": "a"}}}`, testSchema, "name", "$elemMatch", "only to array fields"},
		{"$regex look-behind", `{"name": {"$regex": "(?<=a)b"}}`, testSchema, "name", "$regex", "not a valid regular expression"},
		{"$regex back-reference", `{"name": {"$regex": "(a)\\1"}}`, testSchema, "name", "$regex", "not a valid regular expression"},
		{"$regex number", `{"name": {"$regex": 5}}`, testSchema, "name", "$regex", "needs a string"},
		{"$regex NUL", `{"name": {"$regex": "a\u0000"}}`, testSchema, "name", "$regex", "NUL"},
		{"$regex too long", `{"name": {"$regex": "` + strings.Repeat("a", MaxRegexLength+1) + `"}}`, testSchema, "name", "$regex", "longer than"},
		{"$regex on number field", `{"age": {"$regex": "1"}}`, testSchema, "age", "$regex", "only to text fields"},
		{"$options unknown flag", `{"name": {"$regex": "a", "$options": "g"}}`, testSchema, "name", "$options", "only the flags"},
		{"$options not string", `{"name": {"$regex": "a", "$options": 1}}`, testSchema, "name", "$options", "needs a string"},
		{"$options alone", `{"name": {"$options": "i"}}`, testSchema, "name", "$options", "needs \"$regex\""},
		{"$exists number", `{"name": {"$exists": 1}}`, testSchema, "name", "$exists", "true or false"},
		{"$and empty", `{"$and": []}`, testSchema, "", "$and", "non-empty array"},
		{"$or object", `{"$or": {"age": 1}}`, testSchema, "", "$or", "non-empty array"},
		{"$nor of numbers", `{"$nor": [1]}`, testSchema, "", "$nor", "filter objects"},
		{"$elemMatch number", `{"tags": {"$elemMatch": 1}}`, testSchema, "tags", "$elemMatch", "non-empty object"},
		{"$elemMatch empty", `{"tags": {"$elemMatch": {}}}`, testSchema, "tags", "$elemMatch", "non-empty object"},
		{"$elemMatch mixed", `{"items": {"$elemMatch": {"$gt": 1, "sku": "a"}}}`, testSchema, "items", "$elemMatch", "mixes"},
		{"$elemMatch fields on strings", `{"tags": {"$elemMatch": {"x": 1}}}`, testSchema, "tags", "$elemMatch", "arrays of objects"},
		{"$elemMatch unknown inner field", `{"items": {"$elemMatch": {"nope": 1}}}`, testSchema, "items.nope", "", "cannot be filtered on"},
		{"$elemMatch inner type", `{"items": {"$elemMatch": {"qty": "many"}}}`, testSchema, "items.qty", "$eq", "needs a number"},
		{"$elemMatch value type", `{"scores": {"$elemMatch": {"$gt": "a"}}}`, testSchema, "scores", "$gt", "needs a number"},
		{"$not string", `{"name": {"$not": "a"}}`, testSchema, "name", "$not", "non-empty object"},
		{"$not empty", `{"name": {"$not": {}}}`, testSchema, "name", "$not", "non-empty object"},
		{"$not field names", `{"name": {"$not": {"x": 1}}}`, testSchema, "name", "$not", "needs operators"},
		{"$not unknown inner", `{"name": {"$not": {"$bad": 1}}}`, testSchema, "name", "$bad", "is not supported"},
		{"mixed operators and names", `{"meta": {"$gt": 1, "x": 2}}`, testSchema, "meta", "", "mixes operators"},
		{"number field given string", `{"age": "ten"}`, testSchema, "age", "$eq", "needs a number"},
		{"number field given array", `{"age": [1]}`, testSchema, "age", "$eq", "needs a number"},
		{"string field given number", `{"name": {"$in": ["a", 1]}}`, testSchema, "name", "$in", "needs a string"},
		{"bool field given string", `{"active": "true"}`, testSchema, "active", "$eq", "true or false"},
		{"bad date", `{"createdAt": {"$gt": "yesterday"}}`, testSchema, "createdAt", "$gt", "needs a date"},
		{"bad id", `{"ownerId": "xyz"}`, testSchema, "ownerId", "$eq", "24 hexadecimal"},
		{"array element type", `{"tags": ["a", 2]}`, testSchema, "tags", "$eq", "needs a string"},
		{"ordering an array", `{"age": {"$gt": [1]}}`, testSchema, "age", "$gt", "single value"},
		{"ordering an object", `{"meta": {"$lt": {"a": 1}}}`, testSchema, "meta", "$lt", "single value"},
		{"wide object literal", `{"meta": {"a": 1, "b": 2}}`, testSchema, "meta", "$eq", "several fields"},
		{"operator inside a value", `{"meta": {"$eq": {"$gt": 1}}}`, testSchema, "meta", "$eq", "inside a value"},
		{"operator inside $in", `{"tags": {"$all": [{"$elemMatch": {"$eq": "a"}}]}}`, testSchema, "tags", "$all", "inside a value"},
		{"bad $date", `{"meta": {"$date": "soon"}}`, testSchema, "meta", "$eq", "$date"},
		{"empty path", `{"": 1}`, nil, "", "", "not a valid field path"},
		{"empty path part", `{"a..b": 1}`, nil, "a..b", "", "not a valid field path"},
		{"dollar path part", `{"a.$b": 1}`, nil, "a.$b", "", "not a valid field path"},
		{"number too large", `{"meta": 1e400}`, testSchema, "meta", "$eq", "needs a finite number, not the number 1e400"},
		{"negative number too large", `{"age": {"$gt": -1e999}}`, testSchema, "age", "$gt", "needs a finite number"},
		{"integer too large", `{"scores": {"$in": [1, 1` + strings.Repeat("0", 400) + `]}}`, testSchema, "scores", "$in", "needs a finite number"},
		{"invalid JSON", `{"a": }`, nil, "", "", "not valid JSON"},
		{"trailing data", `{"a": 1} {"b": 2}`, nil, "", "", "not valid JSON"},
		{"not an object", `[1]`, nil, "", "", "must be a JSON object"},
		{"too deep", deepFilter(MaxDepth), nil, "", "", "nested too deeply"},
		{"too large", `{"a": {"$in": [` + strings.Repeat("1,", MaxNodes) + `1]}}`, nil, "a", "$in", "too large"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, err := ParseJSON(tt.filter, tt.schema)
			var qe *Error
			if !errors.As(err, &qe) {
				t.Fatalf("ParseJSON(%s) = %#v, %v; want a *query.Error", tt.filter, e, err)
			}
			if qe.Field != tt.field || qe.Op != tt.op || !strings.Contains(qe.Message, tt.contains) {
				t.Errorf("error = %+v (%q); want field %q, op %q, message containing %q", *qe, qe.Error(), tt.field, tt.op, tt.contains)
			}
		})
	}
}

// deepFilter nests $and n times around one condition.
func deepFilter(n int) string {
	return strings.Repeat(`{"$and": [`, n) + `{"a": 1}` + strings.Repeat(`]}`, n)
}

func TestErrorMessage(t *testing.T) {
	tests := []struct {
		err  Error
		want string
	}{
		{Error{Field: "email", Op: "$foo", Message: "is not supported"}, `filter field "email": operator "$foo" is not supported`},
		{Error{Field: "secret", Message: "cannot be filtered on"}, `filter field "secret": cannot be filtered on`},
		{Error{Op: "$where", Message: "is not supported"}, `filter: operator "$where" is not supported`},
		{Error{Message: "not valid JSON"}, `filter: not valid JSON`},
	}
	for _, tt := range tests {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("Error() = %q; want %q", got, tt.want)
		}
	}
}

func TestParseBuildsExpr(t *testing.T) {
	may1 := time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		filter string
		schema Schema
		want   Expr
	}{
		{`{}`, testSchema, nil},
		{`  `, testSchema, nil},
		{`{"age": 5}`, testSchema, Eq("age", int64(5))},
		{`{"age": 5.5}`, testSchema, Eq("age", 5.5)},
		{`{"meta": 12345678901234567890}`, testSchema, Eq("meta", 12345678901234567890.0)},
		{`{"age": {"$gt": 1, "$lt": 5}}`, testSchema, Field{Path: "age", Conds: []Cond{
			Compare{Op: OpGt, Value: int64(1)}, Compare{Op: OpLt, Value: int64(5)}}}},
		{`{"createdAt": {"$gte": "2024-05-01"}}`, testSchema, Field{Path: "createdAt", Conds: []Cond{Compare{Op: OpGte, Value: may1}}}},
		{`{"createdAt": "2024-05-01T14:00:00.123456+02:00"}`, testSchema,
			Eq("createdAt", time.Date(2024, 5, 1, 12, 0, 0, 123_000_000, time.UTC))},
		{`{"meta": {"$date": "2024-05-01T00:00:00Z"}}`, testSchema, Eq("meta", may1)},
		{`{"ownerId": "ABCDEF0123456789ABCDEF01"}`, testSchema, Eq("ownerId", "abcdef0123456789abcdef01")},
		{`{"tags": "a"}`, testSchema, Eq("tags", "a")},
		{`{"tags": ["a", "b"]}`, testSchema, Eq("tags", []any{"a", "b"})},
		{`{"tags": {"$all": ["a", "b"]}}`, testSchema, Field{Path: "tags", Conds: []Cond{All{Values: []any{"a", "b"}}}}},
		{`{"age": {"$in": [1, 2.5, null]}}`, testSchema, Field{Path: "age", Conds: []Cond{In{Values: []any{int64(1), 2.5, nil}}}}},
		{`{"age": {"$nin": []}}`, testSchema, Field{Path: "age", Conds: []Cond{In{Values: []any{}, Not: true}}}},
		{`{"name": "x", "age": 1}`, testSchema, And{Exprs: []Expr{Eq("age", int64(1)), Eq("name", "x")}}},
		{`{"$or": [{"age": 1}, {"name": "x"}]}`, testSchema, Or{Exprs: []Expr{Eq("age", int64(1)), Eq("name", "x")}}},
		{`{"$nor": [{}]}`, nil, Nor{Exprs: []Expr{And{Exprs: []Expr{}}}}},
		{`{"items": {"$elemMatch": {"sku": "a", "qty": {"$gt": 2}}}}`, testSchema, Field{Path: "items", Conds: []Cond{ElemMatch{
			Expr: And{Exprs: []Expr{Field{Path: "qty", Conds: []Cond{Compare{Op: OpGt, Value: int64(2)}}}, Eq("sku", "a")}}}}}},
		{`{"items": {"$elemMatch": {"$or": [{"sku": "a"}]}}}`, testSchema, Field{Path: "items", Conds: []Cond{ElemMatch{
			Expr: Or{Exprs: []Expr{Eq("sku", "a")}}}}}},
		{`{"scores": {"$elemMatch": {"$gte": 80, "$lt": 85}}}`, testSchema, Field{Path: "scores", Conds: []Cond{ElemMatch{
			Conds: []Cond{Compare{Op: OpGte, Value: int64(80)}, Compare{Op: OpLt, Value: int64(85)}}}}}},
		{`{"name": {"$not": {"$regex": "^a", "$options": "i"}}}`, testSchema, Field{Path: "name", Conds: []Cond{Not{
			Conds: []Cond{Regex{Pattern: "^a", Options: "i"}}}}}},
		{`{"tags": {"$size": 2.0, "$exists": true}}`, testSchema, Field{Path: "tags", Conds: []Cond{Exists{Want: true}, Size{N: 2}}}},
		{`{"meta": {"a": {"b": [1]}}}`, testSchema, Eq("meta", map[string]any{"a": map[string]any{"b": []any{int64(1)}}})},
		{`{"meta": {}}`, testSchema, Eq("meta", map[string]any{})},
		{`{"a.b.c": {"$ne": null}}`, nil, Field{Path: "a.b.c", Conds: []Cond{Compare{Op: OpNe, Value: nil}}}},
		{deepFilter(MaxDepth/2 - 1), nil, nestedAnd(MaxDepth/2-1, Eq("a", int64(1)))},
	}
	for _, tt := range tests {
		t.Run(tt.filter, func(t *testing.T) {
			got, err := ParseJSON(tt.filter, tt.schema)
			if err != nil {
				t.Fatalf("ParseJSON: %v", err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got  %#v\nwant %#v", got, tt.want)
			}
		})
	}
}

func nestedAnd(n int, inner Expr) Expr {
	for range n {
		inner = And{Exprs: []Expr{inner}}
	}
	return inner
}

func TestParseGoValues(t *testing.T) {
	when := time.Date(2024, 5, 1, 12, 0, 0, 999_999, time.FixedZone("x", 3600))
	got, err := Parse(map[string]any{
		"age":       map[string]any{"$in": []any{3, int32(4), uint8(5), float32(1.5)}},
		"createdAt": when,
	}, testSchema)
	if err != nil {
		t.Fatal(err)
	}
	want := And{Exprs: []Expr{
		Field{Path: "age", Conds: []Cond{In{Values: []any{int64(3), int64(4), int64(5), 1.5}}}},
		Eq("createdAt", time.Date(2024, 5, 1, 11, 0, 0, 0, time.UTC)),
	}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %#v\nwant %#v", got, want)
	}
	if _, err := Parse(map[string]any{"age": []int{1}}, nil); err == nil {
		t.Error("a []int value was accepted; want an error naming its Go type")
	}
}

// TestParseRefusesNonFiniteGoValues: filters built in Go (trigger
// filters as stored, pipeline db steps) may hold floats JSON never would.
func TestParseRefusesNonFiniteGoValues(t *testing.T) {
	for _, raw := range []map[string]any{
		{"age": math.Inf(1)},
		{"age": map[string]any{"$lt": math.Inf(-1)}},
		{"age": map[string]any{"$in": []any{1, math.NaN()}}},
		{"age": float32(math.Inf(1))},
	} {
		_, err := Parse(raw, testSchema)
		var qe *Error
		if !errors.As(err, &qe) || qe.Field != "age" || !strings.Contains(qe.Message, "needs a finite number") {
			t.Errorf("Parse(%v) = %v; want a refusal of the non-finite number of age", raw, err)
		}
	}
}

func TestShorthand(t *testing.T) {
	tests := []struct {
		field, value string
		want         any
		wantErr      string
	}{
		{"name", "Ada", "Ada", ""},
		{"age", "42", int64(42), ""},
		{"age", "4.5", 4.5, ""},
		{"age", "forty", nil, "needs a number"},
		{"age", "NaN", nil, "needs a number"},
		{"active", "true", true, ""},
		{"active", "false", false, ""},
		{"active", "yes", nil, "true or false"},
		{"createdAt", "2024-05-01", time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC), ""},
		{"createdAt", "May 1st", nil, "needs a date"},
		{"ownerId", "0123456789abcdef01234567", "0123456789abcdef01234567", ""},
		{"ownerId", "42", nil, "24 hexadecimal"},
		{"tags", "go", "go", ""},
		{"scores", "7", int64(7), ""},
		{"meta", "7", "7", ""},
		{"address", "x", nil, "cannot compare an object"},
		{"secret", "x", nil, "cannot be filtered on"},
		{"a..b", "x", nil, "not a valid field path"},
	}
	for _, tt := range tests {
		t.Run(tt.field+"="+tt.value, func(t *testing.T) {
			got, err := Shorthand(tt.field, tt.value, testSchema)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v; want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if want := Eq(tt.field, tt.want); !reflect.DeepEqual(got, want) {
				t.Errorf("got %#v; want %#v", got, want)
			}
		})
	}
}

func TestFields(t *testing.T) {
	e, err := ParseJSON(`{"$or": [{"age": 1}, {"items": {"$elemMatch": {"sku": "a", "qty": {"$not": {"$gt": 1}}}}}],
		"name": {"$regex": "a"}, "age": {"$lt": 9}}`, testSchema)
	if err != nil {
		t.Fatal(err)
	}
	got := Fields(e)
	want := []string{"age", "items", "items.qty", "items.sku", "name"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Fields = %v; want %v", got, want)
	}
	if got := Fields(nil); len(got) != 0 {
		t.Errorf("Fields(nil) = %v; want none", got)
	}
}

func FuzzParse(f *testing.F) {
	seeds := []string{
		`{}`, `{"age": 5}`, `{"age": {"$gt": 1, "$lt": 5}}`, `{"$or": [{"a": 1}, {"b": {"$exists": false}}]}`,
		`{"tags": {"$elemMatch": {"$regex": "^a", "$options": "ix"}}}`, `{"items": {"$elemMatch": {"sku": {"$in": ["a"]}}}}`,
		`{"name": {"$not": {"$regex": "a$"}}}`, `{"tags": {"$all": ["a"], "$size": 1}}`, `{"createdAt": {"$gte": "2024-05-01"}}`,
		`{"meta": {"$date": "2024-05-01T00:00:00Z"}}`, `{"a.0.b": null}`, `{"$nor": [{"a": [1, [2, {"c": null}]]}]}`,
		deepFilter(MaxDepth), `{"a": {"$regex": "[[:alpha:]\\s]#x\n$", "$options": "x"}}`,
	}
	for _, s := range seeds {
		f.Add(s)
	}
	doc := sampleDoc()
	f.Fuzz(func(t *testing.T, text string) {
		for _, s := range []Schema{nil, testSchema} {
			e, err := ParseJSON(text, s)
			if err != nil {
				var qe *Error
				if !errors.As(err, &qe) {
					t.Fatalf("ParseJSON(%q) returned %T, not *query.Error", text, err)
				}
				continue
			}
			Match(e, doc)
			Fields(e)
			_ = fmt.Sprint(e)
		}
	})
}
