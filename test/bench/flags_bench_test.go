package bench

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"testing"
	"time"

	"platform/kernel/query"
	"platform/modules/config/flags"
	"platform/test/testenv"
)

// benchFlagCount is the size of the bulk evaluation: every flag of the
// customer.
const benchFlagCount = 50

// benchRules are each bench flag's rules, as a client sends them: a
// staff override, a 10 % rollout in three countries for one plan, an age
// rule. The bench context matches the second: a SPLIT after one miss.
var benchRules = []map[string]any{
	{"order": 10, "condition": map[string]any{"email": map[string]any{"$regex": "@example\\.com$"}}, "variant": "on"},
	{"order": 20, "condition": map[string]any{"country": map[string]any{"$in": []any{"DE", "AT", "CH"}}, "plan": "pro"},
		"rollout": []any{map[string]any{"variant": "on", "weight": 10}, map[string]any{"variant": "off", "weight": 90}}},
	{"order": 30, "condition": map[string]any{"age": map[string]any{"$gte": 18}}, "variant": "off"},
}

func benchContext(i int) map[string]any {
	return map[string]any{"targetingKey": fmt.Sprintf("user-%d", i), "country": "DE", "plan": "pro", "email": "someone@corp.test", "age": 30}
}

// BenchmarkFlags measures, in one run on each store, flag evaluations
// over HTTP (one flag, and the bulk form over 50 flags) against a get of
// a flag by id through the API, from 50 concurrent clients, and
// evaluations in process (the compiled flag, one goroutine).
func BenchmarkFlags(b *testing.B) {
	inProcess(b)
	for _, kind := range []string{"sqlite", "mongodb"} {
		b.Run(kind, func(b *testing.B) { benchFlags(b, kind) })
	}
}

func benchFlags(b *testing.B, kind string) {
	p := testenv.NewPlatform(b, testenv.Options{Store: kind})
	admin := p.Token("config.flags.*")
	slugs, ids := seedFlags(b, p, admin)
	tok := p.Token("config.flags.evaluate")
	view := p.Token("config.flags.view")
	results := map[string]float64{}
	run := func(name string, op func(i int) error) {
		b.Run(name, func(b *testing.B) { results[name] = measure(b, op) })
	}
	run("get", func(int) error {
		return expect(p.Do(http.MethodGet, "/config/flags/"+ids[rand.IntN(len(ids))], view, nil).Status, 200)
	})
	run("evaluate", func(i int) error {
		body := map[string]any{"context": benchContext(rand.IntN(1_000_000))}
		return expect(p.Do(http.MethodPost, "/config/flags/"+slugs[rand.IntN(len(slugs))]+"/actions/evaluate", tok, body).Status, 200)
	})
	run("bulk50", func(i int) error {
		r := p.Do(http.MethodPost, "/config/flags/actions/evaluate", tok, map[string]any{"context": benchContext(rand.IntN(1_000_000))})
		if n := len(r.List()); r.Status == 200 && n != benchFlagCount {
			return fmt.Errorf("bulk answered %d flags, want %d", n, benchFlagCount)
		}
		return expect(r.Status, 200)
	})
	g := results["get"]
	for _, op := range []string{"evaluate", "bulk50"} {
		if g > 0 {
			fmt.Printf("%-7s %-9s %8.1f req/s  get by id %8.1f req/s  %s/get %.2f  (%.0f flag decisions/s)\n", kind, op, results[op], g, op,
				results[op]/g, results[op]*map[string]float64{"evaluate": 1, "bulk50": benchFlagCount}[op])
		}
	}
}

// seedFlags creates the bench's flags and rules through the API.
func seedFlags(b *testing.B, p *testenv.Platform, tok string) (slugs, ids []string) {
	for i := 0; i < benchFlagCount; i++ {
		slug := fmt.Sprintf("bench-flag-%02d", i)
		ids = append(ids, create(b, p, tok, "/config/flags", map[string]any{"slug": slug, "name": slug, "enabled": true, "defaultVariant": "off",
			"variants": []any{map[string]any{"key": "on", "value": true}, map[string]any{"key": "off", "value": false}}}))
		for _, r := range benchRules {
			rule := map[string]any{"flag": slug}
			for k, v := range r {
				rule[k] = v
			}
			create(b, p, tok, "/config/flagrules", rule)
		}
		slugs = append(slugs, slug)
	}
	return slugs, ids
}

// inProcess measures the compiled flag's evaluation as an SDK or a
// workflow in the same process would run it: one flag, then all 50.
func inProcess(b *testing.B) {
	var all []*flags.Flag
	for i := 0; i < benchFlagCount; i++ {
		all = append(all, compiledBenchFlag(b, fmt.Sprintf("bench-flag-%02d", i)))
	}
	ctxs := make([]flags.Context, 1024)
	for i := range ctxs {
		ctxs[i] = flags.Context(roundTrip(b, benchContext(i)))
	}
	var one, bulk float64
	b.Run("inprocess", func(b *testing.B) { one = perSecond(b, func(i int) { all[i%len(all)].Evaluate(ctxs[i%len(ctxs)]) }) })
	b.Run("inprocess-bulk50", func(b *testing.B) {
		bulk = perSecond(b, func(i int) {
			for _, f := range all {
				f.Evaluate(ctxs[i%len(ctxs)])
			}
		})
	})
	fmt.Printf("in process: %.0f evaluations/s, %.0f bulk-of-50/s (%.0f decisions/s), one goroutine\n", one, bulk, bulk*benchFlagCount)
}

func perSecond(b *testing.B, op func(i int)) float64 {
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		op(i)
	}
	ops := float64(b.N) / time.Since(start).Seconds()
	b.ReportMetric(ops, "ops/s")
	return ops
}

// compiledBenchFlag is a bench flag compiled as the config module does.
func compiledBenchFlag(b *testing.B, slug string) *flags.Flag {
	f := &flags.Flag{Key: slug, Enabled: true, DefaultVariant: "off", Variants: map[string]any{"on": true, "off": false}}
	for i, r := range benchRules {
		cond, err := query.Parse(roundTrip(b, r["condition"].(map[string]any)), nil)
		if err != nil {
			b.Fatal(err)
		}
		rule := flags.Rule{ID: fmt.Sprint(i), Condition: cond}
		if v, ok := r["variant"].(string); ok {
			rule.Variant = v
		} else if rule.Rollout, err = flags.NewSplits([]flags.Weight{{Variant: "on", Percent: 10}, {Variant: "off", Percent: 90}}); err != nil {
			b.Fatal(err)
		}
		f.Rules = append(f.Rules, rule)
	}
	return f
}

// roundTrip is m as a client sends and the store gives it back (numbers
// as int64 or float64).
func roundTrip(b *testing.B, m map[string]any) map[string]any {
	data, err := json.Marshal(m)
	if err != nil {
		b.Fatal(err)
	}
	var raw map[string]any
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&raw); err != nil {
		b.Fatal(err)
	}
	c, err := flags.NewContext(raw)
	if err != nil {
		b.Fatal(err)
	}
	return c
}
