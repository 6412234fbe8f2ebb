package newsletter

import (
	"context"
	"strings"

	"platform/kernel/query"
	"platform/kernel/resource"
	"platform/kernel/store"
	"platform/workflows/contract"
)

// recipients is one page of consumers with what decides whether each
// gets the mail.
type recipients struct {
	consumers []store.Doc
	blocked   map[string]bool      // lower-case addresses that bounced or complained
	entries   map[string]store.Doc // ledger entries by consumer
}

// Reachable restricts a filter to consumers a newsletter may go to: not
// anonymized and not unsubscribed (unsubscribedAt is set by the tracking
// service's opt-out link).
func Reachable(filter query.Expr) query.Expr {
	return query.AllOf(filter, absent("anonymizedAt"), absent("unsubscribedAt"))
}

func absent(path string) query.Expr {
	return query.Field{Path: path, Conds: []query.Cond{query.Exists{Want: false}}}
}

// recipients reads the page of consumers after the id after, in id
// order, with their ledger entries and blocked addresses.
func (s *Sender) recipients(ctx context.Context, newsletter, after string) (*recipients, error) {
	filter, err := s.filter(ctx, newsletter)
	if err != nil {
		return nil, err
	}
	if after != "" {
		filter = query.AllOf(filter, query.Field{Path: "_id", Conds: []query.Cond{query.Compare{Op: query.OpGt, Value: after}}})
	}
	docs, err := s.Service.Store.Collection("consumers").Find(ctx, store.FindOptions{
		Filter: Reachable(filter), Sort: []store.SortField{{Field: "_id"}}, Limit: contract.NewsletterPageSize,
	})
	if err != nil || len(docs) == 0 {
		return &recipients{consumers: docs}, err
	}
	page := &recipients{consumers: make([]store.Doc, len(docs))}
	for i, d := range docs {
		page.consumers[i] = resource.Present(s.consumers(), d, nil)
	}
	if page.blocked, err = s.blocked(ctx, docs); err != nil {
		return nil, err
	}
	page.entries, err = s.entries(ctx, newsletter, ids(docs))
	return page, err
}

// filter is the newsletter's recipientFilter, parsed against consumers.
func (s *Sender) filter(ctx context.Context, newsletter string) (query.Expr, error) {
	nl, err := s.Service.Store.Collection(Collection).Get(ctx, newsletter, "recipientFilter")
	if err != nil {
		return nil, err
	}
	raw, _ := nl["recipientFilter"].(map[string]any)
	if len(raw) == 0 {
		return nil, nil
	}
	f, err := query.Parse(raw, s.consumers())
	if err != nil {
		return nil, &Stop{Reason: "recipientFilter: " + err.Error()}
	}
	return f, nil
}

// blocked are the addresses of docs with a mail log that bounced or
// complained: mail to them would only bounce again.
func (s *Sender) blocked(ctx context.Context, docs []store.Doc) (map[string]bool, error) {
	var addrs []any
	for _, d := range docs {
		if a := lowerEmail(d); a != "" {
			addrs = append(addrs, a)
			if orig, _ := d["email"].(string); orig != a {
				addrs = append(addrs, orig)
			}
		}
	}
	logs, err := s.Service.Store.Collection(MailLogs).Find(ctx, store.FindOptions{Filter: query.AllOf(
		query.Field{Path: "to", Conds: []query.Cond{query.In{Values: addrs}}},
		query.Field{Path: "status", Conds: []query.Cond{query.In{Values: []any{"bounced", "complained"}}}},
	), Fields: []string{"to"}})
	if err != nil {
		return nil, err
	}
	out := map[string]bool{}
	for _, l := range logs {
		to, _ := l["to"].(string)
		out[strings.ToLower(to)] = true
	}
	return out, nil
}

func lowerEmail(d store.Doc) string {
	e, _ := d["email"].(string)
	return strings.ToLower(e)
}

func ids(docs []store.Doc) []string {
	out := make([]string, len(docs))
	for i, d := range docs {
		out[i], _ = d["_id"].(string)
	}
	return out
}
