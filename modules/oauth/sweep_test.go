package oauth_test

import (
	"context"
	"fmt"
	"sort"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"platform/kernel/query"
	"platform/kernel/store"
	"platform/modules/oauth"
	"platform/test/testenv"
)

// TestSweepKeepsTheCollectionsBounded: on both stores, a sweep removes
// every expired code, PKCE session, browser session, access-token record,
// refresh token, revoked-family mark and forgotten sign-in count, in
// bounded batches, and nothing that is still needed.
func TestSweepKeepsTheCollectionsBounded(t *testing.T) {
	t.Parallel()
	for _, kind := range []string{"sqlite", "mongodb"} {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			st := testenv.NewStore(t, kind)
			now := time.Now().UTC()
			want := seedOAuthLeftovers(t, st, now)
			sw := &oauth.Sweeper{Store: st, RefreshTTL: 30 * 24 * time.Hour, Forget: 15 * time.Minute, Batch: 2, MaxBatches: 1,
				Also: []string{otherSessions}}
			require.NoError(t, sw.EnsureIndexes(context.Background()))

			removed, more, err := sw.Sweep(context.Background(), now)
			require.NoError(t, err)
			require.True(t, more, "three expired documents, one batch of two: more to do")
			require.EqualValues(t, 2, removed[oauth.CodesCollection], "a batch is bounded")
			for more {
				_, more, err = sw.Sweep(context.Background(), now)
				require.NoError(t, err)
			}
			for coll, ids := range want {
				require.Equal(t, ids, storedIDs(t, st, coll), coll)
			}
		})
	}
}

// otherSessions stands for another module's expiring records (Also).
const otherSessions = "othersessions"

// seedOAuthLeftovers stores, in each collection the sweep looks after,
// three documents it must remove and those it must keep (returned: their
// ids by collection).
func seedOAuthLeftovers(t testing.TB, st store.Store, now time.Time) map[string][]string {
	t.Helper()
	long, recently, soon := now.Add(-2*time.Hour), now.Add(-time.Minute), now.Add(time.Hour)
	month := 30 * 24 * time.Hour
	seed := map[string][]store.Doc{
		oauth.GrantsCollection: {{"revokedAt": long.Add(-month)}, {"revokedAt": long.Add(-month)}, {"revokedAt": long.Add(-month)},
			{"_id": "keep-revoked-within-refresh-lifetime", "revokedAt": now.Add(-month + time.Hour)}},
		oauth.AttemptsCollection: {{"failures": int64(5), "last": long, "until": long.Add(time.Minute)}, {"failures": int64(0)},
			{"failures": int64(4), "last": now.Add(-20 * time.Minute), "until": now.Add(-19 * time.Minute)},
			{"_id": "keep-recent-failure", "failures": int64(2), "last": recently, "until": recently},
			{"_id": "keep-still-waiting", "failures": int64(9), "last": now.Add(-16 * time.Minute), "until": soon}},
	}
	for _, coll := range []string{oauth.CodesCollection, oauth.PKCECollection, oauth.SessionsCollection, oauth.AccessCollection, oauth.RefreshCollection, otherSessions} {
		seed[coll] = []store.Doc{{"expiresAt": long}, {"expiresAt": long}, {"expiresAt": long, "revoked": true},
			{"_id": "keep-live", "expiresAt": soon}, {"_id": "keep-expired-within-grace", "expiresAt": recently}}
	}
	want := map[string][]string{}
	for coll, docs := range seed {
		for i, d := range docs {
			if d["_id"] == nil {
				d["_id"] = fmt.Sprintf("expired-%d", i)
			} else {
				want[coll] = append(want[coll], d["_id"].(string))
			}
		}
		require.NoError(t, st.Global(coll).InsertMany(context.Background(), docs))
		sort.Strings(want[coll])
	}
	return want
}

func storedIDs(t testing.TB, st store.Store, coll string) []string {
	t.Helper()
	docs, err := st.Global(coll).Find(context.Background(), store.FindOptions{Filter: query.AllOf(), Fields: []string{"_id"}})
	require.NoError(t, err)
	ids := []string{}
	for _, d := range docs {
		ids = append(ids, d["_id"].(string))
	}
	sort.Strings(ids)
	return ids
}
