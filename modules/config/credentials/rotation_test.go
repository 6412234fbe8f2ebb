package credentials_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"platform/kernel/settings"
	"platform/modules/config/credentials"
	"platform/test/testenv"
)

// TestVaultWithAcceptedKeys: a vault seals with its current key and opens
// values sealed under an accepted one; Rotate moves a running vault to a
// new key and keeps the old one accepted.
func TestVaultWithAcceptedKeys(t *testing.T) {
	t.Parallel()
	oldKey, newKey := credentials.NewMasterKey(), credentials.NewMasterKey()
	old, err := credentials.NewVault(oldKey)
	require.NoError(t, err)
	sealedOld, err := old.Seal(custA, rec1, smtp())
	require.NoError(t, err)

	both, err := credentials.NewVault(newKey, oldKey, newKey)
	require.NoError(t, err)
	require.Len(t, both.KeyIDs(), 2, "the current key is not listed twice")
	got, err := both.Open(custA, rec1, sealedOld)
	require.NoError(t, err, "opens under the accepted key")
	require.Equal(t, smtp(), got)
	require.False(t, both.SealedWithCurrent(custA, rec1, sealedOld))
	sealedNew, err := both.Seal(custA, rec1, smtp())
	require.NoError(t, err)
	require.True(t, both.SealedWithCurrent(custA, rec1, sealedNew), "seals with the current key")
	_, err = old.Open(custA, rec1, sealedNew)
	require.ErrorIs(t, err, credentials.ErrAuth, "not with the accepted one")
	_, err = both.Open(custB, rec1, sealedOld)
	require.ErrorIs(t, err, credentials.ErrAuth, "every key still binds the customer")

	require.NoError(t, old.Rotate(newKey))
	require.Equal(t, both.KeyID(), old.KeyID())
	for _, s := range []map[string]any{sealedOld, sealedNew} {
		_, err := old.Open(custA, rec1, s)
		require.NoError(t, err)
	}
	_, err = credentials.NewVault(newKey, []byte("short"))
	require.Error(t, err)
}

// TestCheckStoreDuringRotation: while the store names the old key, a vault
// sealing with the new one and accepting the old starts and seals; after
// MarkRotated only vaults holding the new key start.
func TestCheckStoreDuringRotation(t *testing.T) {
	t.Parallel()
	st := testenv.NewStore(t, "")
	ctx := context.Background()
	oldKey, newKey := credentials.NewMasterKey(), credentials.NewMasterKey()
	old, _ := credentials.NewVault(oldKey)
	require.NoError(t, old.CheckStore(ctx, st))
	require.NoError(t, old.NoteSealed(ctx, st))

	rotating, _ := credentials.NewVault(newKey, oldKey)
	require.NoError(t, rotating.CheckStore(ctx, st))
	require.NoError(t, rotating.NoteSealed(ctx, st), "sealing goes on during the rotation")
	newOnly, _ := credentials.NewVault(newKey)
	require.Error(t, newOnly.CheckStore(ctx, st), "the new key alone is refused until the rotation finished")

	require.NoError(t, rotating.MarkRotated(ctx, st))
	require.NoError(t, rotating.MarkRotated(ctx, st), "idempotent")
	require.NoError(t, newOnly.CheckStore(ctx, st))
	require.Error(t, old.CheckStore(ctx, st), "the old key alone is refused from now on")
	stranger, _ := credentials.NewVault(credentials.NewMasterKey(), oldKey)
	require.Error(t, stranger.MarkRotated(ctx, st), "a vault without the store's key cannot finish a rotation")
}

// TestInstallNextMasterKey: the embedded key file moves to
// master.key.previous and the next key takes its place; both are loaded
// at start-up until the previous file is removed.
func TestInstallNextMasterKey(t *testing.T) {
	t.Parallel()
	cfg := &settings.Config{DataDir: t.TempDir()}
	first, err := credentials.LoadOrCreateMasterKey(cfg)
	require.NoError(t, err)
	next := credentials.NewMasterKey()
	require.NoError(t, credentials.InstallNextMasterKey(cfg, next))
	require.Error(t, credentials.InstallNextMasterKey(cfg, credentials.NewMasterKey()), "not while a rotation is under way")

	v, err := credentials.FromConfig(cfg)
	require.NoError(t, err)
	firstVault, _ := credentials.NewVault(first)
	nextVault, _ := credentials.NewVault(next)
	require.Equal(t, []string{nextVault.KeyID(), firstVault.KeyID()}, v.KeyIDs())
	st, err := os.Stat(credentials.PreviousKeyPath(cfg))
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), st.Mode().Perm())

	require.NoError(t, os.Remove(credentials.PreviousKeyPath(cfg)))
	v, err = credentials.FromConfig(cfg)
	require.NoError(t, err)
	require.Equal(t, []string{nextVault.KeyID()}, v.KeyIDs())
	entries, _ := os.ReadDir(cfg.DataDir)
	require.Len(t, entries, 1, "no temporary files left")

	configured := &settings.Config{DataDir: filepath.Join(t.TempDir(), "x"), MasterKey: credentials.EncodeMasterKey(next),
		MasterKeyAccept: []string{credentials.EncodeMasterKey(first)}}
	require.Error(t, credentials.InstallNextMasterKey(configured, credentials.NewMasterKey()), "a configured key is rotated by configuration")
	v, err = credentials.FromConfig(configured)
	require.NoError(t, err)
	require.Equal(t, []string{nextVault.KeyID(), firstVault.KeyID()}, v.KeyIDs())
}
