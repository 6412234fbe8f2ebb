package sqlitestore

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"platform/kernel/query"
	"platform/kernel/store"
	"platform/kernel/store/storetest"
	"platform/kernel/tenant"
)

var ctxA = tenant.WithCustomer(context.Background(), "customer-a")

func openTemp(t testing.TB) *Store {
	t.Helper()
	return openAt(t, filepath.Join(t.TempDir(), "store.db"))
}

func openAt(t testing.TB, path string) *Store {
	t.Helper()
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close(context.Background()) })
	return s
}

func TestContract(t *testing.T) {
	storetest.Run(t, func(t *testing.T) store.Store { return openTemp(t) })
}

// explain returns SQLite's plan of a statement, one line per step.
func explain(t *testing.T, s *Store, q string, args ...any) string {
	t.Helper()
	rows, err := s.reader.Query("EXPLAIN QUERY PLAN "+q, args...)
	if err != nil {
		t.Fatalf("explain %s: %v", q, err)
	}
	defer rows.Close()
	var lines []string
	for rows.Next() {
		var id, parent, unused int
		var detail string
		if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
			t.Fatal(err)
		}
		lines = append(lines, detail)
	}
	return strings.Join(lines, "\n")
}

func wantIndexed(t *testing.T, what, plan, index string) {
	t.Helper()
	if !strings.Contains(plan, "USING INDEX "+index) && !strings.Contains(plan, "USING COVERING INDEX "+index) {
		t.Errorf("%s does not use index %s:\n%s", what, index, plan)
	}
	for _, line := range strings.Split(plan, "\n") {
		if strings.HasPrefix(line, "SCAN") && !strings.Contains(line, "INDEX") || strings.Contains(line, "TEMP B-TREE") {
			t.Errorf("%s scans or sorts:\n%s", what, plan)
		}
	}
}

func seedOrders(t *testing.T, s *Store) {
	t.Helper()
	err := s.EnsureIndexes(ctxA, "orders", true, []store.Index{
		{Name: "created", Keys: []store.SortField{{Field: "createdAt", Desc: true}}},
		{Name: "status", Keys: []store.SortField{{Field: "status"}}},
		{Name: "email", Keys: []store.SortField{{Field: "email"}}, Unique: true, Sparse: true},
	})
	if err != nil {
		t.Fatal(err)
	}
	c := s.Collection("orders")
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range 200 {
		d := store.Doc{"_id": fmt.Sprintf("o%03d", i), "status": []string{"new", "paid", "sent"}[i%3],
			"createdAt": base.Add(time.Duration(i) * time.Minute), "total": float64(i)}
		if i%2 == 0 {
			d["email"] = fmt.Sprintf("u%d@example.com", i)
		}
		if err := c.Insert(ctxA, d); err != nil {
			t.Fatal(err)
		}
	}
}

// Gets, sorted pages and filtered counts on declared fields use their
// indexes, not a scan of the table.
func TestPlansUseIndexes(t *testing.T) {
	s := openTemp(t)
	seedOrders(t, s)
	tb, err := s.table(ctxA, "orders")
	if err != nil {
		t.Fatal(err)
	}
	plan := explain(t, s, fmt.Sprintf(getQuery, tb.ident), "customer-a", "o001")
	wantIndexed(t, "get by id", plan, `c_orders/#id`)

	for _, desc := range []bool{true, false} {
		q, args := findQuery(tb, newCompiler(true, tb.shapes()), "customer-a", store.FindOptions{
			Sort: []store.SortField{{Field: "createdAt", Desc: desc}}, Limit: 25, Skip: 50})
		wantIndexed(t, fmt.Sprintf("page sorted by createdAt (desc %v)", desc), explain(t, s, q, args...), `c_orders/created`)
	}

	q, args := findQuery(tb, newCompiler(true, tb.shapes()), "customer-a", store.FindOptions{
		Filter: query.Eq("status", "paid"), Limit: 25})
	wantIndexed(t, "natural-order page filtered by status", explain(t, s, q, args...), `c_orders/status`)

	q, args = countQuery(tb, newCompiler(true, tb.shapes()), "customer-a", query.Eq("status", "paid"))
	wantIndexed(t, "count by status", explain(t, s, q, args...), `c_orders/status`)

	rng := query.Field{Path: "createdAt", Conds: []query.Cond{
		query.Compare{Op: query.OpGte, Value: time.Date(2026, 1, 1, 1, 0, 0, 0, time.UTC)},
		query.Compare{Op: query.OpLt, Value: time.Date(2026, 1, 1, 2, 0, 0, 0, time.UTC)},
	}}
	q, args = countQuery(tb, newCompiler(true, tb.shapes()), "customer-a", rng)
	wantIndexed(t, "count of a date range", explain(t, s, q, args...), `c_orders/created`)

	q, args = findQuery(tb, newCompiler(true, tb.shapes()), "customer-a", store.FindOptions{
		Filter: query.Eq("email", "u4@example.com"), Limit: -1})
	wantIndexed(t, "find by a sparse unique field", explain(t, s, q, args...), `c_orders/email`)

	q, args = findQuery(tb, newCompiler(true, tb.shapes()), "customer-a", store.FindOptions{Limit: 25})
	wantIndexed(t, "natural-order page", explain(t, s, q, args...), `c_orders/#customer`)

	n, err := s.Collection("orders").Count(ctxA, rng)
	if err != nil || n != 60 {
		t.Errorf("count of the date range = %d, %v; want 60", n, err)
	}
}

// A path compiles to plain SQL until a document holds an array on it; from
// then on (in this process and after reopening) it is evaluated exactly.
func TestShapesSwitchCompilation(t *testing.T) {
	path := filepath.Join(t.TempDir(), "store.db")
	s := openAt(t, path)
	c := s.Collection("things")
	if err := c.Insert(ctxA, store.Doc{"_id": "1", "tags": "red", "sub": store.Doc{"x": int64(1)}}); err != nil {
		t.Fatal(err)
	}
	compiled := func(s *Store, e query.Expr) string {
		tb, err := s.table(ctxA, "things")
		if err != nil {
			t.Fatal(err)
		}
		comp := newCompiler(true, tb.shapes())
		defer comp.release()
		return comp.expr(e)
	}
	if sql := compiled(s, query.Eq("tags", "red")); strings.Contains(sql, "platform_match") {
		t.Errorf("scalar path evaluated in Go: %s", sql)
	}
	if sql := compiled(s, query.Eq("sub.x", int64(1))); strings.Contains(sql, "platform_match") {
		t.Errorf("nested scalar path evaluated in Go: %s", sql)
	}
	if err := c.Insert(ctxA, store.Doc{"_id": "2", "tags": []any{"blue", "red"}}); err != nil {
		t.Fatal(err)
	}
	if sql := compiled(s, query.Eq("tags", "red")); !strings.Contains(sql, "platform_match") {
		t.Errorf("array path compiled to plain SQL: %s", sql)
	}
	docs, err := c.Find(ctxA, store.FindOptions{Filter: query.Eq("tags", "red")})
	if err != nil || len(docs) != 2 {
		t.Errorf("find tags=red: %d, %v", len(docs), err)
	}
	s.Close(context.Background())
	s2 := openAt(t, path)
	if sql := compiled(s2, query.Eq("tags", "red")); !strings.Contains(sql, "platform_match") {
		t.Errorf("after reopening, array path compiled to plain SQL: %s", sql)
	}
}

// Values, field names, collection and index names with SQL in them are
// data, never SQL.
func TestSQLInjection(t *testing.T) {
	s := openTemp(t)
	evil := []string{
		`'; DROP TABLE "c_things"; --`,
		`" OR 1=1 --`,
		`') OR ('1'='1`,
		`x'||(SELECT name FROM sqlite_schema)||'`,
		`$.a`,
		`\"; --`,
	}
	for _, name := range []string{"things", evil[0], evil[1]} {
		c := s.Collection(name)
		if err := s.EnsureIndexes(ctxA, name, true, []store.Index{
			{Name: evil[2], Keys: []store.SortField{{Field: "v"}}, Unique: true},
			{Name: evil[1], Keys: []store.SortField{{Field: evil[3]}}},
		}); err != nil {
			t.Fatalf("indexes of %q: %v", name, err)
		}
		for i, v := range evil {
			doc := store.Doc{"_id": v, "v": v, evil[3]: v, "n": int64(i)}
			if err := c.Insert(ctxA, doc); err != nil {
				t.Fatalf("insert %q into %q: %v", v, name, err)
			}
		}
		for _, v := range evil {
			for _, f := range []string{"v", "_id", evil[3]} {
				docs, err := c.Find(ctxA, store.FindOptions{Filter: query.Eq(f, v)})
				if err != nil || len(docs) != 1 || docs[0]["v"] != v {
					t.Errorf("collection %q, %s = %q: %v, %v", name, f, v, ids(docs), err)
				}
			}
			if _, err := c.Count(ctxA, query.Field{Path: "v", Conds: []query.Cond{query.Regex{Pattern: v}}}); err != nil {
				t.Errorf("regex %q: %v", v, err)
			}
		}
		docs, err := c.Find(ctxA, store.FindOptions{Sort: []store.SortField{{Field: evil[3]}, {Field: `a"b`}}})
		if err != nil || len(docs) != len(evil) {
			t.Errorf("sort on evil paths: %d, %v", len(docs), err)
		}
		if n, _ := c.Count(ctxA, nil); n != int64(len(evil)) {
			t.Errorf("collection %q holds %d documents, want %d", name, n, len(evil))
		}
	}
	names, err := s.Collections(ctxA)
	if err != nil || len(names) != 3 {
		t.Errorf("collections: %q, %v", names, err)
	}
}

func ids(docs []store.Doc) []string {
	var out []string
	for _, d := range docs {
		out = append(out, fmt.Sprint(d["_id"]))
	}
	return out
}

func TestBackupScanAndReopen(t *testing.T) {
	dir := t.TempDir()
	s := openAt(t, filepath.Join(dir, "store.db"))
	c := s.Collection("things")
	g := s.Global("settings")
	for i := range 25 {
		if err := c.Insert(ctxA, store.Doc{"_id": fmt.Sprintf("t%02d", i), "i": int64(i)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := g.Insert(context.Background(), store.Doc{"_id": "site", "customer": "not a tenant"}); err != nil {
		t.Fatal(err)
	}
	backup := filepath.Join(dir, "backup.db")
	if err := s.Backup(ctxA, backup); err != nil {
		t.Fatal(err)
	}
	if err := c.Insert(ctxA, store.Doc{"_id": "late"}); err != nil {
		t.Fatal(err)
	}
	b := openAt(t, backup)
	if n, err := b.Collection("things").Count(ctxA, nil); err != nil || n != 25 {
		t.Errorf("backup holds %d documents, %v; want 25", n, err)
	}
	names, err := b.Collections(ctxA)
	if err != nil || !slices.Equal(names, []string{"settings", "things"}) {
		t.Errorf("collections %v, %v", names, err)
	}
	var all []RawDoc
	for after := ""; ; {
		batch, err := b.Scan(ctxA, "things", after, 10)
		if err != nil {
			t.Fatal(err)
		}
		if len(batch) == 0 {
			break
		}
		all = append(all, batch...)
		after = batch[len(batch)-1].Doc["_id"].(string)
	}
	if len(all) != 25 || all[0].Customer != "customer-a" || all[24].Doc["i"] != int64(24) {
		t.Errorf("scan: %d documents, first %+v", len(all), all[0])
	}
	raw, err := b.Scan(ctxA, "settings", "", 10)
	if err != nil || len(raw) != 1 || raw[0].Customer != "" || raw[0].Doc["customer"] != "not a tenant" {
		t.Errorf("scan of a global collection: %+v, %v", raw, err)
	}

	s.Close(ctxA)
	s2 := openAt(t, filepath.Join(dir, "store.db"))
	if n, err := s2.Collection("things").Count(ctxA, nil); err != nil || n != 26 {
		t.Errorf("after reopening: %d documents, %v; want 26", n, err)
	}
}

// Changing a declaration recreates the index; a new unique index over
// duplicates fails with a DuplicateError and leaves the old one.
func TestEnsureIndexesChanges(t *testing.T) {
	s := openTemp(t)
	c := s.Collection("users")
	for i, e := range []string{"a", "b", "a"} {
		if err := c.Insert(ctxA, store.Doc{"_id": fmt.Sprint(i), "email": e, "name": e}); err != nil {
			t.Fatal(err)
		}
	}
	ix := store.Index{Name: "email", Keys: []store.SortField{{Field: "email"}}}
	if err := s.EnsureIndexes(ctxA, "users", true, []store.Index{ix}); err != nil {
		t.Fatal(err)
	}
	ix.Unique = true
	err := s.EnsureIndexes(ctxA, "users", true, []store.Index{ix})
	if !store.IsDuplicate(err) {
		t.Errorf("unique index over duplicates: %v", err)
	}
	if _, err := c.Delete(ctxA, query.ID("2")); err != nil {
		t.Fatal(err)
	}
	if err := s.EnsureIndexes(ctxA, "users", true, []store.Index{ix}); err != nil {
		t.Fatal(err)
	}
	if err := c.Insert(ctxA, store.Doc{"_id": "3", "email": "a"}); !store.IsDuplicate(err) {
		t.Errorf("insert after the index became unique: %v", err)
	}
	ix.Keys = []store.SortField{{Field: "name"}}
	if err := s.EnsureIndexes(ctxA, "users", true, []store.Index{ix}); err != nil {
		t.Fatal(err)
	}
	if err := c.Insert(ctxA, store.Doc{"_id": "4", "email": "a", "name": "c"}); err != nil {
		t.Errorf("the old key still unique: %v", err)
	}
}

// The SQL compilation gives query.Match's results on random documents and
// filters, whatever mix of types, arrays and missing fields they hold.
func TestRandomFiltersAgreeWithMatch(t *testing.T) {
	s := openTemp(t)
	c := s.Collection("random")
	rnd := rand.New(rand.NewPCG(1, 2))
	var docs []store.Doc
	for i := range 300 {
		d := randomDoc(rnd, fmt.Sprintf("r%03d", i))
		docs = append(docs, d)
		if err := c.Insert(ctxA, d); err != nil {
			t.Fatal(err)
		}
	}
	for range 400 {
		f := randomFilter(rnd, 0)
		var want []string
		for _, d := range docs {
			if query.Match(f, d) {
				want = append(want, d["_id"].(string))
			}
		}
		got, err := c.Find(ctxA, store.FindOptions{Filter: f, Sort: []store.SortField{{Field: "_id"}}})
		if err != nil {
			t.Fatalf("%#v: %v", f, err)
		}
		if !slices.Equal(ids(got), want) {
			t.Errorf("filter %#v:\n got %v\nwant %v\n%v", f, ids(got), want, query.Match(f, docs[1]))
			tb, _ := s.table(ctxA, "random")
			comp := newCompiler(true, tb.shapes())
			t.Log(comp.expr(f), comp.args)
		}
	}
}

var randomPaths = []string{"a", "b", "c.d", "c.e", "arr", "arr.k"}

func randomScalar(r *rand.Rand) any {
	switch r.IntN(8) {
	case 0:
		return nil
	case 1:
		return int64(r.IntN(5) - 2)
	case 2:
		return float64(r.IntN(5)-2) / 2
	case 3:
		return []string{"", "a", "b", "B", "ab"}[r.IntN(5)]
	case 4:
		return r.IntN(2) == 0
	case 5:
		return time.Date(2026, 1, 1+r.IntN(3), 0, 0, 0, 0, time.UTC)
	case 6:
		return int64(r.IntN(3))
	}
	return 1.0
}

func randomDoc(r *rand.Rand, id string) store.Doc {
	d := store.Doc{"_id": id}
	if r.IntN(5) > 0 {
		d["a"] = randomScalar(r)
	}
	if r.IntN(5) > 0 {
		d["b"] = randomScalar(r)
	}
	if r.IntN(4) > 0 {
		sub := store.Doc{}
		if r.IntN(3) > 0 {
			sub["d"] = randomScalar(r)
		}
		if r.IntN(3) > 0 {
			sub["e"] = randomScalar(r)
		}
		d["c"] = sub
	}
	if r.IntN(3) > 0 {
		var arr []any
		for range r.IntN(4) {
			if r.IntN(2) == 0 {
				arr = append(arr, store.Doc{"k": randomScalar(r)})
			} else {
				arr = append(arr, randomScalar(r))
			}
		}
		d["arr"] = append([]any{}, arr...)
	}
	return d
}

func randomCond(r *rand.Rand) query.Cond {
	ops := []query.Op{query.OpEq, query.OpNe, query.OpGt, query.OpGte, query.OpLt, query.OpLte}
	switch r.IntN(10) {
	case 0:
		return query.In{Values: []any{randomScalar(r), randomScalar(r)}, Not: r.IntN(2) == 0}
	case 1:
		return query.Exists{Want: r.IntN(2) == 0}
	case 2:
		return query.Not{Conds: []query.Cond{randomCond(r)}}
	case 3:
		return query.Regex{Pattern: []string{"^a", "b$", "A"}[r.IntN(3)], Options: []string{"", "i"}[r.IntN(2)]}
	}
	return query.Compare{Op: ops[r.IntN(len(ops))], Value: randomScalar(r)}
}

func randomFilter(r *rand.Rand, depth int) query.Expr {
	if depth < 2 && r.IntN(3) == 0 {
		parts := []query.Expr{randomFilter(r, depth+1), randomFilter(r, depth+1)}
		switch r.IntN(3) {
		case 0:
			return query.And{Exprs: parts}
		case 1:
			return query.Or{Exprs: parts}
		}
		return query.Nor{Exprs: parts}
	}
	conds := []query.Cond{randomCond(r)}
	if r.IntN(3) == 0 {
		conds = append(conds, randomCond(r))
	}
	return query.Field{Path: randomPaths[r.IntN(len(randomPaths))], Conds: conds}
}

// A second Store on an open file is refused: it would not see the first
// one's shapes.
func TestOneStorePerFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "dir", "store.db")
	s := openAt(t, path)
	if _, err := Open(path); err == nil {
		t.Fatal("a second Open of the same file succeeded")
	}
	s.Close(context.Background())
	openAt(t, path)
}

// NaN sorts below every number and equals only NaN, as in MongoDB, though
// SQL has no place for it.
func TestNaN(t *testing.T) {
	c := openTemp(t).Collection("nan")
	for id, v := range map[string]any{"nan": math.NaN(), "one": int64(1), "minf": math.Inf(-1)} {
		if err := c.Insert(ctxA, store.Doc{"_id": id, "v": v}); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct {
		cond query.Cond
		want []string
	}{
		{query.Compare{Op: query.OpLt, Value: int64(5)}, []string{"minf", "one"}},
		{query.Compare{Op: query.OpEq, Value: math.NaN()}, []string{"nan"}},
		{query.Exists{Want: true}, []string{"nan", "minf", "one"}},
	}
	for _, tc := range cases {
		docs, err := c.Find(ctxA, store.FindOptions{Filter: query.Field{Path: "v", Conds: []query.Cond{tc.cond}},
			Sort: []store.SortField{{Field: "v"}}})
		if err != nil || !slices.Equal(ids(docs), tc.want) {
			t.Errorf("%#v sorted: %v, %v; want %v", tc.cond, ids(docs), err, tc.want)
		}
	}
}
