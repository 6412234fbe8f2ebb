package query

import (
	"math"
	"testing"
	"time"
)

func sampleDoc() map[string]any {
	return map[string]any{
		"name":    "Ada",
		"age":     int64(36),
		"score":   7.5,
		"active":  true,
		"nil":     nil,
		"created": time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC),
		"tags":    []any{"math", "code"},
		"nums":    []any{int64(1), int64(5), 9.5},
		"items": []any{
			map[string]any{"sku": "a", "qty": int64(2)},
			map[string]any{"sku": "b", "qty": int64(10)},
			map[string]any{"sku": "c"},
		},
		"address": map[string]any{"city": "London", "geo": map[string]any{"lat": 51.5}},
		"empty":   []any{},
		"mixed":   []any{int64(1), "one", nil, map[string]any{"x": int64(1)}},
		"nested":  []any{[]any{int64(1), int64(2)}, int64(3)},
		"line":    "abc\n",
		"vtab":    "a\vb",
	}
}

func TestMatch(t *testing.T) {
	tests := []struct {
		filter string
		want   bool
	}{
		// equality and type brackets
		{`{"name": "Ada"}`, true},
		{`{"name": "ada"}`, false},
		{`{"age": 36.0}`, true},
		{`{"score": {"$eq": 7.5}}`, true},
		{`{"age": {"$gt": "3"}}`, false},
		{`{"name": {"$gt": 5}}`, false},
		{`{"name": {"$gt": "A"}}`, true},
		{`{"name": {"$lte": "Ada"}}`, true},
		{`{"active": {"$gt": false}}`, true},
		{`{"active": 1}`, false},
		{`{"created": {"$gt": {"$date": "2024-01-01T00:00:00Z"}}}`, true},
		{`{"created": {"$gt": "2024-01-01"}}`, false},
		{`{"created": {"$date": "2024-05-01T12:00:00Z"}}`, true},
		// null and missing
		{`{"missing": null}`, true},
		{`{"nil": null}`, true},
		{`{"name": null}`, false},
		{`{"missing": {"$ne": null}}`, false},
		{`{"nil": {"$exists": true}}`, true},
		{`{"missing": {"$exists": false}}`, true},
		{`{"missing": {"$gte": null}}`, true},
		{`{"missing": {"$lte": null}}`, true},
		{`{"missing": {"$gt": null}}`, false},
		{`{"nil": {"$lt": null}}`, false},
		{`{"missing": {"$ne": 1}}`, true},
		{`{"missing": {"$nin": [1]}}`, true},
		{`{"missing": {"$in": [null]}}`, true},
		{`{"missing": {"$in": []}}`, false},
		{`{"missing": {"$gt": 1}}`, false},
		// arrays: any element or the whole array
		{`{"tags": "code"}`, true},
		{`{"tags": ["math", "code"]}`, true},
		{`{"tags": ["code", "math"]}`, false},
		{`{"tags": {"$ne": "code"}}`, false},
		{`{"tags": {"$nin": ["x"]}}`, true},
		{`{"tags": {"$in": ["x", "math"]}}`, true},
		{`{"nums": {"$gt": 9}}`, true},
		{`{"nums": {"$gt": 1, "$lt": 5}}`, true},
		{`{"nums": {"$elemMatch": {"$gt": 1, "$lt": 5}}}`, false},
		{`{"nums": {"$elemMatch": {"$gt": 1, "$lt": 6}}}`, true},
		{`{"nums": {"$size": 3}}`, true},
		{`{"tags": {"$size": 1}}`, false},
		{`{"name": {"$size": 0}}`, false},
		{`{"empty": {"$size": 0}}`, true},
		{`{"empty": null}`, false},
		{`{"empty": []}`, true},
		{`{"empty": {"$exists": true}}`, true},
		{`{"tags": {"$all": ["code", "math"]}}`, true},
		{`{"tags": {"$all": ["code", "x"]}}`, false},
		{`{"tags": {"$all": []}}`, false},
		{`{"name": {"$all": ["Ada"]}}`, true},
		{`{"nums": {"$all": [[1, 5, 9.5]]}}`, true},
		// paths through documents and arrays of documents
		{`{"items.sku": "b"}`, true},
		{`{"items.qty": {"$gt": 5}}`, true},
		{`{"items.qty": null}`, true},
		{`{"items.qty": {"$exists": false}}`, false},
		{`{"items.zzz": {"$exists": false}}`, true},
		{`{"items.sku": "a", "items.qty": 10}`, true},
		{`{"items": {"$elemMatch": {"sku": "a", "qty": {"$gt": 5}}}}`, false},
		{`{"items": {"$elemMatch": {"sku": "b", "qty": {"$gt": 5}}}}`, true},
		{`{"items": {"$elemMatch": {"qty": null}}}`, true},
		{`{"items": {"$elemMatch": {"$or": [{"sku": "z"}, {"qty": 2}]}}}`, true},
		{`{"address.city": "London"}`, true},
		{`{"address.geo.lat": {"$lt": 60}}`, true},
		{`{"address.city.x": null}`, true},
		{`{"address": {"city": "London"}}`, false},
		{`{"address.geo": {"lat": 51.5}}`, true},
		{`{"tags.x": null}`, false},
		{`{"tags.x": {"$exists": false}}`, true},
		{`{"empty.x": null}`, false},
		{`{"items.0.sku": "a"}`, true},
		{`{"items.1.sku": "a"}`, false},
		{`{"tags.1": "code"}`, true},
		{`{"tags.0": "code"}`, false},
		{`{"tags.5": {"$exists": false}}`, true},
		// mixed and nested arrays
		{`{"mixed": {"$elemMatch": {"x": 1}}}`, true},
		{`{"mixed": {"$elemMatch": {"$eq": "one"}}}`, true},
		{`{"mixed": null}`, true},
		{`{"mixed.x": 1}`, true},
		{`{"nested": 1}`, false},
		{`{"nested": [1, 2]}`, true},
		{`{"nested": {"$elemMatch": {"$size": 2}}}`, true},
		{`{"nested": {"$elemMatch": {"0": 1}}}`, true},
		{`{"nested.0": [1, 2]}`, true},
		{`{"nested.0.1": 2}`, true},
		// regular expressions
		{`{"name": {"$regex": "^a", "$options": "i"}}`, true},
		{`{"name": {"$regex": "^a"}}`, false},
		{`{"age": {"$regex": "3"}}`, false},
		{`{"tags": {"$regex": "^co"}}`, true},
		{`{"line": {"$regex": "abc$"}}`, true},
		{`{"line": {"$regex": "^abc\\z"}}`, false},
		{`{"line": {"$regex": "c$\\n"}}`, false},
		{`{"line": {"$regex": "^abc$", "$options": "m"}}`, true},
		{`{"line": {"$regex": "a b c # letters\n$", "$options": "x"}}`, true},
		{`{"line": {"$regex": "a[ ]b", "$options": "x"}}`, false},
		{`{"vtab": {"$regex": "a\\sb"}}`, true},
		{`{"vtab": {"$regex": "a\\Sb"}}`, false},
		{`{"name": {"$regex": "\\QA\\E"}}`, true},
		// $not and logic
		{`{"name": {"$not": {"$regex": "^B"}}}`, true},
		{`{"missing": {"$not": {"$gt": 1}}}`, true},
		{`{"nums": {"$not": {"$gt": 9}}}`, false},
		{`{"nums": {"$not": {"$gt": 1, "$lt": 5}}}`, false},
		{`{"age": {"$not": {"$not": {"$gt": 1}}}}`, true},
		{`{"$or": [{"name": "x"}, {"age": 36}]}`, true},
		{`{"$nor": [{"name": "x"}, {"age": 36}]}`, false},
		{`{"$and": [{"name": "Ada"}, {"age": {"$gte": 36}}]}`, true},
		{`{"$and": [{}]}`, true},
		{`{}`, true},
	}
	doc := sampleDoc()
	for _, tt := range tests {
		t.Run(tt.filter, func(t *testing.T) {
			e, err := ParseJSON(tt.filter, nil)
			if err != nil {
				t.Fatalf("ParseJSON: %v", err)
			}
			if got := Match(e, doc); got != tt.want {
				t.Errorf("Match = %v; want %v", got, tt.want)
			}
		})
	}
}

func TestMatchHandBuiltExprs(t *testing.T) {
	doc := sampleDoc()
	tests := []struct {
		name string
		e    Expr
		want bool
	}{
		{"nil", nil, true},
		{"empty and", And{}, true},
		{"empty or", Or{}, false},
		{"empty nor", Nor{}, true},
		{"field without conditions", Field{Path: "x"}, true},
		{"empty not", Field{Path: "x", Conds: []Cond{Not{}}}, false},
		{"invalid regex", Field{Path: "name", Conds: []Cond{Regex{Pattern: "("}}}, false},
		{"AllOf", AllOf(nil, ID("0123456789abcdef01234567")), false},
		{"Eq with Go int", Eq("age", 36), true},
	}
	for _, tt := range tests {
		if got := Match(tt.e, doc); got != tt.want {
			t.Errorf("%s: Match = %v; want %v", tt.name, got, tt.want)
		}
	}
}

func TestCompareValues(t *testing.T) {
	t0 := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		a, b   any
		want   int
		wantOK bool
	}{
		{int64(1), 1.0, 0, true},
		{int64(1), 1.5, -1, true},
		{2.5, int64(2), 1, true},
		{int64(1<<53 + 1), float64(1 << 53), 1, true},
		{int64(math.MaxInt64), math.Pow(2, 63), -1, true},
		{int64(math.MinInt64), -math.Pow(2, 64), 1, true},
		{math.NaN(), math.NaN(), 0, true},
		{math.NaN(), int64(-5), -1, true},
		{"a", "b", -1, true},
		{"é", "z", 1, true},
		{false, true, -1, true},
		{t0, t0.Add(time.Millisecond), -1, true},
		{nil, nil, 0, true},
		{[]any{int64(1), "x"}, []any{1.0, "x"}, 0, true},
		{[]any{int64(1)}, []any{int64(1), int64(0)}, -1, true},
		{map[string]any{"a": int64(1)}, map[string]any{"a": 1.0}, 0, true},
		{map[string]any{"a": int64(1)}, map[string]any{"b": int64(1)}, -1, true},
		{int64(1), "1", 0, false},
		{t0, "2024-01-01", 0, false},
		{true, int64(1), 0, false},
		{nil, int64(0), 0, false},
		{struct{}{}, struct{}{}, 0, false},
	}
	for _, tt := range tests {
		got, ok := CompareValues(tt.a, tt.b)
		if got != tt.want || ok != tt.wantOK {
			t.Errorf("CompareValues(%#v, %#v) = %d, %v; want %d, %v", tt.a, tt.b, got, ok, tt.want, tt.wantOK)
		}
	}
}

func TestOrderFollowsMongoDBBrackets(t *testing.T) {
	ascending := []any{nil, math.NaN(), int64(-1), 0.5, "", "a", map[string]any{}, []any{}, false, true, time.Unix(0, 0).UTC()}
	for i := range ascending {
		for j := range ascending {
			got := Order(ascending[i], ascending[j])
			want := 0
			if i < j {
				want = -1
			} else if i > j {
				want = 1
			}
			if got != want {
				t.Errorf("Order(%#v, %#v) = %d; want %d", ascending[i], ascending[j], got, want)
			}
		}
	}
}

func TestMatchNaN(t *testing.T) {
	doc := map[string]any{"x": math.NaN()}
	tests := []struct {
		e    Expr
		want bool
	}{
		{Eq("x", math.NaN()), true},
		{Field{Path: "x", Conds: []Cond{Compare{Op: OpLt, Value: int64(0)}}}, false},
		{Field{Path: "x", Conds: []Cond{Compare{Op: OpGt, Value: math.Inf(-1)}}}, false},
		{Field{Path: "x", Conds: []Cond{Compare{Op: OpGte, Value: math.NaN()}}}, true},
		{Field{Path: "x", Conds: []Cond{Compare{Op: OpLt, Value: math.NaN()}}}, false},
		{Field{Path: "x", Conds: []Cond{In{Values: []any{math.NaN()}}}}, true},
	}
	for _, tt := range tests {
		if got := Match(tt.e, doc); got != tt.want {
			t.Errorf("Match(%#v) = %v; want %v", tt.e, got, tt.want)
		}
	}
}
