package config_test

import (
	"fmt"
	"net/http"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"platform/kernel/query"
	"platform/kernel/store"
	"platform/modules/config"
	"platform/modules/config/flags"
	"platform/test/apitest"
	"platform/test/testenv"
)

// flagsAPI: a flag call may change flags, rules and their history.
var flagsAPI = apitest.Options{
	Modules: []string{"config"}, Rights: []string{"config.flags.*"},
	Collections: []string{config.FlagsCollection, config.FlagRulesCollection, config.FlagHistoryCollection},
}

func newFlagsFixture(t *testing.T) *fixture { t.Helper(); return &fixture{apitest.New(t, flagsAPI)} }

// slugs makes flag keys unique within a test's platform.
var slugs atomic.Int64

func newSlug(prefix string) string { return fmt.Sprintf("%s-%d", prefix, slugs.Add(1)) }

func onOffFlag(slug string) map[string]any {
	return map[string]any{"slug": slug, "name": "New checkout", "enabled": true, "defaultVariant": "off",
		"variants": []any{variant("on", true), variant("off", false)}}
}

func variant(key string, value any) map[string]any { return map[string]any{"key": key, "value": value} }

// colourFlag has four variants, each a JSON object.
func colourFlag(slug string) map[string]any {
	var vs []any
	for _, c := range []string{"grey", "blue", "green", "red"} {
		vs = append(vs, variant(c, map[string]any{"colour": c, "weight": 1.5}))
	}
	return map[string]any{"slug": slug, "name": "Theme", "enabled": true, "defaultVariant": "grey", "variants": vs}
}

// givenFlag creates a flag with its rules and names it "flag" (its
// slug), its id "flagId" and its rules "rule0", "rule1", ...
func givenFlag(body map[string]any, rules ...map[string]any) func(f *fixture) apitest.IDs {
	return func(f *fixture) apitest.IDs {
		slug := newSlug(body["slug"].(string))
		b := clone(body)
		b["slug"] = slug
		ids := apitest.IDs{"flag": slug, "flagId": f.Create("/config/flags", b)}
		for i, r := range rules {
			rb := clone(r)
			rb["flag"] = slug
			ids[fmt.Sprint("rule", i)] = f.Create("/config/flagrules", rb)
		}
		return ids
	}
}

func clone(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

func with(m map[string]any, kv ...any) map[string]any {
	out := clone(m)
	for i := 0; i < len(kv); i += 2 {
		if kv[i+1] == nil {
			delete(out, kv[i].(string))
			continue
		}
		out[kv[i].(string)] = kv[i+1]
	}
	return out
}

func rollout(kv ...any) []any {
	var out []any
	for i := 0; i < len(kv); i += 2 {
		out = append(out, map[string]any{"variant": kv[i], "weight": kv[i+1]})
	}
	return out
}

// TestFlagValidation: every invalid flag or rule is a 422 naming the
// field and why; nothing invalid is stored.
func TestFlagValidation(t *testing.T) {
	f := newFlagsFixture(t)
	flag := func(name string, body map[string]any, field string) scenario {
		return scenario{Name: name, Method: "POST", Path: "/config/flags", Body: body, Status: 422, Field: field}
	}
	rule := func(name string, body map[string]any, field string) scenario {
		return scenario{Name: name, Given: givenFlag(colourFlag("theme")), Method: "POST", Path: "/config/flagrules",
			Body: with(body, "flag", "{flag}"), Status: 422, Field: field}
	}
	patch := func(name string, body map[string]any, field string) scenario {
		return scenario{Name: name, Given: givenFlag(colourFlag("theme"), map[string]any{"variant": "blue"}),
			Method: "PATCH", Path: "/config/flags/{flag}", Body: body, Status: 422, Field: field}
	}
	many := []any{}
	for i := 0; i <= config.MaxVariants; i++ {
		many = append(many, variant(fmt.Sprint("v", i), i))
	}
	apitest.Run(t, f, []scenario{
		flag("default variant names no variant", with(onOffFlag("a"), "defaultVariant", "maybe"), "defaultVariant"),
		flag("default variant missing", with(onOffFlag("a"), "defaultVariant", nil), "defaultVariant"),
		flag("variant key twice", with(onOffFlag("a"), "variants", []any{variant("on", 1), variant("on", 2)}), "variants[1].key"),
		flag("variant key not a key", with(onOffFlag("a"), "variants", []any{variant("on off", 1)}, "defaultVariant", "on off"), "variants[0].key"),
		flag("variant without value", with(onOffFlag("a"), "variants", []any{map[string]any{"key": "off"}}), "variants[0].value"),
		flag("variant value too large", with(onOffFlag("a"), "variants", []any{variant("off", string(make([]byte, 9000)))}), "variants[0].value"),
		flag("no variants", with(onOffFlag("a"), "variants", []any{}), "variants"),
		flag("too many variants", with(onOffFlag("a"), "variants", many, "defaultVariant", "v0"), "variants"),
		flag("slug not a key", with(onOffFlag("a"), "slug", "New Checkout"), "slug"),
		flag("slug with the separator", with(onOffFlag("a"), "slug", "a:b"), "slug"),
		flag("slug like an id", with(onOffFlag("a"), "slug", "65a1b2c3d4e5f6a7b8c9d0e1"), "slug"),
		flag("enabled not a boolean", with(onOffFlag("a"), "enabled", "yes"), "enabled"),
		flag("unknown field", with(onOffFlag("a"), "owner", "me"), "owner"),

		rule("unknown variant", map[string]any{"variant": "purple"}, "variant"),
		rule("rollout names an unknown variant", map[string]any{"rollout": rollout("blue", 50, "purple", 50)}, "rollout[1].variant"),
		rule("rollout short of 100", map[string]any{"rollout": rollout("blue", 50, "green", 49.99)}, "rollout"),
		rule("rollout weight beyond 100", map[string]any{"rollout": rollout("blue", 150, "green", -50)}, "rollout[0].weight"),
		rule("rollout weight of three decimals", map[string]any{"rollout": rollout("blue", 50.005, "green", 49.995)}, "rollout[0].weight"),
		rule("rollout names a variant twice", map[string]any{"rollout": rollout("blue", 50, "blue", 50)}, "rollout[1].variant"),
		rule("empty rollout", map[string]any{"rollout": []any{}}, "rollout"),
		rule("variant and rollout", map[string]any{"variant": "blue", "rollout": rollout("blue", 100)}, "variant"),
		rule("neither variant nor rollout", map[string]any{"condition": map[string]any{"country": "DE"}}, "variant"),
		rule("condition not a filter", map[string]any{"variant": "blue", "condition": map[string]any{"country": map[string]any{"$near": 1}}}, "condition"),
		rule("condition not an object", map[string]any{"variant": "blue", "condition": "country = DE"}, "condition"),
		rule("bucketBy not a path", map[string]any{"rollout": rollout("blue", 100), "bucketBy": "user..id"}, "bucketBy"),
		rule("order negative", map[string]any{"variant": "blue", "order": -1}, "order"),
		{Name: "rule of no flag", Method: "POST", Path: "/config/flagrules", Body: map[string]any{"flag": "nothing-here", "variant": "on"}, Status: 422, Field: "flag"},

		patch("slug cannot change", map[string]any{"slug": "other"}, "slug"),
		patch("default variant removed", map[string]any{"defaultVariant": "purple"}, "defaultVariant"),
		patch("variant a rule serves removed", map[string]any{"variants": []any{variant("grey", 0)}}, "variants"),
		{Name: "rule cannot move", Given: givenFlag(colourFlag("theme"), map[string]any{"variant": "blue"}),
			Method: "PATCH", Path: "/config/flagrules/{rule0}", Body: map[string]any{"flag": "elsewhere"}, Status: 422, Field: "flag"},
		{Name: "history is not client-writable", Method: "POST", Path: "/config/flaghistory", Body: map[string]any{"flag": "x"}, Status: 405},
	})
}

// TestFlagHistory: every change of a flag or rule, by HTTP or action,
// leaves one history row with who, when, before and after.
func TestFlagHistory(t *testing.T) {
	f := newFlagsFixture(t)
	colleague, colleagueToken := f.Colleague()
	history := func(f *fixture, id string) []store.Doc {
		docs, err := f.P.Store.Collection(config.FlagHistoryCollection).Find(f.P.Ctx(), store.FindOptions{Filter: query.Eq("recordId", id)})
		require.NoError(f.T, err)
		return docs
	}
	last := func(f *fixture, id string) store.Doc {
		h := history(f, id)
		require.NotEmpty(f.T, h)
		return h[len(h)-1]
	}
	apitest.Run(t, f, []scenario{
		{Name: "create", Method: "POST", Path: "/config/flags", Body: onOffFlag(newSlug("hist")), Status: 201, Events: []string{"flags.created"},
			Then: func(f *fixture, _ apitest.IDs, r *testenv.Resp) {
				id := r.Payload()["_id"].(string)
				h := history(f, id)
				require.Len(f.T, h, 1)
				require.Equal(f.T, "created", h[0]["change"])
				require.Equal(f.T, "flag", h[0]["recordType"])
				require.Equal(f.T, f.P.Admin.ID, h[0]["actor"])
				require.Equal(f.T, "user", h[0]["actorType"])
				require.NotContains(f.T, h[0], "before")
				require.Equal(f.T, true, h[0]["after"].(map[string]any)["enabled"])
				require.NotContains(f.T, h[0]["after"], "customer")
				require.False(f.T, h[0]["at"].(time.Time).Before(f.CalledAt))
			}},
		{Name: "patch by a colleague", Given: givenFlag(onOffFlag("hist")), Method: "PATCH", Path: "/config/flags/{flag}",
			Token: func(*fixture) string { return colleagueToken }, Body: map[string]any{"name": "Checkout v2", "description": "the new one"},
			Status: 200, Events: []string{"flags.updated"},
			Then: func(f *fixture, v apitest.IDs, _ *testenv.Resp) {
				h := last(f, v["flagId"])
				require.Equal(f.T, "updated", h["change"])
				require.Equal(f.T, colleague, h["actor"])
				require.Equal(f.T, "New checkout", h["before"].(map[string]any)["name"])
				require.Equal(f.T, "Checkout v2", h["after"].(map[string]any)["name"])
				require.Equal(f.T, []any{"description", "name"}, h["fields"])
			}},
		{Name: "toggle", Given: givenFlag(onOffFlag("hist")), Method: "POST", Path: "/config/flags/{flag}/actions/toggle",
			Status: 200, Events: []string{"flags.updated", "flags.toggled"},
			Then: func(f *fixture, v apitest.IDs, r *testenv.Resp) {
				require.Equal(f.T, false, r.Payload()["enabled"])
				h := last(f, v["flagId"])
				require.Equal(f.T, true, h["before"].(map[string]any)["enabled"])
				require.Equal(f.T, false, h["after"].(map[string]any)["enabled"])
				require.Equal(f.T, []any{"enabled"}, h["fields"])
				r = f.P.Do("POST", "/config/flags/"+v["flag"]+"/actions/toggle", f.Admin, nil)
				require.Equal(f.T, true, r.Payload()["enabled"], "toggles back on")
				require.Len(f.T, history(f, v["flagId"]), 3)
			}},
		{Name: "rule change", Given: givenFlag(colourFlag("hist"), map[string]any{"variant": "blue"}), Method: "PATCH", Path: "/config/flagrules/{rule0}",
			Body: map[string]any{"variant": nil, "rollout": rollout("blue", 10, "green", 90)}, Status: 200, Events: []string{"flagrules.updated"},
			Then: func(f *fixture, v apitest.IDs, _ *testenv.Resp) {
				h := last(f, v["rule0"])
				require.Equal(f.T, "rule", h["recordType"])
				require.Equal(f.T, v["flag"], h["flag"])
				require.Equal(f.T, "blue", h["before"].(map[string]any)["variant"])
				require.NotContains(f.T, h["after"], "variant")
				require.Equal(f.T, []any{"rollout", "variant"}, h["fields"])
			}},
		{Name: "delete cascades to rules", Given: givenFlag(colourFlag("hist"), map[string]any{"variant": "blue"}, map[string]any{"variant": "red", "order": 5}),
			Method: "DELETE", Path: "/config/flags/{flag}", Status: 200, Events: []string{"flags.deleted", "flagrules.deleted", "flagrules.deleted"},
			Then: func(f *fixture, v apitest.IDs, _ *testenv.Resp) {
				for _, id := range []string{v["flagId"], v["rule0"], v["rule1"]} {
					h := last(f, id)
					require.Equal(f.T, "deleted", h["change"])
					require.NotContains(f.T, h, "after")
					require.NotNil(f.T, h["before"])
				}
				require.Nil(f.T, f.Stored(config.FlagRulesCollection, v["rule1"]))
			}},
		{Name: "history is read with the view right", Given: givenFlag(onOffFlag("hist")), Method: "GET", Path: "/config/flaghistory?flag={flag}",
			Scopes: []string{"config.flags.view"}, Status: 200,
			Then: func(f *fixture, v apitest.IDs, r *testenv.Resp) { require.Len(f.T, r.List(), 1) }},
		{Name: "history needs the view right", Method: "GET", Path: "/config/flaghistory", Scopes: []string{config.RightEvaluate}, Status: 403},
	})
}

// theme is a flag of four variants with three ordered rules: staff get
// red, half of the German accounts blue and half green, the rest of
// Germany and Austria blue.
func theme() func(f *fixture) apitest.IDs {
	return givenFlag(colourFlag("theme"),
		map[string]any{"order": 30, "condition": map[string]any{"country": map[string]any{"$in": []any{"DE", "AT"}}}, "variant": "blue"},
		map[string]any{"order": 10, "condition": map[string]any{"email": map[string]any{"$regex": "@example\\.com$"}}, "variant": "red"},
		map[string]any{"order": 20, "condition": map[string]any{"country": "DE"}, "rollout": rollout("blue", 50, "green", 50), "bucketBy": "account.id"},
	)
}

func evaluate(name, context string, check func(f *fixture, v apitest.IDs, d map[string]any)) scenario {
	return scenario{Name: name, Given: theme(), Method: "POST", Path: "/config/flags/{flag}/actions/evaluate",
		Body: `{"context": ` + context + `}`, Scopes: []string{config.RightEvaluate}, Status: 200,
		Then: func(f *fixture, v apitest.IDs, r *testenv.Resp) { check(f, v, r.Payload()) }}
}

func decided(variant, reason, rule string) func(f *fixture, v apitest.IDs, d map[string]any) {
	return func(f *fixture, v apitest.IDs, d map[string]any) {
		require.Equal(f.T, v["flag"], d["flagKey"])
		require.Equal(f.T, variant, d["variant"])
		require.Equal(f.T, map[string]any{"colour": variant, "weight": 1.5}, d["value"])
		require.Equal(f.T, reason, d["reason"])
		if rule == "" {
			require.NotContains(f.T, d, "ruleId")
		} else {
			require.Equal(f.T, v[rule], d["ruleId"])
		}
	}
}

// TestFlagEvaluation: rules decide by order, rollouts by the published
// bucket, a disabled flag answers DISABLED; evaluation needs its right
// and sees the caller's customer only.
func TestFlagEvaluation(t *testing.T) {
	f := newFlagsFixture(t)
	apitest.Run(t, f, []scenario{
		evaluate("first rule by order wins", `{"email": "ada@example.com", "country": "DE", "account": {"id": "acme"}}`, decided("red", "TARGETING_MATCH", "rule1")),
		evaluate("a later rule matches", `{"country": "AT"}`, decided("blue", "TARGETING_MATCH", "rule0")),
		evaluate("rollout without its bucket key is skipped", `{"country": "DE"}`, decided("blue", "TARGETING_MATCH", "rule0")),
		evaluate("no rule matches", `{"country": "FR"}`, decided("grey", "DEFAULT", "")),
		evaluate("empty context", `{}`, decided("grey", "DEFAULT", "")),
		evaluate("rollout by the published bucket", `{"country": "DE", "account": {"id": "acme"}}`, func(f *fixture, v apitest.IDs, d map[string]any) {
			b := flags.Bucket(v["flag"], "acme")
			require.EqualValues(f.T, b, d["bucket"])
			want := map[bool]string{true: "blue", false: "green"}[b < 5000]
			decided(want, "SPLIT", "rule2")(f, v, d)
		}),
		{Name: "no context at all", Given: theme(), Method: "POST", Path: "/config/flags/{flag}/actions/evaluate", Status: 200,
			Then: func(f *fixture, v apitest.IDs, r *testenv.Resp) { decided("grey", "DEFAULT", "")(f, v, r.Payload()) }},
		{Name: "by id", Given: theme(), Method: "POST", Path: "/config/flags/{flagId}/actions/evaluate", Body: `{"context": {"country": "AT"}}`, Status: 200,
			Then: func(f *fixture, v apitest.IDs, r *testenv.Resp) {
				decided("blue", "TARGETING_MATCH", "rule0")(f, v, r.Payload())
				upper := f.P.Do("POST", "/config/flags/"+strings.ToUpper(v["flagId"])+"/actions/evaluate", f.Admin, map[string]any{"context": map[string]any{"country": "AT"}})
				require.Equal(f.T, 200, upper.Status, "ids in any case, as record routes take them: %s", upper.Body)
			}},
		{Name: "disabled flag", Given: givenFlag(with(colourFlag("off"), "enabled", false), map[string]any{"variant": "red"}),
			Method: "POST", Path: "/config/flags/{flag}/actions/evaluate", Body: `{"context": {"country": "DE"}}`, Status: 200,
			Then: func(f *fixture, v apitest.IDs, r *testenv.Resp) { decided("grey", "DISABLED", "")(f, v, r.Payload()) }},
		{Name: "a switched-off rule is skipped", Given: givenFlag(colourFlag("theme"), map[string]any{"variant": "red", "enabled": false}),
			Method: "POST", Path: "/config/flags/{flag}/actions/evaluate", Status: 200,
			Then: func(f *fixture, v apitest.IDs, r *testenv.Resp) { decided("grey", "DEFAULT", "")(f, v, r.Payload()) }},
		{Name: "unknown flag", Method: "POST", Path: "/config/flags/nothing-here/actions/evaluate", Status: 404},
		{Name: "another customer's flag", Given: func(f *fixture) apitest.IDs {
			slug := newSlug("theirs")
			r := f.P.Do("POST", "/config/flags", f.Other, onOffFlag(slug))
			require.Equal(f.T, 201, r.Status, string(r.Body))
			return apitest.IDs{"flag": slug, "flagId": r.Payload()["_id"].(string)}
		}, Method: "POST", Path: "/config/flags/{flag}/actions/evaluate", Status: 404,
			Then: func(f *fixture, v apitest.IDs, _ *testenv.Resp) {
				require.Equal(f.T, 404, f.P.Do("POST", "/config/flags/"+v["flagId"]+"/actions/evaluate", f.Admin, nil).Status)
				bulk := f.P.Do("POST", "/config/flags/actions/evaluate", f.Admin, nil)
				require.NotContains(f.T, string(bulk.Body), v["flag"])
				require.Equal(f.T, 200, f.P.Do("POST", "/config/flags/"+v["flag"]+"/actions/evaluate", f.Other, nil).Status, "its own customer evaluates it")
				for _, path := range []string{"/config/flags/" + v["flag"], "/config/flags/" + v["flagId"]} {
					require.Equal(f.T, 404, f.P.Do("GET", path, f.Admin, nil).Status, path)
				}
				require.Equal(f.T, 404, f.P.Do("POST", "/config/flags/"+v["flag"]+"/actions/toggle", f.Admin, nil).Status)
				rule := f.P.Do("POST", "/config/flagrules", f.Admin, map[string]any{"flag": v["flag"], "variant": "on"})
				require.Equal(f.T, 422, rule.Status, "no rule for another customer's flag: %s", rule.Body)
				require.Empty(f.T, f.P.Do("GET", "/config/flaghistory?flag="+v["flag"], f.Admin, nil).List())
			}},
		{Name: "without the evaluate right", Given: theme(), Method: "POST", Path: "/config/flags/{flag}/actions/evaluate",
			Scopes: []string{"config.flags.view", "config.flags.edit"}, Status: 403},
		{Name: "bulk without the evaluate right", Method: "POST", Path: "/config/flags/actions/evaluate", Scopes: []string{"config.flags.view"}, Status: 403},
		{Name: "the evaluate right reads no flag", Given: theme(), Method: "GET", Path: "/config/flags/{flag}", Scopes: []string{config.RightEvaluate}, Status: 403},
		{Name: "context not an object", Given: theme(), Method: "POST", Path: "/config/flags/{flag}/actions/evaluate", Body: `{"context": "DE"}`, Status: 422, Field: "context"},
		{Name: "context too deep", Given: theme(), Method: "POST", Path: "/config/flags/{flag}/actions/evaluate",
			Body: `{"context": {"a": {"b": {"c": {"d": {"e": {"f": 1}}}}}}}`, Status: 422, Field: "context.a.b.c.d.e.f"},
		{Name: "unknown body field", Given: theme(), Method: "POST", Path: "/config/flags/{flag}/actions/evaluate", Body: `{"ctx": {}}`, Status: 422, Field: "ctx"},
		{Name: "malformed body", Given: theme(), Method: "POST", Path: "/config/flags/{flag}/actions/evaluate", Body: `{"context": `, Status: 400},
	})
}

// TestFlagBulkEvaluation: the bulk form answers every enabled flag of the
// customer by key, or those asked for.
func TestFlagBulkEvaluation(t *testing.T) {
	f := newFlagsFixture(t)
	var on []string
	for i := 0; i < 3; i++ {
		slug := newSlug("bulk")
		f.Create("/config/flags", onOffFlag(slug))
		f.Create("/config/flagrules", map[string]any{"flag": slug, "condition": map[string]any{"plan": "pro"}, "variant": "on"})
		on = append(on, slug)
	}
	sort.Strings(on) // the answer is in key order: bulk-10 before bulk-9
	off := newSlug("bulk-off")
	f.Create("/config/flags", with(onOffFlag(off), "enabled", false))
	keys := func(r *testenv.Resp) []string {
		var out []string
		for _, d := range r.List() {
			out = append(out, d["flagKey"].(string))
			require.Equal(f.T, "on", d["variant"])
			require.Equal(f.T, "TARGETING_MATCH", d["reason"])
		}
		return out
	}
	tok := f.P.Token(config.RightEvaluate)
	r := f.P.Do("POST", "/config/flags/actions/evaluate", tok, map[string]any{"context": map[string]any{"plan": "pro"}})
	require.Equal(t, 200, r.Status, string(r.Body))
	require.Equal(t, on, keys(r), "every enabled flag, by key; not the one that is off")
	r = f.P.Do("POST", "/config/flags/actions/evaluate", tok, map[string]any{"context": map[string]any{"plan": "pro"}, "flags": []any{on[2], off, "nothing-here"}})
	require.Equal(t, 200, r.Status, string(r.Body))
	require.Equal(t, []string{on[2]}, keys(r))
	r = f.P.Do("POST", "/config/flags/actions/evaluate", tok, map[string]any{"flags": "all"})
	require.Equal(t, 422, r.Status, string(r.Body))
}

// TestFlagCache: a write is seen at once by the process that made it,
// and by another process (another API replica on the same store) when it
// next compares the version counter; until then that one evaluates from
// its cache without reading the store.
func TestFlagCache(t *testing.T) {
	f := newFlagsFixture(t)
	p := f.P
	slug := newSlug("cache")
	f.Create("/config/flags", colourFlag(slug))
	rule := f.Create("/config/flagrules", map[string]any{"flag": slug, "variant": "blue"})
	ctx := flags.Context{"country": "DE"}
	evalHere := func() string {
		r := p.Do("POST", "/config/flags/"+slug+"/actions/evaluate", f.Admin, map[string]any{"context": ctx})
		require.Equal(t, http.StatusOK, r.Status, string(r.Body))
		return r.Payload()["variant"].(string)
	}
	checking := config.NewFlagEvaluator(p.Service, 0)       // compares the counter on every evaluation
	cached := config.NewFlagEvaluator(p.Service, time.Hour) // never within the test
	evalThere := func(e *config.FlagEvaluator) string {
		d, err := e.Evaluate(p.Ctx(), slug, ctx)
		require.NoError(t, err)
		return d.Variant
	}
	require.Equal(t, "blue", evalHere())
	require.Equal(t, "blue", evalThere(checking))
	require.Equal(t, "blue", evalThere(cached))

	r := p.Do("PATCH", "/config/flagrules/"+rule, f.Admin, map[string]any{"variant": "green"})
	require.Equal(t, 200, r.Status, string(r.Body))
	require.Equal(t, "green", evalHere(), "the writing process sees its write at once")
	require.Equal(t, "green", evalThere(checking), "another process sees it at its next version check")
	require.Equal(t, "blue", evalThere(cached), "and evaluates from its cache until then")

	r = p.Do("POST", "/config/flags/"+slug+"/actions/toggle", f.Admin, nil)
	require.Equal(t, 200, r.Status, string(r.Body))
	require.Equal(t, "grey", evalHere())
	d, err := checking.Evaluate(p.Ctx(), slug, ctx)
	require.NoError(t, err)
	require.Equal(t, flags.ReasonDisabled, d.Reason)
}

// TestFlagRuleOfAnEarlierFlag: a rule left by an earlier flag of the same
// slug (saved while that flag was being deleted) does not join the new
// flag: rules belong to a flag by its id.
func TestFlagRuleOfAnEarlierFlag(t *testing.T) {
	f := newFlagsFixture(t)
	p := f.P
	slug := newSlug("again")
	f.Create("/config/flags", colourFlag(slug))
	stale := store.Doc{"flag": slug, "flagId": store.NewID(), "variant": "red", "order": int64(0), "enabled": true, "bucketBy": "targetingKey"}
	_, err := p.Service.Insert(p.Ctx(), p.Registry.ByPlural(config.FlagRulesCollection), stale)
	require.NoError(t, err)
	f.Create("/config/flagrules", map[string]any{"flag": slug, "order": 5, "variant": "blue"})
	r := p.Do("POST", "/config/flags/"+slug+"/actions/evaluate", f.Admin, nil)
	require.Equal(t, 200, r.Status, string(r.Body))
	require.Equal(t, "blue", r.Payload()["variant"], "the stale rule (order 0) is not the flag's")

	r = p.Do("DELETE", "/config/flags/"+slug, f.Admin, nil)
	require.Equal(t, 200, r.Status, string(r.Body))
	n, err := p.Store.Collection(config.FlagRulesCollection).Count(p.Ctx(), query.Eq("flag", slug))
	require.NoError(t, err)
	require.Zero(t, n, "deleting the flag takes every rule of its slug")
}

// TestFlagCacheUnderWrites: evaluations running while the flag toggles
// always answer one of the flag's two states, and the last state once
// the writes stop (run with -race, as make test does).
func TestFlagCacheUnderWrites(t *testing.T) {
	f := newFlagsFixture(t)
	p := f.P
	slug := newSlug("busy")
	f.Create("/config/flags", onOffFlag(slug))
	f.Create("/config/flagrules", map[string]any{"flag": slug, "variant": "on"})
	other := config.NewFlagEvaluator(p.Service, 0)
	stop := make(chan struct{})
	errs := make(chan error, 4)
	for i := 0; i < 4; i++ {
		go func(i int) {
			for {
				select {
				case <-stop:
					errs <- nil
					return
				default:
				}
				var reason flags.Reason
				if i%2 == 0 {
					r := p.Do("POST", "/config/flags/"+slug+"/actions/evaluate", f.Admin, nil)
					reason = flags.Reason(fmt.Sprint(r.Payload()["reason"]))
				} else {
					d, err := other.Evaluate(p.Ctx(), slug, nil)
					if err != nil {
						errs <- err
						return
					}
					reason = d.Reason
				}
				if reason != flags.ReasonTargetingMatch && reason != flags.ReasonDisabled {
					errs <- fmt.Errorf("reason %q", reason)
					return
				}
			}
		}(i)
	}
	for i := 0; i < 9; i++ {
		r := p.Do("POST", "/config/flags/"+slug+"/actions/toggle", f.Admin, nil)
		require.Equal(t, 200, r.Status, string(r.Body))
	}
	close(stop)
	for i := 0; i < 4; i++ {
		require.NoError(t, <-errs)
	}
	r := p.Do("POST", "/config/flags/"+slug+"/actions/evaluate", f.Admin, nil)
	require.Equal(t, "DISABLED", r.Payload()["reason"], "nine toggles leave it off")
	d, err := other.Evaluate(p.Ctx(), slug, nil)
	require.NoError(t, err)
	require.Equal(t, flags.ReasonDisabled, d.Reason)
}
