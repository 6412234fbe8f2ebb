package resource

import (
	"context"
	"errors"

	"platform/kernel/store"
)

// checkLinks refuses a client write whose link field (a Relation with
// Field: a task's consumer, a reference's consumer) names no record of
// the customer in the target resource. Only a value that changed is
// looked up, and only for a target that is mounted; the platform's own
// records (read-only resources) may keep a link to a record since
// removed.
func (s *Service) checkLinks(ctx context.Context, r *Resource, w *Write) error {
	if r.ReadOnly || s.Registry == nil {
		return nil
	}
	for i := range r.Relations {
		rel := &r.Relations[i]
		id, ok := w.New[rel.Field].(string)
		if rel.Field == "" || !ok || (w.Old != nil && w.Old[rel.Field] == id) {
			continue
		}
		if err := s.linked(ctx, rel, id); err != nil {
			return err
		}
	}
	return nil
}

func (s *Service) linked(ctx context.Context, rel *Relation, id string) error {
	target := s.Registry.Get(rel.TargetModule(), rel.TargetPlural())
	if target == nil {
		return nil
	}
	_, err := target.Collection(s.Store).Get(ctx, id, "_id")
	if errors.Is(err, store.ErrNotFound) {
		return InvalidField(rel.Field, "no %s %s exists for this customer", target.Title, id)
	}
	return storeError(err, target)
}
