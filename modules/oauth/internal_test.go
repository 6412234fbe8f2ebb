package oauth

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestScopeStrategy(t *testing.T) {
	require.True(t, scopeStrategy([]string{"crm.*"}, "crm.consumers.view"))
	require.True(t, scopeStrategy([]string{"crm.*"}, "crm.consumers.*"))
	require.True(t, scopeStrategy([]string{"profile"}, "profile"))
	require.False(t, scopeStrategy([]string{"*"}, "profile"), "standard scopes are registered by name")
	require.False(t, scopeStrategy([]string{"crm.consumers.*"}, "crm.*"))
}
