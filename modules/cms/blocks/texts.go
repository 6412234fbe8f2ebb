package blocks

import (
	"fmt"

	"platform/kernel/resource"
)

// Text is one human-readable string of a page's blocks: what a translator
// translates.
type Text struct {
	Path     string // blocks[2].items[0].answer
	Value    string
	Markdown bool // the value is Markdown: translate the text, keep the syntax
}

// codes are string fields that hold a code rather than words, which the
// declaration cannot tell from prose: they are never translated.
var codes = map[string]bool{"currency": true}

// isText tells the declared strings a person reads: those without a
// format (URLs) or enum (settings) other than Markdown, and not codes.
// Ids are of type objectid, so never text.
func isText(f *resource.Field) bool {
	return f.Type == resource.TString && len(f.Enum) == 0 && !codes[f.Name] &&
		(f.Format == "" || f.Format == resource.FMarkdown)
}

// Texts lists every non-empty human-readable string of the blocks, in
// list and declaration order; which fields those are follows from the
// declaration (isText). A snippet's texts are the snippet's, not the
// page's.
func Texts(blocks []any) []Text {
	var out []Text
	eachString(blocks, isText, func(path string, f *resource.Field, value string, _ func(string)) {
		out = append(out, Text{Path: path, Value: value, Markdown: f.Format == resource.FMarkdown})
	})
	return out
}

// SetTexts returns a deep copy of blocks with the strings at the texts'
// paths replaced by their values; a path that names no text of the
// blocks is ignored, so a stale translation cannot write elsewhere.
func SetTexts(blocks []any, texts []Text) []any {
	values := make(map[string]string, len(texts))
	for _, t := range texts {
		values[t.Path] = t.Value
	}
	out, _ := deepCopy(blocks).([]any)
	eachString(out, isText, func(path string, _ *resource.Field, _ string, set func(string)) {
		if v, ok := values[path]; ok {
			set(v)
		}
	})
	return out
}

// visitor gets a string's path, field, value and a setter for it.
type visitor func(path string, f *resource.Field, value string, set func(string))

// walker walks the declared strings of blocks that keep picks.
type walker struct {
	keep  func(*resource.Field) bool
	visit visitor
}

// eachString calls visit for every non-empty string of the blocks whose
// field keep picks, in list and declaration order.
func eachString(blocks []any, keep func(*resource.Field) bool, visit visitor) {
	w := walker{keep, visit}
	u := union()
	for i, b := range blocks {
		doc, _ := b.(map[string]any)
		typ, _ := doc[tag].(string)
		if v := u.Variant(typ); v != nil {
			w.fields(u.VariantFields(v), doc, fmt.Sprintf("blocks[%d].", i))
		}
	}
}

func (w walker) fields(fields []resource.Field, doc map[string]any, prefix string) {
	for i := range fields {
		f := &fields[i]
		switch f.Type {
		case resource.TString:
			if s, ok := doc[f.Name].(string); ok && s != "" && w.keep(f) {
				w.visit(prefix+f.Name, f, s, func(v string) { doc[f.Name] = v })
			}
		case resource.TObject:
			if sub, ok := doc[f.Name].(map[string]any); ok {
				w.fields(f.Fields, sub, prefix+f.Name+".")
			}
		case resource.TArray:
			list, _ := doc[f.Name].([]any)
			w.list(f.Items, list, prefix+f.Name)
		}
	}
}

// list walks an array: its strings, or its objects' fields.
func (w walker) list(item *resource.Field, list []any, path string) {
	if item == nil {
		return
	}
	for j, e := range list {
		p := fmt.Sprintf("%s[%d]", path, j)
		switch x := e.(type) {
		case string:
			if x != "" && w.keep(item) {
				w.visit(p, item, x, func(v string) { list[j] = v })
			}
		case map[string]any:
			w.fields(item.Fields, x, p+".")
		}
	}
}

// deepCopy copies the maps and slices of a document; other values are
// immutable and shared.
func deepCopy(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = deepCopy(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = deepCopy(e)
		}
		return out
	}
	return v
}
