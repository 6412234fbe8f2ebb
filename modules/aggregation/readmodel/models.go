// Package readmodel keeps the aggregation service's read models: rows
// derived from the records of several modules (tasks, notes, mail logs,
// consumers, pipeline runs, webhook delivery attempts), updated from their
// events by the customer's Aggregator workflow and rebuilt from the
// records themselves (docs/aggregation.md).
//
// Each record (an entity) contributes counts to a few rows of a model; the
// contribution last applied is stored per model and entity, so a newer
// snapshot of the record applies only the difference, an older or repeated
// one nothing (at-least-once delivery counts once), and a deleted record
// takes its counts back.
package readmodel

import (
	"time"

	"platform/kernel/store"
)

// Model is one read model: a collection of rows (its plural) fed by the
// records of its sources.
type Model struct {
	Name    string
	Sources []Source
	// Derive computes the fields read from the counters (percentiles,
	// rates) of a row after its counters moved; nil: none.
	Derive func(row store.Doc) store.Doc
}

// Source is a kind of record a model counts.
type Source struct {
	// Collection is the records' collection, also the plural of their
	// events (<collection>.created, .updated, .deleted, actions).
	Collection string
	// Fields are the record fields Rows reads (kept in the inbox).
	Fields []string
	// Rows maps a live record to the rows it counts in.
	Rows func(rec store.Doc) []Row
}

// Row is one entity's contribution to one row: counters to add (dotted
// paths allowed) and times the row keeps the latest of.
type Row struct {
	Key map[string]any
	Inc map[string]int64
	Max map[string]time.Time
}

// Model names, the plurals of /aggregation/<name>.
const (
	ConsumerActivity  = "consumeractivity"
	NewsletterFunnels = "newsletterfunnels"
	PipelineStats     = "pipelinestats"
	WebhookHealth     = "webhookhealth"
)

// Pseudo-events of records written without the record service (pipeline
// run records, webhook attempt records): their writers feed these to the
// inbox themselves.
const (
	EventRunEnded          = "pipelineruns.ended"
	EventAttemptRecorded   = "webhookdeliveries.recorded"
	collectionRuns         = "pipelineruns"
	collectionAttempts     = "webhookdeliveries"
	collectionTasks        = "tasks"
	collectionNotes        = "notes"
	collectionMailLogs     = "maillogs"
	collectionConsumers    = "consumers"
	taskDone               = "done"
	runFailed              = "failed"
	attemptDelivered       = "delivered"
	unsubscribedNewsletter = "unsubscribedNewsletter"
)

// Models lists every read model.
func Models() []*Model {
	return []*Model{consumerActivity(), newsletterFunnels(), pipelineStats(), webhookHealth()}
}

// ByName finds a model; nil when none has that name.
func ByName(name string) *Model {
	for _, m := range Models() {
		if m.Name == name {
			return m
		}
	}
	return nil
}

// Names lists the models' names.
func Names() []string {
	var out []string
	for _, m := range Models() {
		out = append(out, m.Name)
	}
	return out
}

func consumerActivity() *Model {
	return &Model{Name: ConsumerActivity, Sources: []Source{
		{Collection: collectionTasks, Fields: []string{"consumer", "_status", "updatedAt"}, Rows: taskRows},
		{Collection: collectionNotes, Fields: []string{"targetType", "targetId", "updatedAt"}, Rows: noteRows},
		{Collection: collectionMailLogs, Fields: []string{"consumer", "sentAt", "openedAt", "clickedAt", "updatedAt"}, Rows: consumerMailRows},
	}}
}

func taskRows(rec store.Doc) []Row {
	c, _ := rec["consumer"].(string)
	if c == "" {
		return nil
	}
	field := "tasksOpen"
	if rec["_status"] == taskDone {
		field = "tasksDone"
	}
	return []Row{activityRow(c, rec, map[string]int64{field: 1})}
}

func noteRows(rec store.Doc) []Row {
	c, _ := rec["targetId"].(string)
	if rec["targetType"] != collectionConsumers || c == "" {
		return nil
	}
	return []Row{activityRow(c, rec, map[string]int64{"notes": 1})}
}

func consumerMailRows(rec store.Doc) []Row {
	c, _ := rec["consumer"].(string)
	if c == "" {
		return nil
	}
	inc := flags(rec, map[string]string{"sentAt": "mailsSent", "openedAt": "mailsOpened", "clickedAt": "mailsClicked"})
	r := Row{Key: map[string]any{"consumer": c}, Inc: inc}
	// A mail's activity is its send and the person's first open and
	// click (a machine's open moves updatedAt, not the consumer).
	for _, f := range []string{"sentAt", "openedAt", "clickedAt"} {
		if t, ok := rec[f].(time.Time); ok && t.After(r.Max["lastActivityAt"]) {
			r.Max = map[string]time.Time{"lastActivityAt": t}
		}
	}
	return []Row{r}
}

// activityRow is a consumer's row; its last activity is the latest write
// of any of its tasks and notes (and mail sends, opens and clicks).
func activityRow(consumer string, rec store.Doc, inc map[string]int64) Row {
	r := Row{Key: map[string]any{"consumer": consumer}, Inc: inc}
	if t, ok := rec["updatedAt"].(time.Time); ok {
		r.Max = map[string]time.Time{"lastActivityAt": t}
	}
	return r
}

// flags counts 1 in counter for every date field the record has.
func flags(rec store.Doc, fields map[string]string) map[string]int64 {
	inc := map[string]int64{}
	for field, counter := range fields {
		if _, ok := rec[field].(time.Time); ok {
			inc[counter] = 1
		}
	}
	return inc
}

func newsletterFunnels() *Model {
	return &Model{Name: NewsletterFunnels, Sources: []Source{
		{Collection: collectionMailLogs, Fields: []string{"newsletter", "sentAt", "openedAt", "clickedAt", "bouncedAt", "complainedAt", "updatedAt"}, Rows: funnelMailRows},
		{Collection: collectionConsumers, Fields: []string{unsubscribedNewsletter, "unsubscribedAt", "updatedAt"}, Rows: unsubscribeRows},
	}}
}

func funnelMailRows(rec store.Doc) []Row {
	n, _ := rec["newsletter"].(string)
	if n == "" {
		return nil
	}
	inc := flags(rec, map[string]string{"sentAt": "sent", "openedAt": "opened", "clickedAt": "clicked", "bouncedAt": "bounced", "complainedAt": "complained"})
	return []Row{{Key: map[string]any{"newsletter": n}, Inc: inc}}
}

// unsubscribeRows counts a consumer who unsubscribed through a
// newsletter's link in that newsletter's funnel.
func unsubscribeRows(rec store.Doc) []Row {
	n, _ := rec[unsubscribedNewsletter].(string)
	if _, ok := rec["unsubscribedAt"].(time.Time); !ok || n == "" {
		return nil
	}
	return []Row{{Key: map[string]any{"newsletter": n}, Inc: map[string]int64{"unsubscribed": 1}}}
}

func pipelineStats() *Model {
	return &Model{Name: PipelineStats, Derive: deriveDurations("runs", "failures"), Sources: []Source{
		{Collection: collectionRuns, Fields: []string{"pipeline", "status", "startedAt", "endedAt", "totalDuration", "updatedAt"}, Rows: runRows},
	}}
}

// runRows counts an ended run on the day (UTC) it started.
func runRows(rec store.Doc) []Row {
	p, _ := rec["pipeline"].(string)
	started, ok := rec["startedAt"].(time.Time)
	if _, ended := rec["endedAt"].(time.Time); !ended || !ok || p == "" {
		return nil
	}
	inc := map[string]int64{"runs": 1, histField + "." + bucketOf(number(rec["totalDuration"])): 1}
	if rec["status"] == runFailed {
		inc["failures"] = 1
	}
	return []Row{{Key: map[string]any{"pipeline": p, "day": Day(started)}, Inc: inc}}
}

func webhookHealth() *Model {
	return &Model{Name: WebhookHealth, Derive: deriveDurations("attempts", "failed"), Sources: []Source{
		{Collection: collectionAttempts, Fields: []string{"webhook", "status", "durationMs", "createdAt"}, Rows: attemptRows},
	}}
}

// attemptRows counts a delivery attempt on the day (UTC) it was made.
func attemptRows(rec store.Doc) []Row {
	h, _ := rec["webhook"].(string)
	at, ok := rec["createdAt"].(time.Time)
	if !ok || h == "" {
		return nil
	}
	inc := map[string]int64{"attempts": 1, histField + "." + bucketOf(number(rec["durationMs"])): 1}
	if rec["status"] == attemptDelivered {
		inc["delivered"] = 1
	} else {
		inc["failed"] = 1
	}
	return []Row{{Key: map[string]any{"webhook": h, "day": Day(at)}, Inc: inc}}
}

// deriveDurations reads p50/p95 from the row's histogram and the share of
// failures (failure/total, 0 to 1).
func deriveDurations(total, failures string) func(store.Doc) store.Doc {
	return func(row store.Doc) store.Doc {
		hist, _ := row[histField].(store.Doc)
		out := store.Doc{"p50Ms": Percentile(hist, 0.5), "p95Ms": Percentile(hist, 0.95), "failureRate": 0.0}
		if n := asInt(row[total]); n > 0 {
			out["failureRate"] = float64(asInt(row[failures])) / float64(n)
		}
		return out
	}
}

// Day is the UTC day of t as the rows key it (2006-01-02).
func Day(t time.Time) string { return t.UTC().Format(time.DateOnly) }

func number(v any) float64 {
	switch n := v.(type) {
	case float64:
		return n
	case int64:
		return float64(n)
	case int:
		return float64(n)
	}
	return 0
}
