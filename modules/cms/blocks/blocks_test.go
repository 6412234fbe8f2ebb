package blocks

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"platform/kernel/resource"
	"platform/kernel/store"
)

func TestEveryTypeIsValid(t *testing.T) {
	blocks := valid(t, everyType)
	require.Len(t, blocks, len(union().Variants))
	hero := blocks[0].(store.Doc)
	assert.Equal(t, true, hero["visible"], "visible defaults to true")
	assert.Equal(t, int64(1), hero["order"])
	plans := blocks[8].(store.Doc)["plans"].([]any)
	assert.Equal(t, 9.9, plans[0].(store.Doc)["price"])
	assert.Equal(t, int64(29), plans[1].(store.Doc)["price"])
}

func TestEveryVariantIsDescribed(t *testing.T) {
	for _, v := range union().Variants {
		assert.NotEmpty(t, v.Description, v.Tag)
		for _, f := range v.Fields {
			assert.NotEmpty(t, f.Description, "%s.%s", v.Tag, f.Name)
		}
	}
}

func TestValidation(t *testing.T) {
	cases := []struct {
		name, block string
		fields      []string // failing fields; none: valid
	}{
		{"common fields", `{"type":"cta","label":"x","url":"https://a.test","_id":"65a1b2c3d4e5f6a7b8c9d0e1","order":-3,"visible":false,
			"responsiveSettings":{"mobile":{"visible":false,"alignment":"center","spacing":"large"},"desktop":{"spacing":"none"}}}`, nil},
		{"bad common fields", `{"type":"cta","label":"x","url":"https://a.test","_id":"nope","order":1.5,"visible":"no",
			"responsiveSettings":{"mobile":{"alignment":"middle","spacing":"huge"},"watch":{}}}`,
			[]string{"_id", "order", "visible", "responsiveSettings.mobile.alignment", "responsiveSettings.mobile.spacing", "responsiveSettings.watch"}},
		{"no type", `{"headline":"x"}`, []string{"type"}},
		{"unknown type", `{"type":"video"}`, []string{"type"}},
		{"another type's field", `{"type":"text","body":"x","headline":"y"}`, []string{"headline"}},

		{"hero minimal", `{"type":"hero","headline":"Hi"}`, nil},
		{"hero", `{"type":"hero","headline":" ","heroImage":"javascript:alert(1)"}`, []string{"headline", "heroImage"}},
		{"hero too long", `{"type":"hero","headline":"` + strings.Repeat("x", lineLen+1) + `"}`, []string{"headline"}},
		{"text", `{"type":"text"}`, []string{"body"}},
		{"image", `{"type":"image","url":"/relative.png"}`, []string{"url", "alt"}},
		{"gallery empty", `{"type":"gallery","images":[]}`, []string{"images"}},
		{"gallery too long", `{"type":"gallery","images":[` + repeat(`{"url":"https://i.test/x.png","alt":"x"}`, MaxImages+1) + `]}`, []string{"images"}},
		{"gallery image", `{"type":"gallery","images":[{"url":"https://i.test/x.png"}]}`, []string{"images[0].alt"}},
		{"cta", `{"type":"cta","label":"Go","url":"data:text/html,x"}`, []string{"url"}},
		{"form", `{"type":"form","formId":"123"}`, []string{"formId"}},
		{"embed vimeo", `{"type":"embed","url":"https://vimeo.com/76979871"}`, nil},
		{"embed provider not allowed", `{"type":"embed","url":"https://evil.test/watch?v=dQw4w9WgXcQ"}`, []string{"url"}},
		{"embed bad id", `{"type":"embed","url":"https://www.youtube.com/watch?v=<script>"}`, []string{"url"}},
		{"accordion", `{"type":"accordion","items":[{"question":"Q"}]}`, []string{"items[0].answer"}},
		{"accordion too long", `{"type":"accordion","items":[` + repeat(`{"question":"Q","answer":"A"}`, MaxItems+1) + `]}`, []string{"items"}},
		{"pricing", `{"type":"pricing","plans":[{"name":"P","price":-1,"currency":"eur","period":"week","cta":{"label":"B"}}]}`,
			[]string{"plans[0].price", "plans[0].currency", "plans[0].period", "plans[0].cta.url"}},
		{"pricing infinite", `{"type":"pricing","plans":[{"name":"P","price":1e999,"currency":"EUR","period":"once"}]}`, []string{"plans[0].price"}},
		{"pricing too many", `{"type":"pricing","plans":[` + repeat(`{"name":"P","price":0,"currency":"USD","period":"once"}`, MaxPlans+1) + `]}`, []string{"plans"}},
		{"pricing features", `{"type":"pricing","plans":[{"name":"P","price":0,"currency":"USD","period":"once","features":[` + repeat(`"f"`, MaxFeatures+1) + `]}]}`, []string{"plans[0].features"}},
		{"testimonials", `{"type":"testimonials","items":[{"quote":"Q","avatar":"ftp://x.test/a.png"}]}`, []string{"items[0].author", "items[0].avatar"}},
		{"testimonials empty", `{"type":"testimonials","items":[]}`, []string{"items"}},
		{"snippet", `{"type":"snippet"}`, []string{"snippetId"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, errs := validate(t, "["+c.block+"]")
			want := make([]string, len(c.fields))
			for i, f := range c.fields {
				want[i] = "blocks[0]." + f
			}
			assert.ElementsMatch(t, want, fields(errs), "%v", errs)
		})
	}
}

func repeat(s string, n int) string { return strings.TrimSuffix(strings.Repeat(s+",", n), ",") }

func TestCheckNamesTheBlockOfTheRawList(t *testing.T) {
	_, errs := validate(t, `[{"type":"nope"},{"type":"embed","url":"https://evil.test/"}]`)
	assert.ElementsMatch(t, []string{"blocks[0].type", "blocks[1].url"}, fields(errs))
}

func TestCheckRefusesTooManyBlocksAndRepeatedIDs(t *testing.T) {
	id := `"_id":"65a1b2c3d4e5f6a7b8c9d0e1"`
	_, errs := validate(t, `[{"type":"text","body":"a",`+id+`},{"type":"text","body":"b"},{"type":"text","body":"c",`+id+`}]`)
	assert.Equal(t, []string{"blocks[2]._id"}, fields(errs))
	_, errs = validate(t, "["+repeat(`{"type":"text","body":"a"}`, MaxBlocks+1)+"]")
	assert.Equal(t, []string{"blocks"}, fields(errs))
	for _, e := range errs {
		assert.Equal(t, resource.CodeInvalid, e.Code)
	}
}

func TestCheckReadsStoredValues(t *testing.T) {
	blocks := []any{store.Doc{"type": "pricing", "plans": []any{store.Doc{"price": int64(-2), "currency": "EUR"}}}}
	assert.Equal(t, []string{"blocks[0].plans[0].price"}, fields(Check(blocks)))
}

func TestAssignIDsKeepsGivenOnes(t *testing.T) {
	blocks := valid(t, `[{"type":"text","body":"a","_id":"65A1B2C3D4E5F6A7B8C9D0E1"},{"type":"text","body":"b"},{"type":"text","body":"c"}]`)
	n := 0
	AssignIDs(blocks, func() string { n++; return fmt.Sprintf("%024d", n) })
	assert.Equal(t, "65a1b2c3d4e5f6a7b8c9d0e1", blocks[0].(store.Doc)["_id"], "validation lowercases a sent id")
	assert.Equal(t, fmt.Sprintf("%024d", 1), blocks[1].(store.Doc)["_id"])
	assert.Equal(t, fmt.Sprintf("%024d", 2), blocks[2].(store.Doc)["_id"])
	AssignIDs(blocks, store.NewID)
	assert.Equal(t, fmt.Sprintf("%024d", 2), blocks[2].(store.Doc)["_id"])
}

func TestFieldIsTheBlocksArray(t *testing.T) {
	f := Field()
	assert.Equal(t, "blocks", f.Name)
	assert.Equal(t, resource.TArray, f.Type)
	require.NotNil(t, f.Items.Union)
	assert.Equal(t, "type", f.Items.Union.Tag)
	assert.Equal(t, []string{"accordion", "cta", "embed", "form", "gallery", "hero", "image", "pricing", "snippet", "testimonials", "text"},
		f.Items.Union.TagValues())
}
