package config

import (
	"context"
	"time"

	"platform/kernel/resource"
	"platform/modules/config/flags"
)

// FlagEvaluator is the flag cache of another process on the same store
// (another API replica), checking the version counter every check.
type FlagEvaluator struct{ e *flagEngine }

// NewFlagEvaluator starts an empty cache over svc.
func NewFlagEvaluator(svc *resource.Service, check time.Duration) *FlagEvaluator {
	e := newFlagEngine(svc)
	e.check = check
	return &FlagEvaluator{e}
}

// Evaluate decides the flag ref for c as the evaluation routes do.
func (f *FlagEvaluator) Evaluate(ctx context.Context, ref string, c flags.Context) (flags.Decision, error) {
	comp, err := f.e.compiledFor(ctx)
	if err != nil {
		return flags.Decision{}, err
	}
	fl := comp.flag(ref)
	if fl == nil {
		return flags.Decision{}, resource.NotFound("feature flag")
	}
	return fl.Evaluate(c), nil
}
