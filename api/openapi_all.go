package api

import (
	"bytes"
	"encoding/json"
	"reflect"
	"slices"
	"strings"
)

// The combined description: every module's document in one, at
// /openapi.json and /openapi.yaml of the gateway, beside the per-module
// ones, for clients and generators that want the whole platform at once.

func (s *Server) allOpenAPI(format string) HandlerFunc {
	return func(*Request) (*Response, error) {
		return openAPIResponse(s.OpenAPIAll(), format)
	}
}

// OpenAPIAll is one OpenAPI 3.1 document of every mounted module: each
// module's paths under its gateway prefix (/crm/consumers), the schemas
// and tags of all, and x-tagGroups (one group of tags per module, which
// the reference and documentation tools read). A schema name two modules
// define differently is renamed in the second (Crm...), so neither
// shadows the other.
func (s *Server) OpenAPIAll() map[string]any {
	paths, schemas := obj{}, obj{}
	tags, groups := []any{}, []any{}
	var versions []string
	for _, name := range s.ModuleNames() {
		doc := renameCollisions(name, s.OpenAPIDocument(name), schemas)
		for p, item := range doc["paths"].(obj) {
			paths["/"+name+p] = item
		}
		for n, sc := range doc["components"].(obj)["schemas"].(obj) {
			schemas[n] = sc
		}
		var names []any
		for _, t := range doc["tags"].([]any) {
			tags = append(tags, t)
			names = append(names, t.(obj)["name"])
		}
		groups = append(groups, obj{"name": name, "tags": names})
		if v := doc["info"].(obj)["version"].(string); !slices.Contains(versions, v) {
			versions = append(versions, v)
		}
	}
	return obj{
		"openapi": "3.1.0",
		"info": obj{"title": "Platform API", "version": strings.Join(versions, "+"),
			"description": "Every module of the platform in one document, generated from the resource declarations. " +
				"Each module also publishes its own at /<module>/openapi.json."},
		"servers":     []any{obj{"url": s.cfg.GatewayURL}},
		"tags":        tags,
		"x-tagGroups": groups,
		"paths":       paths,
		"components": obj{
			"schemas":         schemas,
			"securitySchemes": obj{"bearer": obj{"type": "http", "scheme": "bearer", "bearerFormat": "JWT"}},
		},
		"security": []any{obj{"bearer": []any{}}},
	}
}

// renameCollisions returns module's document with every schema that
// schemas already holds differently renamed, and its references with it.
func renameCollisions(module string, doc obj, schemas obj) obj {
	var clash []string
	for n, sc := range doc["components"].(obj)["schemas"].(obj) {
		if prev, ok := schemas[n]; ok && !reflect.DeepEqual(prev, sc) {
			clash = append(clash, n)
		}
	}
	if len(clash) == 0 {
		return doc
	}
	b, err := json.Marshal(doc)
	if err != nil {
		return doc
	}
	prefix := strings.ToUpper(module[:1]) + module[1:]
	for _, n := range clash {
		b = bytes.ReplaceAll(b, []byte(`"#/components/schemas/`+n+`"`), []byte(`"#/components/schemas/`+prefix+n+`"`))
	}
	var out obj
	if json.Unmarshal(b, &out) != nil {
		return doc
	}
	renamed := out["components"].(obj)["schemas"].(obj)
	for _, n := range clash {
		renamed[prefix+n] = renamed[n]
		delete(renamed, n)
	}
	return out
}
