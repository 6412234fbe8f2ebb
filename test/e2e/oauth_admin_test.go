package e2e

import (
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"platform/test/testenv"
)

// adminCommand runs platform admin commands on a store of the test's own
// (embedded SQLite, no platform running), with extra environment.
func adminCommand(t *testing.T, extraEnv ...string) func(args ...string) (string, error) {
	t.Helper()
	bin, err := testenv.PlatformBinary()
	require.NoError(t, err)
	env := append(os.Environ(), "PLATFORM_DATA="+t.TempDir(), "MONGODB_URI=", "PLATFORM_EMBEDDED_STORE=sqlite")
	env = append(env, extraEnv...)
	return func(args ...string) (string, error) {
		cmd := exec.Command(bin, args...)
		cmd.Env = env
		out, err := cmd.Output()
		if ee, ok := err.(*exec.ExitError); ok {
			return string(ee.Stderr), err
		}
		return strings.TrimSpace(string(out)), err
	}
}

// TestTokenLifetimeDefaultsToTheAccessTokenSetting: without --ttl,
// `platform token` mints for PLATFORM_ACCESS_TOKEN_TTL.
func TestTokenLifetimeDefaultsToTheAccessTokenSetting(t *testing.T) {
	t.Parallel()
	platform := adminCommand(t, "PLATFORM_ACCESS_TOKEN_TTL=20m")
	out, err := platform("customer", "create", "demo")
	require.NoError(t, err, out)
	tok, err := platform("token", "--customer", "demo", "--scope", "crm.*")
	require.NoError(t, err, tok)
	require.Equal(t, 20*time.Minute, lifetime(t, tok))
}
