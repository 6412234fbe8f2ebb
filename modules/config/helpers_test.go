package config_test

import (
	"testing"

	"platform/modules/audit/trail"
	"platform/modules/config/credentials"
	"platform/test/apitest"
)

// fixture is config's scenario fixture: a platform of its own for one
// top-level test, with a second customer, whose config answers are checked
// against the published OpenAPI document.
type fixture struct{ *apitest.Env }

// configAPI: a config call may change the credentials and the audit trail.
var configAPI = apitest.Options{
	Modules: []string{"config"}, Rights: []string{"config.credentials.*"},
	Collections: []string{credentials.Collection, trail.Collection},
}

type scenario = apitest.Scenario[*fixture]

// newFixture runs the test in parallel with the others, on a platform of its own.
func newFixture(t *testing.T) *fixture {
	t.Helper()
	return &fixture{apitest.New(t, configAPI)}
}

// For binds the fixture to a subtest.
func (f *fixture) For(t testing.TB) *fixture { return &fixture{f.Env.For(t)} }
