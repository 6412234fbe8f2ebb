package resource

import (
	"strings"

	"platform/kernel/query"
	"platform/kernel/store"
)

// refFilter is the filter a reference to one record stands for: an id
// (24 hexadecimal characters, any case) or, for a resource with a natural
// key, a value of its key field. Key values can never be ids (checkKey),
// so a reference means one thing only.
func (r *Resource) refFilter(ref string) (where query.Expr, byID bool, err error) {
	if store.ValidID(ref) {
		return query.ID(lowerID(ref)), true, nil
	}
	if r.Key != "" && ref != "" && len(ref) <= r.Field(r.Key).maxLen() {
		return query.Eq(r.Key, ref), false, nil
	}
	if r.Key != "" {
		return nil, false, Malformed(CodeBadID, "id", "%q is neither an id (24 hexadecimal characters) nor a %s", ref, r.Key)
	}
	return nil, false, Malformed(CodeBadID, "id", "%q is not a valid id (24 hexadecimal characters)", ref)
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
