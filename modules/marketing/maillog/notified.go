package maillog

import (
	"context"
	"net/mail"
	"strings"

	"platform/kernel/query"
	"platform/kernel/resource"
)

// LogMail writes a mail log of a mail sent (failure empty) or refused
// for good to the addresses to, for each that is a consumer's of the
// customer in ctx (matched by address, without case): mail to anyone
// else leaves no log.
func (l Logs) LogMail(ctx context.Context, to []string, failure string) error {
	consumers := l.Service.Registry.Get("crm", "consumers")
	if consumers == nil {
		return nil // no CRM: no consumers to match
	}
	status := Sent
	if failure != "" {
		status = Failed
	}
	for _, addr := range to {
		consumer, err := l.consumerOf(ctx, consumers, addr)
		if err != nil {
			return err
		}
		if consumer == "" {
			continue
		}
		if _, err := l.Create(ctx, Write{To: addr, Consumer: consumer, Source: "notification", Status: status, Error: failure}); err != nil {
			return err
		}
	}
	return nil
}

// consumerOf is the id of the consumer with address addr, or "".
func (l Logs) consumerOf(ctx context.Context, consumers *resource.Resource, addr string) (string, error) {
	if a, err := mail.ParseAddress(addr); err == nil {
		addr = a.Address // "Ada <ada@example.com>"
	}
	page, err := l.Service.Find(ctx, consumers, resource.ListQuery{Where: query.Eq("email", strings.ToLower(strings.TrimSpace(addr))), Limit: 1, Fields: []string{"_id"}})
	if err != nil || len(page.Records) == 0 {
		return "", err
	}
	id, _ := page.Records[0]["_id"].(string)
	return id, nil
}
