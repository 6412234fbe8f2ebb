package config

import (
	"bytes"
	"encoding/csv"
	"net/http"
	"sort"
	"strings"

	"platform/api"
	"platform/kernel/query"
	"platform/kernel/resource"
	"platform/kernel/store"
)

// exportTranslations answers the customer's translations, narrowed by
// ?locale= and ?module= (each repeatable or comma-separated), ordered by
// module, locale and key: as the envelope (JSON, YAML) whose payload an
// import takes back as it is, or with ?format=csv as a CSV file with the
// columns key, locale, module, value.
func (t *translationIO) exportTranslations(req *api.Request) (*api.Response, error) {
	r := t.resource()
	if !req.Principal.Allows(r.Right("view")) {
		return nil, api.Forbidden(r.Right("view"))
	}
	where, err := exportFilter(req)
	if err != nil {
		return nil, err
	}
	docs, err := t.svc.Store.Collection("translations").Find(req.Ctx, store.FindOptions{
		Filter: where, Limit: MaxExportRows + 1, Fields: csvColumns,
	})
	if err != nil {
		return nil, resource.Unavailable("the store is unavailable").WithCause(err)
	}
	if len(docs) > MaxExportRows {
		return nil, resource.Invalid(resource.FieldError(resource.CodeRange, "locale",
			"more than %d translations match: narrow the export with ?locale= or ?module=", MaxExportRows))
	}
	rows := exportRows(docs)
	if req.Format() == "csv" {
		return csvFile(rows)
	}
	return &api.Response{Payload: rows}, nil
}

// exportFilter reads ?locale= (canonicalised) and ?module=.
func exportFilter(req *api.Request) (query.Expr, error) {
	sets := map[string]map[string]bool{}
	var errs []resource.ErrorEntry
	for _, name := range []string{"locale", "module"} {
		for _, v := range listParam(req.Query[name]) {
			if name == "locale" {
				tag, msg := CanonicalLocale(v)
				if msg != "" {
					errs = append(errs, resource.FieldError(resource.CodeFormat, "locale", "%s", msg))
					continue
				}
				v = tag
			}
			if sets[name] == nil {
				sets[name] = map[string]bool{}
			}
			sets[name][v] = true
		}
	}
	if len(errs) > 0 {
		return nil, resource.Malformed(resource.CodeBadQuery, "locale", "%s", errs[0].Message)
	}
	return inSet(sets), nil
}

// listParam splits repeated and comma-separated values.
func listParam(vals []string) []string {
	var out []string
	for _, v := range vals {
		for _, p := range strings.Split(v, ",") {
			if p = strings.TrimSpace(p); p != "" {
				out = append(out, p)
			}
		}
	}
	return out
}

// inSet is the filter "field is one of the set", for each non-empty set.
func inSet(sets map[string]map[string]bool) query.Expr {
	var parts []query.Expr
	for field, set := range sets {
		if len(set) == 0 {
			continue
		}
		vals := make([]any, 0, len(set))
		for v := range set {
			vals = append(vals, v)
		}
		parts = append(parts, query.Field{Path: field, Conds: []query.Cond{query.In{Values: vals}}})
	}
	return query.AllOf(parts...)
}

// exportRows are the stored translations as rows, in a stable order.
func exportRows(docs []store.Doc) []map[string]any {
	rows := make([]map[string]any, len(docs))
	for i, d := range docs {
		rows[i] = map[string]any{"key": d["key"], "locale": d["locale"], "module": d["module"], "value": d["value"]}
	}
	sort.Slice(rows, func(i, j int) bool {
		a, b := rows[i], rows[j]
		for _, c := range []string{"module", "locale", "key"} {
			if x, y := str(a[c]), str(b[c]); x != y {
				return x < y
			}
		}
		return false
	})
	return rows
}

// csvFile is the CSV export, written as a download.
func csvFile(rows []map[string]any) (*api.Response, error) {
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	_ = w.Write(csvColumns)
	for _, row := range rows {
		rec := make([]string, len(csvColumns))
		for i, c := range csvColumns {
			rec[i] = escapeCell(str(row[c]))
		}
		_ = w.Write(rec)
	}
	w.Flush()
	if err := w.Error(); err != nil {
		return nil, err
	}
	return &api.Response{Raw: buf.Bytes(), ContentType: "text/csv; charset=utf-8",
		Header: http.Header{"Content-Disposition": {`attachment; filename="translations.csv"`}}}, nil
}

// formulaStart are the first characters that make a spreadsheet run a
// cell as a formula (CSV injection).
const formulaStart = "=+-@\t\r"

// escapeCell defuses a formula by a leading apostrophe, which spreadsheets
// hide. A value that itself starts with an apostrophe before such a
// character (or another apostrophe) gets one too, so unescapeCell undoes
// exactly what was added and an export imports back unchanged.
func escapeCell(s string) string {
	if needsEscape(s) {
		return "'" + s
	}
	return s
}

// unescapeCell removes the apostrophe escapeCell added.
func unescapeCell(s string) string {
	if len(s) >= 2 && s[0] == '\'' && (strings.IndexByte(formulaStart, s[1]) >= 0 || s[1] == '\'') {
		return s[1:]
	}
	return s
}

func needsEscape(s string) bool {
	if s == "" {
		return false
	}
	if strings.IndexByte(formulaStart, s[0]) >= 0 {
		return true
	}
	return len(s) >= 2 && s[0] == '\'' && (strings.IndexByte(formulaStart, s[1]) >= 0 || s[1] == '\'')
}
