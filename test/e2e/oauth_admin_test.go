package e2e

import (
	"encoding/base64"
	"encoding/json"
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

// TestRotateSigningKeyCommand: `platform rotate-signing-key` publishes the
// next key without signing with it yet (tokens keep the current key's kid),
// names both keys and when each changes, refuses a second rotation while
// one is pending, and refuses a lead shorter than clients cache the JWKS.
func TestRotateSigningKeyCommand(t *testing.T) {
	t.Parallel()
	platform := adminCommand(t)
	out, err := platform("rotate-signing-key", "--lead", "1m")
	require.Error(t, err)
	require.Contains(t, out, "--lead", "names the flag: %s", out)

	out, err = platform("customer", "create", "demo")
	require.NoError(t, err, out)
	before, err := platform("token", "--customer", "demo", "--scope", "crm.*")
	require.NoError(t, err, before)
	current := kid(t, before)

	out, err = platform("rotate-signing-key")
	require.NoError(t, err, out)
	fields := strings.Fields(out) // published signing key <next>: it signs from <time>; key <current> stays published until <time>
	require.Len(t, fields, 14, out)
	next := strings.TrimSuffix(fields[3], ":")
	require.NotEqual(t, current, next)
	require.Equal(t, current, fields[9], out)
	signsFrom, err := time.Parse(time.RFC3339, strings.TrimSuffix(fields[7], ";"))
	require.NoError(t, err, out)
	require.WithinDuration(t, time.Now().Add(time.Hour), signsFrom, time.Minute, "the default lead")

	after, err := platform("token", "--customer", "demo", "--scope", "crm.*")
	require.NoError(t, err, after)
	require.Equal(t, current, kid(t, after), "the next key does not sign before its time")
	out, err = platform("rotate-signing-key")
	require.Error(t, err)
	require.Contains(t, out, "already published", out)
}

// kid reads an access token's key id.
func kid(t *testing.T, token string) string {
	t.Helper()
	raw, err := base64.RawURLEncoding.DecodeString(strings.Split(token, ".")[0])
	require.NoError(t, err)
	var h struct{ Kid string }
	require.NoError(t, json.Unmarshal(raw, &h))
	require.NotEmpty(t, h.Kid)
	return h.Kid
}
