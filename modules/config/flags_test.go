package config_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"platform/modules/config"
	"platform/test/apitest"
	"platform/test/testenv"
)

// flagsAPI: a flag call may change flags, rules and their history.
var flagsAPI = apitest.Options{
	Modules: []string{"config"}, Rights: []string{"config.flags.*"},
	Collections: []string{config.FlagsCollection, config.FlagRulesCollection, config.FlagHistoryCollection},
}

func newFlagsFixture(t *testing.T) *fixture { t.Helper(); return &fixture{apitest.New(t, flagsAPI)} }

func checkoutFlag(slug string) map[string]any {
	return map[string]any{"slug": slug, "name": "New checkout", "enabled": true, "defaultVariant": "off",
		"variants": []any{map[string]any{"key": "on", "value": true}, map[string]any{"key": "off", "value": false}}}
}

func TestFlagSmoke(t *testing.T) {
	f := newFlagsFixture(t)
	p := f.P
	r := p.Do("POST", "/config/flags", f.Admin, checkoutFlag("new-checkout"))
	require.Equal(t, 201, r.Status, string(r.Body))
	r = p.Do("POST", "/config/flagrules", f.Admin, map[string]any{"flag": "new-checkout", "condition": map[string]any{"country": "DE"}, "variant": "on"})
	require.Equal(t, 201, r.Status, string(r.Body))
	r = p.Do("POST", "/config/flags/new-checkout/actions/evaluate", f.Admin, map[string]any{"context": map[string]any{"country": "DE"}})
	require.Equal(t, 200, r.Status, string(r.Body))
	t.Log(string(r.Body))
	r = p.Do("POST", "/config/flags/actions/evaluate", f.Admin, map[string]any{"context": map[string]any{"country": "FR"}})
	require.Equal(t, 200, r.Status, string(r.Body))
	t.Log(string(r.Body))
	r = p.Do("POST", "/config/flags/new-checkout/actions/toggle", f.Admin, nil)
	require.Equal(t, 200, r.Status, string(r.Body))
	r = p.Do("GET", "/config/flaghistory", f.Admin, nil)
	require.Equal(t, 200, r.Status, string(r.Body))
	t.Log(string(r.Body))
	_ = testenv.Resp{}
}
