package resource_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"

	"platform/kernel/resource"
	"platform/kernel/store"
)

func blockField() *resource.Field {
	return &resource.Field{Name: "block", Type: resource.TObject, Union: &resource.Union{Name: "Block", Tag: "type",
		Common: []resource.Field{{Name: "visible", Type: resource.TBool, Default: true}},
		Variants: []resource.Variant{
			{Tag: "cta", Fields: []resource.Field{{Name: "label", Type: resource.TString, Required: true}, {Name: "url", Type: resource.TString, Format: resource.FURL, Required: true}}},
			{Tag: "text", Fields: []resource.Field{{Name: "body", Type: resource.TString}}},
		}}}
}

func TestUnionValidatesTheVariantItsTagNames(t *testing.T) {
	cases := []struct {
		name, body string
		fields     []string // failing fields; none: valid
	}{
		{"good cta", `{"type":"cta","label":"Buy","url":"https://example.com"}`, nil},
		{"good text gets the common default", `{"type":"text","body":"# Hi"}`, nil},
		{"missing tag", `{"label":"Buy"}`, []string{"b.type"}},
		{"unknown tag", `{"type":"video"}`, []string{"b.type"}},
		{"tag not a string", `{"type":3}`, []string{"b.type"}},
		{"another variant's field", `{"type":"text","label":"x"}`, []string{"b.label"}},
		{"variant rules apply", `{"type":"cta","url":"javascript:alert(1)"}`, []string{"b.label", "b.url"}},
		{"common rules apply", `{"type":"text","visible":"yes"}`, []string{"b.visible"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var raw any
			assert.NoError(t, json.Unmarshal([]byte(c.body), &raw))
			out, errs := resource.ValidateValue(blockField(), raw, "b")
			var got []string
			for _, e := range errs {
				got = append(got, e.Field)
			}
			assert.ElementsMatch(t, c.fields, got)
			if len(c.fields) == 0 {
				assert.Equal(t, true, out.(store.Doc)["visible"], "the common field's default")
			}
		})
	}
}
