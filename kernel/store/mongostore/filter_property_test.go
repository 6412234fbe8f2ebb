package mongostore

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"platform/kernel/query"
)

// TestFilterPropertyMongoDBAgreesWithMatch checks that the server and
// query.Match select the same documents for random filters over random
// documents: compileFilter and Match are two readings of one language.
func TestFilterPropertyMongoDBAgreesWithMatch(t *testing.T) {
	uri := os.Getenv("MONGODB_URI")
	if uri == "" {
		t.Skip("MONGODB_URI is not set")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	coll := propertyCollection(t, uri)

	g := &generator{rng: rand.New(rand.NewPCG(20240501, 7))}
	docs := g.documents(300)
	insertDocuments(ctx, t, coll, docs)

	failures := 0
	for i := range 400 {
		if !checkFilter(ctx, t, coll, docs, i, g.filter(0)) {
			failures++
		}
		if failures == 10 {
			t.Fatal("stopping after 10 disagreements")
		}
	}
}

func propertyCollection(t *testing.T, uri string) *mongo.Collection {
	t.Helper()
	client, err := mongo.Connect(options.Client().ApplyURI(uri).SetTimeout(30 * time.Second))
	if err != nil {
		t.Fatal(err)
	}
	db := client.Database(fmt.Sprintf("filterprop_%d", time.Now().UnixNano()))
	t.Cleanup(func() {
		_ = db.Drop(context.Background())
		_ = client.Disconnect(context.Background())
	})
	return db.Collection("docs")
}

func insertDocuments(ctx context.Context, t *testing.T, coll *mongo.Collection, docs []map[string]any) {
	t.Helper()
	batch := make([]any, len(docs))
	for i, d := range docs {
		batch[i] = d
	}
	if _, err := coll.InsertMany(ctx, batch); err != nil {
		t.Fatal(err)
	}
}

// checkFilter reports whether the server and Match agree on one filter.
func checkFilter(ctx context.Context, t *testing.T, coll *mongo.Collection, docs []map[string]any, n int, raw map[string]any) bool {
	t.Helper()
	expr, err := query.Parse(raw, nil)
	if err != nil {
		t.Fatalf("filter %d %s: the generator made a filter Parse rejects: %v", n, showJSON(raw), err)
	}
	compiled, err := compileFilter(expr)
	if err != nil {
		t.Fatalf("filter %d %s: compileFilter: %v", n, showJSON(raw), err)
	}
	server, err := serverIDs(ctx, coll, compiled)
	if err != nil {
		t.Fatalf("filter %d %s: the server refused %v: %v", n, showJSON(raw), compiled, err)
	}
	memory := matchingIDs(expr, docs)
	if !slices.Equal(server, memory) {
		t.Errorf("filter %d %s\n  compiled %v\n%s", n, showJSON(raw), compiled, describeDifference(docs, server, memory))
		return false
	}
	return true
}

func serverIDs(ctx context.Context, coll *mongo.Collection, filter bson.D) ([]string, error) {
	cur, err := coll.Find(ctx, filter, options.Find().SetProjection(bson.D{{Key: "_id", Value: 1}}))
	if err != nil {
		return nil, err
	}
	var rows []struct {
		ID string `bson:"_id"`
	}
	if err := cur.All(ctx, &rows); err != nil {
		return nil, err
	}
	ids := make([]string, len(rows))
	for i, r := range rows {
		ids[i] = r.ID
	}
	slices.Sort(ids)
	return ids, nil
}

func matchingIDs(e query.Expr, docs []map[string]any) []string {
	ids := []string{}
	for _, d := range docs {
		if query.Match(e, d) {
			ids = append(ids, d["_id"].(string))
		}
	}
	slices.Sort(ids)
	return ids
}

func describeDifference(docs []map[string]any, server, memory []string) string {
	byID := make(map[string]map[string]any, len(docs))
	for _, d := range docs {
		byID[d["_id"].(string)] = d
	}
	var b strings.Builder
	show := func(label string, ids []string) {
		for i, id := range ids {
			if i == 3 {
				fmt.Fprintf(&b, "  ... %d more %s\n", len(ids)-3, label)
				break
			}
			fmt.Fprintf(&b, "  %s: %s\n", label, showJSON(byID[id]))
		}
	}
	show("only the server matched", without(server, memory))
	show("only Match matched", without(memory, server))
	return b.String()
}

func without(a, b []string) []string {
	var out []string
	for _, x := range a {
		if !slices.Contains(b, x) {
			out = append(out, x)
		}
	}
	return out
}

func showJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// generator makes documents and filters from small pools of values, so that
// filters often hit, and values of every type bracket meet each other.
type generator struct {
	rng *rand.Rand
}

var (
	propInts   = []int64{-1, 0, 1, 2, 3, 5, 10}
	propFloats = []float64{-1.5, 0.5, 1.0, 2.5, 3.0, 10.25}
	// No string ends in a newline: FerretDB runs $regex with Go's regexp,
	// whose "$" does not match before a final newline as PCRE's (MongoDB's)
	// does; Match follows MongoDB there.
	propStrings = []string{"", "a", "ab", "abc", "Abc", "B", "ba", "a b", "x\ty", "1", "true", "é", "aé", "line\nnext"}
	propDates   = []time.Time{
		time.Date(2023, 12, 31, 23, 59, 59, 999_000_000, time.UTC),
		time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC),
		time.Date(2024, 5, 1, 12, 0, 0, 1_000_000, time.UTC),
	}
	propPatterns = []string{"^a", "a$", "b", "^A", "^$", "a.c", "^[ab]+$", `\d`, `\s`, "a b", "A|b", `c\b`, "^.{2}$", "é", `^\w+$`, "line$", "^next"}
)

// propPath is a path the filters use and what may be asked of it.
type propPath struct {
	path string
	// throughArray: the path may pass through an array of documents or an
	// index ("objs.k", "arr.0"). There FerretDB 1.24 applies all operators
	// of a field to one reached value at a time, skips array elements that
	// lack the field (MongoDB counts them as missing, hence null), and
	// negates per value ($ne, $nin, $not: "some value differs", where
	// MongoDB says "no value equals"). Only a single positive condition
	// without null is generated on such paths.
	throughArray bool
	// objects: the path never holds an array of documents, so an object
	// operand may be used. FerretDB compares an object operand only with a
	// field that is itself a document, never with the elements of an array.
	objects bool
}

var propPaths = []propPath{
	{path: "n", objects: true}, {path: "s"}, {path: "b"}, {path: "d"}, {path: "arr"}, {path: "objs"},
	{path: "o", objects: true}, {path: "o.x"}, {path: "o.y"}, {path: "o.z", objects: true}, {path: "o.z.w"},
	{path: "o.x.y"}, {path: "s.length"}, {path: "mix"}, {path: "nope", objects: true},
	{path: "objs.k", throughArray: true}, {path: "objs.v", throughArray: true}, {path: "objs.t", throughArray: true},
	{path: "mix.k", throughArray: true}, {path: "arr.0", throughArray: true}, {path: "arr.1", throughArray: true},
	{path: "objs.0.k", throughArray: true}, {path: "objs.1.v", throughArray: true},
}

func (g *generator) pick(n int) int        { return g.rng.IntN(n) }
func (g *generator) chance(p float64) bool { return g.rng.Float64() < p }

func pickFrom[T any](g *generator, xs []T) T { return xs[g.pick(len(xs))] }

func (g *generator) documents(n int) []map[string]any {
	docs := make([]map[string]any, n)
	for i := range docs {
		docs[i] = g.document(i)
	}
	return docs
}

func (g *generator) document(i int) map[string]any {
	d := map[string]any{"_id": fmt.Sprintf("%024x", i+1)}
	g.maybeSet(d, "n", 0.85, func() any { return g.mostly(0.7, g.number) })
	g.maybeSet(d, "s", 0.85, func() any { return g.mostly(0.7, g.string) })
	g.maybeSet(d, "b", 0.8, func() any { return g.mostly(0.8, g.bool) })
	g.maybeSet(d, "d", 0.8, func() any { return g.mostly(0.8, g.date) })
	g.maybeSet(d, "arr", 0.85, func() any { return g.mostly(0.8, g.scalarArray) })
	g.maybeSet(d, "objs", 0.85, func() any { return g.mostly(0.85, g.objectArray) })
	g.maybeSet(d, "o", 0.85, func() any { return g.mostly(0.75, g.object) })
	g.maybeSet(d, "mix", 0.9, g.anything)
	return d
}

func (g *generator) maybeSet(d map[string]any, key string, p float64, make func() any) {
	if g.chance(p) {
		d[key] = make()
	}
}

// mostly returns make() with probability p, else any scalar (null included).
func (g *generator) mostly(p float64, make func() any) any {
	if g.chance(p) {
		return make()
	}
	return g.scalar()
}

func (g *generator) number() any {
	if g.chance(0.6) {
		return pickFrom(g, propInts)
	}
	return pickFrom(g, propFloats)
}

func (g *generator) string() any { return pickFrom(g, propStrings) }
func (g *generator) bool() any   { return g.chance(0.5) }
func (g *generator) date() any   { return pickFrom(g, propDates) }

func (g *generator) scalar() any {
	switch g.pick(6) {
	case 0:
		return nil
	case 1:
		return g.number()
	case 2:
		return g.string()
	case 3:
		return g.bool()
	case 4:
		return g.date()
	}
	return g.number()
}

// Arrays nest no arrays directly: how MongoDB walks [[...]] in dotted paths
// is not part of what the platform promises, and FerretDB 1.24 does not
// implement it the same way.
func (g *generator) scalarArray() any {
	arr := make([]any, g.pick(5))
	for i := range arr {
		if g.chance(0.6) {
			arr[i] = g.number()
		} else {
			arr[i] = g.scalar()
		}
	}
	return arr
}

func (g *generator) objectArray() any {
	arr := make([]any, g.pick(4))
	for i := range arr {
		if g.chance(0.9) {
			arr[i] = g.elementObject()
		} else {
			arr[i] = g.scalar()
		}
	}
	return arr
}

func (g *generator) elementObject() map[string]any {
	o := map[string]any{}
	g.maybeSet(o, "k", 0.85, func() any { return g.mostly(0.8, g.string) })
	g.maybeSet(o, "v", 0.8, func() any { return g.mostly(0.8, g.number) })
	g.maybeSet(o, "t", 0.5, g.scalarArray)
	return o
}

func (g *generator) object() any {
	o := map[string]any{}
	g.maybeSet(o, "x", 0.85, func() any { return g.mostly(0.6, g.number) })
	g.maybeSet(o, "y", 0.7, g.string)
	g.maybeSet(o, "z", 0.6, func() any {
		z := map[string]any{}
		g.maybeSet(z, "w", 0.8, g.scalar)
		return z
	})
	return o
}

func (g *generator) anything() any {
	switch g.pick(4) {
	case 0:
		return g.scalarArray()
	case 1:
		return g.objectArray()
	case 2:
		return g.object()
	}
	return g.scalar()
}

// filter makes a random filter document using every operator.
func (g *generator) filter(depth int) map[string]any {
	switch {
	case depth < 2 && g.chance(0.2):
		return g.logical(depth)
	case g.chance(0.2):
		return g.fields(depth, 2)
	}
	return g.fields(depth, 1)
}

func (g *generator) logical(depth int) map[string]any {
	op := pickFrom(g, []string{"$and", "$or", "$nor"})
	parts := make([]any, 1+g.pick(3))
	for i := range parts {
		parts[i] = g.filter(depth + 1)
	}
	return map[string]any{op: parts}
}

func (g *generator) fields(depth int, n int) map[string]any {
	f := map[string]any{}
	for range n {
		p := pickFrom(g, propPaths)
		if p.throughArray {
			f[p.path] = g.positiveCondition(p)
		} else {
			f[p.path] = g.conditions(p, depth)
		}
	}
	return f
}

// conditions is any field value: an operand for equality or an object of
// one or two operators.
func (g *generator) conditions(p propPath, depth int) any {
	if g.chance(0.2) {
		return g.equalityOperand(p)
	}
	if p.objects && g.chance(0.1) {
		return map[string]any{pickFrom(g, []string{"$eq", "$ne"}): g.object1()}
	}
	ops := map[string]any{}
	for range 1 + g.pick(2) {
		g.addOperator(ops, p, depth)
	}
	return ops
}

func (g *generator) addOperator(ops map[string]any, p propPath, depth int) {
	switch g.pick(12) {
	case 0:
		ops["$eq"] = g.equalityOperand(propPath{})
	case 1:
		ops["$ne"] = g.equalityOperand(propPath{})
	case 2, 3:
		ops[pickFrom(g, []string{"$gt", "$gte", "$lt", "$lte"})] = g.scalar()
	case 4:
		ops["$in"] = g.list(p, 4)
	case 5:
		ops["$nin"] = g.list(p, 4)
	case 6:
		ops["$exists"] = g.chance(0.5)
	case 7:
		g.addRegex(ops)
	case 8:
		ops["$size"] = g.pick(4)
	case 9:
		ops["$all"] = g.list(propPath{}, 3)
	case 10:
		ops["$elemMatch"] = g.elemMatch()
	case 11:
		if depth < 3 {
			ops["$not"] = g.conditionsOnly(p, depth+1)
		}
	}
}

func (g *generator) conditionsOnly(p propPath, depth int) map[string]any {
	ops := map[string]any{}
	for len(ops) == 0 {
		g.addOperator(ops, p, depth)
	}
	return ops
}

// positiveCondition is one condition that names no null, for paths through
// arrays (see propPath.throughArray).
func (g *generator) positiveCondition(p propPath) any {
	switch g.pick(10) {
	case 0:
		return g.nonNullScalar()
	case 1:
		return map[string]any{"$eq": g.nonNull(func() any { return g.equalityOperand(p) })}
	case 2, 3:
		return map[string]any{pickFrom(g, []string{"$gt", "$gte", "$lt", "$lte"}): g.nonNullScalar()}
	case 4:
		return map[string]any{"$in": g.nonNullList(4)}
	case 5:
		return map[string]any{"$exists": true}
	case 6:
		ops := map[string]any{}
		g.addRegex(ops)
		return ops
	case 7:
		return map[string]any{"$size": g.pick(4)}
	case 8:
		return map[string]any{"$all": g.nonNullList(2)}
	}
	return map[string]any{"$elemMatch": g.elemMatch()}
}

// elemMatch has one positive condition on scalar elements. FerretDB 1.24
// applies the conditions of $elemMatch to the array as a whole rather than
// to each element (so two conditions may be met by different elements, and
// $size, $all, $exists and array operands see the array), refuses $ne, $not,
// $and, $or and $nor inside it, and never matches its document form
// ({"$elemMatch": {"k": ...}}): those are left to the unit tests of Match.
func (g *generator) elemMatch() map[string]any {
	switch g.pick(4) {
	case 0:
		return map[string]any{"$in": g.nonNullList(3)}
	case 1:
		ops := map[string]any{}
		g.addRegex(ops)
		return ops
	}
	return map[string]any{pickFrom(g, []string{"$eq", "$gt", "$gte", "$lt", "$lte"}): g.nonNullScalar()}
}

// equalityOperand is a value to compare whole: a scalar, an array, or an
// object of at most one field (Parse refuses wider ones) where p allows.
func (g *generator) equalityOperand(p propPath) any {
	switch g.pick(8) {
	case 0:
		return g.scalarArray()
	case 1:
		if p.objects {
			return g.object1()
		}
	}
	return g.scalar()
}

// object1 is an object operand. FerretDB 1.24 decides {"$eq": object} and
// {"$ne": object} without looking at the other operators of the field, so
// those two take one only when alone (see conditions).
func (g *generator) object1() map[string]any {
	if g.chance(0.2) {
		return map[string]any{}
	}
	return map[string]any{pickFrom(g, []string{"x", "y", "w"}): g.scalar()}
}

func (g *generator) list(p propPath, max int) []any {
	out := make([]any, g.pick(max))
	for i := range out {
		out[i] = g.equalityOperand(p)
	}
	return out
}

func (g *generator) nonNullList(max int) []any {
	out := make([]any, g.pick(max))
	for i := range out {
		out[i] = g.nonNullScalar()
	}
	return out
}

func (g *generator) nonNullScalar() any { return g.nonNull(g.scalar) }

func (g *generator) nonNull(make func() any) any {
	for {
		if v := make(); v != nil && !containsNull(v) {
			return v
		}
	}
}

func containsNull(v any) bool {
	arr, ok := v.([]any)
	return ok && slices.Contains(arr, nil)
}

// addRegex never sets the x option: FerretDB 1.24 refuses it as not
// implemented (Match supports it, see the query package's tests).
func (g *generator) addRegex(ops map[string]any) {
	ops["$regex"] = pickFrom(g, propPatterns)
	if g.chance(0.5) {
		var flags string
		for _, f := range "ims" {
			if g.chance(0.4) {
				flags += string(f)
			}
		}
		ops["$options"] = flags
	}
}
