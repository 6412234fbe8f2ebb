package credentials_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"platform/kernel/settings"
	"platform/kernel/store"
	"platform/modules/config/credentials"
	"platform/test/testenv"
)

const (
	custA = "aaaaaaaaaaaaaaaaaaaaaaaa"
	custB = "bbbbbbbbbbbbbbbbbbbbbbbb"
	rec1  = "111111111111111111111111"
	rec2  = "222222222222222222222222"
)

func newVault(t *testing.T) *credentials.Vault {
	t.Helper()
	v, err := credentials.NewVault(credentials.NewMasterKey())
	require.NoError(t, err)
	return v
}

func smtp() map[string]any {
	return map[string]any{"username": "mailer", "password": "hunter2-correct-horse", "port": int64(587), "tls": true,
		"ratio": 0.5, "hosts": []any{"a.example", "b.example"}, "nested": map[string]any{"token": "tok-123"}}
}

func TestRoundTrip(t *testing.T) {
	t.Parallel()
	v := newVault(t)
	sealed, err := v.Seal(custA, rec1, smtp())
	require.NoError(t, err)
	require.Len(t, sealed, 4)
	require.Equal(t, int64(1), sealed["v"])
	for _, k := range []string{"iv", "ct", "tag"} {
		_, err := base64.StdEncoding.DecodeString(sealed[k].(string))
		require.NoError(t, err, k)
	}
	iv, _ := base64.StdEncoding.DecodeString(sealed["iv"].(string))
	require.Len(t, iv, 16)
	ct, _ := base64.StdEncoding.DecodeString(sealed["ct"].(string))
	require.Zero(t, len(ct)%64, "padded to 64-byte blocks")
	raw, _ := json.Marshal(sealed)
	for _, clear := range []string{"hunter2", "mailer", "tok-123", "a.example"} {
		require.NotContains(t, string(raw), clear)
	}

	got, err := v.Open(custA, rec1, sealed)
	require.NoError(t, err)
	require.Equal(t, smtp(), got, "types as the store keeps them: int64, float64, bool, []any, maps")

	// The stored form after a JSON round trip (as some stores return numbers) still opens.
	var back map[string]any
	require.NoError(t, json.Unmarshal(raw, &back))
	_, err = v.Open(custA, rec1, back)
	require.NoError(t, err)

	// Empty values and unicode survive too.
	for _, plain := range []map[string]any{{}, {"k": ""}, {"pässwörd": "✓ \"quoted\" \\ \n"}} {
		s, err := v.Seal(custA, rec1, plain)
		require.NoError(t, err)
		got, err := v.Open(custA, rec1, s)
		require.NoError(t, err)
		require.Equal(t, plain, got)
	}
}

func TestSealIsRandomized(t *testing.T) {
	t.Parallel()
	v := newVault(t)
	a, err := v.Seal(custA, rec1, smtp())
	require.NoError(t, err)
	b, err := v.Seal(custA, rec1, smtp())
	require.NoError(t, err)
	require.NotEqual(t, a["iv"], b["iv"])
	require.NotEqual(t, a["ct"], b["ct"])
}

// TestTamper: every altered byte, and every move to another record or
// customer or master key, fails to open with ErrAuth.
func TestTamper(t *testing.T) {
	t.Parallel()
	v := newVault(t)
	sealed, err := v.Seal(custA, rec1, smtp())
	require.NoError(t, err)

	flip := func(field string, i int) store.Doc {
		b, _ := base64.StdEncoding.DecodeString(sealed[field].(string))
		b[i%len(b)] ^= 0x01
		c := store.Doc{}
		for k, x := range sealed {
			c[k] = x
		}
		c[field] = base64.StdEncoding.EncodeToString(b)
		return c
	}
	cases := []struct {
		name         string
		customer, id string
		doc          store.Doc
		vault        *credentials.Vault
		want         error
	}{
		{"ct first byte", custA, rec1, flip("ct", 0), v, credentials.ErrAuth},
		{"ct last byte", custA, rec1, flip("ct", -1+len(mustB64(sealed["ct"]))), v, credentials.ErrAuth},
		{"iv", custA, rec1, flip("iv", 7), v, credentials.ErrAuth},
		{"tag", custA, rec1, flip("tag", 31), v, credentials.ErrAuth},
		{"other record", custA, rec2, sealed, v, credentials.ErrAuth},
		{"other customer", custB, rec1, sealed, v, credentials.ErrAuth},
		{"other master key", custA, rec1, sealed, newVault(t), credentials.ErrAuth},
		{"version 2", custA, rec1, with(sealed, "v", int64(2)), v, credentials.ErrMalformed},
		{"no version", custA, rec1, with(sealed, "v", nil), v, credentials.ErrMalformed},
		{"short tag", custA, rec1, with(sealed, "tag", base64.StdEncoding.EncodeToString(make([]byte, 16))), v, credentials.ErrMalformed},
		{"short iv", custA, rec1, with(sealed, "iv", base64.StdEncoding.EncodeToString(make([]byte, 8))), v, credentials.ErrMalformed},
		{"not base64", custA, rec1, with(sealed, "ct", "***"), v, credentials.ErrMalformed},
		{"truncated ct", custA, rec1, with(sealed, "ct", base64.StdEncoding.EncodeToString(mustB64(sealed["ct"])[:32])), v, credentials.ErrAuth},
		{"nil", custA, rec1, nil, v, credentials.ErrMalformed},
		{"clear values", custA, rec1, store.Doc{"password": "x"}, v, credentials.ErrMalformed},
	}
	for _, c := range cases {
		got, err := c.vault.Open(c.customer, c.id, c.doc)
		require.ErrorIs(t, err, c.want, c.name)
		require.Nil(t, got, c.name)
	}
	_, err = v.Open(custA, rec1, sealed)
	require.NoError(t, err, "the original still opens")

	var nilVault *credentials.Vault
	_, err = nilVault.Open(custA, rec1, sealed)
	require.ErrorIs(t, err, credentials.ErrNoMasterKey)
	_, err = nilVault.Seal(custA, rec1, smtp())
	require.ErrorIs(t, err, credentials.ErrNoMasterKey)
	_, err = v.Seal("", rec1, smtp())
	require.Error(t, err, "a customer is required")
	_, err = v.Seal(custA, "", smtp())
	require.Error(t, err, "a record id is required")
}

// TestCustomersHaveOwnKeys: the same values give other ciphertexts for
// other customers, and the key ids of different master keys differ (the
// derived keys themselves are compared in keys_internal_test.go).
func TestCustomersHaveOwnKeys(t *testing.T) {
	t.Parallel()
	master := credentials.NewMasterKey()
	v, err := credentials.NewVault(master)
	require.NoError(t, err)
	plain := map[string]any{"password": strings.Repeat("p", 40)}
	a, err := v.Seal(custA, rec1, plain)
	require.NoError(t, err)
	b, err := v.Seal(custB, rec1, plain)
	require.NoError(t, err)
	require.NotEqual(t, a["ct"], b["ct"])
	require.False(t, bytes.Equal(xor(mustB64(a["ct"]), padded(plain)), xor(mustB64(b["ct"]), padded(plain))), "different keystreams")
	_, err = v.Open(custB, rec1, a)
	require.ErrorIs(t, err, credentials.ErrAuth)

	same, err := credentials.NewVault(master)
	require.NoError(t, err)
	require.Equal(t, v.KeyID(), same.KeyID())
	require.NotEqual(t, v.KeyID(), newVault(t).KeyID())
	require.NotContains(t, hex.EncodeToString(master), v.KeyID(), "the key id is not part of the key")
}

func padded(plain map[string]any) []byte {
	b, _ := json.Marshal(plain)
	for len(b)%64 != 0 {
		b = append(b, ' ')
	}
	return b
}

func xor(a, b []byte) []byte {
	out := make([]byte, min(len(a), len(b)))
	for i := range out {
		out[i] = a[i] ^ b[i]
	}
	return out
}

func mustB64(v any) []byte {
	b, _ := base64.StdEncoding.DecodeString(v.(string))
	return b
}

func with(d store.Doc, k string, v any) store.Doc {
	c := store.Doc{}
	for kk, vv := range d {
		c[kk] = vv
	}
	if v == nil {
		delete(c, k)
	} else {
		c[k] = v
	}
	return c
}

func TestParseMasterKey(t *testing.T) {
	t.Parallel()
	key := credentials.NewMasterKey()
	for name, s := range map[string]string{
		"base64":         base64.StdEncoding.EncodeToString(key),
		"base64 raw":     base64.RawStdEncoding.EncodeToString(key),
		"base64 url":     base64.URLEncoding.EncodeToString(key),
		"base64 url raw": base64.RawURLEncoding.EncodeToString(key),
		"hex":            hex.EncodeToString(key),
		"HEX":            strings.ToUpper(hex.EncodeToString(key)),
		"spaces":         "  " + base64.StdEncoding.EncodeToString(key) + "\n",
	} {
		got, err := credentials.ParseMasterKey(s)
		require.NoError(t, err, name)
		require.Equal(t, key, got, name)
	}
	secret := "c2hvcnQta2V5LXNob3J0LWtleQ=="
	for name, s := range map[string]string{
		"empty":      "",
		"blank":      "   ",
		"short":      secret,
		"long":       base64.StdEncoding.EncodeToString(make([]byte, 33)),
		"hex 63":     hex.EncodeToString(key)[:63],
		"not hex":    strings.Repeat("zz", 32),
		"passphrase": "correct horse battery staple",
	} {
		_, err := credentials.ParseMasterKey(s)
		require.Error(t, err, name)
		if strings.TrimSpace(s) != "" {
			require.NotContains(t, err.Error(), strings.TrimSpace(s), "%s: the error never repeats the value", name)
		}
	}
	_, err := credentials.NewVault(make([]byte, 16))
	require.Error(t, err)
}

// TestMasterKeySetting: PLATFORM_MASTER_KEY / --master-key is validated
// when set, and a bad value is never quoted.
func TestMasterKeySetting(t *testing.T) {
	t.Parallel()
	key := credentials.EncodeMasterKey(credentials.NewMasterKey())
	cfg, err := settings.Load("test", []string{"--master-key", key})
	require.NoError(t, err)
	require.Equal(t, key, cfg.MasterKey)

	bad := "not-a-key-but-a-secret-anyway"
	_, err = settings.Load("test", []string{"--master-key", bad})
	var inv *settings.InvalidError
	require.ErrorAs(t, err, &inv)
	require.Equal(t, "PLATFORM_MASTER_KEY", inv.Env)
	require.NotContains(t, err.Error(), bad)
}

func TestLoadOrCreateMasterKey(t *testing.T) {
	t.Parallel()
	t.Run("generated once for the embedded store", func(t *testing.T) {
		t.Parallel()
		cfg := &settings.Config{DataDir: filepath.Join(t.TempDir(), "data")}
		keys := make([][]byte, 8)
		errs := make([]error, len(keys))
		var wg sync.WaitGroup
		for i := range keys {
			wg.Go(func() { keys[i], errs[i] = credentials.LoadOrCreateMasterKey(cfg) })
		}
		wg.Wait()
		for i, k := range keys {
			require.NoError(t, errs[i]) // here: FailNow must run on the test's goroutine
			require.Equal(t, keys[0], k, "concurrent starts agree on one key")
		}
		path := filepath.Join(cfg.DataDir, "master.key")
		st, err := os.Stat(path)
		require.NoError(t, err)
		require.Equal(t, os.FileMode(0o600), st.Mode().Perm())
		again, err := credentials.LoadOrCreateMasterKey(cfg)
		require.NoError(t, err)
		require.Equal(t, keys[0], again, "reused after")
		entries, _ := os.ReadDir(cfg.DataDir)
		require.Len(t, entries, 1, "no temporary files left")

		require.NoError(t, os.WriteFile(path, []byte("garbage"), 0o600))
		_, err = credentials.LoadOrCreateMasterKey(cfg)
		require.ErrorContains(t, err, "master.key")
	})
	t.Run("setting wins", func(t *testing.T) {
		t.Parallel()
		key := credentials.NewMasterKey()
		cfg := &settings.Config{DataDir: t.TempDir(), MasterKey: hex.EncodeToString(key), MongoURI: "mongodb://db"}
		got, err := credentials.LoadOrCreateMasterKey(cfg)
		require.NoError(t, err)
		require.Equal(t, key, got)
		_, err = os.Stat(filepath.Join(cfg.DataDir, "master.key"))
		require.ErrorIs(t, err, os.ErrNotExist, "no file when the key is configured")
	})
	t.Run("real MongoDB needs the setting", func(t *testing.T) {
		t.Parallel()
		cfg := &settings.Config{DataDir: t.TempDir(), MongoURI: "mongodb://db"}
		_, err := credentials.LoadOrCreateMasterKey(cfg)
		require.ErrorIs(t, err, credentials.ErrNoMasterKey)
		require.ErrorContains(t, err, "PLATFORM_MASTER_KEY")
		v, err := credentials.FromConfig(cfg)
		require.Nil(t, v)
		require.True(t, errors.Is(err, credentials.ErrNoMasterKey))
	})
}

// TestCheckStore: the first key registers; another key is accepted while
// nothing is sealed, and refused once a credential is (NoteSealed).
func TestCheckStore(t *testing.T) {
	t.Parallel()
	st := testenv.NewStore(t, "")
	ctx := context.Background()
	a, b := newVault(t), newVault(t)
	require.NoError(t, a.CheckStore(ctx, st))
	require.NoError(t, a.CheckStore(ctx, st), "again")
	require.NoError(t, b.CheckStore(ctx, st), "nothing sealed yet: another key takes over")
	require.Error(t, a.NoteSealed(ctx, st), "a's key is no longer the store's: a must not seal")

	require.NoError(t, b.NoteSealed(ctx, st))
	require.NoError(t, b.NoteSealed(ctx, st), "idempotent")
	err := a.CheckStore(ctx, st)
	require.ErrorContains(t, err, "is not the one the stored credentials are sealed under")
	require.ErrorContains(t, err, "PLATFORM_MASTER_KEY")
	var inv *settings.InvalidError
	require.ErrorAs(t, err, &inv, "a wrong key is a bad setting: start-up stops at once instead of retrying")
	require.Equal(t, "(not shown)", inv.Value, "the key is never shown")
	require.NoError(t, b.CheckStore(ctx, st), "the registered key still starts")
	fresh := newVault(t)
	require.Error(t, fresh.CheckStore(ctx, st))
}

func TestLeaves(t *testing.T) {
	t.Parallel()
	got := credentials.Leaves(map[string]any{
		"smtp": map[string]any{"user": "mailer", "password": "hunter2-long", "port": int64(25), "empty": ""},
		"api":  map[string]any{"keys": []any{"k1", "hunter2", map[string]any{"deep": "mailer"}}},
	})
	require.Equal(t, []string{"hunter2-long", "hunter2", "mailer", "k1"}, got, "non-empty strings, once each, longest first")
	require.Empty(t, credentials.Leaves(nil))
}
