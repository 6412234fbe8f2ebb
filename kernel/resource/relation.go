package resource

import (
	"context"
	"strings"

	"platform/kernel/query"
)

// Relation is a related resource, listed in meta.relations with the right
// needed to follow it (the target's view right). One declaration gives
// both the link and, with Key, the sub-resource route.
type Relation struct {
	Rel   string // the link's rel, and the sub-resource's path segment
	Title string
	// Target is the related resource as "module/plural"; it need not be
	// mounted (a module the customer lacks).
	Target string
	// Key makes the relation a sub-resource: GET /{plural}/:id/{Rel}
	// lists the Target records whose Key field holds this record's id.
	Key   string
	Where query.Expr // extra condition of the sub-resource (notes: targetType)
	// Field makes the relation a link to one record: the Target record
	// whose id this record's Field holds.
	Field string
	// Unavailable, when it returns an error, answers the sub-resource
	// instead (e.g. a module that is not active).
	Unavailable func(ctx context.Context) error
}

// TargetModule and TargetPlural split Target.
func (rel *Relation) TargetModule() string { m, _, _ := strings.Cut(rel.Target, "/"); return m }

// TargetPlural is the plural of the related resource.
func (rel *Relation) TargetPlural() string { _, p, _ := strings.Cut(rel.Target, "/"); return p }
