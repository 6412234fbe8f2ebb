package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestRotateMasterKeyCommandSurvivesAKill rotates the embedded
// installation's master key with `platform rotate-master-key` while
// platform dev runs, kills the process mid-way (SIGKILL: API and worker
// gone), starts it again (it opens with both key files and its worker
// picks the open workflow up again), lets the command finish, and checks
// that every credential still decrypts after a restart without the old
// key.
func TestRotateMasterKeyCommandSurvivesAKill(t *testing.T) {
	t.Parallel()
	d := newDev(t)
	d.start()
	tok := d.token("config.credentials.* config.credentials.decrypt")
	const n = 40
	ids := make([]string, n)
	for i := range ids {
		status, env, err := d.do("POST", "/config/credentials", tok, map[string]any{"name": fmt.Sprintf("c%d", i), "type": "api-key",
			"credentials": map[string]any{"key": fmt.Sprintf("secret-%d", i)}})
		require.NoError(t, err)
		require.Equal(t, 201, status, env)
		ids[i] = payloadID(env)
	}
	oldKey, err := os.ReadFile(filepath.Join(d.data, "master.key"))
	require.NoError(t, err)

	out := d.admin("rotate-master-key", "--no-wait", "--batch", "1")
	require.Contains(t, out, "workflow master-key-rotation-")
	previous, err := os.ReadFile(filepath.Join(d.data, "master.key.previous"))
	require.NoError(t, err, "the old key is kept while the rotation runs")
	require.Equal(t, oldKey, previous)
	d.kill() // at once: 40 batches of one value and a second pass take seconds

	d.start()
	decryptEach(t, d, tok, ids)        // while the worker goes on: old and new values alike
	out = d.admin("rotate-master-key") // attaches to the open rotation and waits
	require.Contains(t, out, "done:")
	require.Contains(t, out, "removed")
	_, err = os.Stat(filepath.Join(d.data, "master.key.previous"))
	require.True(t, os.IsNotExist(err), "the old key file is gone")
	newKey, err := os.ReadFile(filepath.Join(d.data, "master.key"))
	require.NoError(t, err)
	require.NotEqual(t, oldKey, newKey)

	d.kill()
	d.start() // the new key alone
	decryptEach(t, d, tok, ids)

	cmd := exec.Command(d.bin, "rotate-master-key", "--batch", "5000")
	cmd.Env = d.env()
	b, err := cmd.CombinedOutput()
	require.Error(t, err, "a bad batch is refused")
	require.True(t, strings.Contains(string(b), "batch"), string(b))
}

func decryptEach(t *testing.T, d *devProcess, tok string, ids []string) {
	t.Helper()
	for i, id := range ids {
		status, env, err := d.do("POST", "/config/credentials/"+id+"/actions/decrypt", tok, nil)
		require.NoError(t, err)
		require.Equal(t, 200, status, env)
		got := env["payload"].(map[string]any)["credentials"].(map[string]any)["key"]
		require.Equal(t, fmt.Sprintf("secret-%d", i), got)
	}
}
