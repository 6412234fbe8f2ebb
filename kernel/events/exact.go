package events

import (
	"context"
	"strconv"
	"time"

	"platform/kernel/store"
)

// ClaimTokens holds one document per claim of an event on a store whose
// updates are not atomic across connections (RacyUpdates).
const ClaimTokens = "eventclaims"

// claims counts the claims of an event: two dispatchers that claim it in
// the same instant write the same count, a later claim the next.
const claims = "claims"

// RacyUpdates reports whether the store applies an update as a read
// followed by a write, so that two dispatchers claiming the same event at
// once may both see their claim land. FerretDB does (measured: with two
// workers, 4 of 200 events were delivered twice); MongoDB and the
// embedded SQLite store (one process) do not.
func RacyUpdates(st store.Store) bool {
	f, ok := st.(interface{ FerretDB() bool })
	return ok && f.FerretDB()
}

// ConfirmClaims keeps those of docs (read back as claimed by owner) that
// owner claimed alone: for each, it inserts the token {_id: event:claims},
// whose unique _id only one dispatcher gets, and makes the event name the
// winner again when a loser's write came last. The losers drop the event
// without touching it. (A loser's write may still land after that: the
// winner's lease renewals then miss the event, its lease runs out and the
// event is taken again, as after a crash: Retaken, so its deliveries
// already recorded are not sent twice.)
func ConfirmClaims(ctx context.Context, st store.Store, owner string, docs []store.Doc) ([]store.Doc, error) {
	won := make([]store.Doc, 0, len(docs))
	var retake []string
	now := time.Now().UTC()
	for _, d := range docs {
		id, _ := d["_id"].(string)
		token := id + ":" + strconv.FormatInt(store.Int(d[claims]), 10)
		err := st.Collection(ClaimTokens).Insert(ctx, store.Doc{"_id": token, "owner": owner, "at": now})
		if store.IsDuplicate(err) {
			continue // another dispatcher's claim
		}
		if err != nil {
			return won, err
		}
		won = append(won, d)
		if d[claimBy] != owner {
			retake = append(retake, id)
		}
	}
	if len(retake) > 0 {
		_, err := st.Collection(Collection).UpdateMany(ctx, idIn(retake), store.Update{Set: store.Doc{claimBy: owner}})
		return won, err
	}
	return won, nil
}

// Retaken reports whether a claimed event (read back) was claimed before:
// its first claimer died or lost the lease, and may have delivered some of
// it already.
func Retaken(doc store.Doc) bool { return store.Int(doc[claims]) > 1 }
