package events

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestMatchesAndPatterns(t *testing.T) {
	t.Parallel()
	known := []string{"consumers.created", "consumers.updated", "tasks.assigned"}
	require.True(t, Matches([]string{"*"}, "tasks.assigned"))
	require.True(t, Matches([]string{"consumers.*"}, "consumers.updated"))
	require.False(t, Matches([]string{"consumers.*"}, "consumersx.updated"))
	require.False(t, Matches([]string{"consumers.created"}, "consumers.updated"))
	require.False(t, Matches([]string{"consu*"}, "consumers.updated"))
	for _, ok := range []string{"*", "consumers.*", "tasks.assigned"} {
		require.Empty(t, CheckPattern(ok, known), ok)
	}
	for _, bad := range []string{"consumers.exploded", "nothing.*", "*.created", "consumers", ""} {
		require.NotEmpty(t, CheckPattern(bad, known), bad)
	}
}
