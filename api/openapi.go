package api

import (
	"platform/kernel/resource"

	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"
)

// OpenAPI 3.1 descriptions are generated from the same declarations that
// drive validation, so they cannot drift from the behaviour.

func (s *Server) resourceOpenAPI(r *resource.Resource, format string) HandlerFunc {
	return func(*Request) (*Response, error) {
		m := s.modules[r.Module]
		return openAPIResponse(s.openAPIDoc(m, []*resource.Resource{r}, r.Title+" API", false), format)
	}
}

func (s *Server) moduleOpenAPI(m *Module, format string) HandlerFunc {
	return func(*Request) (*Response, error) {
		return openAPIResponse(s.openAPIDoc(m, m.Resources, m.Name+" module API", true), format)
	}
}

func openAPIResponse(doc map[string]any, format string) (*Response, error) {
	if format == "yaml" {
		b, err := yaml.Marshal(doc)
		return &Response{Raw: b, ContentType: "application/yaml; charset=utf-8"}, err
	}
	b, err := json.MarshalIndent(doc, "", "  ")
	return &Response{Raw: b, ContentType: "application/json; charset=utf-8"}, err
}

// OpenAPIDocument returns the description of a module (tests validate it).
func (s *Server) OpenAPIDocument(module string) map[string]any {
	m := s.modules[module]
	return s.openAPIDoc(m, m.Resources, m.Name+" module API", true)
}

type obj = map[string]any

func (s *Server) openAPIDoc(m *Module, resources []*resource.Resource, title string, withRoutes bool) map[string]any {
	paths := obj{}
	if withRoutes {
		for p, item := range m.Paths {
			paths[p] = item
		}
	}
	schemas := obj{"Envelope": envelopeSchema(), "ErrorEnvelope": errorEnvelopeSchema(),
		"Status": obj{"type": "string", "enum": []any{"success", "error"}}, "TotalRelation": totalRelationSchema()}
	for _, r := range resources {
		name := schemaName(r)
		schemas[name] = recordSchema(r.Fields, false)
		schemas[name+"Input"] = recordSchema(r.Fields, true)
		schemas[name+"Replace"] = replaceSchema(r.Fields)
		addUnionSchemas(schemas, r.Fields)
		for p, item := range resourcePaths(r, name, s.svc.Registry, schemas) {
			paths[p] = item
		}
	}
	return obj{
		"openapi": "3.1.0",
		"tags":    documentTags(resources, paths),
		"info":    obj{"title": title, "version": m.Version, "description": "Generated from the resource declarations of the " + m.Name + " module."},
		"servers": []any{obj{"url": s.cfg.ModuleBaseURL(m.HostLabel)}, obj{"url": s.cfg.GatewayURL + "/" + m.Name}},
		"paths":   paths,
		"components": obj{
			"schemas":         schemas,
			"securitySchemes": obj{"bearer": obj{"type": "http", "scheme": "bearer", "bearerFormat": "JWT"}},
		},
		"security": []any{obj{"bearer": []any{}}},
	}
}

func schemaName(r *resource.Resource) string {
	return strings.ToUpper(r.Plural[:1]) + r.Plural[1:]
}

func resourcePaths(r *resource.Resource, name string, reg *resource.Registry, schemas obj) obj {
	ref := func(n string) obj { return obj{"$ref": "#/components/schemas/" + n} }
	idParam := obj{"name": "id", "in": "path", "required": true, "schema": obj{"type": "string", "pattern": "^[0-9a-fA-F]{24}$"}}
	if r.Key != "" {
		idParam["schema"] = obj{"type": "string", "minLength": 1}
		idParam["description"] = "the record's id (24 hexadecimal characters) or its " + r.Key + keyParentNote(r)
	}
	one := envelopeOf(ref(name))
	many := envelopeOf(obj{"type": "array", "items": ref(name)})
	body := obj{"required": true, "content": obj{"application/json": obj{"schema": ref(name + "Input")}}}
	// PUT /{plural} names the record by _id in the body; PUT /{plural}/:id accepts it when equal to the path's.
	replaceBody := obj{"required": true, "content": obj{"application/json": obj{"schema": ref(name + "Replace")}}}
	replaceByID := obj{"required": true, "content": obj{"application/json": obj{"schema": obj{"allOf": []any{ref(name + "Replace"), obj{"required": []any{"_id"}}}}}}}
	// Generated clients name their methods after operationId and group them
	// by tag: <module>.<plural>.<verb> is stable as long as the declaration is.
	opID := func(parts ...string) string { return strings.Join(append([]string{r.Module, r.Plural}, parts...), ".") }
	op := func(id, summary, right string, params []any, reqBody obj, ok int, okSchema obj) obj {
		o := obj{"operationId": id, "tags": []any{r.Plural}, "summary": summary,
			"description": "Needs the right `" + right + "`.", "responses": responses(ok, okSchema)}
		// Every answer can be negotiated with ?format= as well as Accept.
		o["parameters"] = append(append([]any{}, params...), formatParam())
		if reqBody != nil {
			o["requestBody"] = reqBody
		}
		return o
	}
	coll := obj{"get": op(opID("list"), "List "+r.Plural, r.Right("view"), listParams(r), nil, 200, many)}
	item := obj{"get": op(opID("get"), "Get one "+r.Title, r.Right("view"), []any{idParam, fieldsParam()}, nil, 200, one)}
	if !r.ReadOnly {
		coll["post"] = op(opID("create"), "Create a "+r.Title, r.Right("create"), nil, body, 201, one)
		coll["put"] = op(opID("replaceFromBody"), "Replace a "+r.Title+" identified by _id in the body", r.Right("edit"), nil, replaceByID, 200, one)
		item["put"] = op(opID("replace"), "Replace a "+r.Title, r.Right("edit"), []any{idParam}, replaceBody, 200, one)
		item["patch"] = op(opID("patch"), "Change fields of a "+r.Title+" (JSON merge patch; null removes)", r.Right("edit"), []any{idParam},
			obj{"required": true, "content": obj{"application/merge-patch+json": obj{"schema": obj{"type": "object"}}, "application/json": obj{"schema": obj{"type": "object"}}}}, 200, one)
		item["delete"] = op(opID("delete"), "Delete a "+r.Title, r.Right("delete"), []any{idParam}, nil, 200, one)
	}
	base := "/" + r.Plural
	out := obj{base: coll, base + "/{id}": item}
	for i := range r.Actions {
		a := &r.Actions[i]
		var ab obj
		if len(a.Body) > 0 {
			ab = obj{"required": anyRequired(a.Body), "content": obj{"application/json": obj{"schema": recordSchema(a.Body, true)}}}
		}
		summary := a.Title
		if a.Event != "" {
			summary += fmt.Sprintf(" (emits %s.%s)", r.Plural, a.Event)
		}
		ok := 200
		if a.Accepted {
			ok = 202
		}
		out[base+"/{id}/actions/"+a.Name] = obj{"post": op(opID(a.Name), summary, r.ActionRight(a), []any{idParam}, ab, ok, envelopeOf(obj{}))}
		if a.Short {
			out[base+"/{id}/"+a.Name] = obj{"post": op(opID(a.Name, "short"), summary+" (the same as .../actions/"+a.Name+")",
				r.ActionRight(a), []any{idParam}, ab, ok, envelopeOf(obj{}))}
		}
	}
	for i := range r.Relations {
		rel := &r.Relations[i]
		if rel.Key == "" {
			continue
		}
		// The sub-resource lists records of its target resource with the
		// target's list parameters; a target that is not active answers 404.
		items, params, right := obj{"type": "object"}, pageParams(), r.Right("view")+"` and `"+reg.RelationRight(rel)
		if t := reg.Get(rel.TargetModule(), rel.TargetPlural()); t != nil {
			// By reference, also for another module's target: generated
			// clients then share one type (oapi-codegen leaves the enums of
			// an inline copy undefined).
			target := schemaName(t)
			if _, ok := schemas[target]; !ok {
				schemas[target] = recordSchema(t.Fields, false)
				addUnionSchemas(schemas, t.Fields)
			}
			items, params = ref(target), listParams(t)
		}
		out[base+"/{id}/"+rel.Rel] = obj{"get": op(opID(rel.Rel, "list"), "List the "+rel.Rel+" of a "+r.Title, right,
			append([]any{idParam}, params...), nil, 200, envelopeOf(obj{"type": "array", "items": items}))}
	}
	return out
}

func responses(ok int, okSchema obj) obj {
	errRef := obj{"description": "error", "content": contentOf(obj{"$ref": "#/components/schemas/ErrorEnvelope"})}
	out := obj{fmt.Sprint(ok): obj{"description": http.StatusText(ok), "content": contentOf(okSchema)}}
	for _, code := range []int{400, 401, 403, 404, 406, 409, 413, 415, 422, 429, 431, 500, 502, 503} {
		out[fmt.Sprint(code)] = obj{"description": http.StatusText(code), "content": errRef["content"]}
	}
	return out
}

func contentOf(schema obj) obj {
	return obj{"application/json": obj{"schema": schema}, "application/yaml": obj{"schema": schema}, "text/csv": obj{"schema": obj{"type": "string"}}}
}

func envelopeOf(payload obj) obj {
	// required again here: generated clients read the parts of an allOf
	// apart, and would otherwise type the payload as possibly missing.
	return obj{"allOf": []any{obj{"$ref": "#/components/schemas/Envelope"}, obj{"type": "object", "required": []any{"payload"}, "properties": obj{"payload": payload}}}}
}

func listParams(r *resource.Resource) []any {
	ps := append(pageParams(), fieldsParam(),
		obj{"name": "sort", "in": "query", "schema": obj{"type": "string"}, "description": "comma list of " + strings.Join(sortableNames(r), ", ") + "; prefix - for descending"},
		obj{"name": "filter", "in": "query", "schema": obj{"type": "string"}, "description": "JSON filter in the MongoDB query language on: " + strings.Join(filterableNames(r), ", ")},
		obj{"name": "count", "in": "query", "schema": obj{"type": "boolean"}, "description": countDescription},
	)
	for _, n := range filterableNames(r) {
		ps = append(ps, obj{"name": n, "in": "query", "schema": obj{"type": "string"}, "description": "shorthand for equality on " + n})
	}
	return ps
}

func pageParams() []any {
	return []any{
		obj{"name": "limit", "in": "query", "schema": obj{"type": "integer", "minimum": 1, "maximum": maxLimit, "default": defaultLimit}},
		obj{"name": "page", "in": "query", "schema": obj{"type": "integer", "minimum": 1, "maximum": 1_000_000, "default": 1}},
	}
}

func formatParam() obj {
	return obj{"name": "format", "in": "query", "schema": obj{"type": "string", "enum": []any{"json", "yaml", "csv"}},
		"description": "output format; overrides the Accept header"}
}

func fieldsParam() obj {
	return obj{"name": "fields", "in": "query", "schema": obj{"type": "string"}, "description": "comma list of fields to return (_id always)"}
}

func filterableNames(r *resource.Resource) []string {
	var out []string
	for _, f := range r.Fields {
		if f.Filter && !f.WriteOnly && !f.Virtual {
			out = append(out, f.Name)
		}
	}
	return out
}

// recordSchema describes a record (input: what clients may send). Both are
// closed: a record holds only declared fields, and a body with another field
// is answered 422.
func recordSchema(fields []resource.Field, input bool) obj {
	props := obj{}
	var required []any
	for i := range fields {
		f := &fields[i]
		if input && (f.ReadOnly || f.Virtual) || !input && f.WriteOnly {
			continue
		}
		props[f.Name] = fieldSchema(f, input)
		if input && f.Required && f.SuppliedBy == "" {
			required = append(required, f.Name)
		}
	}
	s := obj{"type": "object", "properties": props, "additionalProperties": false}
	if len(required) > 0 {
		s["required"] = required
	}
	return s
}

func fieldSchema(f *resource.Field, input bool) obj {
	var s obj
	switch f.Type {
	case resource.TString:
		s = stringSchema(f, input)
	case resource.TNumber:
		s = rangeSchema(obj{"type": "number"}, f.Range)
	case resource.TInteger:
		s = rangeSchema(obj{"type": "integer"}, f.Range)
	case resource.TBool:
		s = obj{"type": "boolean"}
	case resource.TDate:
		s = obj{"type": "string", "format": "date-time"}
	case resource.TObjectID:
		s = obj{"type": "string", "pattern": "^[0-9a-fA-F]{24}$"}
	case resource.TObject:
		if f.Union != nil {
			s = unionSchema(f.Union, input)
		} else if f.FreeForm {
			s = obj{"type": "object", "additionalProperties": true}
		} else {
			s = recordSchema(f.Fields, input)
		}
	case resource.TArray:
		items := obj{}
		if f.Items != nil {
			items = fieldSchema(f.Items, input)
		}
		s = obj{"type": "array", "items": items}
		if f.MinItems > 0 {
			s["minItems"] = f.MinItems
		}
		if f.MaxItems > 0 {
			s["maxItems"] = f.MaxItems
		}
	default:
		s = obj{}
	}
	if input && f.Default != nil {
		s["default"] = f.Default
	}
	if !input && !f.Required && f.Type != "" {
		// Absent optional fields are simply missing, but PATCH may clear them with null.
		s = obj{"anyOf": []any{s, obj{"type": "null"}}}
	}
	desc := f.Description
	if rule := formatRule(f); rule != "" {
		desc = strings.TrimSpace(desc + " " + rule)
	}
	if f.ReadOnly {
		desc = strings.TrimSpace(desc + " (set by the platform)")
	}
	if f.Virtual {
		desc = strings.TrimSpace(desc + " (computed, read-only)")
	}
	if desc != "" {
		s["description"] = desc
	}
	return s
}

// rangeSchema publishes a number field's bounds.
func rangeSchema(s obj, r *resource.Range) obj {
	if r != nil {
		s["minimum"], s["maximum"] = r.Min, r.Max
	}
	return s
}

// stringSchema says in JSON Schema what validation enforces on a string
// field: a generated client (or an example built from the schema alone)
// must not send what the server refuses.
func stringSchema(f *resource.Field, input bool) obj {
	max := f.MaxLen
	if max == 0 {
		max = resource.DefaultMaxLen
	}
	s := obj{"type": "string", "maxLength": max}
	if input && f.Required {
		// A blank string (whitespace only) is refused as missing.
		s["minLength"], s["pattern"] = 1, `\S`
	}
	if len(f.Enum) > 0 {
		s["enum"] = toAny(f.Enum)
	}
	switch f.Format {
	case resource.FEmail:
		s["format"] = "email"
		s["examples"] = []any{"name@example.com"}
	case resource.FURL:
		s["format"], s["pattern"] = "uri", `^https?://[^/?#]+`
		s["examples"] = []any{"https://example.com/picture.png"}
	case resource.FPhone:
		// No valid number is shorter than 6 digits (+98 9601) nor longer than 15.
		s["pattern"] = `^\+[1-9][0-9]{5,14}$`
		s["examples"] = []any{"+4930123456"}
	case resource.FCountry:
		s["enum"] = toAny(resource.CountryCodes())
	case resource.FLocale:
		s["minLength"], s["maxLength"] = 2, min(max, 12)
		s["examples"] = []any{"en", "de-CH"}
	}
	return s
}

// formatRule describes what a format's schema cannot say.
func formatRule(f *resource.Field) string {
	switch f.Format {
	case resource.FEmail:
		return "An address as name@example.com: no display name, and a dot in the domain."
	case resource.FURL:
		return "An absolute http or https URL."
	case resource.FPhone:
		return "E.164 (+, country code, number; no spaces), and a number valid for its country by libphonenumber's " +
			"metadata: an assigned country code with a number of an allowed length and prefix, e.g. +4930123456 (+385 alone is refused)."
	case resource.FCountry:
		return "An assigned ISO 3166-1 alpha-2 code."
	}
	return ""
}

// replaceSchema is the body of a PUT: the input fields plus the record's
// _id (PUT /{plural} needs it, PUT /{plural}/{id} accepts it when equal).
func replaceSchema(fields []resource.Field) obj {
	s := recordSchema(fields, true)
	s["properties"].(obj)["_id"] = obj{"type": "string", "pattern": "^[0-9a-fA-F]{24}$", "description": "the record's id"}
	return s
}

func toAny(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

func envelopeSchema() obj {
	link := obj{"type": "object", "required": []any{"rel", "href", "method"}, "properties": obj{
		"rel": obj{"type": "string"}, "href": obj{"type": "string"}, "method": obj{"type": "string"},
		"title": obj{"type": "string"}, "types": obj{"type": "array", "items": obj{"type": "string"}},
		"action": obj{"type": "string"}, "right": obj{"type": "string"}}}
	str := obj{"type": "string"}
	return obj{"type": "object", "required": []any{"payload", "meta"}, "properties": obj{
		"payload": obj{},
		"meta": obj{"type": "object", "required": []any{"links", "relations", "actions", "debugId", "errors", "version", "rateLimit", "responseTime", "code", "status", "error"},
			"properties": obj{
				"links": obj{"type": "array", "items": link}, "relations": obj{"type": "array", "items": link},
				"actions": obj{"type": "array", "items": link}, "debugId": str,
				"errors":       obj{"type": "array", "items": obj{"type": "object", "required": []any{"code", "message"}, "properties": obj{"code": str, "message": str, "field": str, "line": obj{"type": "integer"}, "column": obj{"type": "integer"}}}},
				"version":      obj{"type": "object", "required": []any{"host", "core"}, "properties": obj{"host": str, "core": str}},
				"rateLimit":    obj{"type": "object", "properties": obj{"limit": str, "reset": str, "remaining": str, "resetDate": str}},
				"responseTime": obj{"type": "number", "description": "how long the platform took to answer, in milliseconds (with microseconds)"}, "code": obj{"type": "integer"},
				// A named schema: oapi-codegen leaves an inline enum undefined when
				// allOf merges the envelope into each answer's YAML type.
				"status": obj{"$ref": "#/components/schemas/Status"}, "error": obj{"type": "boolean"},
				"page": obj{"type": "integer"}, "limit": obj{"type": "integer"}, "total": obj{"type": "integer", "minimum": 0},
				"totalRelation": obj{"$ref": "#/components/schemas/TotalRelation"},
				"warnings":      obj{"type": "array", "items": obj{"type": "object", "required": []any{"code", "message"}, "properties": obj{"code": str, "message": str, "field": str}}},
			}},
	}}
}

func errorEnvelopeSchema() obj {
	return obj{"allOf": []any{obj{"$ref": "#/components/schemas/Envelope"}, obj{"type": "object", "properties": obj{"payload": obj{"type": "null"}}}}}
}

// documentTags lists the tags operations use, with descriptions: one per
// resource, then any other tag a module route uses (generated clients make
// a class or namespace of each).
func documentTags(resources []*resource.Resource, paths obj) []any {
	var out []any
	seen := map[string]bool{}
	for _, r := range resources {
		seen[r.Plural] = true
		out = append(out, obj{"name": r.Plural, "description": tagDescription(r)})
	}
	for _, p := range sortedKeys(paths) {
		for _, m := range sortedKeys(paths[p].(obj)) {
			tags, _ := paths[p].(obj)[m].(obj)["tags"].([]any)
			for _, t := range tags {
				if name, _ := t.(string); name != "" && !seen[name] {
					seen[name] = true
					out = append(out, obj{"name": name, "description": "Routes of the module beyond its resources."})
				}
			}
		}
	}
	return out
}

func tagDescription(r *resource.Resource) string {
	if r.ReadOnly {
		return "The " + r.Title + " records (read-only: written by the platform)."
	}
	return "The " + r.Title + " records."
}

func sortedKeys(m obj) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// ModuleNames lists the mounted modules, sorted (tests walk their documents).
func (s *Server) ModuleNames() []string {
	names := make([]string, 0, len(s.modules))
	for n := range s.modules {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// PublicOperation describes an unauthenticated route of a module (for
// Module.Paths): a free-form JSON object body, an envelope answer with
// status ok, the usual error answers, and no security requirement.
func PublicOperation(operationID, tag, summary, description string, pathParams []string, ok int) map[string]any {
	params := []any{} // an array even without path parameters: null is invalid OpenAPI
	for _, p := range pathParams {
		params = append(params, obj{"name": p, "in": "path", "required": true, "schema": obj{"type": "string"}})
	}
	return obj{
		"operationId": operationID, "tags": []any{tag},
		"summary": summary, "description": description, "parameters": params, "security": []any{},
		"requestBody": obj{"required": false, "content": obj{"application/json": obj{"schema": obj{"type": "object"}}}},
		"responses":   responses(ok, envelopeOf(obj{"type": "object"})),
	}
}

// anyRequired: a body whose fields are all optional may be left out.
func anyRequired(fields []resource.Field) bool {
	for _, f := range fields {
		if f.Required {
			return true
		}
	}
	return false
}

// keyParentNote tells how a key unique per parent is looked up.
func keyParentNote(r *resource.Resource) string {
	within := r.Field(r.Key).UniqueWithin
	if within == "" {
		return ""
	}
	return fmt.Sprintf(" (unique per %[1]s: add ?%[1]s= to look in one %[1]s; without it, a %[2]s that several have is a 400)", within, r.Key)
}

// Operation describes an authenticated GET route of a module (for
// Module.Paths): its query parameters, an envelope answer holding payload
// with status 200, the usual error answers, and the bearer requirement
// the document declares for every route.
func Operation(operationID, tag, summary, description string, params []any, payload map[string]any) map[string]any {
	return obj{
		"operationId": operationID, "tags": []any{tag}, "summary": summary, "description": description,
		"parameters": append(append([]any{}, params...), formatParam()), "responses": responses(200, envelopeOf(payload)),
	}
}
