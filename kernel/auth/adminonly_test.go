package auth_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"platform/kernel/auth"
)

// TestWildcardsNeverCoverAdminOnlyRights: once declared admin-only, a
// right is covered by its exact name only; its neighbours keep matching
// wildcards, and a licence pattern still matches it.
func TestWildcardsNeverCoverAdminOnlyRights(t *testing.T) {
	auth.DeclareAdminOnly("authtest.secrets.reveal")
	require.True(t, auth.IsAdminOnly("authtest.secrets.reveal"))
	require.Contains(t, auth.AdminOnlyRights(), "authtest.secrets.reveal")
	for _, scope := range []string{"*", "authtest.*", "authtest.secrets.*"} {
		p := &auth.Principal{Scopes: []string{scope}}
		require.False(t, p.Allows("authtest.secrets.reveal"), scope)
		require.True(t, p.Allows("authtest.secrets.view"), "%s still covers the other rights", scope)
		require.True(t, auth.PatternMatches(scope, "authtest.secrets.reveal"), "a licence pattern matches by shape")
	}
	require.True(t, (&auth.Principal{Scopes: []string{"authtest.secrets.reveal"}}).Allows("authtest.secrets.reveal"), "the exact grant")
	require.False(t, auth.IsAdminOnly("authtest.secrets.view"))
}
