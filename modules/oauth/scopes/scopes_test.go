package scopes_test

import (
	"testing"

	"platform/kernel/resource"

	"github.com/stretchr/testify/require"

	"platform/modules/oauth/scopes"
)

func catalog() *scopes.Catalog {
	reg := resource.NewRegistry()
	reg.Add("crm", &resource.Resource{Plural: "consumers", Title: "consumer"})
	reg.Add("crm", &resource.Resource{Plural: "tasks", Title: "task",
		Actions: []resource.Action{{Name: "assign", Title: "assign the task", Right: "crm.tasks.assign"}, {Name: "reopen", Title: "reopen"}}})
	reg.Add("marketing", &resource.Resource{Plural: "maillogs", Title: "mail log", ReadOnly: true})
	return scopes.NewCatalog(reg)
}

func TestGrantExpandsWildcardsAgainstRealRights(t *testing.T) {
	c := catalog()
	require.Equal(t, []string{"crm.consumers.create", "crm.consumers.delete", "crm.consumers.edit", "crm.consumers.view",
		"crm.tasks.assign", "crm.tasks.create", "crm.tasks.delete", "crm.tasks.edit", "crm.tasks.view", "marketing.maillogs.view"}, c.Rights())
	// requested ∩ holder ∩ package
	got := c.Grant([]string{"crm.*", "email"}, []string{"crm.consumers.*", "crm.tasks.view"}, []string{"*"}, true)
	require.Equal(t, []string{"crm.consumers.create", "crm.consumers.delete", "crm.consumers.edit", "crm.consumers.view", "crm.tasks.view", "email"}, got)
	got = c.Grant([]string{"crm.*"}, []string{"*"}, []string{"crm.tasks.*"}, false)
	require.Equal(t, []string{"crm.tasks.assign", "crm.tasks.create", "crm.tasks.delete", "crm.tasks.edit", "crm.tasks.view"}, got)
	require.Empty(t, c.Grant([]string{"marketing.maillogs.edit"}, []string{"*"}, []string{"*"}, true), "no such right")
	require.Empty(t, c.Grant([]string{"profile"}, []string{"*"}, []string{"*"}, false), "standard scopes only for users")
}

func TestValidAndWithin(t *testing.T) {
	c := catalog()
	for _, s := range []string{"*", "crm.*", "crm.tasks.*", "crm.tasks.assign", "profile", "email"} {
		require.True(t, c.Valid(s), s)
	}
	for _, s := range []string{"", "crm", "crm.nothing.*", "shop.*", "crm.tasks.fly", "crm.*.view", "CRM.*"} {
		require.False(t, c.Valid(s), s)
	}
	require.True(t, scopes.Within([]string{"crm.consumers.view", "email"}, []string{"crm.consumers.view", "crm.consumers.edit", "email"}))
	require.False(t, scopes.Within([]string{"crm.*"}, []string{"crm.consumers.view"}))
	require.False(t, scopes.Within([]string{"profile"}, []string{"email"}))
}

func TestDescribeInPlainWords(t *testing.T) {
	c := catalog()
	g := c.Describe([]string{"crm.consumers.view", "crm.consumers.edit", "crm.tasks.assign", "marketing.maillogs.view", "email"})
	require.Equal(t, []scopes.Group{
		{Module: "Your account", Lines: []string{"Your e-mail address"}},
		{Module: "CRM", Lines: []string{"Consumers: see, change", "Tasks: assign the task"}},
		{Module: "Marketing", Lines: []string{"Maillogs: see"}},
	}, g)
}

// TestExportAndGrantsAreRights: a token or app can only be given rights
// the catalog lists, so an export right or a declared grant (a pipeline's
// use of credentials) missing from it could never be granted.
func TestExportAndGrantsAreRights(t *testing.T) {
	reg := resource.NewRegistry()
	reg.Add("marketing", &resource.Resource{Plural: "maillogs", Title: "mail log", ReadOnly: true, Export: true})
	reg.Add("config", &resource.Resource{Plural: "credentials", Title: "credential",
		Grants: []resource.Grant{{Right: "config.credentials.use", Title: "use in pipelines"}}})
	c := scopes.NewCatalog(reg)
	require.True(t, c.Valid("marketing.maillogs.export"))
	require.True(t, c.Valid("config.credentials.use"))
	require.Equal(t, []string{"config.credentials.use"}, c.Grant([]string{"config.credentials.use"}, []string{"config.*"}, []string{"*"}, false))
}
