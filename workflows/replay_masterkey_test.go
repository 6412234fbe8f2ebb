package workflows_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"platform/modules/config/credentials"
	"platform/test/testenv"
)

// TestRecordHistoriesMasterKey runs a master key rotation on the real
// servers and writes its history to testdata/master_key_rotation.json:
// three credentials re-sealed one per batch, a second pass that finds
// nothing, then the new key recorded. A rotation runs across rolling
// restarts, so its history must replay on the next release.
func TestRecordHistoriesMasterKey(t *testing.T) {
	if os.Getenv("PLATFORM_RECORD_HISTORY") == "" {
		t.Skip("set PLATFORM_RECORD_HISTORY=1 to record testdata/master_key_rotation.json")
	}
	p := testenv.NewPlatform(t, testenv.Options{Worker: true})
	tok := p.Token("config.credentials.*")
	for i := range 3 {
		r := p.Do("POST", "/config/credentials", tok, map[string]any{"name": fmt.Sprintf("c%d", i), "type": "api-key", "credentials": map[string]any{"key": "k"}})
		require.Equal(t, 201, r.Status, string(r.Body))
	}
	require.NoError(t, p.Vault.Rotate(credentials.NewMasterKey()))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	run, err := p.StartMasterKeyRotation(ctx, 1)
	require.NoError(t, err)
	require.NoError(t, run.Get(ctx, nil))
	writeHistory(ctx, t, p.Temporal, run.GetID(), filepath.Join("testdata", "master_key_rotation.json"))
}
