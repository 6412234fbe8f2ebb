package sqlitestore

import (
	"math"
	"strings"
	"time"

	"platform/kernel/store"
)

// A field's key is one SQL value per document that orders and compares as
// MongoDB orders and compares BSON values, for documents holding no array
// at the path:
//
//	missing, null  NULL
//	numbers        INTEGER or REAL (SQLite compares the two exactly)
//	strings        TEXT (binary order, as MongoDB without a collation)
//	objects        BLOB 0x03 + JSON
//	arrays         BLOB 0x04 + JSON
//	false, true    BLOB 0x08 0x00, 0x08 0x01
//	dates          BLOB 0x09 + fixed-width ISO text
//
// SQLite orders NULL < numbers < TEXT < BLOB and BLOBs bytewise, which is
// MongoDB's type order. So a filter on one type becomes a range of keys,
// a sort is ORDER BY key, and an expression index on the key (created by
// EnsureIndexes with the very same text) serves both.

var (
	keyFalse = []byte{0x08, 0x00}
	keyTrue  = []byte{0x08, 0x01}
)

const datePrefix = "\x09"

// column names the key of the two fields kept in columns.
func column(path string, scoped bool) string {
	switch {
	case path == "_id":
		return "id"
	case path == store.CustomerField && scoped:
		return "customer"
	}
	return ""
}

// jsonPath is the SQLite JSON path of a dotted field path; ok is false when
// a component cannot be written in one (SQLite paths cannot escape '"').
func jsonPath(path string) (string, bool) {
	var b strings.Builder
	b.WriteString("$")
	for _, c := range strings.Split(path, ".") {
		if c == "" || strings.ContainsAny(c, "\"\x00") {
			return "", false
		}
		b.WriteString(`."`)
		b.WriteString(escapeKey(c))
		b.WriteString(`"`)
	}
	return b.String(), true
}

// sqlText quotes s as an SQL string literal. Only field paths, which select
// the part of the document an index covers and so must be part of the SQL
// text, are written this way; values are always bound parameters.
func sqlText(s string) string {
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}

// keyExpr is the SQL of a field's key; ok is false for paths no JSON path
// can name.
func keyExpr(path string, scoped bool) (string, bool) {
	if c := column(path, scoped); c != "" {
		return c, true
	}
	jp, ok := jsonPath(path)
	if !ok {
		return "", false
	}
	p, pd := sqlText(jp), sqlText(jp+`."`+dateTag+`"`)
	return "CASE json_type(doc," + p + ")" +
		" WHEN 'true' THEN x'0801' WHEN 'false' THEN x'0800'" +
		" WHEN 'object' THEN CASE WHEN json_type(doc," + pd + ")='text'" +
		" THEN CAST(char(9)||json_extract(doc," + pd + ") AS BLOB)" +
		" ELSE CAST(char(3)||json_extract(doc," + p + ") AS BLOB) END" +
		" WHEN 'array' THEN CAST(char(4)||json_extract(doc," + p + ") AS BLOB)" +
		" ELSE json_extract(doc," + p + ") END", true
}

// existsExpr is true when the field is present, null included.
func existsExpr(path string, scoped bool) (string, bool) {
	if column(path, scoped) != "" {
		return "1", true
	}
	jp, ok := jsonPath(path)
	if !ok {
		return "", false
	}
	return "json_type(doc," + sqlText(jp) + ") IS NOT NULL", true
}

// keyClass is the type bracket of a scalar filter value: MongoDB compares
// with $gt, $lt and their kin only values of the same bracket.
type keyClass int

const (
	classNone keyClass = iota // not a scalar this file can key
	classNull
	classNumber
	classString
	classBool
	classDate
)

// scalarKey returns the bound parameter standing for v's key and its class.
func scalarKey(v any) (any, keyClass) {
	switch x := v.(type) {
	case nil:
		return nil, classNull
	case int64:
		return x, classNumber
	case float64:
		if math.IsNaN(x) {
			return nil, classNone
		}
		return x, classNumber
	case string:
		return x, classString
	case bool:
		if x {
			return keyTrue, classBool
		}
		return keyFalse, classBool
	case time.Time:
		return []byte(datePrefix + x.Format(dateLayout)), classDate
	}
	return nil, classNone
}

// classBounds are the smallest key of a bracket and the smallest key above
// it, as SQL literals; numbers need no lower bound, NULL failing every
// comparison.
func classBounds(c keyClass) (lower, upper string) {
	switch c {
	case classNumber:
		return "", "''"
	case classString:
		return "''", "x''"
	case classBool:
		return "x'08'", "x'09'"
	case classDate:
		return "x'09'", "x'0a'"
	}
	return "NULL", "NULL"
}
