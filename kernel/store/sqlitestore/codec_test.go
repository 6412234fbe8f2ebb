package sqlitestore

import (
	"math"
	"reflect"
	"testing"
	"time"
	"unicode/utf8"

	"platform/kernel/store"
)

func TestCodecRoundTrip(t *testing.T) {
	values := []any{
		nil, true, false, "", "plain", "esc \" \\ / \b \f \n \r \t \x00 \x1f \u2028 é 😀",
		int64(0), int64(-1), int64(math.MaxInt64), int64(math.MinInt64),
		0.0, 1.0, -1.5, 1e21, 1e-7, math.MaxFloat64, math.SmallestNonzeroFloat64, math.Inf(1), math.Inf(-1),
		math.Copysign(0, -1),
		time.Date(2026, 1, 2, 3, 4, 5, 6_000_000, time.UTC), time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(9999, 12, 31, 23, 59, 59, 999_000_000, time.UTC),
		[]any{}, []any{int64(1), 1.0, "1", []any{nil}}, store.Doc{},
		store.Doc{"$date": "not a date", "$$x": int64(1), "$": "dollar", "a.b": true},
		store.Doc{"$float": "NaN"}, store.Doc{"$date": "2026-01-01T00:00:00.000Z", "other": true},
	}
	for _, v := range values {
		doc := store.Doc{"v": v}
		got, err := decodeDoc(encodeDoc(doc))
		if err != nil {
			t.Fatalf("%#v: %v", v, err)
		}
		if !reflect.DeepEqual(got, doc) || math.Signbit(floatOf(got["v"])) != math.Signbit(floatOf(v)) {
			t.Errorf("round trip of %#v gave %#v (text %s)", v, got["v"], encodeDoc(doc))
		}
	}
	nan, err := decodeDoc(encodeDoc(store.Doc{"v": math.NaN()}))
	if f, ok := nan["v"].(float64); err != nil || !ok || !math.IsNaN(f) {
		t.Errorf("NaN came back as %#v, %v", nan["v"], err)
	}
}

func floatOf(v any) float64 {
	f, _ := v.(float64)
	return f
}

func TestDecodeSQLiteJSON(t *testing.T) {
	// SQLite re-serializes what json functions return: escapes may differ.
	got, err := decodeValue([]byte(` { "a" : [ 1 , 2.5e3 , "\u00e9\ud83d\ude00" ] , "b":{} } `))
	want := store.Doc{"a": []any{int64(1), 2500.0, "é😀"}, "b": store.Doc{}}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("got %#v, %v", got, err)
	}
	for _, bad := range []string{``, `{`, `{"a":}`, `[1,]`, `"abc`, `tru`, `{"a":1} x`, `{"a" 1}`, `"\x"`, `"\u12"`} {
		if _, err := decodeValue([]byte(bad)); err == nil {
			t.Errorf("%q decoded without error", bad)
		}
	}
}

func FuzzCodecString(f *testing.F) {
	for _, s := range []string{"", "a", "\x00", "\"\\", "é", "\xff\xfe", "😀"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) {
			return // stored with U+FFFD in place of invalid bytes, as encoding/json does
		}
		got, err := decodeDoc(encodeDoc(store.Doc{s: s}))
		if err != nil {
			t.Fatal(err)
		}
		if got[s] != s {
			t.Errorf("%q came back as %#v", s, got)
		}
	})
}
