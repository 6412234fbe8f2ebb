// Package flags evaluates feature flags: a flag, its ordered rules and an
// evaluation context in, a variant and the reason for it out (the
// OpenFeature evaluation model). It holds no store and no HTTP: the config
// module compiles stored flags into Flag values and caches them, and any
// SDK can reproduce a decision offline from the published rules (docs/
// config-flags.md): conditions in the platform's query language, rollouts
// by Bucket.
package flags

import "platform/kernel/query"

// Reason is why a variant was chosen, by OpenFeature's names.
type Reason string

const (
	// ReasonTargetingMatch: a rule's condition matched and it serves one variant.
	ReasonTargetingMatch Reason = "TARGETING_MATCH"
	// ReasonSplit: a rule's condition matched and its rollout chose by bucket.
	ReasonSplit Reason = "SPLIT"
	// ReasonDefault: no rule matched; the flag's default variant.
	ReasonDefault Reason = "DEFAULT"
	// ReasonDisabled: the flag is off; its default variant.
	ReasonDisabled Reason = "DISABLED"
)

// Flag is a compiled flag, its rules in evaluation order.
type Flag struct {
	Key            string
	Enabled        bool
	Variants       map[string]any // variant key → its JSON value
	DefaultVariant string
	Rules          []Rule
}

// Rule serves Variant, or chooses by Rollout, to contexts its Condition
// matches.
type Rule struct {
	ID        string
	Condition query.Expr // nil matches every context
	Variant   string     // set when Rollout is empty
	Rollout   []Split
	// BucketBy is the dotted path of the context value rollouts hash
	// (TargetingKey when empty).
	BucketBy string
}

// Split is one variant's share of a rollout, as a count of consecutive
// buckets: the splits of a rule cover 0 to Buckets-1 in their order.
type Split struct {
	Variant string
	Buckets int
}

// Decision is an evaluation's answer.
type Decision struct {
	FlagKey string
	Variant string
	Value   any
	Reason  Reason
	RuleID  string // the rule that decided (TARGETING_MATCH, SPLIT)
	Bucket  int    // the context's bucket (SPLIT); -1 otherwise
}

// Doc is the decision as the API answers it.
func (d Decision) Doc() map[string]any {
	out := map[string]any{"flagKey": d.FlagKey, "variant": d.Variant, "value": d.Value, "reason": string(d.Reason)}
	if d.RuleID != "" {
		out["ruleId"] = d.RuleID
	}
	if d.Bucket >= 0 {
		out["bucket"] = int64(d.Bucket)
	}
	return out
}

// Evaluate decides the flag's variant for ctx: the default variant when
// the flag is off; otherwise the first rule, in order, whose condition
// matches and that can decide (a rollout needs its bucket key in ctx);
// else the default variant.
func (f *Flag) Evaluate(ctx Context) Decision {
	if !f.Enabled {
		return f.decide(f.DefaultVariant, ReasonDisabled, "", -1)
	}
	for i := range f.Rules {
		r := &f.Rules[i]
		if !query.Match(r.Condition, ctx) {
			continue
		}
		if d, ok := f.apply(r, ctx); ok {
			return d
		}
	}
	return f.decide(f.DefaultVariant, ReasonDefault, "", -1)
}

// apply is r's decision, if it can make one.
func (f *Flag) apply(r *Rule, ctx Context) (Decision, bool) {
	if len(r.Rollout) == 0 {
		_, known := f.Variants[r.Variant]
		return f.decide(r.Variant, ReasonTargetingMatch, r.ID, -1), known
	}
	key := r.BucketBy
	if key == "" {
		key = TargetingKey
	}
	raw, _ := ctx.lookup(key)
	value, ok := bucketValue(raw)
	if !ok {
		return Decision{}, false
	}
	b := Bucket(f.Key, value)
	v := pick(r.Rollout, b)
	_, known := f.Variants[v]
	return f.decide(v, ReasonSplit, r.ID, b), known
}

// pick is the variant whose range holds bucket b.
func pick(splits []Split, b int) string {
	upper := 0
	for _, s := range splits {
		upper += s.Buckets
		if b < upper {
			return s.Variant
		}
	}
	return "" // splits always cover every bucket (NewSplits)
}

func (f *Flag) decide(variant string, why Reason, rule string, bucket int) Decision {
	return Decision{FlagKey: f.Key, Variant: variant, Value: f.Variants[variant], Reason: why, RuleID: rule, Bucket: bucket}
}
