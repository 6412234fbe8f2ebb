package config

import (
	"context"
	"errors"
	"fmt"
	"regexp"

	"platform/kernel/query"
	"platform/kernel/resource"
	"platform/kernel/store"
	"platform/modules/config/flags"
)

// contextPath is a dotted path into an evaluation context.
var contextPath = regexp.MustCompile(`^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$`)

// FlagRules declares /flagrules: the targeting of a flag, evaluated in
// order. Rights: reading needs config.flags.view, writing
// config.flags.edit (targeting is part of the flag).
func FlagRules(e *flagEngine) *resource.Resource {
	r := &resource.Resource{
		Plural: FlagRulesCollection, Title: "flag rule",
		Rights: resource.Rights{View: "config.flags.view", Create: "config.flags.edit", Edit: "config.flags.edit", Delete: "config.flags.edit"},
		Fields: []resource.Field{
			{Name: "flag", Type: resource.TString, Required: true, MaxLen: 100, Filter: true, Sort: true,
				Description: "the slug of the flag the rule belongs to; fixed once created"},
			{Name: "flagId", Type: resource.TObjectID, ReadOnly: true, Filter: true, Description: "the id of the flag, set by the platform"},
			{Name: "name", Type: resource.TString, MaxLen: 200, Filter: true},
			{Name: "description", Type: resource.TString, MaxLen: 2000},
			{Name: "order", Type: resource.TInteger, Default: int64(0), Range: resource.Between(0, 1_000_000), Filter: true, Sort: true,
				Description: "rules of a flag are evaluated by ascending order (then by creation); the first that matches and can decide wins"},
			{Name: "enabled", Type: resource.TBool, Default: true, Filter: true, Description: "a rule switched off is skipped"},
			{Name: "condition", Type: resource.TObject, FreeForm: true,
				Description: "a filter in the platform's query language (the list filter's MongoDB operators) over the evaluation context, " +
					"such as {\"country\": {\"$in\": [\"DE\", \"AT\"]}, \"plan\": \"pro\"}; absent or {} matches every context"},
			{Name: "variant", Type: resource.TString, MaxLen: 64, Filter: true,
				Description: "the variant served when the condition matches (reason TARGETING_MATCH); give either variant or rollout"},
			{Name: "rollout", Type: resource.TArray, MinItems: 1, MaxItems: MaxVariants,
				Description: "a percentage rollout (reason SPLIT): weights in percent with at most two decimals, adding up to 100; " +
					"the context's bucket (docs/config-flags.md) falls into the variants' ranges in this order",
				Items: &resource.Field{Type: resource.TObject, Fields: []resource.Field{
					{Name: "variant", Type: resource.TString, Required: true, MaxLen: 64},
					{Name: "weight", Type: resource.TNumber, Required: true, Range: resource.Between(0, 100)},
				}}},
			{Name: "bucketBy", Type: resource.TString, MaxLen: 200, Default: flags.TargetingKey,
				Description: "the dotted path of the context value a rollout hashes (default targetingKey, OpenFeature's targeting key); " +
					"a context without it (or with a value that is not a string or whole number) skips the rule"},
		},
		DefaultSort: []store.SortField{{Field: "flag"}, {Field: "order"}},
		Hooks:       resource.Hooks{BeforeWrite: e.checkRule, AfterWrite: e.ruleWritten, AfterDelete: e.ruleDeleted},
	}
	e.rules = r
	return r
}

// checkRule checks the rule against its flag: one of variant and
// rollout, naming the flag's variants, a condition that parses, a rollout
// that adds up, and the number of rules of the flag.
func (e *flagEngine) checkRule(ctx context.Context, w *resource.Write) error {
	errs := ruleShape(w.New)
	if w.Old != nil && str(w.New["flag"]) != str(w.Old["flag"]) {
		errs = append(errs, resource.FieldError(resource.CodeInvalid, "flag", "a rule cannot move to another flag; create a rule there instead"))
	}
	if len(errs) > 0 {
		return resource.Invalid(errs...)
	}
	flag, err := e.ruleFlag(ctx, w)
	if err != nil {
		return err
	}
	w.New["flagId"] = flag["_id"]
	keys := map[string]bool{}
	for k := range compileFlag(flag).Variants {
		keys[k] = true
	}
	if errs := ruleVariants(w.New, keys); len(errs) > 0 {
		return resource.Invalid(errs...)
	}
	if w.Old == nil {
		return e.checkRuleCount(ctx, w.Service, str(w.New["flag"]))
	}
	return nil
}

// ruleShape checks what needs no flag: the condition, bucketBy, and one
// of variant and rollout, the rollout adding up.
func ruleShape(doc store.Doc) []resource.ErrorEntry {
	var errs []resource.ErrorEntry
	if cond, ok := doc["condition"].(map[string]any); ok {
		if _, err := query.Parse(cond, nil); err != nil {
			errs = append(errs, resource.FieldError(resource.CodeInvalid, "condition", "condition is not a valid filter: %v", err))
		}
	}
	if by := str(doc["bucketBy"]); by != "" && !contextPath.MatchString(by) {
		errs = append(errs, resource.FieldError(resource.CodeFormat, "bucketBy", "bucketBy is a dotted path into the context, such as targetingKey or account.id"))
	}
	_, hasVariant := doc["variant"].(string)
	_, hasRollout := doc["rollout"].([]any)
	switch {
	case hasVariant == hasRollout:
		errs = append(errs, resource.FieldError(resource.CodeInvalid, "variant", "give either variant (one variant for every matching context) or rollout (a percentage split), not both or neither"))
	case hasRollout:
		if _, err := flags.NewSplits(weightsOf(doc["rollout"])); err != nil {
			var se *flags.SplitError
			errors.As(err, &se)
			errs = append(errs, resource.FieldError(resource.CodeInvalid, se.Path, "%s %s", se.Path, se.Msg))
		}
	}
	return errs
}

// ruleVariants refuses variants the flag does not have.
func ruleVariants(doc store.Doc, keys map[string]bool) []resource.ErrorEntry {
	var errs []resource.ErrorEntry
	if v, ok := doc["variant"].(string); ok && !keys[v] {
		errs = append(errs, resource.FieldError(resource.CodeInvalid, "variant", "variant %q is not a variant of flag %q", v, str(doc["flag"])))
	}
	for i, w := range weightsOf(doc["rollout"]) {
		if !keys[w.Variant] {
			p := fmt.Sprintf("rollout[%d].variant", i)
			errs = append(errs, resource.FieldError(resource.CodeInvalid, p, "%s %q is not a variant of flag %q", p, w.Variant, str(doc["flag"])))
		}
	}
	return errs
}

// ruleFlag loads the rule's flag: 422 naming flag when there is none.
func (e *flagEngine) ruleFlag(ctx context.Context, w *resource.Write) (store.Doc, error) {
	slug := str(w.New["flag"])
	docs, err := w.Service.Store.Collection(FlagsCollection).Find(ctx, store.FindOptions{Filter: query.Eq("slug", slug), Limit: 1})
	if err != nil {
		return nil, resource.Unavailable("the rule's flag cannot be read now; try again").WithCause(err)
	}
	if len(docs) == 0 {
		return nil, resource.InvalidField("flag", "no feature flag has the slug %q", slug)
	}
	return docs[0], nil
}

func (e *flagEngine) checkRuleCount(ctx context.Context, s *resource.Service, flag string) error {
	n, err := s.Store.Collection(FlagRulesCollection).Count(ctx, query.Eq("flag", flag))
	if err != nil {
		return resource.Unavailable("the flag's rules cannot be counted now; try again").WithCause(err)
	}
	if n >= MaxRulesPerFlag {
		return resource.InvalidField("flag", "a flag has at most %d rules; delete one first", MaxRulesPerFlag)
	}
	return nil
}

func (e *flagEngine) ruleWritten(ctx context.Context, s *resource.Service, saved, old store.Doc) error {
	if err := e.history(ctx, s, historyRule, old, saved); err != nil {
		return err
	}
	return e.changed(ctx, s)
}

func (e *flagEngine) ruleDeleted(ctx context.Context, s *resource.Service, old store.Doc) error {
	if err := e.history(ctx, s, historyRule, old, nil); err != nil {
		return err
	}
	return e.changed(ctx, s)
}
