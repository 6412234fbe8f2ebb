package config_test

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"platform/modules/config"
	"platform/test/apitest"
	"platform/test/testenv"
)

func translation(key, locale, module, value string) map[string]any {
	return map[string]any{"key": key, "locale": locale, "module": module, "value": value}
}

func TestTranslations(t *testing.T) {
	f := newCatalog(t)
	given := func(f *catalogFixture) apitest.IDs {
		k := uniqueName("crm.title")
		return apitest.IDs{"k": k, "t": f.Create("/config/translations", translation(k, "de-ch", "crm", "Kunden"))}
	}
	apitest.Run(t, f, []catalogScenario{
		{Name: "the locale is stored canonical", Method: "POST", Path: "/config/translations",
			Body: translation("crm.consumers.title", "en-us", "crm", "Consumers"), Status: 201, Events: []string{"translations.created"},
			Then: func(f *catalogFixture, _ apitest.IDs, r *testenv.Resp) {
				assert.Equal(f.T, "en-US", r.Payload()["locale"])
			}},
		{Name: "a deprecated tag becomes its successor", Method: "POST", Path: "/config/translations",
			Body: translation("a.b", "iw", "crm", "x"), Status: 201, Events: []string{"translations.created"},
			Then: func(f *catalogFixture, _ apitest.IDs, r *testenv.Resp) {
				assert.Equal(f.T, "he", r.Payload()["locale"])
			}},
		{Name: "same key, locale and module is a 409", Given: given, Method: "POST", Path: "/config/translations",
			Body: translation("{k}", "de-CH", "crm", "Konsumenten"), Status: 409, Field: "key", Codes: []string{"conflict.duplicate"}},
		{Name: "same key in another module is another translation", Given: given, Method: "POST", Path: "/config/translations",
			Body: translation("{k}", "de-CH", "cms", "Kunden"), Status: 201, Events: []string{"translations.created"}},
		{Name: "changing a record onto another's key is a 409", Given: func(f *catalogFixture) apitest.IDs {
			v := given(f)
			v["u"] = f.Create("/config/translations", translation(v["k"], "fr", "crm", "Clients"))
			return v
		}, Method: "PATCH", Path: "/config/translations/{u}", Body: map[string]any{"locale": "de-CH"}, Status: 409, Field: "key"},
		{Name: "a key not in dot notation", Method: "POST", Path: "/config/translations",
			Body: translation("crm..title", "de", "crm", "x"), Status: 422, Field: "key"},
		{Name: "a locale that is no BCP 47 tag", Method: "POST", Path: "/config/translations",
			Body: translation("a.b", "german", "crm", "x"), Status: 422, Field: "locale"},
		{Name: "a locale without a language", Method: "POST", Path: "/config/translations",
			Body: translation("a.b", "und", "crm", "x"), Status: 422, Field: "locale"},
		{Name: "a module that is no slug", Method: "POST", Path: "/config/translations",
			Body: translation("a.b", "de", "CRM Module", "x"), Status: 422, Field: "module"},
		{Name: "filter by locale", Given: given, Method: "GET", Path: "/config/translations?key={k}&locale=de-CH", Status: 200,
			Then: func(f *catalogFixture, v apitest.IDs, r *testenv.Resp) {
				assert.Equal(f.T, []string{v["t"]}, apitest.ListIDs(r))
			}},
		{Name: "another customer's translation is not found", Given: given, Method: "GET", Path: "/config/translations/{t}",
			Token: func(f *catalogFixture) string { return f.Other }, Status: 404},
		{Name: "another customer may use the same key", Given: given, Method: "POST", Path: "/config/translations",
			Token: func(f *catalogFixture) string { return f.Other }, Body: translation("{k}", "de-CH", "crm", "Kunden"), Status: 201,
			Then: func(f *catalogFixture, _ apitest.IDs, r *testenv.Resp) {
				assert.Empty(f.T, f.Recorded, "customer B's event is not customer A's")
			}},
		{Name: "creating needs config.translations.create", Method: "POST", Path: "/config/translations", Scopes: []string{"config.translations.view"},
			Body: translation("a.b", "de", "crm", "x"), Status: 403},
	})
}

var nameCounter atomic.Int64

// uniqueName is prefix with a number no other call of the test binary got.
func uniqueName(prefix string) string { return fmt.Sprintf("%s%d", prefix, nameCounter.Add(1)) }

func TestLocales(t *testing.T) {
	f := newCatalog(t)
	given := func(tag string) func(f *catalogFixture) apitest.IDs {
		return func(f *catalogFixture) apitest.IDs {
			return apitest.IDs{"de": f.Create("/config/locales", map[string]any{"tag": tag, "name": "Deutsch", "default": true})}
		}
	}
	apitest.Run(t, f, []catalogScenario{
		{Name: "the tag is canonical and addresses the locale", Given: given("de-ch"), Method: "GET", Path: "/config/locales/de-CH", Status: 200,
			Then: func(f *catalogFixture, v apitest.IDs, r *testenv.Resp) {
				assert.Equal(f.T, v["de"], r.Payload()["_id"])
			}},
		{Name: "de-at and de-AT are one locale", Given: given("de-at"), Method: "POST", Path: "/config/locales",
			Body: map[string]any{"tag": "DE-AT", "name": "again"}, Status: 409, Field: "tag"},
		{Name: "a tag that is not BCP 47", Method: "POST", Path: "/config/locales", Body: map[string]any{"tag": "en_GB-oxford-xx-1", "name": "x"}, Status: 422, Field: "tag"},
		{Name: "a new default takes the mark from the old", Given: given("de-de"), Method: "POST", Path: "/config/locales",
			Body: map[string]any{"tag": "fr", "name": "Français", "default": true}, Status: 201, Events: []string{"locales.created"},
			Then: func(f *catalogFixture, v apitest.IDs, r *testenv.Resp) {
				assert.Equal(f.T, false, f.Stored("locales", v["de"])["default"])
				assert.Equal(f.T, true, r.Payload()["default"])
				l := f.P.Do("GET", "/config/locales?default=true", f.Admin, nil)
				assert.Equal(f.T, []string{r.Payload()["_id"].(string)}, apitest.ListIDs(l), "one default")
			}},
		{Name: "another customer's default is its own", Given: given("de-li"), Method: "POST", Path: "/config/locales",
			Token: func(f *catalogFixture) string { return f.Other }, Body: map[string]any{"tag": "it", "name": "Italiano", "default": true}, Status: 201,
			Then: func(f *catalogFixture, v apitest.IDs, _ *testenv.Resp) {
				assert.Equal(f.T, true, f.Stored("locales", v["de"])["default"])
			}},
	})
}

// importRows is a set of translations with values that test the formats:
// separators, quotes, line breaks, formula starts, apostrophes, non-ASCII.
func importRows() []map[string]any {
	return []map[string]any{
		translation("crm.consumers.title", "de-CH", "crm", "Kunden"),
		translation("crm.consumers.title", "en", "crm", "Consumers, \"all\" of them"),
		translation("crm.consumers.hint", "en", "crm", "Line one\nline two"),
		translation("crm.formula", "en", "crm", "=SUM(A1:A9)"),
		translation("crm.minus", "en", "crm", "-5 points"),
		translation("crm.apostrophe", "en", "crm", "'=quoted'"),
		translation("crm.apostrophes", "en", "crm", "''"),
		translation("cms.page.title", "ja", "cms", "ページ"),
	}
}

func TestTranslationImportExportRoundTrip(t *testing.T) {
	f := newCatalog(t)
	body, err := json.Marshal(importRows())
	require.NoError(t, err)
	var r *testenv.Resp
	imported := f.EventsAfter(func() { r = f.ok(f.send("POST", "/config"+config.ImportPath, f.Admin, "application/json", body)) })
	assert.Equal(t, map[string]any{"rows": 8.0, "created": 8.0, "updated": 0.0, "unchanged": 0.0}, map[string]any(r.Payload()))
	assert.Len(t, imported, 8, "one translations.created per row")

	jsonExport := f.ok(f.P.Do("GET", "/config"+config.ExportPath, f.Admin, nil))
	assert.ElementsMatch(t, importRows(), jsonExport.List(), "the JSON export holds the rows as imported")

	// The JSON export, fed back as it is, changes nothing.
	none := f.EventsAfter(func() {
		r = f.ok(f.send("POST", "/config"+config.ImportPath, f.Admin, "application/json", jsonExport.Body))
	})
	assert.Equal(t, 8.0, r.Payload()["unchanged"])
	assert.Empty(t, none)

	// The CSV export of A imported by customer B gives B the same export.
	csvExport := f.P.Do("GET", "/config"+config.ExportPath+"?format=csv", f.Admin, nil)
	require.Equal(t, 200, csvExport.Status)
	assert.Equal(t, "text/csv; charset=utf-8", csvExport.Header.Get("Content-Type"))
	assert.Contains(t, csvExport.Header.Get("Content-Disposition"), "attachment")
	lines := csvRecords(t, csvExport.Body)
	assert.Equal(t, []string{"key", "locale", "module", "value"}, lines[0])
	assert.Contains(t, lines, []string{"crm.formula", "en", "crm", "'=SUM(A1:A9)"}, "formulas are defused")
	r = f.ok(f.send("POST", "/config"+config.ImportPath, f.Other, "text/csv", csvExport.Body))
	assert.Equal(t, 8.0, r.Payload()["created"])
	other := f.ok(f.P.Do("GET", "/config"+config.ExportPath, f.Other, nil))
	assert.Equal(t, jsonExport.List(), other.List(), "CSV round trip")

	// Upsert: a changed value is an update, a new key a create.
	next := "key,module,locale,value\ncrm.consumers.title,crm,de-ch,Kundschaft\nnew.key,crm,en,New\n"
	evs := f.EventsAfter(func() { r = f.ok(f.send("POST", "/config"+config.ImportPath, f.Admin, "text/csv", []byte(next))) })
	assert.Equal(t, map[string]any{"rows": 2.0, "created": 1.0, "updated": 1.0, "unchanged": 0.0}, map[string]any(r.Payload()))
	assert.Equal(t, []string{"translations.created", "translations.updated"}, apitest.Names(evs))

	// Filters.
	byLocale := f.ok(f.P.Do("GET", "/config"+config.ExportPath+"?locale=de-ch", f.Admin, nil))
	assert.Equal(t, []map[string]any{translation("crm.consumers.title", "de-CH", "crm", "Kundschaft")}, byLocale.List())
	byModule := f.ok(f.P.Do("GET", "/config"+config.ExportPath+"?module=cms", f.Admin, nil))
	assert.Equal(t, []map[string]any{translation("cms.page.title", "ja", "cms", "ページ")}, byModule.List())
	assert.Equal(t, 400, f.P.Do("GET", "/config"+config.ExportPath+"?locale=nope-nope-nope", f.Admin, nil).Status)
}

func csvRecords(t *testing.T, b []byte) [][]string {
	t.Helper()
	recs, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	require.NoError(t, err)
	return recs
}

func TestTranslationImportRefusals(t *testing.T) {
	f := newCatalog(t)
	jsonRows := func(rows ...map[string]any) string { b, _ := json.Marshal(rows); return string(b) }
	csvHeader := []string{"Content-Type", "text/csv"}
	path := "/config" + config.ImportPath
	apitest.Run(t, f, []catalogScenario{
		{Name: "bad JSON rows are named by row and field, and nothing is written", Method: "POST", Path: path,
			Body:   jsonRows(translation("ok.key", "en", "crm", "fine"), translation("a.b", "klingon-xx", "crm", "x"), translation("bad key", "en", "crm", "x")),
			Status: 422,
			Then: func(f *catalogFixture, _ apitest.IDs, r *testenv.Resp) {
				assert.ElementsMatch(f.T, []string{"rows.2.locale", "rows.3.key"}, apitest.ErrorFields(r))
				assert.Contains(f.T, string(r.Body), "row 2: ")
			}},
		{Name: "bad CSV rows name their line", Method: "POST", Path: path, Header: csvHeader,
			Body: "key,locale,module,value\nok.key,en,crm,\"two\nlines\"\nbad..key,en,crm,x\n", Status: 422,
			Then: func(f *catalogFixture, _ apitest.IDs, r *testenv.Resp) {
				assert.Equal(f.T, []string{"rows.2.key"}, apitest.ErrorFields(r))
				assert.Contains(f.T, string(r.Body), "row 2 (line 4)")
			}},
		{Name: "a row repeating an earlier one's key", Method: "POST", Path: path,
			Body: jsonRows(translation("a.b", "en", "crm", "x"), translation("a.b", "EN", "crm", "y")), Status: 422, Field: "rows.2.key"},
		{Name: "unknown fields of a row", Method: "POST", Path: path, Body: `[{"key":"a.b","locale":"en","module":"crm","value":"x","note":"?"}]`,
			Status: 422, Field: "rows.1.note"},
		{Name: "an empty value", Method: "POST", Path: path, Body: jsonRows(translation("a.b", "en", "crm", "")), Status: 422, Field: "rows.1.value"},
		{Name: "a CSV header without the value column", Method: "POST", Path: path, Header: csvHeader, Body: "key,locale,module\na.b,en,crm\n", Status: 422, Field: "header"},
		{Name: "malformed CSV", Method: "POST", Path: path, Header: csvHeader, Body: "key,locale,module,value\na.b,en,crm,\"open\n", Status: 422, Field: "rows.1"},
		{Name: "no rows", Method: "POST", Path: path, Body: "[]", Status: 422, Field: "rows"},
		{Name: "too many rows", Method: "POST", Path: path, Header: csvHeader, Body: manyRows(config.MaxImportRows + 1), Status: 413, Field: "rows"},
		{Name: "a body past the size limit", Method: "POST", Path: path, Header: csvHeader,
			Body: "key,locale,module,value\na.b,en,crm," + strings.Repeat("x", config.MaxImportBytes) + "\n", Status: 413},
		{Name: "another media type", Method: "POST", Path: path, Header: []string{"Content-Type", "application/xml"}, Body: "<rows/>", Status: 415},
		{Name: "import needs the edit right too", Method: "POST", Path: path, Scopes: []string{"config.translations.create"},
			Body: jsonRows(translation("a.b", "en", "crm", "x")), Status: 403},
		{Name: "export needs the export right", Method: "GET", Path: "/config" + config.ExportPath, Scopes: []string{"config.translations.view"}, Status: 403},
	})
}

// manyRows is a CSV of n valid rows.
func manyRows(n int) string {
	var b strings.Builder
	b.WriteString("key,locale,module,value\n")
	for i := range n {
		fmt.Fprintf(&b, "k.n%d,en,crm,v\n", i)
	}
	return b.String()
}
