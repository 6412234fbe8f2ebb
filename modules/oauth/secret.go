package oauth

import (
	"context"
	"encoding/base64"
	"errors"
	"time"

	"platform/kernel/store"
	"platform/modules/identity"
)

// SecretsCollection holds the HMAC key of codes and refresh tokens, shared
// by every replica (created by whichever starts first).
const SecretsCollection = "oauthsecrets"

const hmacSecretID = "hmac"

func loadHMACSecret(ctx context.Context, st store.Store) ([]byte, error) {
	c := st.Global(SecretsCollection)
	d, err := c.Get(ctx, hmacSecretID)
	if errors.Is(err, store.ErrNotFound) {
		ins := store.Doc{"_id": hmacSecretID, "secret": identity.RandomSecret(32), "createdAt": time.Now().UTC()}
		if err = c.Insert(ctx, ins); err == nil {
			d = ins
		} else if store.IsDuplicate(err) {
			d, err = c.Get(ctx, hmacSecretID)
		}
	}
	if err != nil {
		return nil, err
	}
	return base64.RawURLEncoding.DecodeString(str(d["secret"]))
}
