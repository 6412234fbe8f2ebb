package automation_test

import (
	"context"
	"sort"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"platform/kernel/events"
	"platform/kernel/query"
	"platform/kernel/store"
	"platform/kernel/tenant"
	"platform/modules/automation"
	"platform/modules/automation/runs"
	"platform/modules/automation/webhook"
	"platform/test/testenv"
	"platform/workflows/contract"
)

// TestRetentionRemovesOnlyWhatIsPast: on both stores, old dispatched
// events, old delivery attempts and old finished runs go, a batch of at
// most limit at a time; recent records, undispatched events, the events of
// parked deliveries and running runs stay however old.
func TestRetentionRemovesOnlyWhatIsPast(t *testing.T) {
	t.Parallel()
	for _, kind := range []string{"sqlite", "mongodb"} {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			st := testenv.NewStore(t, kind)
			cust := store.NewID()
			ctx := tenant.WithCustomer(context.Background(), cust)
			now := time.Now().UTC().Truncate(time.Millisecond)
			old, recent := now.Add(-31*24*time.Hour), now.Add(-time.Hour)
			insertAll(t, st.Collection(events.Collection), ctx,
				store.Doc{"_id": "e-old-1", "timestamp": old, "dispatched": true},
				store.Doc{"_id": "e-old-2", "timestamp": old, "dispatched": true},
				store.Doc{"_id": "e-old-3", "timestamp": old, "dispatched": true},
				store.Doc{"_id": "e-undispatched", "timestamp": old, "dispatched": false},
				store.Doc{"_id": "e-parked", "timestamp": old, "dispatched": true},
				store.Doc{"_id": "e-recent", "timestamp": recent, "dispatched": true})
			insertAll(t, st.Collection(webhook.RetriesCollection), ctx, store.Doc{"_id": "r1", "event": "e-parked", "status": webhook.StatusParked})
			insertAll(t, st.Collection(webhook.DeliveriesCollection), ctx,
				store.Doc{"_id": "d-old-1", "createdAt": old}, store.Doc{"_id": "d-old-2", "createdAt": old},
				store.Doc{"_id": "d-old-3", "createdAt": old}, store.Doc{"_id": "d-recent", "createdAt": recent})
			insertAll(t, st.Collection(runs.Runs), ctx,
				store.Doc{"_id": "p-old-1", "status": runs.StatusSuccess, "updatedAt": old},
				store.Doc{"_id": "p-old-2", "status": runs.StatusFailed, "updatedAt": old},
				store.Doc{"_id": "p-old-3", "status": runs.StatusFailed, "updatedAt": old},
				store.Doc{"_id": "p-running", "status": runs.StatusRunning, "updatedAt": old},
				store.Doc{"_id": "p-recent", "status": runs.StatusSuccess, "updatedAt": recent})

			month := 30 * 24 * time.Hour
			r := &automation.Retention{Store: st, Events: month, Deliveries: month, Runs: month}
			require.NoError(t, r.EnsureIndexes(context.Background()))
			for _, k := range contract.RetainKinds {
				n, err := r.Prune(context.Background(), cust, k, now, 2)
				require.NoError(t, err)
				require.EqualValues(t, 2, n, "%s: three are past, a batch of two goes", k)
				n, err = r.Prune(context.Background(), cust, k, now, 2)
				require.NoError(t, err)
				require.EqualValues(t, 1, n, k)
				n, err = r.Prune(context.Background(), cust, k, now, 2)
				require.NoError(t, err)
				require.Zero(t, n, k)
			}
			require.Equal(t, []string{"e-parked", "e-recent", "e-undispatched"}, ids(t, st.Collection(events.Collection), ctx))
			require.Equal(t, []string{"d-recent"}, ids(t, st.Collection(webhook.DeliveriesCollection), ctx))
			require.Equal(t, []string{"p-recent", "p-running"}, ids(t, st.Collection(runs.Runs), ctx))
		})
	}
}

// TestRetentionPrunesSubscriptionsNoOwnerUses: the patterns of webhooks,
// triggers and pipeline triggers stay; one whose webhook was deleted goes
// once past the grace period.
func TestRetentionPrunesSubscriptionsNoOwnerUses(t *testing.T) {
	t.Parallel()
	for _, kind := range []string{"sqlite", "mongodb"} {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			st := testenv.NewStore(t, kind)
			cust := store.NewID()
			ctx := tenant.WithCustomer(context.Background(), cust)
			require.NoError(t, events.Subscribe(ctx, st, "consumers.*", "orders.created", "tasks.done", "deleted.hook"))
			insertAll(t, st.Collection(webhook.Collection), ctx, store.Doc{"_id": "w1", "events": []any{"consumers.*"}, "active": false})
			insertAll(t, st.Collection(runs.Triggers), ctx, store.Doc{"_id": "t1", "event": "orders.created"})
			insertAll(t, st.Collection(runs.Pipelines), ctx, store.Doc{"_id": "p1", "trigger": store.Doc{"event": "tasks.done"}})

			r := &automation.Retention{Store: st, SubscriptionGrace: time.Hour}
			n, err := r.PruneSubscriptions(context.Background(), cust, time.Now())
			require.NoError(t, err)
			require.Zero(t, n, "within the grace period nothing goes")
			n, err = r.PruneSubscriptions(context.Background(), cust, time.Now().Add(2*time.Hour))
			require.NoError(t, err)
			require.EqualValues(t, 1, n)
			for name, want := range map[string]bool{"consumers.created": true, "orders.created": true, "tasks.done": true, "deleted.hook": false} {
				got, err := events.Subscribed(ctx, st, cust, name)
				require.NoError(t, err)
				require.Equal(t, want, got, name)
			}
		})
	}
}

func insertAll(t *testing.T, c store.Collection, ctx context.Context, docs ...store.Doc) {
	t.Helper()
	require.NoError(t, c.InsertMany(ctx, docs))
}

func ids(t *testing.T, c store.Collection, ctx context.Context) []string {
	t.Helper()
	docs, err := c.Find(ctx, store.FindOptions{Filter: query.AllOf(), Fields: []string{"_id"}})
	require.NoError(t, err)
	out := make([]string, len(docs))
	for i, d := range docs {
		out[i], _ = d["_id"].(string)
	}
	sort.Strings(out)
	return out
}
