package credentials_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"platform/kernel/settings"
	"platform/kernel/store"
	"platform/kernel/tenant"
	"platform/modules/automation/webhook"
	"platform/modules/config/credentials"
	"platform/modules/identity"
	"platform/test/testenv"
)

// TestCheckRefusesAKeyThatCannotOpenSealedValues: a store whose key record
// predates noting every sealing (webhook secrets were sealed without it)
// and holds a webhook secret sealed under key A. A start with another key
// (a lost master.key replaced by a generated one) used to take over
// silently; it is refused, naming the key file and the backup, until the
// loss is accepted explicitly. The probe that found out opens one value.
func TestCheckRefusesAKeyThatCannotOpenSealedValues(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := testenv.NewStore(t, "")
	a, b := newVault(t), newVault(t)
	legacyStore(t, st, a, true)
	const keyFile = "/data/master.key"

	_, err := b.Check(ctx, st, credentials.KeyCheck{KeyFile: keyFile, Generated: true})
	require.ErrorIs(t, err, credentials.ErrKeyRefused, "a generated key cannot open the webhook secret")
	for _, want := range []string{keyFile + " is missing", a.KeyID(), "platform backup", "--accept-lost-master-key", "nothing was changed"} {
		require.ErrorContains(t, err, want)
	}
	require.Equal(t, a.KeyID(), keyRecord(t, st)["keyId"], "the refusal changed nothing")

	_, err = b.Check(ctx, st, credentials.KeyCheck{KeyFile: keyFile})
	require.ErrorIs(t, err, credentials.ErrKeyRefused)
	require.ErrorContains(t, err, keyFile+" holds master key "+b.KeyID())
	_, err = b.Check(ctx, st, credentials.KeyCheck{})
	var inv *settings.InvalidError
	require.ErrorAs(t, err, &inv, "a configured key names PLATFORM_MASTER_KEY")
	require.ErrorContains(t, err, "--accept-lost-master-key")

	lost, err := a.Check(ctx, st, credentials.KeyCheck{KeyFile: keyFile})
	require.NoError(t, err, "the key that sealed it starts")
	require.Empty(t, lost)
	rec := keyRecord(t, st)
	require.Equal(t, true, rec["sealed"], "the probe's finding is recorded: no probe next time")
	require.Equal(t, true, rec["noted"])

	lost, err = b.Check(ctx, st, credentials.KeyCheck{KeyFile: keyFile, Generated: true, AcceptLoss: true})
	require.NoError(t, err, "the loss accepted explicitly")
	require.Equal(t, a.KeyID(), lost)
	require.Equal(t, b.KeyID(), keyRecord(t, st)["keyId"])
	require.Equal(t, a.KeyID(), keyRecord(t, st)["lostKeyId"])
	_, err = b.Check(ctx, st, credentials.KeyCheck{KeyFile: keyFile})
	require.NoError(t, err, "then the new key is the store's")
	_, err = a.Check(ctx, st, credentials.KeyCheck{KeyFile: keyFile})
	require.ErrorIs(t, err, credentials.ErrKeyRefused, "and the old one is refused")
}

// TestCheckTakesOverAStoreWithNothingSealed: a key record predating the
// notes with nothing sealed behind it lets another key take over, once.
func TestCheckTakesOverAStoreWithNothingSealed(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := testenv.NewStore(t, "")
	a, b := newVault(t), newVault(t)
	legacyStore(t, st, a, false)
	_, err := b.Check(ctx, st, credentials.KeyCheck{KeyFile: "/data/master.key", Generated: true})
	require.NoError(t, err)
	rec := keyRecord(t, st)
	require.Equal(t, b.KeyID(), rec["keyId"])
	require.Equal(t, true, rec["noted"])
	require.Equal(t, false, rec["sealed"])
}

// legacyStore writes a key record naming v's key without the noted flag
// (as stores before it have), a customer, and with sealed a webhook whose
// secret v sealed.
func legacyStore(t *testing.T, st store.Store, v *credentials.Vault, sealed bool) {
	t.Helper()
	ctx := context.Background()
	require.NoError(t, st.Global(credentials.KeysCollection).Insert(ctx, store.Doc{"_id": "master", "keyId": v.KeyID(), "sealed": false}))
	require.NoError(t, st.Global(identity.Customers).Insert(ctx, store.Doc{"_id": custA, "slug": "a"}))
	if !sealed {
		return
	}
	secret, err := v.Seal(custA, rec1, map[string]any{"secret": "whsec-0123456789abcdef0123456789abcdef"})
	require.NoError(t, err)
	require.NoError(t, st.Collection(webhook.Collection).Insert(tenant.WithCustomer(ctx, custA), store.Doc{"_id": rec1, "url": "https://example.com/h", "secret": secret}))
}

func keyRecord(t *testing.T, st store.Store) store.Doc {
	t.Helper()
	doc, err := st.Global(credentials.KeysCollection).Get(context.Background(), "master")
	require.NoError(t, err)
	return doc
}
