package config

import (
	"net/http"
	"strconv"

	"platform/api"
)

// catalogRoutes are the routes of translations, marketplace and branding
// beyond their resources: the bulk translation import and export, and the
// files of assets. Without a record service (the declarations alone)
// there are none.
func catalogRoutes(d Deps) func(r *api.ModuleRouter) {
	return func(r *api.ModuleRouter) {
		if d.Service == nil {
			return
		}
		io := &translationIO{svc: d.Service}
		r.Handle(http.MethodPost, ImportPath, "config.translations.create", io.importTranslations)
		r.Handle(http.MethodGet, ExportPath, "config.translations.export", io.exportTranslations)
		files := &assetFiles{svc: d.Service, maxBytes: d.maxAssetBytes()}
		r.Handle(http.MethodPut, ContentPath, "config.assets.edit", files.upload)
		r.Handle(http.MethodGet, ContentPath, "config.assets.view", files.download)
	}
}

func (d Deps) maxAssetBytes() int64 {
	if d.MaxAssetBytes > 0 {
		return d.MaxAssetBytes
	}
	return DefaultMaxAssetBytes
}

type obj = map[string]any

// catalogPaths describe catalogRoutes in the module's OpenAPI document.
func catalogPaths(d Deps) map[string]any {
	return map[string]any{
		ImportPath:             obj{"post": importOperation()},
		ExportPath:             obj{"get": exportOperation()},
		"/assets/{id}/content": obj{"put": uploadOperation(d.maxAssetBytes()), "get": downloadOperation()},
	}
}

func rowSchema() obj {
	s := obj{"type": "string"}
	return obj{"type": "object", "required": []any{"key", "locale", "module", "value"}, "additionalProperties": false,
		"properties": obj{"key": s, "locale": s, "module": s, "value": s}}
}

func importOperation() obj {
	rows := obj{"type": "array", "items": rowSchema(), "maxItems": MaxImportRows}
	op := api.Operation("config.translations.import", "translations", "Import translations",
		"Upserts translations by their natural key (module, locale, key) from a JSON body (an array of {key, locale, module, value}, "+
			"an object {translations: [...]}, or an export's answer as it is) or a CSV body (a header row naming the columns key, locale, module "+
			"and value, in any order). At most 10000 rows and 4 MiB (413 past either). All or nothing: every row is checked first, and any bad "+
			"row refuses the import with a 422 whose errors name each one as rows.<n>.<field> (rows count from 1; a CSV's header is line 1). "+
			"A new key is created, a changed value updated, an equal one left as it is; each write emits its translations event. "+
			"Needs config.translations.create and config.translations.edit.", []any{},
		obj{"type": "object", "required": []any{"rows", "created", "updated", "unchanged"}, "properties": obj{
			"rows": obj{"type": "integer"}, "created": obj{"type": "integer"}, "updated": obj{"type": "integer"}, "unchanged": obj{"type": "integer"}}})
	op["requestBody"] = obj{"required": true, "content": obj{
		"application/json": obj{"schema": obj{"oneOf": []any{rows, obj{"type": "object", "properties": obj{"translations": rows, "payload": rows}}}}},
		"text/csv":         obj{"schema": obj{"type": "string"}},
	}}
	return op
}

func exportOperation() obj {
	params := []any{
		obj{"name": "locale", "in": "query", "schema": obj{"type": "string"}, "description": "only these locales (comma-separated BCP 47 tags, canonicalised)"},
		obj{"name": "module", "in": "query", "schema": obj{"type": "string"}, "description": "only these modules (comma-separated)"},
	}
	return api.Operation("config.translations.export", "translations", "Export translations",
		"The customer's translations ordered by module, locale and key, at most 20000 (a 422 asks to narrow by locale or module). "+
			"JSON and YAML: the envelope, whose payload the import takes back. ?format=csv (or Accept: text/csv): a CSV file with the "+
			"columns key, locale, module, value; a value starting with = + - @ or a control character gets a leading apostrophe against "+
			"spreadsheet formulas, which the import removes again. Needs config.translations.export and config.translations.view.",
		params, obj{"type": "array", "items": rowSchema()})
}

// fileContent documents a body or answer that is one file of the types
// assets take.
func fileContent() obj {
	c := obj{}
	for _, t := range acceptedTypes() {
		c[t] = obj{"schema": obj{"type": "string", "format": "binary"}}
	}
	return c
}

func idParam() obj {
	return obj{"name": "id", "in": "path", "required": true, "schema": obj{"type": "string"}, "description": "the asset's id"}
}

func uploadOperation(max int64) obj {
	op := api.Operation("config.assets.upload", "assets", "Upload an asset's file",
		"The body is the file, sent with its Content-Type; it replaces any earlier file. Refused: more than "+humanBytes(max)+
			" (413); a type assets do not take, active content such as HTML, SVG, XML or JavaScript among them (415); bytes whose sniffed "+
			"type (http.DetectContentType) is not the declared one, or an image whose header cannot be read or is larger than 16384 pixels "+
			"a side (422). PNG, JPEG, GIF and WebP images get width and height recorded. Answers the asset; emits assets.uploaded. "+
			"Needs config.assets.edit.", []any{idParam()}, obj{"$ref": "#/components/schemas/Assets"})
	op["requestBody"] = obj{"required": true, "content": fileContent()}
	return op
}

func downloadOperation() obj {
	op := api.Operation("config.assets.download", "assets", "Download an asset's file",
		"The file with its stored Content-Type, ETag (the quoted SHA-256; If-None-Match answers 304), Cache-Control: private, no-cache, "+
			"X-Content-Type-Options: nosniff, Content-Security-Policy: default-src 'none'; sandbox, and Content-Disposition inline for "+
			"images, attachment for everything else. 409 while the asset has no file. Needs config.assets.view.", []any{idParam()}, obj{})
	res := op["responses"].(obj)
	res["200"] = obj{"description": "the file", "content": fileContent()}
	res["304"] = obj{"description": "the file is unchanged since the ETag sent in If-None-Match"}
	return op
}

func humanBytes(n int64) string {
	if n%(1<<20) == 0 {
		return strconv.FormatInt(n>>20, 10) + " MiB"
	}
	return strconv.FormatInt(n, 10) + " bytes"
}
