package events_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"platform/kernel/events"
	"platform/kernel/store"
	"platform/kernel/tenant"
	"platform/test/testenv"
)

// TestConcurrentEventsAreAllStored: group commit stores every event of
// concurrent writers, each before its Record returns, per customer.
func TestConcurrentEventsAreAllStored(t *testing.T) {
	t.Parallel()
	st := testenv.MongoStore(t)
	r := &events.Recorder{Store: st}
	customers := []string{store.NewID(), store.NewID()}
	var wg sync.WaitGroup
	errs := make(chan error, 100)
	for i := 0; i < 100; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			ctx := tenant.WithCustomer(context.Background(), customers[i%2])
			if err := r.Record(ctx, "consumers.created", store.Doc{"n": int64(i)}); err != nil {
				errs <- err
				return
			}
			// Stored before Record returned:
			n, err := st.Collection(events.Collection).Count(ctx, nil)
			if err == nil && n == 0 {
				err = fmt.Errorf("event %d not visible after Record returned", i)
			}
			if err != nil {
				errs <- err
			}
		}(i)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	for _, c := range customers {
		n, err := st.Collection(events.Collection).Count(tenant.WithCustomer(context.Background(), c), nil)
		require.NoError(t, err)
		require.EqualValues(t, 50, n, "each customer sees exactly its own events")
	}
}

// TestEventNeedsCustomer: recording without a tenant fails closed.
func TestEventNeedsCustomer(t *testing.T) {
	t.Parallel()
	r := &events.Recorder{Store: testenv.MongoStore(t)}
	require.ErrorIs(t, r.Record(context.Background(), "x.created", nil), tenant.ErrMissing)
}
