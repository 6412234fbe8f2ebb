package aggregation_test

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"platform/kernel/events"
	"platform/kernel/query"
	"platform/kernel/settings"
	"platform/kernel/store"
	"platform/modules/aggregation/readmodel"
	"platform/test/testenv"
)

// newPlatform is the package's one platform with a worker: webhooks to a
// local receiver are allowed.
func newPlatform(t *testing.T) *testenv.Platform {
	p := testenv.NewPlatform(t, testenv.Options{Worker: true, Configure: func(c *settings.Config) {
		c.OutboundAllow = []string{"127.0.0.1"}
	}})
	p.CheckOpenAPI("aggregation")
	return p
}

// receiver answers webhook deliveries: every third one fails.
func receiver(t *testing.T) string {
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		if n.Add(1)%3 == 0 {
			w.WriteHeader(http.StatusInternalServerError)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// settle waits until every event of the customer in ctx was dispatched
// and applied, and no batch is half done.
func settle(t *testing.T, p *testenv.Platform, ctx context.Context) {
	t.Helper()
	require.Eventually(t, func() bool {
		n, err := p.Store.Collection(events.Collection).Count(ctx, query.Eq("dispatched", false))
		if err != nil || n > 0 {
			return false
		}
		n, err = p.Store.Collection(readmodel.Inbox).Count(ctx, query.Eq("pending", true))
		if err != nil || n > 0 {
			return false
		}
		st, err := p.Store.Collection(readmodel.State).Get(ctx, readmodel.StateID(ctx))
		return err == nil && st["intent"] == nil
	}, 90*time.Second, 50*time.Millisecond, "events applied")
}

// rows reads a model's rows of the customer in ctx, by row key, counters
// only (and lastActivityAt).
func rows(t *testing.T, p *testenv.Platform, ctx context.Context, model string, key ...string) map[string]store.Doc {
	t.Helper()
	docs, err := p.Store.Collection(model).Find(ctx, store.FindOptions{})
	require.NoError(t, err)
	out := map[string]store.Doc{}
	for _, d := range docs {
		out[keyOf(d, key...)] = comparable(d)
	}
	return out
}

func keyOf(d store.Doc, key ...string) string {
	s := ""
	for _, k := range key {
		s += fmt.Sprint(d[k]) + "|"
	}
	return s
}

// comparable keeps a row's counters and derived values, dropping zero
// counters (a row whose records all went is all zeros).
func comparable(d store.Doc) store.Doc {
	out := store.Doc{}
	for k, v := range d {
		switch k {
		case "_id", "customer", "createdAt", "updatedAt", "lastBatch", "hist", "consumer", "newsletter", "pipeline", "webhook", "day":
			continue
		}
		if n, ok := v.(int64); ok && n == 0 {
			continue
		}
		out[k] = v
	}
	return out
}

// nonEmpty drops rows with nothing counted.
func nonEmpty(m map[string]store.Doc) map[string]store.Doc {
	out := map[string]store.Doc{}
	for k, v := range m {
		if hasCount(v) {
			out[k] = v
		}
	}
	return out
}

func hasCount(d store.Doc) bool {
	for _, v := range d {
		if n, ok := v.(int64); ok && n != 0 {
			return true
		}
	}
	return false
}

func within(t *testing.T, exact, got float64, what string) {
	t.Helper()
	require.LessOrEqual(t, math.Abs(got-exact), 0.01*exact+0.1, "%s: sketch %v, exact %v", what, got, exact)
}
