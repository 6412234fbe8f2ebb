package dispatch_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"platform/kernel/events"
	"platform/kernel/store"
	"platform/test/testenv"
	"platform/worker/dispatch"
)

// TestHinterLeavesOneHintPerCustomer: a burst of events of one customer
// leaves one hint record (written at most every 50 ms), another customer's
// event its own; a dispatcher reading hints newer than a time finds them.
func TestHinterLeavesOneHintPerCustomer(t *testing.T) {
	st := testenv.SQLiteStore(t)
	h := &dispatch.Hinter{Store: st, Log: testenv.Logger(t)}
	before := time.Now().UTC().Add(-time.Second)
	for i := 0; i < 50; i++ {
		h.Notify(context.Background(), events.Event{ID: store.NewID(), Customer: "a"})
	}
	h.Notify(context.Background(), events.Event{ID: store.NewID(), Customer: "b"})
	require.Eventually(t, func() bool {
		docs, err := st.Global(dispatch.HintsCollection).Find(context.Background(), store.FindOptions{})
		require.NoError(t, err)
		if len(docs) != 2 {
			return false
		}
		for _, d := range docs {
			if at, _ := d["at"].(time.Time); !at.After(before) {
				return false
			}
		}
		return true
	}, 5*time.Second, 10*time.Millisecond)
}
