package config

import (
	"context"
	"errors"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"platform/kernel/query"
	"platform/kernel/resource"
	"platform/kernel/store"
	"platform/kernel/tenant"
	"platform/modules/config/flags"
)

// Collections of the feature flags.
const (
	FlagsCollection       = "flags"
	FlagRulesCollection   = "flagrules"
	FlagHistoryCollection = "flaghistory"
	// flagVersions holds one counter per customer, moved by every write
	// of a flag or rule: caches of other processes compare it to know
	// their compiled flags are stale.
	flagVersions = "flagversions"
)

// FlagCacheCheck is how long a process evaluates from its compiled flags
// before it compares the customer's version counter again: a write in
// another process (another API replica) shows within this time; a write
// in the same process shows at once.
const FlagCacheCheck = time.Second

// maxCachedCustomers bounds the cache; past it an arbitrary customer's
// compiled flags are dropped (and compiled again on their next use).
const maxCachedCustomers = 10000

// flagEngine serves evaluations from compiled flags cached per customer.
type flagEngine struct {
	svc   *resource.Service
	check time.Duration
	rules *resource.Resource // /flagrules, which a flag's deletion empties

	mu    sync.RWMutex
	cache map[string]*compiled // by customer
	// gen moves with every write this process makes, so a load that
	// raced with one is used once and not cached.
	gen    atomic.Uint64
	loadMu sync.Mutex // one load at a time: loads are rare, and a burst after a write needs one
}

func newFlagEngine(svc *resource.Service) *flagEngine {
	return &flagEngine{svc: svc, check: FlagCacheCheck, cache: map[string]*compiled{}}
}

// compiled is one customer's flags, ready to evaluate.
type compiled struct {
	version int64
	checked atomic.Int64 // unix nanoseconds of the last version check
	bySlug  map[string]*flags.Flag
	byID    map[string]*flags.Flag
	slugs   []string // sorted: the order of bulk answers
}

// flag finds a flag by slug or id (of any case, as record routes take it).
func (c *compiled) flag(ref string) *flags.Flag {
	if store.ValidID(ref) {
		return c.byID[strings.ToLower(ref)]
	}
	return c.bySlug[ref]
}

// compiledFor answers the customer's compiled flags: cached, checked against
// the version counter at most every e.check, loaded again when it moved.
func (e *flagEngine) compiledFor(ctx context.Context) (*compiled, error) {
	if e.svc == nil {
		return nil, resource.Unavailable("flag evaluation is not available in this process")
	}
	customer, err := tenant.Customer(ctx)
	if err != nil {
		return nil, err
	}
	e.mu.RLock()
	c := e.cache[customer]
	e.mu.RUnlock()
	now := time.Now().UnixNano()
	if c != nil && now-c.checked.Load() < int64(e.check) {
		return c, nil
	}
	gen := e.gen.Load()
	v, err := e.version(ctx)
	if err != nil {
		return nil, err
	}
	if c != nil && c.version == v {
		c.checked.Store(now)
		return c, nil
	}
	return e.load(ctx, customer, v, gen)
}

// load compiles the customer's flags as stored now; they are at least as
// new as version v, read before.
func (e *flagEngine) load(ctx context.Context, customer string, v int64, gen uint64) (*compiled, error) {
	e.loadMu.Lock()
	defer e.loadMu.Unlock()
	e.mu.RLock()
	c := e.cache[customer]
	e.mu.RUnlock()
	if c != nil && c.version == v && e.gen.Load() == gen {
		return c, nil // another caller loaded meanwhile
	}
	c, err := e.compile(ctx, v)
	if err != nil {
		return nil, err
	}
	if e.gen.Load() == gen {
		e.store(customer, c)
	}
	return c, nil
}

func (e *flagEngine) store(customer string, c *compiled) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if _, ok := e.cache[customer]; !ok && len(e.cache) >= maxCachedCustomers {
		for k := range e.cache {
			delete(e.cache, k)
			break
		}
	}
	e.cache[customer] = c
}

// version reads the customer's counter; 0 before the first write.
func (e *flagEngine) version(ctx context.Context) (int64, error) {
	customer, err := tenant.Customer(ctx)
	if err != nil {
		return 0, err
	}
	d, err := e.svc.Store.Collection(flagVersions).Get(ctx, customer)
	if errors.Is(err, store.ErrNotFound) {
		return 0, nil
	}
	if err != nil {
		return 0, resource.Unavailable("feature flags cannot be read now; try again").WithCause(err)
	}
	return store.Int(d["n"]), nil
}

// changed moves the customer's version counter after a write of a flag
// or rule and drops this process's compiled flags, so the next
// evaluation here, and within FlagCacheCheck everywhere, sees the write.
func (e *flagEngine) changed(ctx context.Context, s *resource.Service) error {
	customer, err := tenant.Customer(ctx)
	if err != nil {
		return err
	}
	e.gen.Add(1)
	defer e.drop(customer)
	if _, err := s.Store.Collection(flagVersions).Upsert(ctx, customer, store.Update{Inc: map[string]any{"n": int64(1)}}); err != nil {
		return resource.Unavailable("the change is saved but evaluations in other processes may not see it yet; save it again").WithCause(err)
	}
	return nil
}

func (e *flagEngine) drop(customer string) {
	e.mu.Lock()
	delete(e.cache, customer)
	e.mu.Unlock()
}

// compile reads every flag and rule of the customer and compiles them.
func (e *flagEngine) compile(ctx context.Context, v int64) (*compiled, error) {
	docs, err := e.svc.Store.Collection(FlagsCollection).Find(ctx, store.FindOptions{Limit: MaxFlags + 1})
	if err != nil {
		return nil, resource.Unavailable("feature flags cannot be read now; try again").WithCause(err)
	}
	rules, err := e.svc.Store.Collection(FlagRulesCollection).Find(ctx, store.FindOptions{})
	if err != nil {
		return nil, resource.Unavailable("feature flags cannot be read now; try again").WithCause(err)
	}
	c := &compiled{version: v, bySlug: make(map[string]*flags.Flag, len(docs)), byID: make(map[string]*flags.Flag, len(docs))}
	c.checked.Store(time.Now().UnixNano())
	for _, d := range docs {
		f := compileFlag(d)
		c.bySlug[f.Key], c.byID[str(d["_id"])] = f, f
		c.slugs = append(c.slugs, f.Key)
	}
	sort.Strings(c.slugs)
	sortRules(rules)
	for _, r := range rules {
		// By the flag's id, not its slug: a rule saved while its flag was
		// being deleted must not join a later flag of the same slug.
		f := c.byID[str(r["flagId"])]
		if f == nil || r["enabled"] == false {
			continue
		}
		if rule, ok := e.compileRule(ctx, r); ok {
			f.Rules = append(f.Rules, rule)
		}
	}
	return c, nil
}

// sortRules orders rules by order, then by creation (ids grow with time).
func sortRules(rules []store.Doc) {
	sort.SliceStable(rules, func(i, j int) bool {
		a, b := store.Int(rules[i]["order"]), store.Int(rules[j]["order"])
		if a != b {
			return a < b
		}
		return str(rules[i]["_id"]) < str(rules[j]["_id"])
	})
}

func compileFlag(d store.Doc) *flags.Flag {
	f := &flags.Flag{Key: str(d["slug"]), DefaultVariant: str(d["defaultVariant"]), Variants: map[string]any{}}
	f.Enabled, _ = d["enabled"].(bool)
	list, _ := d["variants"].([]any)
	for _, v := range list {
		if m, ok := v.(map[string]any); ok {
			f.Variants[str(m["key"])] = m["value"]
		}
	}
	return f
}

// compileRule builds an evaluable rule; a stored rule that no longer
// compiles (written by an older release) is left out and logged.
func (e *flagEngine) compileRule(ctx context.Context, d store.Doc) (flags.Rule, bool) {
	r := flags.Rule{ID: str(d["_id"]), Variant: str(d["variant"]), BucketBy: str(d["bucketBy"])}
	var err error
	if cond, ok := d["condition"].(map[string]any); ok {
		r.Condition, err = query.Parse(cond, nil)
	}
	if err == nil && d["rollout"] != nil {
		r.Rollout, err = flags.NewSplits(weightsOf(d["rollout"]))
	}
	if err != nil {
		e.svc.Log.WarnContext(ctx, "flag rule left out of evaluation: it does not compile", "rule", r.ID, "error", err.Error())
		return r, false
	}
	return r, true
}

// weightsOf reads a stored or validated rollout.
func weightsOf(v any) []flags.Weight {
	list, _ := v.([]any)
	out := make([]flags.Weight, 0, len(list))
	for _, e := range list {
		m, _ := e.(map[string]any)
		out = append(out, flags.Weight{Variant: str(m["variant"]), Percent: number(m["weight"])})
	}
	return out
}

func number(v any) float64 {
	switch x := v.(type) {
	case int64:
		return float64(x)
	case int32:
		return float64(x)
	case int:
		return float64(x)
	case float64:
		return x
	}
	return -1
}

func str(v any) string { s, _ := v.(string); return s }

// nowMillis is the current time as stores keep it.
func nowMillis() time.Time { return time.Now().UTC().Truncate(time.Millisecond) }
