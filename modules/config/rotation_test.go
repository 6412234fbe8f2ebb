package config_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"platform/kernel/store"
	"platform/kernel/tenant"
	"platform/modules/automation/webhook"
	"platform/modules/config/credentials"
	"platform/test/testenv"
	"platform/workflows/contract"
)

// sealedValue is one stored sealed value of a customer's record.
type sealedValue struct {
	customer, collection, field, id string
}

// TestMasterKeyRotationInterruptedAndResumed: credentials and webhook
// secrets of two customers are re-sealed under a new master key by the
// rotation workflow, one value per batch; the workflow is terminated
// mid-way and started again, and completes with every value opening under
// the new key only. Decrypt keeps answering throughout.
func TestMasterKeyRotationInterruptedAndResumed(t *testing.T) {
	t.Parallel()
	p := testenv.NewPlatform(t, testenv.Options{Worker: true})
	oldKey, err := credentials.ParseMasterKey(p.Config.MasterKey)
	require.NoError(t, err)
	values := seedSealedValues(t, p)

	newKey := credentials.NewMasterKey()
	require.NoError(t, p.Vault.Rotate(newKey), "the process seals with the new key and still opens the old")
	newOnly, err := credentials.NewVault(newKey)
	require.NoError(t, err)
	oldOnly, err := credentials.NewVault(oldKey)
	require.NoError(t, err)

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	start := time.Now()
	run, err := p.StartMasterKeyRotation(ctx, 1)
	require.NoError(t, err)
	require.Eventually(t, func() bool { return countOpening(t, p, newOnly, values) >= 3 }, time.Minute, 5*time.Millisecond)
	t.Logf("3 values re-sealed after %s", time.Since(start))
	require.NoError(t, p.Temporal.TerminateWorkflow(ctx, run.GetID(), run.GetRunID(), "test: interrupted mid-way"))
	done := countOpening(t, p, newOnly, values)
	require.Less(t, done, len(values), "interrupted before the end")
	require.Greater(t, countOpening(t, p, oldOnly, values), 0, "some values are still under the old key")
	decryptAll(t, p, values)
	r := p.Do("POST", "/config/credentials", p.Token("config.credentials.*"), smtpCredential("written-mid-rotation"))
	require.Equal(t, 201, r.Status, "writes go on while the store still names the old key: %s", r.Body)
	mid := sealedValue{p.Customer.ID, credentials.Collection, credentials.Field, r.Payload()["_id"].(string)}
	require.Equal(t, 1, countOpening(t, p, newOnly, []sealedValue{mid}), "sealed with the new key")
	values = append(values, mid)

	var reads atomic.Int64
	stop := make(chan struct{})
	readerDone := make(chan error, 1)
	go func() { readerDone <- keepDecrypting(p, values, stop, &reads) }()

	again, err := p.StartMasterKeyRotation(ctx, 1)
	require.NoError(t, err)
	var res contract.RotateMasterKeyResult
	require.NoError(t, again.Get(ctx, &res))
	t.Logf("resumed rotation done after %s: %+v", time.Since(start), res)
	close(stop)
	require.NoError(t, <-readerDone, "reads during the rotation succeed")
	require.Positive(t, reads.Load())

	require.Equal(t, len(values), countOpening(t, p, newOnly, values), "every value opens under the new key")
	require.Zero(t, countOpening(t, p, oldOnly, values), "and none under the old one")
	require.Equal(t, len(values)-1-done, int(res.Resealed), "the resumed run re-sealed only what was left")
	require.Equal(t, 2, res.Passes, "a second pass found nothing left")
	keys, err := p.Store.Global(credentials.KeysCollection).Get(ctx, "master")
	require.NoError(t, err)
	require.Equal(t, newOnly.KeyID(), keys["keyId"], "the store names the new key")
	require.Equal(t, oldOnly.KeyID(), keys["previousKeyId"])
	require.Error(t, oldOnly.CheckStore(ctx, p.Store), "a process with the old key only is refused from now on")
	require.NoError(t, newOnly.CheckStore(ctx, p.Store))
	decryptAll(t, p, values)
}

// seedSealedValues stores credentials for two customers and webhook
// secrets, and lists where their sealed values are.
func seedSealedValues(t *testing.T, p *testenv.Platform) []sealedValue {
	t.Helper()
	other, admin := p.OtherCustomer("rotation-other")
	var out []sealedValue
	for _, c := range []struct {
		id, tok string
		n       int
	}{{p.Customer.ID, p.Token("config.credentials.*", "automation.webhooks.*"), 6}, {other.ID, p.TokenFor(other.ID, admin.ID, "config.credentials.*", "automation.webhooks.*"), 3}} {
		for i := range c.n {
			r := p.Do("POST", "/config/credentials", c.tok, smtpCredential(fmt.Sprintf("smtp-%d", i)))
			require.Equal(t, 201, r.Status, string(r.Body))
			out = append(out, sealedValue{c.id, credentials.Collection, credentials.Field, r.Payload()["_id"].(string)})
		}
		r := p.Do("POST", "/automation/webhooks", c.tok, map[string]any{"name": "hook", "url": "https://hooks.example.com/in",
			"events": []any{"consumers.*"}, "secret": "whsec-0123456789abcdef0123456789abcdef"})
		require.Equal(t, 201, r.Status, string(r.Body))
		out = append(out, sealedValue{c.id, webhook.Collection, "secret", r.Payload()["_id"].(string)})
	}
	return out
}

// countOpening counts the values v opens.
func countOpening(t *testing.T, p *testenv.Platform, v *credentials.Vault, values []sealedValue) int {
	t.Helper()
	n := 0
	for _, s := range values {
		d, err := p.Store.Collection(s.collection).Get(tenant.WithCustomer(context.Background(), s.customer), s.id)
		require.NoError(t, err)
		sealed, ok := d[s.field].(store.Doc)
		require.True(t, ok, "%s %s is sealed", s.collection, s.id)
		if _, err := v.Open(s.customer, s.id, sealed); err == nil {
			n++
		}
	}
	return n
}

// decryptAll decrypts every credential through the API.
func decryptAll(t *testing.T, p *testenv.Platform, values []sealedValue) {
	t.Helper()
	require.NoError(t, decryptOnce(p, values))
}

func decryptOnce(p *testenv.Platform, values []sealedValue) error {
	for _, s := range values {
		if s.collection != credentials.Collection {
			continue
		}
		tok := p.TokenFor(s.customer, "", "config.credentials.decrypt")
		r, err := p.TryDo("POST", "/config/credentials/"+s.id+"/actions/decrypt", tok, nil)
		if err != nil {
			return err
		}
		if r.Status != 200 || r.Payload()["credentials"].(map[string]any)["password"] != password {
			return fmt.Errorf("decrypt %s: %d %s", s.id, r.Status, r.Body)
		}
	}
	return nil
}

// keepDecrypting decrypts every credential again and again until stop.
func keepDecrypting(p *testenv.Platform, values []sealedValue, stop <-chan struct{}, reads *atomic.Int64) error {
	for {
		select {
		case <-stop:
			return nil
		default:
		}
		if err := decryptOnce(p, values); err != nil {
			return err
		}
		reads.Add(1)
	}
}
