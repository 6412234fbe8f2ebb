package flags_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"platform/kernel/query"
	"platform/modules/config/flags"
)

// TestMurmur3Vectors: the reference vectors of MurmurHash3_x86_32
// (SMHasher; the same as Python's mmh3.hash and Unleash's murmurhash3js).
func TestMurmur3Vectors(t *testing.T) {
	for _, v := range []struct {
		in   string
		seed uint32
		want uint32
	}{
		{"", 0, 0},
		{"", 1, 0x514e28b7},
		{"", 0xffffffff, 0x81f16f39},
		{"\x00\x00\x00\x00", 0, 0x2362f9de},
		{"a", 0x9747b28c, 0x7fa09ea6},
		{"abc", 0x9747b28c, 0xc84a62dd},
		{"aaaa", 0x9747b28c, 0x5a97808a},
		{"Hello, world!", 0x9747b28c, 0x24884cba},
		{"The quick brown fox jumps over the lazy dog", 0x9747b28c, 0x2fa826cd},
		{"hello", 0, 0x248bfa47},
	} {
		require.Equal(t, v.want, flags.Murmur3([]byte(v.in), v.seed), "%q seed %#x", v.in, v.seed)
	}
}

// rollout10 serves "on" to 10 % of the keys, "off" to the rest.
func rollout10(t testing.TB) *flags.Flag {
	splits, err := flags.NewSplits([]flags.Weight{{Variant: "on", Percent: 10}, {Variant: "off", Percent: 90}})
	require.NoError(t, err)
	return &flags.Flag{Key: "new-checkout", Enabled: true, DefaultVariant: "off",
		Variants: map[string]any{"on": true, "off": false},
		Rules:    []flags.Rule{{ID: "r1", Rollout: splits}}}
}

// TestRolloutDistribution: a 10 % rollout over 100,000 random keys lands
// within 9.5-10.5 %.
func TestRolloutDistribution(t *testing.T) {
	f := rollout10(t)
	rng := rand.New(rand.NewPCG(1, 2))
	on := 0
	const n = 100_000
	for i := 0; i < n; i++ {
		key := fmt.Sprintf("%016x-%08x", rng.Uint64(), rng.Uint32())
		d := f.Evaluate(flags.Context{flags.TargetingKey: key})
		require.Equal(t, flags.ReasonSplit, d.Reason)
		if d.Variant == "on" {
			on++
		}
	}
	share := float64(on) / n * 100
	t.Logf("10 %% rollout: %.3f %% of %d keys", share, n)
	require.InDelta(t, 10, share, 0.5)
}

// TestDeterminism: the same context always gets the same variant and
// bucket, whatever else the context holds and in whichever order.
func TestDeterminism(t *testing.T) {
	f := rollout10(t)
	first := f.Evaluate(flags.Context{flags.TargetingKey: "user-42"})
	require.Equal(t, flags.Bucket("new-checkout", "user-42"), first.Bucket)
	for i := 0; i < 100; i++ {
		d := f.Evaluate(flags.Context{"n": int64(i), flags.TargetingKey: "user-42"})
		require.Equal(t, first, d)
	}
	// Numbers hash as their decimal text: 42 and "42" are one key.
	require.Equal(t, f.Evaluate(flags.Context{flags.TargetingKey: "42"}), f.Evaluate(flags.Context{flags.TargetingKey: int64(42)}))
	require.Equal(t, f.Evaluate(flags.Context{flags.TargetingKey: "42"}), f.Evaluate(flags.Context{flags.TargetingKey: float64(42)}))
}

func cond(t testing.TB, js string) query.Expr {
	var m map[string]any
	require.NoError(t, json.Unmarshal([]byte(js), &m))
	e, err := query.Parse(m, nil)
	require.NoError(t, err)
	return e
}

// TestRuleOrder: the first matching rule that can decide wins; a rollout
// without its bucket key is skipped; no match gives the default; a
// disabled flag gives the default whatever the rules.
func TestRuleOrder(t *testing.T) {
	half, err := flags.NewSplits([]flags.Weight{{Variant: "blue", Percent: 50}, {Variant: "green", Percent: 50}})
	require.NoError(t, err)
	f := &flags.Flag{Key: "theme", Enabled: true, DefaultVariant: "grey",
		Variants: map[string]any{"grey": "#888", "blue": "#00f", "green": "#0f0", "red": "#f00"},
		Rules: []flags.Rule{
			{ID: "staff", Condition: cond(t, `{"email": {"$regex": "@example\\.com$"}}`), Variant: "red"},
			{ID: "split-de", Condition: cond(t, `{"country": "DE"}`), Rollout: half, BucketBy: "account.id"},
			{ID: "de", Condition: cond(t, `{"country": {"$in": ["DE", "AT"]}}`), Variant: "blue"},
		}}
	cases := []struct {
		ctx    flags.Context
		want   string
		reason flags.Reason
		rule   string
	}{
		{flags.Context{"email": "ada@example.com", "country": "DE"}, "red", flags.ReasonTargetingMatch, "staff"},
		{flags.Context{"country": "AT"}, "blue", flags.ReasonTargetingMatch, "de"},
		{flags.Context{"country": "DE"}, "blue", flags.ReasonTargetingMatch, "de"}, // no account.id: the split is skipped
		{flags.Context{"country": "FR"}, "grey", flags.ReasonDefault, ""},
		{flags.Context{}, "grey", flags.ReasonDefault, ""},
	}
	for _, c := range cases {
		d := f.Evaluate(c.ctx)
		require.Equal(t, c.want, d.Variant, "%v", c.ctx)
		require.Equal(t, c.reason, d.Reason, "%v", c.ctx)
		require.Equal(t, c.rule, d.RuleID, "%v", c.ctx)
		require.Equal(t, f.Variants[c.want], d.Value)
	}
	d := f.Evaluate(flags.Context{"country": "DE", "account": map[string]any{"id": "acme"}})
	require.Equal(t, flags.ReasonSplit, d.Reason)
	require.Equal(t, "split-de", d.RuleID)
	require.Equal(t, flags.Bucket("theme", "acme"), d.Bucket)
	require.Equal(t, map[bool]string{true: "blue", false: "green"}[d.Bucket < 5000], d.Variant)

	f.Enabled = false
	d = f.Evaluate(flags.Context{"email": "ada@example.com"})
	require.Equal(t, flags.Decision{FlagKey: "theme", Variant: "grey", Value: "#888", Reason: flags.ReasonDisabled, Bucket: -1}, d)
	require.NotContains(t, d.Doc(), "bucket")
	require.NotContains(t, d.Doc(), "ruleId")
}

// TestSplits: weights of two decimals at most, adding up to 100.
func TestSplits(t *testing.T) {
	s, err := flags.NewSplits([]flags.Weight{{"a", 33.33}, {"b", 33.33}, {"c", 33.34}})
	require.NoError(t, err)
	require.Equal(t, []flags.Split{{"a", 3333}, {"b", 3333}, {"c", 3334}}, s)
	for _, bad := range [][]flags.Weight{
		{{"a", 50}, {"b", 49.99}},
		{{"a", 50.005}, {"b", 49.995}},
		{{"a", 50}, {"a", 50}},
		{{"a", 110}, {"b", -10}},
	} {
		_, err := flags.NewSplits(bad)
		var se *flags.SplitError
		require.ErrorAs(t, err, &se, "%v", bad)
	}
}

// TestContextLimits: contexts are bounded in depth, size and string
// length, and their numbers become int64 or float64.
func TestContextLimits(t *testing.T) {
	c, err := flags.NewContext(map[string]any{"n": json.Number("3"), "x": json.Number("1.5"), "tags": []any{"a", json.Number("7")}})
	require.NoError(t, err)
	require.Equal(t, flags.Context{"n": int64(3), "x": 1.5, "tags": []any{"a", int64(7)}}, c)

	deep := map[string]any{}
	cur := deep
	for i := 0; i < flags.MaxContextDepth; i++ {
		next := map[string]any{}
		cur["a"] = next
		cur = next
	}
	wide := map[string]any{}
	for i := 0; i < flags.MaxContextValues; i++ {
		wide[fmt.Sprint("k", i)] = true
	}
	long := map[string]any{"s": string(make([]byte, flags.MaxContextString+1))}
	for name, raw := range map[string]map[string]any{"deep": deep, "wide": wide, "long": long, "huge number": {"n": json.Number("1e999")}} {
		_, err := flags.NewContext(raw)
		var ce *flags.ContextError
		require.ErrorAs(t, err, &ce, name)
		t.Logf("%s: %v", name, err)
	}
}
