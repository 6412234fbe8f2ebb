package developer_test

import (
	"context"
	"testing"

	"platform/modules/identity"
	"platform/test/apitest"
)

func bg() context.Context { return context.Background() }

// fixture is the developer module's scenario fixture: a platform of its
// own for one top-level test, with a second customer, whose developer
// answers are checked against the published OpenAPI document.
type fixture struct{ *apitest.Env }

// developerAPI: a developer call may change the apps.
var developerAPI = apitest.Options{
	Modules: []string{"developer"}, Rights: []string{"developer.apps.*"}, Collections: []string{identity.Apps},
}

type scenario = apitest.Scenario[*fixture]

// newFixture runs the test in parallel with the others, on a platform of its own.
func newFixture(t *testing.T) *fixture {
	t.Helper()
	return &fixture{apitest.New(t, developerAPI)}
}

// For binds the fixture to a subtest.
func (f *fixture) For(t testing.TB) *fixture { return &fixture{f.Env.For(t)} }
