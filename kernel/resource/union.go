package resource

import (
	"sort"
	"strings"
)

// Union declares an object field whose shape depends on one of its
// string fields, the tag (a CMS block's type): the object holds Common
// fields plus the fields of the variant its tag names. OpenAPI publishes
// it as a oneOf of one schema per variant with a discriminator, so a
// generated client gets one type per variant.
type Union struct {
	// Name is the schema name of the union; a variant's schema is its
	// Title-cased tag followed by Name (HeroBlock).
	Name     string
	Tag      string
	Common   []Field
	Variants []Variant
}

// Variant is one shape of a union.
type Variant struct {
	Tag         string
	Description string
	Fields      []Field
}

// TagValues are the variants' tags, sorted.
func (u *Union) TagValues() []string {
	tags := make([]string, len(u.Variants))
	for i, v := range u.Variants {
		tags[i] = v.Tag
	}
	sort.Strings(tags)
	return tags
}

// Variant is the variant of a tag, or nil.
func (u *Union) Variant(tag string) *Variant {
	for i := range u.Variants {
		if u.Variants[i].Tag == tag {
			return &u.Variants[i]
		}
	}
	return nil
}

// VariantFields are every field an object of the variant holds: the tag,
// the common fields and the variant's own.
func (u *Union) VariantFields(v *Variant) []Field {
	tag := Field{Name: u.Tag, Type: TString, Required: true, Enum: []string{v.Tag}, Filter: true,
		Description: "the discriminator: " + strings.Join(u.TagValues(), ", ")}
	fields := append([]Field{tag}, u.Common...)
	return append(fields, v.Fields...)
}

// SchemaName is the schema name of a variant (HeroBlock).
func (u *Union) SchemaName(v *Variant) string {
	return strings.ToUpper(v.Tag[:1]) + v.Tag[1:] + u.Name
}

// union validates an object of a union field: its tag first, then the
// fields of the variant the tag names.
func (v *validator) union(f *Field, raw any, path string, m mode) (any, bool) {
	o, ok := raw.(map[string]any)
	if !ok {
		v.fail(CodeType, path, "field %q must be an object", path)
		return nil, false
	}
	tagPath := path + "." + f.Union.Tag
	tag, _ := o[f.Union.Tag].(string)
	if o[f.Union.Tag] == nil {
		v.fail(CodeRequired, tagPath, "field %q is required: one of %s", tagPath, strings.Join(f.Union.TagValues(), ", "))
		return nil, false
	}
	variant := f.Union.Variant(tag)
	if variant == nil {
		v.fail(CodeEnum, tagPath, "field %q must be one of %s", tagPath, strings.Join(f.Union.TagValues(), ", "))
		return nil, false
	}
	sub := m
	if sub == modePatch {
		sub = modeReplace
	}
	return v.object(f.Union.VariantFields(variant), o, path+".", sub), true
}
