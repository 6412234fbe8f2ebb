package cms

import (
	"context"

	"platform/kernel/resource"
	"platform/kernel/store"
	"platform/kernel/template"
	"platform/modules/cms/pages"
)

// generatable are the block types a language model may propose: all but
// snippet, whose id it cannot know.
func generatable() []string {
	var out []string
	for _, t := range blockUnion().TagValues() {
		if t != "snippet" {
			out = append(out, t)
		}
	}
	return out
}

// AILibraries declares /ailibraries: prepared prompts for generate-blocks.
// Rights: cms.ailibraries.{view|create|edit|delete}.
func AILibraries() *resource.Resource {
	return &resource.Resource{
		Plural: pages.AILibraries, Title: "AI library",
		Fields: []resource.Field{
			{Name: "name", Type: resource.TString, Required: true, Unique: true, MaxLen: 200, Filter: true, Sort: true},
			{Name: "description", Type: resource.TString, MaxLen: 2000},
			{Name: "prompt", Type: resource.TString, Required: true, MaxLen: 20_000,
				Description: "the instructions for the model; {{topic}} is the action's topic, {{page.title}}, {{page.locale}} and {{page.slug}} the page's. " +
					"The platform adds the block types' fields and the answer's JSON form itself"},
			{Name: "blockTypes", Type: resource.TArray, Required: true, Items: &resource.Field{Type: resource.TString, Enum: generatable()},
				Filter: true, Description: "the block types the model may propose (1 to 10 of them)"},
			{Name: "maxBlocks", Type: resource.TInteger, Default: int64(10), Description: "the most blocks one call may add, 1 to 50"},
			{Name: "model", Type: resource.TObject, Description: "model settings; absent ones are the provider's defaults (PLATFORM_LLM_MODEL)",
				Fields: []resource.Field{
					{Name: "name", Type: resource.TString, MaxLen: 200, Description: "the provider's model name, such as gpt-4o-mini"},
					{Name: "temperature", Type: resource.TNumber, Description: "0 to 2"},
					{Name: "maxTokens", Type: resource.TInteger, Description: "the longest answer, 1 to 32768 tokens"},
				}},
		},
		DefaultSort: []store.SortField{{Field: "name"}},
		Hooks:       resource.Hooks{BeforeWrite: checkLibrary},
	}
}

// checkLibrary checks the bounds and the prompt's template paths.
func checkLibrary(_ context.Context, w *resource.Write) error {
	var errs []resource.ErrorEntry
	fail := func(field, format string, args ...any) {
		errs = append(errs, resource.FieldError(resource.CodeInvalid, field, format, args...))
	}
	if n := len(store.Strings(w.New["blockTypes"])); n < 1 || n > 10 {
		fail("blockTypes", "name 1 to 10 block types (%d given)", n)
	}
	if n, _ := w.New["maxBlocks"].(int64); n < 1 || n > 50 {
		fail("maxBlocks", "maxBlocks is 1 to 50")
	}
	model, _ := w.New["model"].(store.Doc)
	if t, ok := asFloat(model["temperature"]); ok && (t < 0 || t > 2) {
		fail("model.temperature", "the temperature is 0 to 2")
	}
	if n, ok := model["maxTokens"].(int64); ok && (n < 1 || n > 32768) {
		fail("model.maxTokens", "maxTokens is 1 to 32768")
	}
	if err := checkPromptPaths(str(w.New["prompt"])); err != "" {
		fail("prompt", "%s", err)
	}
	if len(errs) > 0 {
		return resource.Invalid(errs...)
	}
	return nil
}

// checkPromptPaths refuses {{paths}} the prompt's scope never holds.
func checkPromptPaths(prompt string) string {
	refs, err := template.Refs(prompt)
	if err != nil {
		return err.Error()
	}
	for _, r := range refs {
		if template.Lookup(promptScope("t", store.Doc{"title": "t", "locale": "en", "slug": "s"}), r.Path) == nil {
			return "{{" + r.Path + "}} is not known: use {{topic}}, {{page.title}}, {{page.locale}} or {{page.slug}}"
		}
	}
	return ""
}

func promptScope(topic string, page store.Doc) map[string]any {
	return map[string]any{"topic": topic, "page": map[string]any{"title": page["title"], "locale": page["locale"], "slug": page["slug"]}}
}

func asFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case int64:
		return float64(x), true
	}
	return 0, false
}
