package storetest

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"platform/kernel/query"
	"platform/kernel/store"
)

func testLargeDocument(t *testing.T, s store.Store) {
	c := s.Collection("big")
	text := strings.Repeat("0123456789abcdef", 1<<16) // 1 MiB
	var parts []any
	for i := range 1000 {
		parts = append(parts, store.Doc{"i": int64(i), "s": strings.Repeat("x", 100)})
	}
	doc := store.Doc{"_id": "big", "text": text, "parts": parts, "kind": "large"}
	insert(t, ctxA, c, doc)
	insert(t, ctxA, c, store.Doc{"_id": "small", "kind": "small"})
	sameDoc(t, get(t, ctxA, c, "big"), store.Doc{"_id": "big", "text": text, "parts": parts, "kind": "large"}, "1 MiB document")
	docs := find(t, ctxA, c, store.FindOptions{Filter: field("kind", eq("large")), Fields: []string{"kind"}})
	if len(docs) != 1 || docs[0]["text"] != nil {
		t.Errorf("projected find of the large document: %d documents", len(docs))
	}
	if _, err := c.Update(ctxA, query.ID("big"), store.Update{Set: store.Doc{"text": text + "!"}}); err != nil {
		t.Fatal(err)
	}
	if got := get(t, ctxA, c, "big")["text"]; got != text+"!" {
		t.Errorf("updated large text differs")
	}
}

var unicodeValues = map[string]string{
	"emoji":     "👩‍👩‍👧 party 🎉",
	"combining": "e\u0301cole",
	"composed":  "\u00e9cole",
	"rtl":       "שלום עולם",
	"bidi":      "abc\u202edef",
	"cjk":       "日本語テキスト",
	"controls":  "tab\there\nnew line \"quoted\" back\\slash",
	"nul":       "nul\x00inside",
	"astral":    "𝔘𝔫𝔦𝔠𝔬𝔡𝔢",
}

func testUnicode(t *testing.T, s store.Store) {
	c := s.Collection("text")
	for name, v := range unicodeValues {
		insert(t, ctxA, c, store.Doc{"_id": name, "s": v, "ключ": v})
	}
	for name, v := range unicodeValues {
		sameDoc(t, get(t, ctxA, c, name), store.Doc{"_id": name, "s": v, "ключ": v}, name)
		docs := find(t, ctxA, c, store.FindOptions{Filter: field("s", eq(v))})
		wantOrder(t, "equality on "+name, ids(docs), name)
		docs = find(t, ctxA, c, store.FindOptions{Filter: field("ключ", eq(v))})
		wantOrder(t, "equality on a non-ASCII field name, "+name, ids(docs), name)
	}
	// No normalization: composed and decomposed é differ, and sort bytewise.
	docs := find(t, ctxA, c, store.FindOptions{
		Filter: field("_id", in("combining", "composed")),
		Sort:   []store.SortField{{Field: "s"}},
	})
	wantOrder(t, "bytewise order", ids(docs), "combining", "composed")
}

func testTypeRoundTrip(t *testing.T, s store.Store) {
	c := s.Collection("types")
	when := time.Date(2026, 2, 3, 4, 5, 6, 789_000_000, time.UTC)
	doc := store.Doc{
		"_id": "all", "str": "s", "empty": "", "yes": true, "no": false, "null": nil,
		"zero": int64(0), "neg": int64(-7), "maxint": int64(math.MaxInt64), "minint": int64(math.MinInt64),
		"onefloat": 1.0, "half": 0.5, "huge": 1e300, "tiny": 5e-324,
		"maxfloat": math.MaxFloat64,
		"when":     when, "epoch": time.Unix(0, 0).UTC(), "old": date("1900-01-01T00:00:00Z"),
		"emptyarr": []any{}, "emptydoc": store.Doc{},
		"mixed": []any{int64(1), 2.0, "three", nil, store.Doc{"a": []any{nil, true}}, when},
		"doc":   store.Doc{"x": store.Doc{"y": store.Doc{"z": "deep"}}},
	}
	insert(t, ctxA, c, doc)
	sameDoc(t, get(t, ctxA, c, "all"), doc, "every value type")

	// Go types the platform uses come back as the document types.
	local := time.FixedZone("X", 5*3600)
	insert(t, ctxA, c, store.Doc{
		"_id": "converted", "int": 5, "int32": int32(6), "strings": []string{"a", "b"},
		"local": time.Date(2026, 1, 1, 5, 0, 0, 123_456_789, local),
	})
	sameDoc(t, get(t, ctxA, c, "converted"), store.Doc{
		"_id": "converted", "int": int64(5), "int32": int64(6), "strings": []any{"a", "b"},
		"local": time.Date(2026, 1, 1, 0, 0, 0, 123_000_000, time.UTC),
	}, "converted values (UTC, milliseconds)")

	for _, f := range []query.Expr{
		field("onefloat", eq(int64(1))), field("maxint", eq(int64(math.MaxInt64))),
		field("when", eq(when)),
	} {
		if docs := find(t, ctxA, c, store.FindOptions{Filter: f}); len(docs) != 1 {
			t.Errorf("filter %v found %d documents, want 1", f, len(docs))
		}
	}
}

// Infinities and -0 are doubles like any other (FerretDB refuses the
// first and loses the sign of the second).
func testSpecialFloats(t *testing.T, s store.Store) {
	c := s.Collection("types")
	insert(t, ctxA, c,
		store.Doc{"_id": "inf", "v": math.Inf(1)},
		store.Doc{"_id": "neginf", "v": math.Inf(-1)},
		store.Doc{"_id": "big", "v": math.MaxFloat64},
		store.Doc{"_id": "negzero", "v": math.Copysign(0, -1)},
	)
	sameDoc(t, get(t, ctxA, c, "inf"), store.Doc{"_id": "inf", "v": math.Inf(1)}, "+Inf")
	sameDoc(t, get(t, ctxA, c, "neginf"), store.Doc{"_id": "neginf", "v": math.Inf(-1)}, "-Inf")
	sameDoc(t, get(t, ctxA, c, "negzero"), store.Doc{"_id": "negzero", "v": math.Copysign(0, -1)}, "-0")
	wantOrder(t, "-0 equals 0", ids(find(t, ctxA, c, store.FindOptions{Filter: field("v", eq(int64(0)))})), "negzero")
	wantOrder(t, "above every finite double", ids(find(t, ctxA, c, store.FindOptions{Filter: field("v", gt(math.MaxFloat64))})), "inf")
	wantOrder(t, "sorted", sortedFind(t, c, asc("v")), "neginf", "negzero", "big", "inf")
}

func testCancelled(t *testing.T, s store.Store) {
	c := s.Collection("things")
	insert(t, ctxA, c, store.Doc{"_id": "x"})
	ctx, cancel := context.WithCancel(ctxA)
	cancel()
	if _, err := c.Find(ctx, store.FindOptions{}); !errors.Is(err, context.Canceled) {
		t.Errorf("find with a cancelled context: %v", err)
	}
	if err := c.Insert(ctx, store.Doc{"_id": "y"}); !errors.Is(err, context.Canceled) {
		t.Errorf("insert with a cancelled context: %v", err)
	}
	if _, err := c.Get(ctxA, "y"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("a cancelled insert was written: %v", err)
	}
}

// testNestedReservedKeys: documents nested in a record may hold any key,
// including the ones the MongoDB wire protocol reserves (a stored query
// {"a.b": 1, "$or": [...]}, a JSON body), through insert and update.
func testNestedReservedKeys(t *testing.T, s store.Store) {
	c := s.Collection("reservedkeys")
	data := store.Doc{"a.b": int64(1), "$or": []any{store.Doc{"x.y": "z"}}, "100%": "full", "%2E": "literal", "$": "dollar", "a$b": "mid"}
	insert(t, ctxA, c, store.Doc{"_id": "k", "data": data})
	sameDoc(t, get(t, ctxA, c, "k"), store.Doc{"_id": "k", "data": data}, "insert")
	next := store.Doc{"c.d": "e", "$in": []any{int64(1)}}
	if _, err := c.Update(ctxA, field("_id", eq("k")), store.Update{Set: store.Doc{"data": next}}); err != nil {
		t.Fatal(err)
	}
	sameDoc(t, get(t, ctxA, c, "k"), store.Doc{"_id": "k", "data": next}, "update")
}
