// Package maillog makes the moves of mail logs, the record of every mail
// the platform sends to a consumer: written at send time, then moved by
// the tracking service (opens, clicks), the bounce intake and nothing
// else. Every move goes through the record service and is conditional in
// the store, so concurrent hits announce a move once and a log never
// moves backwards.
package maillog

// Statuses of a mail log (the resource's enum).
const (
	Queued     = "queued"
	Sent       = "sent"
	Failed     = "failed"
	Opened     = "opened"
	Clicked    = "clicked"
	Bounced    = "bounced"
	Complained = "complained"
)

// Statuses lists them in their order (docs/tracking.md).
var Statuses = []string{Queued, Sent, Failed, Opened, Clicked, Bounced, Complained}

// rank orders the statuses: a log only moves to a higher rank. A failed
// send ranks with sent (both end the send); a complaint is the last word,
// since a recipient complains about mail they received and even opened.
var rank = map[string]int{Queued: 0, Sent: 1, Failed: 1, Opened: 2, Clicked: 3, Bounced: 4, Complained: 5}

// below lists the statuses a log may move from to reach to.
func below(to string) []any {
	var out []any
	for _, s := range Statuses {
		if rank[s] < rank[to] {
			out = append(out, s)
		}
	}
	return out
}
