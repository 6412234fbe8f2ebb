package cms

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"platform/kernel/jsonlimit"
	"platform/kernel/llm"
	"platform/kernel/resource"
	"platform/kernel/store"
	"platform/kernel/template"
	"platform/modules/cms/blocks"
	"platform/modules/cms/pages"
)

func generateBody() []resource.Field {
	return []resource.Field{
		{Name: "libraryId", Type: resource.TObjectID, Required: true, Description: "the AI library whose prompt is used"},
		{Name: "topic", Type: resource.TString, Required: true, MaxLen: 2000, Description: "what the blocks are about"},
	}
}

func blockUnion() *resource.Union { return blocks.Field().Items.Union }

// generateBlocks asks the language model for blocks and appends them to
// the page: only an answer whose every block is valid is stored.
func (d Deps) generateBlocks(ctx context.Context, call *resource.ActionCall) (*resource.ActionResult, error) {
	if d.LLM == nil {
		return nil, resource.Unavailable("no language model is configured (PLATFORM_LLM_URL, docs/cms.md)")
	}
	lib, err := d.library(ctx, call)
	if err != nil {
		return nil, err
	}
	answer, err := d.LLM.Complete(ctx, generateRequest(lib, call.Body["topic"].(string), call.Record))
	if err != nil {
		return nil, modelFailed(err)
	}
	proposed, err := parseBlocks(answer.Text, lib, call.Record)
	if err != nil {
		return nil, err
	}
	existing, _ := asClientJSON(call.Record["blocks"]).([]any)
	page, err := call.Service.Patch(ctx, call.Resource, call.ID, map[string]any{"blocks": append(existing, proposed...)})
	if err != nil {
		return nil, err
	}
	return &resource.ActionResult{Payload: page, EventData: store.Doc{"_id": call.ID, "libraryId": idOf(lib), "added": int64(len(proposed))}}, nil
}

func (d Deps) library(ctx context.Context, call *resource.ActionCall) (store.Doc, error) {
	lib, err := call.Service.Store.Collection(pages.AILibraries).Get(ctx, call.Body["libraryId"].(string))
	if errors.Is(err, store.ErrNotFound) {
		return nil, resource.InvalidField("libraryId", "no AI library %s", call.Body["libraryId"])
	}
	return lib, err
}

// generateRequest is the library's prompt with the platform's own
// instructions: the block types allowed, their fields, the JSON form.
func generateRequest(lib store.Doc, topic string, page store.Doc) llm.Request {
	model, _ := lib["model"].(store.Doc)
	req := llm.Request{Model: str(model["name"]), JSON: true, System: systemPrompt(store.Strings(lib["blockTypes"]), maxGenerated(lib)),
		Messages: []llm.Message{{Role: llm.RoleUser, Content: template.RenderText(str(lib["prompt"]), promptScope(topic, page))}}}
	if t, ok := asFloat(model["temperature"]); ok {
		req.Temperature = &t
	}
	if n, ok := model["maxTokens"].(int64); ok {
		req.MaxTokens = int(n)
	}
	return req
}

func maxGenerated(lib store.Doc) int {
	if n, ok := lib["maxBlocks"].(int64); ok {
		return int(n)
	}
	return 10
}

func systemPrompt(types []string, most int) string {
	var b bytes.Buffer
	fmt.Fprintf(&b, "You write content blocks for a web page. Answer with one JSON object {\"blocks\": [...]} holding at most %d blocks. ", most)
	b.WriteString("Each block is an object with \"type\" and that type's fields, nothing else. Text fields marked Markdown take Markdown; " +
		"URLs are absolute https URLs. The block types you may use and their fields:\n")
	u := blockUnion()
	for _, t := range types {
		if v := u.Variant(t); v != nil {
			fmt.Fprintf(&b, "- %s (%s): %s\n", t, v.Description, describeFields(v.Fields))
		}
	}
	return b.String()
}

// modelFailed maps the provider's errors: an answer it could not finish
// is a bad answer (502), the rest a dependency that is unavailable (503).
func modelFailed(err error) error {
	if errors.Is(err, llm.ErrTruncated) || errors.Is(err, llm.ErrEmpty) {
		return badAnswer(resource.FieldError(resource.CodeBadUpstream, "", "%s", err.Error()))
	}
	return resource.Unavailable("the language model failed: %s", err.Error()).WithCause(err)
}

func badAnswer(entries ...resource.ErrorEntry) error {
	head := resource.FieldError(resource.CodeBadUpstream, "", "the language model's answer is not valid blocks; nothing was stored")
	return resource.BadUpstream(append([]resource.ErrorEntry{head}, entries...)...)
}

// parseBlocks reads the answer as blocks and validates each as a client's
// block would be, plus the library's types and count; their order
// follows the page's last block.
func parseBlocks(text string, lib store.Doc, page store.Doc) ([]any, error) {
	list, err := decodeBlocks(text)
	if err != nil {
		return nil, badAnswer(resource.FieldError(resource.CodeBadUpstream, "blocks", "%s", err.Error()))
	}
	if len(list) == 0 || len(list) > maxGenerated(lib) {
		return nil, badAnswer(resource.FieldError(resource.CodeBadUpstream, "blocks", "%d blocks instead of 1 to %d", len(list), maxGenerated(lib)))
	}
	if errs := checkGenerated(list, store.Strings(lib["blockTypes"])); len(errs) > 0 {
		return nil, badAnswer(errs...)
	}
	numberAfter(list, page)
	return list, nil
}

// decodeBlocks accepts {"blocks": [...]} or a bare array, read as a
// client's body is: bounded depth, finite numbers, one value.
func decodeBlocks(text string) ([]any, error) {
	v, err := jsonlimit.Decode([]byte(text))
	if err != nil {
		return nil, fmt.Errorf("the answer is not usable JSON: %s", err.Error())
	}
	if o, ok := v.(map[string]any); ok {
		v = o["blocks"]
	}
	list, ok := v.([]any)
	if !ok {
		return nil, errors.New("the answer holds no blocks array")
	}
	return list, nil
}

// checkGenerated validates the proposed blocks; ids are the platform's.
func checkGenerated(list []any, types []string) []resource.ErrorEntry {
	item := blocks.Field().Items
	var errs []resource.ErrorEntry
	valid := make([]any, 0, len(list))
	for i, raw := range list {
		path := fmt.Sprintf("blocks[%d]", i)
		if o, ok := raw.(map[string]any); ok {
			delete(o, "_id")
			if t, _ := o["type"].(string); !slices.Contains(types, t) {
				errs = append(errs, resource.FieldError(resource.CodeBadUpstream, path+".type", "type %q is not one the library allows (%v)", t, types))
				continue
			}
		}
		v, bad := resource.ValidateValue(item, raw, path)
		errs, valid = append(errs, bad...), append(valid, v)
	}
	if len(errs) == 0 {
		errs = blocks.Check(valid)
	}
	return errs
}

// numberAfter gives the blocks orders after the page's last one.
func numberAfter(list []any, page store.Doc) {
	last := int64(0)
	existing, _ := page["blocks"].([]any)
	for _, b := range existing {
		if d, _ := b.(store.Doc); d != nil {
			if n, ok := d["order"].(int64); ok && n > last {
				last = n
			}
		}
	}
	for i, b := range list {
		if o, ok := b.(map[string]any); ok {
			o["order"] = json.Number(fmt.Sprint(last + int64(10*(i+1))))
		}
	}
}
