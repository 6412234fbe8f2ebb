package resource

import (
	"context"
	"strings"

	"platform/kernel/query"
	"platform/kernel/store"
)

// refFilter is the filter a reference to one record stands for: an id
// (24 hexadecimal characters, any case) or, for a resource with a natural
// key, a value of its key field. Key values can never be ids (checkKey),
// so a reference means one thing only.
func (r *Resource) refFilter(ctx context.Context, ref string) (where query.Expr, byID bool, err error) {
	if store.ValidID(ref) {
		return query.ID(lowerID(ref)), true, nil
	}
	if r.Key != "" && ref != "" && len(ref) <= r.Field(r.Key).maxLen() {
		return r.keyFilter(ctx, ref), false, nil
	}
	if r.Key != "" {
		return nil, false, Malformed(CodeBadID, "id", "%q is neither an id (24 hexadecimal characters) nor a %s", ref, r.Key)
	}
	return nil, false, Malformed(CodeBadID, "id", "%q is not a valid id (24 hexadecimal characters)", ref)
}

// keyFilter matches the key's value, within the parent ctx names when the
// key is unique per parent.
func (r *Resource) keyFilter(ctx context.Context, ref string) query.Expr {
	where := query.Eq(r.Key, ref)
	if within := r.Field(r.Key).UniqueWithin; within != "" {
		if p, ok := ctx.Value(parentKey{}).(parentRef); ok && p.plural == r.Plural {
			return query.AllOf(where, query.Eq(within, p.value))
		}
	}
	return where
}

// ambiguousKey answers a key unique per parent that several parents have
// when the caller named none.
func (r *Resource) ambiguousKey(ref string) error {
	within := r.Field(r.Key).UniqueWithin
	return Malformed(CodeBadID, within, "several %ss have the %s %q: name the %s (?%s=)", r.Title, r.Key, ref, within, within)
}

type parentKey struct{}

// parentRef is the parent named for one resource's references, so a
// hook reading another keyed resource is not narrowed by it.
type parentRef struct{ plural, value string }

// InParent is ctx in which references to r by a key unique per parent
// (Field.UniqueWithin) look in that parent only: the API passes the
// ?<parent field>= of the request.
func InParent(ctx context.Context, r *Resource, parent string) context.Context {
	return context.WithValue(ctx, parentKey{}, parentRef{r.Plural, parent})
}

// checkKey refuses key values that look like an id.
func (r *Resource) checkKey(doc store.Doc) error {
	if r.Key == "" {
		return nil
	}
	if v, ok := doc[r.Key].(string); ok && store.ValidID(v) {
		return Invalid(FieldError(CodeFormat, r.Key, "%s may not be 24 hexadecimal characters: such a value addresses records by id", r.Key))
	}
	return nil
}

func lowerID(ref string) string {
	if store.ValidID(ref) {
		return strings.ToLower(ref)
	}
	return ref
}
