package config

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
	"unicode/utf8"

	"platform/api"
	"platform/kernel/jsonlimit"
	"platform/kernel/resource"
	"platform/kernel/store"
)

// Bounds of a bulk import and export.
const (
	MaxImportBytes = 4 << 20
	MaxImportRows  = 10000
	MaxExportRows  = 20000
	// maxRowErrors bounds the entries of a refused import's answer.
	maxRowErrors = 50
)

// Paths of the bulk routes. They sit beside /translations/{id} (one
// segment more), so no id is ever mistaken for them.
const (
	ImportPath = "/translations/actions/import"
	ExportPath = "/translations/actions/export"
)

// csvColumns are the columns of an export, and those an import needs.
var csvColumns = []string{"key", "locale", "module", "value"}

// importedRow is one row of an import with where it came from.
type importedRow struct {
	translationRow
	n    int // row number, from 1
	line int // line of a CSV row (the header is line 1); 0 for JSON
}

// ImportResult is the answer of an import.
type ImportResult struct {
	Rows      int `json:"rows"`
	Created   int `json:"created"`
	Updated   int `json:"updated"`
	Unchanged int `json:"unchanged"`
}

// translationIO serves the bulk import and export.
type translationIO struct{ svc *resource.Service }

// importTranslations upserts the rows of a JSON or CSV body by their
// natural key (module, locale, key). All or nothing: every row is checked
// first, and one bad row refuses the whole import with a 422 naming each
// bad row (rows.<n>.<field>); only then are the rows written.
func (t *translationIO) importTranslations(req *api.Request) (*api.Response, error) {
	r := t.resource()
	if !req.Principal.Allows(r.Right("edit")) {
		return nil, api.Forbidden(r.Right("edit"))
	}
	data, err := req.BodyUpTo(MaxImportBytes)
	if err != nil {
		return nil, err
	}
	rows, err := parseImport(req.Header("Content-Type"), data)
	if err != nil {
		return nil, err
	}
	if err := checkRows(rows); err != nil {
		return nil, err
	}
	res, err := t.upsert(req.Ctx, r, rows)
	if err != nil {
		return nil, err
	}
	return &api.Response{Payload: res}, nil
}

func (t *translationIO) resource() *resource.Resource {
	return t.svc.Registry.Get("config", "translations")
}

// parseImport reads the rows of a body by its media type.
func parseImport(contentType string, data []byte) ([]importedRow, error) {
	mt, _, _ := mime.ParseMediaType(contentType)
	switch {
	case mt == "text/csv":
		return parseCSV(data)
	case mt == "application/json" || strings.HasSuffix(mt, "+json"):
		return parseJSON(data)
	}
	return nil, api.NewError(http.StatusUnsupportedMediaType, api.CodeMediaType, "",
		"send the translations as application/json (an array of {key, locale, module, value}) or text/csv (a header row key,locale,module,value)")
}

// parseJSON takes an array of rows, {"translations": [...]}, or an export's
// answer as it is ({"payload": [...], "meta": ...}).
func parseJSON(data []byte) ([]importedRow, error) {
	v, err := jsonlimit.Decode(data)
	if err != nil {
		return nil, resource.Malformed(resource.CodeMalformed, "", "the body is not valid JSON: %v", err)
	}
	list, ok := v.([]any)
	if obj, isObj := v.(map[string]any); isObj {
		list, ok = obj["translations"].([]any)
		if p, has := obj["payload"].([]any); has && !ok {
			list, ok = p, true
		}
	}
	if !ok {
		return nil, resource.Malformed(resource.CodeMalformed, "",
			"the body must be an array of translations, an object with a translations array, or an export's answer")
	}
	if err := checkRowCount(len(list)); err != nil {
		return nil, err
	}
	rows := make([]importedRow, 0, len(list))
	var errs []resource.ErrorEntry
	for i, item := range list {
		row, bad := jsonRow(i+1, item)
		rows, errs = append(rows, row), append(errs, bad...)
	}
	return rows, invalidRows(errs)
}

// jsonRow reads one element: an object of four strings, nothing else.
func jsonRow(n int, item any) (importedRow, []resource.ErrorEntry) {
	row := importedRow{n: n}
	obj, ok := item.(map[string]any)
	if !ok {
		return row, []resource.ErrorEntry{resource.FieldError(resource.CodeType, fmt.Sprintf("rows.%d", n), "row %d must be an object {key, locale, module, value}", n)}
	}
	var errs []resource.ErrorEntry
	for k, v := range obj {
		s, isStr := v.(string)
		switch {
		case !isKnownColumn(k):
			errs = append(errs, resource.FieldError(resource.CodeUnknownField, rowField(n, k), "row %d: unknown field %q; a row has key, locale, module and value", n, k))
		case !isStr:
			errs = append(errs, resource.FieldError(resource.CodeType, rowField(n, k), "row %d: %s must be a string", n, k))
		default:
			row.set(k, s)
		}
	}
	return row, errs
}

// parseCSV reads a header row naming the four columns (in any order) and
// one translation per record. Rows are numbered from 1 after the header;
// errors name the line too, which differs when a value spans lines.
func parseCSV(data []byte) ([]importedRow, error) {
	rd := csv.NewReader(bytes.NewReader(bytes.TrimPrefix(data, []byte("\uFEFF"))))
	rd.ReuseRecord = false
	header, err := rd.Read()
	if err != nil {
		return nil, resource.Malformed(resource.CodeMalformed, "", "the CSV needs a header row key,locale,module,value: %v", csvReason(err))
	}
	cols, err := csvHeader(header)
	if err != nil {
		return nil, err
	}
	var rows []importedRow
	for n := 1; ; n++ {
		rec, err := rd.Read()
		if errors.Is(err, io.EOF) {
			return rows, nil
		}
		if err != nil {
			return nil, resource.Invalid(resource.FieldError(resource.CodeSyntax, fmt.Sprintf("rows.%d", n), "row %d: malformed CSV: %v", n, csvReason(err)))
		}
		if err := checkRowCount(n); err != nil {
			return nil, err
		}
		line, _ := rd.FieldPos(0)
		row := importedRow{n: n, line: line}
		for i, c := range cols {
			row.set(c, unescapeCell(rec[i]))
		}
		rows = append(rows, row)
	}
}

// csvHeader maps the header's columns; each of the four exactly once.
func csvHeader(header []string) ([]string, error) {
	seen := map[string]bool{}
	var errs []resource.ErrorEntry
	for i, h := range header {
		h = strings.TrimSpace(h)
		header[i] = h
		switch {
		case !isKnownColumn(h):
			errs = append(errs, resource.FieldError(resource.CodeUnknownField, "header", "unknown column %q: the columns are key, locale, module and value", h))
		case seen[h]:
			errs = append(errs, resource.FieldError(resource.CodeInvalid, "header", "column %q appears twice", h))
		}
		seen[h] = true
	}
	for _, c := range csvColumns {
		if !seen[c] {
			errs = append(errs, resource.FieldError(resource.CodeRequired, "header", "the header lacks the column %q", c))
		}
	}
	if len(errs) > 0 {
		return nil, resource.Invalid(errs...)
	}
	return header, nil
}

func csvReason(err error) string {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return fmt.Sprintf("line %d, column %d: %v", pe.Line, pe.Column, pe.Err)
	}
	return err.Error()
}

func checkRowCount(n int) error {
	if n > MaxImportRows {
		return api.NewError(http.StatusRequestEntityTooLarge, api.CodeTooLarge, "rows",
			"an import holds at most %d rows; split the file", MaxImportRows)
	}
	return nil
}

func isKnownColumn(c string) bool {
	for _, k := range csvColumns {
		if c == k {
			return true
		}
	}
	return false
}

func (r *importedRow) set(col, v string) {
	switch col {
	case "key":
		r.key = v
	case "locale":
		r.locale = v
	case "module":
		r.module = v
	case "value":
		r.value = v
	}
}

func rowField(n int, col string) string { return fmt.Sprintf("rows.%d.%s", n, col) }

// checkRows validates every row (canonicalising its locale) and refuses a
// natural key that appears twice.
func checkRows(rows []importedRow) error {
	if len(rows) == 0 {
		return resource.Invalid(resource.FieldError(resource.CodeRequired, "rows", "the import holds no rows"))
	}
	var errs []resource.ErrorEntry
	first := map[string]int{}
	for i := range rows {
		row := &rows[i]
		errs = append(errs, row.problems()...)
		if prev, dup := first[row.naturalKey()]; dup {
			errs = append(errs, resource.FieldError(resource.CodeDuplicate, rowField(row.n, "key"),
				"%s repeats the key, locale and module of row %d", row.where(), prev))
		} else {
			first[row.naturalKey()] = row.n
		}
	}
	return invalidRows(errs)
}

// problems are a row's failures, each message saying where the row is.
func (r *importedRow) problems() []resource.ErrorEntry {
	errs := r.check(fmt.Sprintf("rows.%d.", r.n))
	switch {
	case r.value == "":
		errs = append(errs, resource.FieldError(resource.CodeRequired, rowField(r.n, "value"), "value is required"))
	case len(r.value) > MaxTranslationValue:
		errs = append(errs, resource.FieldError(resource.CodeRange, rowField(r.n, "value"), "value is longer than %d bytes", MaxTranslationValue))
	case !utf8.ValidString(r.value):
		errs = append(errs, resource.FieldError(resource.CodeFormat, rowField(r.n, "value"), "value is not valid UTF-8"))
	}
	for i := range errs {
		errs[i].Message = r.where() + ": " + errs[i].Message
	}
	return errs
}

// where names the row for a person: "row 3 (line 4)".
func (r *importedRow) where() string {
	if r.line > 0 {
		return fmt.Sprintf("row %d (line %d)", r.n, r.line)
	}
	return fmt.Sprintf("row %d", r.n)
}

// invalidRows is the 422 of a refused import, with at most maxRowErrors
// entries and a last one counting the rest.
func invalidRows(errs []resource.ErrorEntry) error {
	if len(errs) == 0 {
		return nil
	}
	if len(errs) > maxRowErrors {
		more := len(errs) - maxRowErrors
		errs = append(errs[:maxRowErrors], resource.FieldError(resource.CodeInvalid, "rows", "and %d more problems", more))
	}
	return resource.Invalid(errs...)
}

// upsert writes the rows through the record service in order: a new key is
// created, a changed value updated, an equal one left alone (no event).
// Without transactions a failure part-way keeps the rows before it; the
// import is idempotent, so sending it again completes it.
func (t *translationIO) upsert(ctx context.Context, r *resource.Resource, rows []importedRow) (*ImportResult, error) {
	existing, err := existingTranslations(ctx, t.svc.Store, rows)
	if err != nil {
		return nil, err
	}
	res := &ImportResult{Rows: len(rows)}
	ctx = context.WithValue(ctx, keysChecked{}, true)
	for _, row := range rows {
		old, has := existing[row.naturalKey()]
		switch {
		case !has:
			_, err = t.svc.Create(ctx, r, map[string]any{"key": row.key, "locale": row.locale, "module": row.module, "value": row.value})
			res.Created++
		case old["value"] != row.value:
			_, err = t.svc.Patch(ctx, r, str(old["_id"]), map[string]any{"value": row.value})
			res.Updated++
		default:
			res.Unchanged++
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", row.where(), err)
		}
	}
	return res, nil
}

// existingTranslations reads, in one query, the stored translations of the
// modules and locales the rows name, by natural key.
func existingTranslations(ctx context.Context, st store.Store, rows []importedRow) (map[string]store.Doc, error) {
	modules, locales := map[string]bool{}, map[string]bool{}
	for _, r := range rows {
		modules[r.module], locales[r.locale] = true, true
	}
	docs, err := st.Collection("translations").Find(ctx, store.FindOptions{
		Filter: inSet(map[string]map[string]bool{"module": modules, "locale": locales}),
		Fields: []string{"key", "locale", "module", "value"},
	})
	if err != nil {
		return nil, resource.Unavailable("the store is unavailable").WithCause(err)
	}
	out := make(map[string]store.Doc, len(docs))
	for _, d := range docs {
		row := translationRow{key: str(d["key"]), locale: str(d["locale"]), module: str(d["module"])}
		out[row.naturalKey()] = d
	}
	return out, nil
}
