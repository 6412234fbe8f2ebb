package resource

import (
	"context"
	"errors"
	"reflect"
	"strings"

	"platform/kernel/query"
	"platform/kernel/store"
)

// Present turns a stored record into its public form: write-only fields
// dropped, virtual fields added, projection to fields applied (_id is
// always kept).
func Present(r *Resource, doc store.Doc, fields []string) store.Doc {
	out := make(store.Doc, len(doc)+1)
	for k, v := range doc {
		if f := r.Field(k); f != nil && f.WriteOnly {
			continue
		}
		out[k] = v
	}
	if r.Hooks.Present != nil {
		r.Hooks.Present(out)
	}
	if len(fields) == 0 {
		return out
	}
	proj := store.Doc{"_id": out["_id"]}
	for _, f := range fields {
		if v, ok := out[f]; ok {
			proj[f] = v
		}
	}
	return proj
}

// withOnce is a copy of out plus the show-once values (the event keeps out).
func withOnce(out, once store.Doc) store.Doc {
	if len(once) == 0 {
		return out
	}
	c := make(store.Doc, len(out)+len(once))
	for k, v := range out {
		c[k] = v
	}
	for k, v := range once {
		c[k] = v
	}
	return c
}

// merged applies validated changes to the old record: PUT replaces every
// client field, PATCH only the given ones (null removes). A PUT keeps
// write-only fields it does not name: a client cannot read them back to
// send them again (PATCH with null removes one).
func merged(r *Resource, old, changes store.Doc, m mode) store.Doc {
	next := store.Doc{}
	for k, v := range old {
		f := r.Field(k)
		if m == modePatch || f == nil || f.ReadOnly || f.Virtual || f.WriteOnly {
			next[k] = v
		}
	}
	for k, v := range changes {
		if v == nil {
			delete(next, k)
		} else {
			next[k] = v
		}
	}
	return next
}

// diff is the update turning old into next.
func diff(old, next store.Doc) store.Update {
	u := store.Update{Set: store.Doc{}}
	for k, v := range next {
		if k == "_id" {
			continue
		}
		if ov, ok := old[k]; !ok || !reflect.DeepEqual(ov, v) {
			u.Set[k] = v
		}
	}
	for k := range old {
		if _, ok := next[k]; !ok {
			u.Unset = append(u.Unset, k)
		}
	}
	return u
}

func dropNulls(d store.Doc) {
	for k, v := range d {
		if v == nil {
			delete(d, k)
		}
	}
}

func readFilter(ctx context.Context, r *Resource) query.Expr {
	if r.Hooks.ReadFilter == nil {
		return nil
	}
	return r.Hooks.ReadFilter(ctx)
}

// storeError translates store failures into kinds.
func storeError(err error, r *Resource) error {
	var dup *store.DuplicateError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &dup):
		field := strings.Join(dup.Fields, ",")
		if f := r.Field(strings.TrimPrefix(dup.Index, "uniq_")); f != nil && f.UniqueWithin != "" {
			field = f.Name // unique within its parent: the parent is not what clashed
		}
		return newError(KindConflict, CodeDuplicate, field, "another %s already has this %s", r.Title, field).WithCause(err)
	case errors.Is(err, store.ErrNotFound):
		return NotFound(r.Title).WithCause(err)
	case errors.Is(err, store.ErrUnavailable):
		return Unavailable("the store is unavailable").WithCause(err)
	}
	return err
}
