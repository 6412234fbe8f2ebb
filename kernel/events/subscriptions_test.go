package events_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"platform/kernel/events"
	"platform/kernel/store"
	"platform/kernel/tenant"
	"platform/test/testenv"
)

// TestPruneSubscriptionsKeepsWhatIsUsedOrNew: on both stores, a pattern
// nothing uses any more goes once it is older than the grace cut-off; one
// still used stays, and so does one subscribed after the cut-off (a create
// between its Subscribe and its write, which the owners do not show yet).
func TestPruneSubscriptionsKeepsWhatIsUsedOrNew(t *testing.T) {
	t.Parallel()
	for _, kind := range []string{"sqlite", "mongodb"} {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			st := testenv.NewStore(t, kind)
			ctx := tenant.WithCustomer(context.Background(), store.NewID())
			start := time.Now()
			require.NoError(t, events.Subscribe(ctx, st, "consumers.*", "orders.created"))
			mid := pause()
			require.NoError(t, events.Subscribe(ctx, st, "tasks.assigned")) // in flight: no owner yet

			n, err := events.PruneSubscriptions(ctx, st, start.Add(-time.Millisecond), owners("consumers.*"))
			require.NoError(t, err)
			require.Zero(t, n, "nothing is older than a cut-off before every Subscribe")

			n, err = events.PruneSubscriptions(ctx, st, mid, owners("consumers.*"))
			require.NoError(t, err)
			require.Equal(t, 1, n)
			requireSubscribed(t, st, ctx, "consumers.created", true)
			requireSubscribed(t, st, ctx, "orders.created", false)
			requireSubscribed(t, st, ctx, "tasks.assigned", true)
		})
	}
}

// TestPruneSubscriptionsLosesNoConcurrentCreate: a webhook created while
// the prune runs, asking for a pattern the prune is about to remove (it
// subscribes after the prune read the set and its record is not visible
// to the owners the prune asked), keeps its pattern.
func TestPruneSubscriptionsLosesNoConcurrentCreate(t *testing.T) {
	t.Parallel()
	for _, kind := range []string{"sqlite", "mongodb"} {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			st := testenv.NewStore(t, kind)
			ctx := tenant.WithCustomer(context.Background(), store.NewID())
			require.NoError(t, events.Subscribe(ctx, st, "orders.created", "orders.deleted"))
			stale := pause()

			createMidway := func(ctx context.Context) ([]string, error) {
				// The create's hook: Subscribe first, the webhook record later.
				return nil, events.Subscribe(ctx, st, "orders.created")
			}
			n, err := events.PruneSubscriptions(ctx, st, stale, createMidway)
			require.NoError(t, err)
			require.Equal(t, 1, n, "only the pattern nobody subscribed again goes")
			requireSubscribed(t, st, ctx, "orders.created", true)
			requireSubscribed(t, st, ctx, "orders.deleted", false)
		})
	}
}

// TestPruneSubscriptionsCountsLegacyPatternsFromTheSet: a pattern stored
// before patterns carried their own time is judged by the set's updatedAt.
func TestPruneSubscriptionsCountsLegacyPatternsFromTheSet(t *testing.T) {
	t.Parallel()
	st := testenv.SQLiteStore(t)
	cust := store.NewID()
	ctx := tenant.WithCustomer(context.Background(), cust)
	_, err := st.Global(events.Subscriptions).Upsert(ctx, cust, store.Update{Set: store.Doc{
		"updatedAt": time.Now().Add(-2 * time.Hour).UTC().Truncate(time.Millisecond), "patterns.6f6c64": "old",
	}})
	require.NoError(t, err)
	n, err := events.PruneSubscriptions(ctx, st, time.Now().Add(-time.Hour), owners())
	require.NoError(t, err)
	require.Equal(t, 1, n)
	requireSubscribed(t, st, ctx, "old", false)
}

// pause answers a time strictly between what was stored before and what is
// stored after it (the store keeps milliseconds).
func pause() time.Time {
	time.Sleep(20 * time.Millisecond)
	t := time.Now()
	time.Sleep(20 * time.Millisecond)
	return t
}

func owners(patterns ...string) func(context.Context) ([]string, error) {
	return func(context.Context) ([]string, error) { return patterns, nil }
}

func requireSubscribed(t *testing.T, st store.Store, ctx context.Context, name string, want bool) {
	t.Helper()
	cust, err := tenant.Customer(ctx)
	require.NoError(t, err)
	got, err := events.Subscribed(ctx, st, cust, name)
	require.NoError(t, err)
	require.Equal(t, want, got, name)
}
