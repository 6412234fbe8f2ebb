package aggregation_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"platform/kernel/store"
	"platform/modules/aggregation/readmodel"
	"platform/test/testenv"
)

// recount computes every read model from the source records themselves
// (and the deleted records' last writes the workload noted).
type recount struct {
	t   *testing.T
	p   *testenv.Platform
	ctx context.Context
}

func (r recount) all(coll string) []store.Doc {
	docs, err := r.p.Store.Collection(coll).Find(r.ctx, store.FindOptions{})
	require.NoError(r.t, err)
	return docs
}

func bump(m map[string]store.Doc, key, field string) {
	if m[key] == nil {
		m[key] = store.Doc{}
	}
	n, _ := m[key][field].(int64)
	m[key][field] = n + 1
}

func later(m map[string]store.Doc, key string, t time.Time) {
	if m[key] == nil {
		m[key] = store.Doc{}
	}
	if old, ok := m[key]["lastActivityAt"].(time.Time); !ok || t.After(old) {
		m[key]["lastActivityAt"] = t
	}
}

func has(d store.Doc, field string) bool { _, ok := d[field].(time.Time); return ok }

func (r recount) consumerActivity(deleted map[string]time.Time) map[string]store.Doc {
	out := map[string]store.Doc{}
	for _, d := range r.all("tasks") {
		c, _ := d["consumer"].(string)
		if c == "" {
			continue
		}
		if d["_status"] == "done" {
			bump(out, c+"|", "tasksDone")
		} else {
			bump(out, c+"|", "tasksOpen")
		}
		later(out, c+"|", d["updatedAt"].(time.Time))
	}
	for _, d := range r.all("notes") {
		if c, _ := d["targetId"].(string); d["targetType"] == "consumers" {
			bump(out, c+"|", "notes")
			later(out, c+"|", d["updatedAt"].(time.Time))
		}
	}
	for _, d := range r.all("maillogs") {
		c, _ := d["consumer"].(string)
		for f, counter := range map[string]string{"sentAt": "mailsSent", "openedAt": "mailsOpened", "clickedAt": "mailsClicked"} {
			if has(d, f) {
				bump(out, c+"|", counter)
			}
		}
		for _, f := range []string{"sentAt", "openedAt", "clickedAt"} {
			if at, ok := d[f].(time.Time); ok {
				later(out, c+"|", at)
			}
		}
	}
	for c, at := range deleted {
		later(out, c+"|", at)
	}
	return out
}

func (r recount) funnels() map[string]store.Doc {
	out := map[string]store.Doc{}
	for _, d := range r.all("maillogs") {
		n, _ := d["newsletter"].(string)
		for f, counter := range map[string]string{"sentAt": "sent", "openedAt": "opened", "clickedAt": "clicked", "bouncedAt": "bounced", "complainedAt": "complained"} {
			if has(d, f) {
				bump(out, n+"|", counter)
			}
		}
	}
	for _, d := range r.all("consumers") {
		if n, _ := d["unsubscribedNewsletter"].(string); n != "" && has(d, "unsubscribedAt") {
			bump(out, n+"|", "unsubscribed")
		}
	}
	return out
}

// durations recounts a per-day model and checks its percentiles against
// the exact ones; the returned rows hold the counters only.
func (r recount) durations(coll, owner, at, duration, total, failures string, failed func(store.Doc) bool, got map[string]store.Doc) map[string]store.Doc {
	out, values := map[string]store.Doc{}, map[string][]float64{}
	for _, d := range r.all(coll) {
		if coll == "pipelineruns" && !has(d, "endedAt") {
			continue
		}
		k := d[owner].(string) + "|" + readmodel.Day(d[at].(time.Time)) + "|"
		bump(out, k, total)
		if failed(d) {
			bump(out, k, failures)
		} else if coll == "webhookdeliveries" {
			bump(out, k, "delivered")
		}
		values[k] = append(values[k], number(d[duration]))
	}
	for k, v := range values {
		require.Contains(r.t, got, k)
		within(r.t, readmodel.ExactPercentile(v, 0.5), number(got[k]["p50Ms"]), k+" p50")
		within(r.t, readmodel.ExactPercentile(v, 0.95), number(got[k]["p95Ms"]), k+" p95")
		f, _ := out[k][failures].(int64)
		require.InDelta(r.t, float64(f)/float64(len(v)), number(got[k]["failureRate"]), 1e-9, k)
	}
	return out
}

func number(v any) float64 {
	switch n := v.(type) {
	case int64:
		return float64(n)
	case float64:
		return n
	}
	return 0
}

// counters drops the derived fields of rows (checked on their own).
func counters(m map[string]store.Doc) map[string]store.Doc {
	out := map[string]store.Doc{}
	for k, d := range m {
		c := store.Doc{}
		for f, v := range d {
			if _, ok := v.(int64); ok {
				c[f] = v
			}
		}
		out[k] = c
	}
	return nonEmpty(out)
}

// check compares every read model of the customer with the recount.
func (r recount) check(deleted map[string]time.Time) {
	t, p, ctx := r.t, r.p, r.ctx
	require.Equal(t, r.consumerActivity(deleted), nonEmptyOrDated(rows(t, p, ctx, readmodel.ConsumerActivity, "consumer")), "consumer activity")
	require.Equal(t, r.funnels(), nonEmpty(rows(t, p, ctx, readmodel.NewsletterFunnels, "newsletter")), "newsletter funnels")
	runs := rows(t, p, ctx, readmodel.PipelineStats, "pipeline", "day")
	want := r.durations("pipelineruns", "pipeline", "startedAt", "totalDuration", "runs", "failures", func(d store.Doc) bool { return d["status"] == "failed" }, runs)
	require.Equal(t, want, counters(runs), "pipeline statistics")
	hooks := rows(t, p, ctx, readmodel.WebhookHealth, "webhook", "day")
	want = r.durations("webhookdeliveries", "webhook", "createdAt", "durationMs", "attempts", "failed", func(d store.Doc) bool { return d["status"] != "delivered" }, hooks)
	require.Equal(t, want, counters(hooks), "webhook health")
}

// nonEmptyOrDated keeps rows with a count or a last activity.
func nonEmptyOrDated(m map[string]store.Doc) map[string]store.Doc {
	out := map[string]store.Doc{}
	for k, v := range m {
		if hasCount(v) || v["lastActivityAt"] != nil {
			out[k] = v
		}
	}
	return out
}
