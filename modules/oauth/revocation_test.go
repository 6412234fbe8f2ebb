package oauth

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"platform/kernel/store"
	"platform/kernel/store/sqlitestore"
	"platform/kernel/store/storetest"
)

// A revocation whose request goes away after its first write (a reused
// refresh token's sender disconnecting at once) still revokes every token
// of the family: the refresh tokens stop working, and so do the access
// tokens, for the API's revocation list.
func TestRevocationCompletesWhenItsRequestGoesAway(t *testing.T) {
	st, err := sqlitestore.Open(filepath.Join(t.TempDir(), "store.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close(context.Background()) })
	bg := context.Background()
	storage := &Storage{Store: st, Revoked: NewRevocationList(st)}
	const family = "family-1"
	// Every collection exists first, so the first write of the revocation
	// is its own (creating a collection is a write on SQLite).
	if err := st.Global(GrantsCollection).Insert(bg, store.Doc{"_id": "another-family"}); err != nil {
		t.Fatal(err)
	}
	if err := st.Global(RefreshCollection).Insert(bg, store.Doc{"_id": "refresh-1", "active": true, "requestId": family}); err != nil {
		t.Fatal(err)
	}
	access := store.Doc{"_id": "jti-1", "revoked": false, "requestId": family, "expiresAt": time.Now().Add(time.Hour).UTC()}
	if err := st.Global(AccessCollection).Insert(bg, access); err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithCancel(bg)
	defer cancel()
	st.SetWriteHook(storetest.CancelAt(store.WriteDone, cancel)) // after the first write
	err = storage.RevokeFamily(ctx, family)
	st.SetWriteHook(nil)
	if err != nil {
		t.Errorf("revocation whose request went away: %v", err)
	}
	refresh, err := st.Global(RefreshCollection).Get(bg, "refresh-1")
	if err != nil || refresh["active"] != false {
		t.Errorf("refresh token after the revocation: %v, %v; want inactive", refresh, err)
	}
	if revoked, err := storage.Revoked.Revoked(bg, "jti-1"); err != nil || !revoked {
		t.Errorf("access token after the revocation: revoked = %v, %v", revoked, err)
	}
}
