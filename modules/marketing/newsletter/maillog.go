package newsletter

import (
	"context"

	"platform/kernel/query"
	"platform/kernel/resource"
	"platform/kernel/store"
)

// queueLog creates the mail log (status queued) under the id the ledger
// chose, once: a resend finds it.
func (s *Sender) queueLog(ctx context.Context, logID, consumer, newsletter, to string) error {
	t := now()
	err := s.Service.Store.Collection(MailLogs).Insert(ctx, store.Doc{
		"_id": logID, "to": to, "consumer": consumer, "newsletter": newsletter, "status": "queued",
		"createdAt": t, "updatedAt": t, "createdBy": resource.PlatformActor, "modifiedBy": resource.PlatformActor,
	})
	if store.IsDuplicate(err) {
		return nil
	}
	return err
}

// setLog changes the mail log through the record service.
func (s *Sender) setLog(ctx context.Context, logID string, set store.Doc) error {
	_, err := s.Service.Apply(ctx, s.mailLogs(), query.ID(logID), resource.Change{Set: set})
	return err
}
