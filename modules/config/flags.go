package config

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"

	"platform/kernel/query"
	"platform/kernel/resource"
	"platform/kernel/store"
)

// Bounds of the feature flags, per customer: they keep every customer's
// compiled flags (and a bulk evaluation) small.
const (
	MaxFlags        = 500 // flags per customer
	MaxVariants     = 20  // variants per flag
	MaxRulesPerFlag = 50
	// MaxVariantValueBytes bounds one variant's value as JSON (a small
	// configuration object fits).
	MaxVariantValueBytes = 8 << 10
)

// RightEvaluate lets a token evaluate flags (POST /flags/:slug/actions/evaluate
// and the bulk form) without reading their rules: what an SDK's key gets.
const RightEvaluate = "config.flags.evaluate"

// flagSlug is a flag key: lower-case letters and digits in words joined by
// one hyphen, underscore or dot; never the bucketing separator ":".
var flagSlug = regexp.MustCompile(`^[a-z0-9]+([-_.][a-z0-9]+)*$`)

// variantKey is a variant's key: letters and digits in words joined by one
// hyphen, underscore or dot.
var variantKey = regexp.MustCompile(`^[A-Za-z0-9]+([-_.][A-Za-z0-9]+)*$`)

// Flags declares /flags, addressed by id or slug. Rights:
// config.flags.{view|create|edit|delete}; evaluation needs
// config.flags.evaluate (RightEvaluate).
func Flags(e *flagEngine) *resource.Resource {
	return &resource.Resource{
		Plural: FlagsCollection, Title: "feature flag", Key: "slug",
		Grants: []resource.Grant{{Right: RightEvaluate, Title: "evaluate flags for a context (POST /flags/:slug/actions/evaluate, POST /flags/actions/evaluate)"}},
		Fields: []resource.Field{
			{Name: "slug", Type: resource.TString, Required: true, Unique: true, MaxLen: 100, Filter: true, Sort: true,
				Description: "the flag key (OpenFeature's flagKey), unique per customer and fixed once created: lower-case letters and digits in words joined by -, _ or .; GET /flags/:slug"},
			{Name: "name", Type: resource.TString, Required: true, MaxLen: 200, Filter: true, Sort: true},
			{Name: "description", Type: resource.TString, MaxLen: 2000},
			{Name: "enabled", Type: resource.TBool, Default: false, Filter: true, Sort: true,
				Description: "off (the default): every evaluation answers defaultVariant with reason DISABLED; on: the rules decide"},
			{Name: "variants", Type: resource.TArray, Required: true, MinItems: 1, MaxItems: MaxVariants,
				Description: "the values the flag can take, each with a key unique within the flag",
				Items: &resource.Field{Type: resource.TObject, Fields: []resource.Field{
					{Name: "key", Type: resource.TString, Required: true, MaxLen: 64, Description: "letters and digits in words joined by -, _ or ."},
					{Name: "value", Type: resource.TAny, Required: true, Description: fmt.Sprintf("any JSON value but null, at most %d bytes as JSON", MaxVariantValueBytes)},
				}}},
			{Name: "defaultVariant", Type: resource.TString, Required: true, MaxLen: 64, Filter: true,
				Description: "the key of the variant answered when the flag is off or no rule decides"},
		},
		Actions: []resource.Action{
			{Name: "toggle", Title: "switch the flag on when it is off, and off when it is on", Event: "toggled", Run: e.toggle},
		},
		DefaultSort: []store.SortField{{Field: "slug"}},
		Hooks:       resource.Hooks{BeforeWrite: e.checkFlag, AfterWrite: e.flagWritten, BeforeDelete: e.deleteRules, AfterDelete: e.flagDeleted},
	}
}

// checkFlag checks what the declaration cannot: the slug's form (and that
// it stays), the variants, the default variant, the rules' variants and
// the number of flags.
func (e *flagEngine) checkFlag(ctx context.Context, w *resource.Write) error {
	var errs []resource.ErrorEntry
	slug := str(w.New["slug"])
	switch {
	case !flagSlug.MatchString(slug):
		errs = append(errs, resource.FieldError(resource.CodeFormat, "slug", "slug must be lower-case letters and digits in words joined by -, _ or ., such as new-checkout"))
	case w.Old != nil && slug != str(w.Old["slug"]):
		errs = append(errs, resource.FieldError(resource.CodeInvalid, "slug", "slug is the flag's key and cannot change (rules, SDKs and bucketing use it); create a new flag instead"))
	}
	keys, verrs := checkVariants(w.New)
	errs = append(errs, verrs...)
	if def := str(w.New["defaultVariant"]); keys != nil && !keys[def] {
		errs = append(errs, resource.FieldError(resource.CodeInvalid, "defaultVariant", "defaultVariant %q names no variant of the flag (variants: %s)", def, keyList(w.New)))
	}
	if len(errs) > 0 {
		return resource.Invalid(errs...)
	}
	if w.Old == nil {
		return e.checkFlagCount(ctx, w.Service)
	}
	return e.checkRulesKeepVariants(ctx, w, keys)
}

// checkVariants checks the keys' form and uniqueness and bounds each
// value, converting its numbers to stored ones; it answers the keys.
func checkVariants(doc store.Doc) (map[string]bool, []resource.ErrorEntry) {
	list, _ := doc["variants"].([]any)
	keys := map[string]bool{}
	var errs []resource.ErrorEntry
	for i, v := range list {
		m, _ := v.(map[string]any)
		key, path := str(m["key"]), fmt.Sprintf("variants[%d]", i)
		switch {
		case !variantKey.MatchString(key):
			errs = append(errs, resource.FieldError(resource.CodeFormat, path+".key", "a variant key is letters and digits in words joined by -, _ or ., such as on or blue-v2"))
		case keys[key]:
			errs = append(errs, resource.FieldError(resource.CodeInvalid, path+".key", "variant key %q is used twice", key))
		}
		keys[key] = true
		if b, err := json.Marshal(m["value"]); err != nil || len(b) > MaxVariantValueBytes {
			errs = append(errs, resource.FieldError(resource.CodeInvalid, path+".value", "a variant's value holds at most %d bytes of JSON", MaxVariantValueBytes))
		}
		m["value"] = storedValue(m["value"])
	}
	return keys, errs
}

func keyList(doc store.Doc) string {
	list, _ := doc["variants"].([]any)
	out := ""
	for i, v := range list {
		m, _ := v.(map[string]any)
		if i > 0 {
			out += ", "
		}
		out += str(m["key"])
	}
	return out
}

// storedValue converts a validated JSON value's numbers (json.Number) as
// the store keeps them.
func storedValue(v any) any {
	switch x := v.(type) {
	case json.Number:
		return store.JSONNumber(x)
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = storedValue(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = storedValue(e)
		}
		return out
	}
	return v
}

func (e *flagEngine) checkFlagCount(ctx context.Context, s *resource.Service) error {
	n, err := s.Store.Collection(FlagsCollection).Count(ctx, nil)
	if err != nil {
		return resource.Unavailable("feature flags cannot be counted now; try again").WithCause(err)
	}
	if n >= MaxFlags {
		return resource.InvalidField("slug", "a customer has at most %d feature flags; delete one first", MaxFlags)
	}
	return nil
}

// checkRulesKeepVariants refuses to remove a variant a rule still serves.
func (e *flagEngine) checkRulesKeepVariants(ctx context.Context, w *resource.Write, keys map[string]bool) error {
	rules, err := w.Service.Store.Collection(FlagRulesCollection).Find(ctx, store.FindOptions{Filter: query.Eq("flagId", str(w.Old["_id"])), Limit: MaxRulesPerFlag + 1})
	if err != nil {
		return resource.Unavailable("the flag's rules cannot be read now; try again").WithCause(err)
	}
	for _, r := range rules {
		for _, v := range servedVariants(r) {
			if !keys[v] {
				return resource.InvalidField("variants", "variant %q is served by rule %s of this flag: change or delete the rule first", v, str(r["_id"]))
			}
		}
	}
	return nil
}

// servedVariants are the variants a rule may answer.
func servedVariants(r store.Doc) []string {
	if v := str(r["variant"]); v != "" {
		return []string{v}
	}
	var out []string
	for _, w := range weightsOf(r["rollout"]) {
		out = append(out, w.Variant)
	}
	return out
}

// toggle switches the flag through the record service, so the write is
// validated, stamped, announced (flags.updated, then flags.toggled) and
// recorded in the history like any other. It flips the state it reads:
// two toggles at once may both flip it the same way.
func (e *flagEngine) toggle(ctx context.Context, call *resource.ActionCall) (*resource.ActionResult, error) {
	on, _ := call.Record["enabled"].(bool)
	rec, err := call.Service.Patch(ctx, call.Resource, call.ID, map[string]any{"enabled": !on})
	if err != nil {
		return nil, err
	}
	return &resource.ActionResult{Payload: rec}, nil
}

// flagWritten records the change and tells the caches.
func (e *flagEngine) flagWritten(ctx context.Context, s *resource.Service, saved, old store.Doc) error {
	if err := e.history(ctx, s, historyFlag, old, saved); err != nil {
		return err
	}
	return e.changed(ctx, s)
}

// deleteRules deletes the flag's rules through the record service (each
// with its event and history row) before the flag goes: a failure leaves
// the flag in place for the caller's retry, never rules without a flag.
func (e *flagEngine) deleteRules(ctx context.Context, s *resource.Service, old store.Doc) error {
	rules, err := s.Store.Collection(FlagRulesCollection).Find(ctx, store.FindOptions{Filter: query.Eq("flag", str(old["slug"]))})
	if err != nil {
		return resource.Unavailable("the flag's rules cannot be read now; try again").WithCause(err)
	}
	for _, r := range rules {
		if _, err := s.Delete(ctx, e.rules, str(r["_id"])); err != nil && resource.KindOf(err) != resource.KindNotFound {
			return err
		}
	}
	return nil
}

// flagDeleted records the flag's deletion and tells the caches.
func (e *flagEngine) flagDeleted(ctx context.Context, s *resource.Service, old store.Doc) error {
	if err := e.history(ctx, s, historyFlag, old, nil); err != nil {
		return err
	}
	return e.changed(ctx, s)
}
