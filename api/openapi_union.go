package api

import "platform/kernel/resource"

// unionSchema is a union field's schema: a oneOf of references to one
// schema per variant, with the discriminator mapping its tag to them
// (OpenAPI wants references there, so generated clients get one type per
// variant). addUnionSchemas puts the variants' schemas in the document.
func unionSchema(u *resource.Union, input bool) obj {
	suffix := ""
	if input {
		suffix = "Input"
	}
	var refs []any
	mapping := obj{}
	for i := range u.Variants {
		ref := "#/components/schemas/" + u.SchemaName(&u.Variants[i]) + suffix
		refs = append(refs, obj{"$ref": ref})
		mapping[u.Variants[i].Tag] = ref
	}
	return obj{"oneOf": refs, "discriminator": obj{"propertyName": u.Tag, "mapping": mapping}}
}

// addUnionSchemas adds the variant schemas of every union among fields,
// at any depth, as output and as input schemas.
func addUnionSchemas(schemas obj, fields []resource.Field) {
	for i := range fields {
		addUnionsOf(schemas, &fields[i])
	}
}

func addUnionsOf(schemas obj, f *resource.Field) {
	if f.Items != nil {
		addUnionsOf(schemas, f.Items)
	}
	addUnionSchemas(schemas, f.Fields)
	u := f.Union
	if u == nil {
		return
	}
	for i := range u.Variants {
		v := &u.Variants[i]
		name, fields := u.SchemaName(v), u.VariantFields(v)
		if _, done := schemas[name]; done {
			continue
		}
		out, in := recordSchema(fields, false), recordSchema(fields, true)
		if v.Description != "" {
			out["description"], in["description"] = v.Description, v.Description
		}
		schemas[name], schemas[name+"Input"] = out, in
		addUnionSchemas(schemas, fields)
	}
}
