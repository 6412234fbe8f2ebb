package maillog

import (
	"context"
	"time"

	"platform/kernel/query"
	"platform/kernel/resource"
	"platform/kernel/store"
)

// hit is what an open or a click records.
type hit struct {
	at, status, human, machine, event string
}

var (
	openHit  = hit{at: "openedAt", status: Opened, human: "opens", machine: "machineOpens", event: "opened"}
	clickHit = hit{at: "clickedAt", status: Clicked, human: "clicks", machine: "machineClicks", event: "clicked"}
)

// Open records an open of log (as loaded): a machine's is only counted;
// a person's first sets openedAt and moves the status forward to opened,
// and announces maillogs.opened once.
func (l Logs) Open(ctx context.Context, log store.Doc, machine bool) error {
	return l.record(ctx, log, openHit, machine)
}

// Click records a click of a link of log, as Open does an open.
func (l Logs) Click(ctx context.Context, log store.Doc, machine bool) error {
	return l.record(ctx, log, clickHit, machine)
}

func (l Logs) record(ctx context.Context, log store.Doc, h hit, machine bool) error {
	id, _ := log["_id"].(string)
	if machine {
		return l.count(ctx, id, h.machine)
	}
	if log[h.at] == nil {
		first, err := l.first(ctx, id, h)
		if first || err != nil {
			return err
		}
	}
	return l.count(ctx, id, h.human)
}

// first sets the hit's date if no one has yet, moving the status forward
// when it may; whoever sets the date announces it.
func (l Logs) first(ctx context.Context, id string, h hit) (bool, error) {
	now := time.Now().UTC().Truncate(time.Millisecond)
	c := resource.Change{Set: store.Doc{h.at: now, "status": h.status}, Inc: map[string]any{h.human: int64(1)}, Event: h.event}
	_, moved, err := l.apply(ctx, query.AllOf(query.ID(id), absent(h.at), statusIn(below(h.status))), c)
	if moved || err != nil {
		return moved, err
	}
	delete(c.Set, "status") // the log is past this status already: only the date
	_, moved, err = l.apply(ctx, query.AllOf(query.ID(id), absent(h.at)), c)
	return moved, err
}

func (l Logs) count(ctx context.Context, id, field string) error {
	_, _, err := l.apply(ctx, query.ID(id), resource.Change{Inc: map[string]any{field: int64(1)}})
	return err
}

// Report moves log id to Bounced or Complained with reason, unless it is
// there or past it already; moved says whether it did (and announced
// maillogs.bounced or maillogs.complained).
func (l Logs) Report(ctx context.Context, id, status, reason string) (store.Doc, bool, error) {
	c := resource.Change{Set: store.Doc{"status": status, "bounceReason": reason, status + "At": time.Now().UTC().Truncate(time.Millisecond)}, Event: status}
	doc, moved, err := l.apply(ctx, query.AllOf(query.ID(id), statusIn(below(status))), c)
	if err != nil || moved {
		return doc, moved, err
	}
	doc, err = l.Load(ctx, id)
	return doc, false, err
}
