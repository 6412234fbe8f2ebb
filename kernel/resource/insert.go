package resource

import (
	"context"

	"platform/kernel/store"
)

// Insert stores a record the platform writes on its own (a mail log at
// send time), read-only resources included: no client validation and no
// hooks, but stamped like every write. It emits no event: a read-only
// resource declares no created event, and the write that caused it (a
// send) announces itself. An _id in doc is kept (an idempotent writer's
// derived id: a second Insert is then a conflict).
func (s *Service) Insert(ctx context.Context, r *Resource, doc store.Doc) (store.Doc, error) {
	rec := make(store.Doc, len(doc)+5)
	for k, v := range doc {
		rec[k] = v
	}
	stampCreate(ctx, rec)
	if id, ok := doc["_id"].(string); ok && id != "" {
		rec["_id"] = id
	}
	dropNulls(rec)
	if err := r.Collection(s.Store).Insert(ctx, rec); err != nil {
		return nil, storeError(err, r)
	}
	return Present(r, rec, nil), nil
}
