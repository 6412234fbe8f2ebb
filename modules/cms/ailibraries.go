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
				MinItems: 1, MaxItems: 10, Filter: true, Description: "the block types the model may propose"},
			{Name: "maxBlocks", Type: resource.TInteger, Default: int64(10), Range: resource.Between(1, 50), Description: "the most blocks one call may add"},
			{Name: "model", Type: resource.TObject, Description: "model settings; absent ones are the provider's defaults (PLATFORM_LLM_MODEL)",
				Fields: []resource.Field{
					{Name: "name", Type: resource.TString, MaxLen: 200, Description: "the provider's model name, such as gpt-4o-mini"},
					{Name: "temperature", Type: resource.TNumber, Range: resource.Between(0, 2)},
					{Name: "maxTokens", Type: resource.TInteger, Range: resource.Between(1, 32768), Description: "the longest answer in tokens"},
				}},
		},
		DefaultSort: []store.SortField{{Field: "name"}},
		Hooks:       resource.Hooks{BeforeWrite: checkLibrary},
	}
}

// checkLibrary checks the prompt's template paths (the declaration
// bounds the rest).
func checkLibrary(_ context.Context, w *resource.Write) error {
	if err := checkPromptPaths(str(w.New["prompt"])); err != "" {
		return resource.Invalid(resource.FieldError(resource.CodeInvalid, "prompt", "%s", err))
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
