package flags_test

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"platform/modules/config/flags"
)

// TestPublishedVectors checks the bucketing test vectors published in
// docs/config-flags.md, so the documentation SDKs follow cannot drift
// from the code.
func TestPublishedVectors(t *testing.T) {
	doc, err := os.ReadFile("../../../docs/config-flags.md")
	require.NoError(t, err)
	_, table, ok := strings.Cut(string(doc), "<!-- vectors:start -->")
	require.True(t, ok, "the docs mark the vectors' table")
	table, _, ok = strings.Cut(table, "<!-- vectors:end -->")
	require.True(t, ok)
	rows := 0
	for _, line := range strings.Split(strings.TrimSpace(table), "\n")[2:] {
		cells := strings.Split(strings.Trim(line, "| "), "|")
		require.Len(t, cells, 5, line)
		for i := range cells {
			cells[i] = strings.Trim(strings.TrimSpace(cells[i]), "`")
		}
		key, value, text := cells[0], cells[1], cells[2]
		hash, err := strconv.ParseUint(cells[3], 10, 32)
		require.NoError(t, err, line)
		bucket, err := strconv.Atoi(cells[4])
		require.NoError(t, err, line)

		require.Equal(t, key+flags.Separator+value, text, line)
		require.Equal(t, uint32(hash), flags.Murmur3([]byte(text), 0), line)
		require.Equal(t, bucket, flags.Bucket(key, value), line)
		rows++
	}
	require.GreaterOrEqual(t, rows, 5)

	// The docs' example: a 10 % rollout of new-checkout.
	f := rollout10(t)
	require.Equal(t, "on", f.Evaluate(flags.Context{flags.TargetingKey: "user-42"}).Variant)
	require.Equal(t, "off", f.Evaluate(flags.Context{flags.TargetingKey: "user-43"}).Variant)
}
